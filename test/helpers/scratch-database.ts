/**
 * A migrated database of a suite's own on the test server, for suites that alter tables or write
 * rows the shared test database's worker would act on. `create` in beforeAll, `drop` in afterAll.
 */
import { Client } from 'pg';
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
