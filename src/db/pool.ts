import { Pool, PoolClient, QueryResultRow } from 'pg';

export type Db = Pool;
export type Queryable = Pick<Pool, 'query'> | PoolClient;

/**
 * `synchronousCommit: false` makes the pool's sessions commit without waiting for the WAL flush
 * (a crash may lose the last fraction of a second of its writes): for data that needs no
 * durability, such as rate-limit counters.
 */
export function createPool(
  connectionString: string,
  max = 20,
  settings: { synchronousCommit?: boolean; idleTimeoutMs?: number } = {},
): Pool {
  const pool = new Pool({
    connectionString,
    max,
    application_name: 'challenge-service',
    ...(settings.idleTimeoutMs !== undefined ? { idleTimeoutMillis: settings.idleTimeoutMs } : {}),
    ...(settings.synchronousCommit === false ? { options: '-c synchronous_commit=off' } : {}),
  });
  // An idle client losing its connection (e.g. PostgreSQL restart) must not crash the process.
  pool.on('error', () => undefined);
  // pg-pool takes its own listener off a client before handing it over, and `pool.connect()` hands
  // it over through a promise: a FATAL in the packet that completed the connection (a restart
  // terminating a new backend) is emitted before the caller can listen, and would kill the process
  // (found by the fault run). Every client listens from birth; the error is not lost: the client is
  // then unqueryable, so its next query rejects and the pool drops it on release.
  pool.on('connect', (client) => client.on('error', () => undefined));
  return pool;
}

/** Runs fn in one transaction; rolls back on any throw. */
export async function withTransaction<T>(pool: Pool, fn: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  // A checked-out client has no pool error listener: a connection terminated between two queries
  // (e.g. a PostgreSQL restart) would otherwise be an unhandled 'error' event that kills the
  // process (found by the fault run). The broken client is then destroyed instead of pooled.
  let broken: Error | undefined;
  const onError = (err: Error) => {
    broken = err;
  };
  client.on('error', onError);
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.removeListener('error', onError);
    client.release(broken);
  }
}

/**
 * The first row, or null. `statementName` makes it a named statement, prepared once per
 * connection (PostgreSQL then skips parsing and planning): for hot-path reads with a fixed text
 * that select named columns (a `*` would fail the cached plan once a migration adds a column).
 */
export async function queryOne<T extends QueryResultRow>(
  db: Queryable,
  text: string,
  values: unknown[] = [],
  statementName?: string,
): Promise<T | null> {
  const res = statementName
    ? await db.query<T>({ name: statementName, text, values })
    : await db.query<T>(text, values);
  return res.rows[0] ?? null;
}

/** Resolves when the database answers a trivial query (readiness checks). */
export async function pingDatabase(db: Queryable): Promise<void> {
  await db.query('SELECT 1');
}
