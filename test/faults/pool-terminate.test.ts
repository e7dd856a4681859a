/**
 * Regression (found by the fault run): a connection terminated by the server between two queries of
 * a transaction (a PostgreSQL restart) used to be an unhandled 'error' event on the checked-out
 * client, which killed the worker. withTransaction must turn it into a rejected promise instead.
 */
import { createPool, withTransaction } from '../../src/db/pool';
import { eventually } from '../helpers/factories';
import { testEnvironment } from '../setup/test-env';

test('a transaction whose connection is terminated between queries rejects; the process survives', async () => {
  const pool = createPool(testEnvironment().DATABASE_URL, 2);
  const killer = createPool(testEnvironment().DATABASE_URL, 1);
  const unhandled: unknown[] = [];
  const onUncaught = (err: unknown) => unhandled.push(err);
  process.on('uncaughtException', onUncaught);
  try {
    const outcome = withTransaction(pool, async (tx) => {
      const { rows } = await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      await killer.query('SELECT pg_terminate_backend($1)', [rows[0].pid]);
      // The server's FATAL message arrives while no query is active on this client: wait until the
      // backend is gone (it sends the message before it exits), not for a guessed 300 ms.
      await eventually(
        async () =>
          (
            await killer.query<{ n: number }>(
              'SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid = $1',
              [rows[0].pid],
            )
          ).rows[0].n === 0,
        10_000,
        20,
      );
      await tx.query('SELECT 1');
    });
    await expect(outcome).rejects.toThrow();
    expect(unhandled).toEqual([]);
    // The pool dropped the broken client and still works.
    await expect(pool.query('SELECT 1 AS one')).resolves.toMatchObject({ rows: [{ one: 1 }] });
  } finally {
    process.off('uncaughtException', onUncaught);
    await pool.end();
    await killer.end();
  }
});
