/**
 * A migrated database of a suite's own on the test server, for suites that alter tables or write
 * rows the shared test database's worker would act on. `create` in beforeAll, `drop` in afterAll.
 */
import { Client, Pool } from 'pg';
import { migrate } from '../../src/db/migrate';
import { testEnvironment } from '../setup/test-env';

export interface ScratchDatabase {
  name: string;
  url: string;
  create: () => Promise<void>;
  drop: () => Promise<void>;
  /** Runs one statement as the server's admin (outside the scratch database). */
  admin: (sql: string) => Promise<void>;
}

export function scratchDatabase(label: string): ScratchDatabase {
  const base = testEnvironment().DATABASE_URL;
  const name = `challenges_${label}_${process.pid}`;
  const url = base.replace(/\/[^/]+$/, `/${name}`);
  const admin = async (sql: string) => {
    const client = new Client({ connectionString: base.replace(/\/[^/]+$/, '/postgres') });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  return {
    name,
    url,
    admin,
    create: async () => {
      await admin(`DROP DATABASE IF EXISTS ${name}`);
      await admin(`CREATE DATABASE ${name}`);
      await migrate(url);
    },
    drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

/**
 * A suite's own migrated database and a small pool on it, made in `beforeAll` and dropped in
 * `afterAll` (the store contracts on PostgreSQL share this set-up). Read the pool inside tests:
 * `const pool = scratchPool('label'); … pool()`.
 */
export function scratchPool(label: string): () => Pool {
  const scratch = scratchDatabase(label);
  let pool: Pool | undefined;
  beforeAll(async () => {
    await scratch.create();
    pool = new Pool({ connectionString: scratch.url, max: 2 });
  }, 120_000);
  afterAll(async () => {
    await pool?.end();
    await scratch.drop();
  });
  return () => {
    if (!pool) throw new Error(`scratch database ${scratch.name} is not ready (used outside a test?)`);
    return pool;
  };
}
