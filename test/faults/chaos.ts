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

/** `pg_ctlcluster --skip-systemctl-redirect <version> main restart`, then waits until it accepts connections. */
export async function restartPostgres(connectionString: string): Promise<number> {
  const version = readdirSync('/etc/postgresql').sort()[0];
  const started = Date.now();
  await run('pg_ctlcluster', ['--skip-systemctl-redirect', version, 'main', 'restart'], { timeout: 120_000 });
  for (let i = 0; i < 240; i++) {
    const client = new Client({ connectionString, connectionTimeoutMillis: 1000 });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.query('SELECT 1');
      await client.end();
      return Date.now() - started;
    } catch {
      await client.end().catch(() => undefined);
      await sleep(250);
    }
  }
  throw new Error('PostgreSQL did not come back within 60 s after the restart');
}
