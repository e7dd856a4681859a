/**
 * Regressions (both found by the fault run): a connection terminated by the server (a PostgreSQL
 * restart) while a client is checked out, between two queries of a transaction or in the very
 * packet that completed the connection, used to be an unhandled 'error' event on the client, which
 * killed the worker. Both must be a rejected promise instead, with the pool still usable.
 */
import net from 'node:net';
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

/**
 * A TCP proxy in front of the real PostgreSQL that, on each connection, delivers the server's first
 * ReadyForQuery and a FATAL "terminating connection" in ONE packet, then closes: what a backend
 * that PostgreSQL's shutdown terminates just as its connection completes looks like on the wire.
 */
async function terminatingProxy(): Promise<{ url: string; close(): Promise<void> }> {
  const upstream = new URL(testEnvironment().DATABASE_URL);
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const server = net.connect(Number(upstream.port), upstream.hostname);
    sockets.add(client).add(server);
    client.on('error', () => undefined).pipe(server);
    server.on('error', () => undefined);
    let pending = Buffer.alloc(0);
    server.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      // Messages are a type byte and a length that counts itself: find the first 'Z'.
      for (let at = 0; at + 5 <= pending.length;) {
        const end = at + 1 + pending.readInt32BE(at + 1);
        if (end > pending.length) break;
        if (pending[at] === 'Z'.charCodeAt(0)) {
          client.end(Buffer.concat([pending.subarray(0, end), fatalAdminShutdown()]));
          server.destroy();
          return;
        }
        at = end;
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  const url = new URL(upstream);
  url.host = `127.0.0.1:${port}`;
  return {
    url: url.toString(),
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** An ErrorResponse as PostgreSQL sends it to its backends' clients on a fast shutdown. */
function fatalAdminShutdown(): Buffer {
  const fields = [
    ['S', 'FATAL'],
    ['V', 'FATAL'],
    ['C', '57P01'],
    ['M', 'terminating connection due to administrator command'],
  ];
  const body = Buffer.concat([
    ...fields.map(([code, text]) => Buffer.from(`${code}${text}\0`, 'utf8')),
    Buffer.from([0]),
  ]);
  const header = Buffer.alloc(5);
  header.write('E', 0);
  header.writeInt32BE(4 + body.length, 1);
  return Buffer.concat([header, body]);
}

test('a connection terminated in the packet that completes it rejects the transaction; the process survives', async () => {
  const proxy = await terminatingProxy();
  const pool = createPool(proxy.url, 2);
  const unhandled: unknown[] = [];
  const onUncaught = (err: unknown) => unhandled.push(err);
  process.on('uncaughtException', onUncaught);
  try {
    // The checked-out client gets its FATAL before withTransaction could listen for it (the pool
    // hands the client over through a promise): only a listener from the pool itself catches it.
    await expect(withTransaction(pool, (tx) => tx.query('SELECT 1'))).rejects.toThrow();
    await expect(pool.query('SELECT 1')).rejects.toThrow();
    expect(unhandled).toEqual([]);
  } finally {
    process.off('uncaughtException', onUncaught);
    await pool.end();
    await proxy.close();
  }
});
