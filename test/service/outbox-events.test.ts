/**
 * The outbox write (src/db/queries/outbox-events.ts): every event of a state change goes in with
 * its NOTIFY in one statement. Its ids come back in the order given, each event gets its own row
 * and its own notification, and nothing is notified before the transaction commits or at all when
 * it rolls back. Runs on a scratch database of its own: broadcast events written to the shared test
 * database would be fanned out to other suites' subscriptions by the worker's dispatcher.
 */
import { Client, Pool } from 'pg';
import { withTransaction } from '../../src/db/pool';
import { OUTBOX_CHANNEL } from '../../src/db/queries/outbox-events';
import { emitEvent, emitEvents, type DomainEvent } from '../../src/events/outbox';
import { eventually } from '../helpers/factories';
import { scratchDatabase } from '../helpers/scratch-database';

const scratch = scratchDatabase('outbox');

let pool: Pool;
let listener: Client;
const notified: string[] = [];

beforeAll(async () => {
  await scratch.create();
  pool = new Pool({ connectionString: scratch.url, max: 2 });
  listener = new Client({ connectionString: scratch.url });
  await listener.connect();
  listener.on('notification', (msg) => {
    if (msg.channel === OUTBOX_CHANNEL && msg.payload) notified.push(msg.payload);
  });
  await listener.query(`LISTEN ${OUTBOX_CHANNEL}`);
}, 60_000);
afterAll(async () => {
  await listener?.end();
  await pool?.end();
  await scratch.drop();
});

const event = (type: DomainEvent['type'], n: number): DomainEvent => ({
  type,
  payload: { n },
  ownerUserId: null,
  challengeId: null,
});

test('events of one statement come back in the order given, one row and one NOTIFY each, at commit', async () => {
  const given = [
    event('submission.completed', 1),
    event('result.finalized', 2),
    event('breakdown.generated', 3),
    event('result.finalized', 2), // the same event twice is two events
  ];
  let ids: string[] = [];
  await withTransaction(pool, async (tx) => {
    ids = await emitEvents(tx, given);
    // NOTIFY leaves at commit: a round trip on the listener's own connection delivers anything pending.
    await listener.query('SELECT 1');
    expect(notified.filter((id) => ids.includes(id))).toEqual([]);
  });
  expect(new Set(ids).size).toBe(4);
  const rows = await pool.query<{ id: string; event_type: string; payload: { n: number } }>(
    'SELECT id, event_type, payload FROM outbox_events WHERE id = ANY($1::uuid[])',
    [ids],
  );
  const byId = new Map(rows.rows.map((r) => [r.id, r]));
  expect(ids.map((id) => [byId.get(id)?.event_type, byId.get(id)?.payload.n])).toEqual(
    given.map((e) => [e.type, e.payload.n]),
  );
  await eventually(async () => notified.filter((id) => ids.includes(id)).length === ids.length);
  expect(notified.filter((id) => ids.includes(id)).sort()).toEqual([...ids].sort());
});

test('a rolled-back transaction leaves no event and notifies nothing', async () => {
  let id = '';
  await expect(
    withTransaction(pool, async (tx) => {
      id = await emitEvent(tx, event('submission.failed', 9));
      throw new Error('the state change failed');
    }),
  ).rejects.toThrow('the state change failed');
  expect(id).toMatch(/^[0-9a-f-]{36}$/);
  const after = await emitEvent(pool, event('submission.failed', 10)); // a later, committed one
  await eventually(async () => notified.includes(after));
  expect(notified).not.toContain(id);
  expect((await pool.query('SELECT 1 FROM outbox_events WHERE id = $1', [id])).rowCount).toBe(0);
});

test('no events, no statement', async () => {
  await expect(emitEvents(pool, [])).resolves.toEqual([]);
});
