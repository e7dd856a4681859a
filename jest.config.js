/**
 * One jest config, three projects (`--selectProjects unit|sandbox|integration`; plain `npx jest`
 * runs them all, as `npm test` does):
 * - unit (`npm run test:unit`): pure logic, pages and domain operations with the fakes
 *   (test/fakes: in-memory Temporal client, hand-moved clock, recording database); no PostgreSQL,
 *   no Temporal server, no worker, no child process: seconds;
 * - sandbox: the judging tests that run real child processes (the OS sandbox, the esbuild child);
 *   no stack, but minutes on a busy machine;
 * - integration: real PostgreSQL, Temporal dev server and worker over HTTP, and the property runs
 *   (global setup below, started only when a test of this project runs).
 */
const transform = { '^.+\\.(t|j)sx?$': ['@swc/jest', { jsc: { target: 'es2022' } }] };
const SANDBOX = [
  '<rootDir>/test/unit/judging/toolchain.test.ts',
  '<rootDir>/test/unit/judging/tests-judge.test.ts',
  // The referee and `cli play` with players as plain child processes.
  '<rootDir>/test/unit/judging/games/referee.test.ts',
  '<rootDir>/test/unit/cli/games-play.test.ts',
];
const project = (displayName, rest) => ({ displayName, testEnvironment: 'node', transform, ...rest });
module.exports = {
  testTimeout: 60_000,
  maxWorkers: 2,
  testSequencer: '<rootDir>/test/setup/sequencer.js',
  // grpc-js (Temporal client) leaves reconnect timers inside jest's module sandbox after close;
  // plain Node exits cleanly (checked with tsx), so only the test runner is forced.
  forceExit: true,
  reporters: ['default'],
  projects: [
    project('unit', {
      testMatch: ['<rootDir>/test/unit/**/*.test.ts'],
      testPathIgnorePatterns: ['/node_modules/', ...SANDBOX],
    }),
    project('sandbox', { testMatch: SANDBOX }),
    project('integration', {
      testMatch: ['<rootDir>/test/**/*.test.ts'],
      testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/unit/'],
      globalSetup: '<rootDir>/test/setup/global-setup.ts',
      globalTeardown: '<rootDir>/test/setup/global-teardown.ts',
    }),
  ],
};
