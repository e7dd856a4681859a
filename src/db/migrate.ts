import path from 'node:path';
import { Client } from 'pg';
import { runner } from 'node-pg-migrate';

export const MIGRATIONS_DIR = path.join(__dirname, 'migrations');

/** Creates the database named in the URL when it does not exist (dev and CI convenience). */
export async function ensureDatabase(databaseUrl: string): Promise<void> {
  const url = new URL(databaseUrl);
  const dbName = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (!/^[A-Za-z0-9_]+$/.test(dbName)) throw new Error(`refusing to create database with name ${dbName}`);
  url.pathname = '/postgres';
  const admin = new Client({ connectionString: url.toString() });
  await admin.connect();
  try {
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [dbName]);
    if (exists.rowCount === 0) {
      await admin.query(`CREATE DATABASE "${dbName}"`).catch((err: { code?: string }) => {
        if (err.code !== '42P04') throw err; // created concurrently by another process
      });
    }
  } finally {
    await admin.end();
  }
}

/** Applies every pending forward-only migration (node-pg-migrate, SQL files). */
export async function migrate(
  databaseUrl: string,
  log: (msg: string) => void = () => undefined,
): Promise<void> {
  await ensureDatabase(databaseUrl);
  await runner({
    databaseUrl,
    dir: MIGRATIONS_DIR,
    direction: 'up',
    migrationsTable: 'pgmigrations',
    // Files from parallel branches may land out of numeric order; each stays forward-only.
    checkOrder: false,
    singleTransaction: true,
    log,
    // node-pg-migrate reports (as an error, harmlessly) that area-numbered names (1000_, 2500_…) are not timestamps; by design.
    logger: {
      debug: () => undefined,
      info: log,
      warn: log,
      error: (m: string) => (/determine timestamp/.test(m) ? undefined : log(m)),
    },
    noLock: false,
  });
}
