/** One jest config: unit tests (pure logic) and integration tests (real PostgreSQL, Temporal, HTTP). */
const transform = { '^.+\\.(t|j)sx?$': ['@swc/jest', { jsc: { target: 'es2022' } }] };
module.exports = {
  testEnvironment: 'node',
  transform,
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  globalSetup: '<rootDir>/test/setup/global-setup.ts',
  globalTeardown: '<rootDir>/test/setup/global-teardown.ts',
  testSequencer: '<rootDir>/test/setup/sequencer.js',
  testTimeout: 60_000,
  maxWorkers: 2,
  // grpc-js (Temporal client) leaves reconnect timers inside jest's module sandbox after close;
  // plain Node exits cleanly (checked with tsx), so only the test runner is forced.
  forceExit: true,
  reporters: ['default'],
};
