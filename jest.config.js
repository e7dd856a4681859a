/**
 * One jest config, three tiers named by what a test needs (docs/testing.md); each runs alone with
 * `npx jest --selectProjects unit|service|system`, and `npm test` (scripts/test.sh) runs them in
 * that order after the lint step:
 * - unit (`test/unit`): no process, no socket: rules, policies, pages, domain operations on the
 *   fakes (test/fakes); passes with PostgreSQL and Temporal unreachable;
 * - service (`test/service`): PostgreSQL and the API in-process, Temporal (dev server, or the
 *   test's own worker on it); no judging worker, no sandbox;
 * - system (`test/system`): the worker process, the OS sandbox, Chromium, builds, properties that
 *   judge. Global setup per tier (test/setup), started only when a test of that tier runs.
 * The fault run and the production topology have configs of their own (jest.faults.config.js,
 * jest.topology.config.js).
 */
const transform = { '^.+\\.(t|j)sx?$': ['@swc/jest', { jsc: { target: 'es2022' } }] };
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
    project('unit', { testMatch: ['<rootDir>/test/unit/**/*.test.ts'] }),
    project('service', {
      testMatch: ['<rootDir>/test/service/**/*.test.ts'],
      globalSetup: '<rootDir>/test/setup/global-setup-service.ts',
      globalTeardown: '<rootDir>/test/setup/global-teardown.ts',
    }),
    project('system', {
      testMatch: ['<rootDir>/test/system/**/*.test.ts'],
      globalSetup: '<rootDir>/test/setup/global-setup.ts',
      globalTeardown: '<rootDir>/test/setup/global-teardown.ts',
    }),
  ],
};
