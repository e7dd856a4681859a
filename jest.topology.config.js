/**
 * The production-topology run (`npm run test:topology`): self-contained (it starts the Temporal
 * server on PostgreSQL, two workers and two APIs as real processes), so no global setup; in band.
 */
const transform = { '^.+\\.(t|j)sx?$': ['@swc/jest', { jsc: { target: 'es2022' } }] };
module.exports = {
  testEnvironment: 'node',
  transform,
  testMatch: ['<rootDir>/test/topology/**/*.topology.ts'],
  testTimeout: 30 * 60_000,
  maxWorkers: 1,
  forceExit: true,
  reporters: ['default'],
};
