import { Pool, PoolClient, QueryResultRow } from 'pg';

export type Db = Pool;
export type Queryable = Pick<Pool, 'query'> | PoolClient;

export function createPool(connectionString: string, max = 20): Pool {
  const pool = new Pool({ connectionString, max, application_name: 'challenge-service' });
  // An idle client losing its connection (e.g. PostgreSQL restart) must not crash the process.
  pool.on('error', () => undefined);
  return pool;
}

/** Runs fn in one transaction; rolls back on any throw. */
export async function withTransaction<T>(pool: Pool, fn: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

export async function queryOne<T extends QueryResultRow>(
  db: Queryable,
  text: string,
  values: unknown[] = [],
): Promise<T | null> {
  const res = await db.query<T>(text, values);
  return res.rows[0] ?? null;
}
