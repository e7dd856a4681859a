/**
 * The fault run (`npm run test:faults`): self-contained (it starts its own Temporal dev server,
 * database, worker and API as real processes), so no global setup; one file, in band.
 */
const transform = { '^.+\\.(t|j)sx?$': ['@swc/jest', { jsc: { target: 'es2022' } }] };
module.exports = {
  testEnvironment: 'node',
  transform,
  testMatch: ['<rootDir>/test/faults/**/*.faults.ts'],
  testTimeout: 45 * 60_000,
  maxWorkers: 1,
  forceExit: true,
  reporters: ['default'],
};
