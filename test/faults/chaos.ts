/**
 * Faults the fault run injects, besides SIGKILLing its own processes (bench/lib/processes.ts):
 * a PostgreSQL restart, done only when no other engineer's jest run is active (it would disrupt it).
 */
import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { foreignJestProcesses } from '../../bench/lib/machine';
import { sleep } from '../../bench/lib/processes';

const run = promisify(execFile);

/**
 * Waits (polling) until no jest process but ours runs, up to `maxWaitMs`. Returns how long it
 * waited, or null when others still ran at the end (the caller then skips the restart).
 */
export async function waitForExclusivePostgres(
  maxWaitMs: number,
  log: (msg: string) => void,
  pollMs = 15_000,
): Promise<number | null> {
  const started = Date.now();
  for (;;) {
    const others = foreignJestProcesses();
    if (others.length === 0) return Date.now() - started;
    if (Date.now() - started >= maxWaitMs) {
      log(
        `other jest runs still active after ${Math.round((Date.now() - started) / 1000)} s: ${others.join(' | ')}`,
      );
      return null;
    }
    log(`waiting for other jest runs before restarting PostgreSQL: ${others.length} process(es)`);
    await sleep(pollMs);
  }
}

/**
 * The cluster the fault run restarts: the machine's `main` (CI), or FAULTS_PG_CLUSTER (with
 * FAULTS_PG_VERSION) on a shared machine, a cluster of one's own that the run's database lives on
 * (BENCH_PG_BASE pointing at its port; docs/testing.md).
 */
export const PG_CLUSTER = process.env.FAULTS_PG_CLUSTER ?? 'main';

/** Only a restart of the shared `main` cluster disturbs other engineers' runs. */
export const restartDisturbsOthers = PG_CLUSTER === 'main';

/** `pg_ctlcluster --skip-systemctl-redirect <version> <cluster> restart`, then waits until it accepts connections. */
export async function restartPostgres(connectionString: string): Promise<number> {
  const version = process.env.FAULTS_PG_VERSION ?? readdirSync('/etc/postgresql').sort()[0];
  const started = Date.now();
  await run('pg_ctlcluster', ['--skip-systemctl-redirect', version, PG_CLUSTER, 'restart'], {
    timeout: 120_000,
  });
  // 50 ms apart: the down time is what the run measures, a coarser poll would only add to it.
  for (let i = 0; i < 1200; i++) {
    const client = new Client({ connectionString, connectionTimeoutMillis: 1000 });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.query('SELECT 1');
      await client.end();
      return Date.now() - started;
    } catch {
      await client.end().catch(() => undefined);
      await sleep(50);
    }
  }
  throw new Error('PostgreSQL did not come back within 60 s after the restart');
}
