import { startStack } from './global-setup';

/**
 * The service tier (test/service): PostgreSQL and Temporal, no worker. A workflow a test starts
 * here waits for a worker that never comes; a test that needs one belongs in test/system.
 */
export default async function globalSetup(): Promise<void> {
  await startStack({ worker: false });
}
