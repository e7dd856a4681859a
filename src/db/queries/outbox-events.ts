import type { Queryable } from '../pool';

/** Channel the outbox dispatcher LISTENs on; NOTIFY is delivered only when the transaction commits. */
export const OUTBOX_CHANNEL = 'outbox_events';

export interface OutboxEventRow {
  id: string;
  event_type: string;
  payload: Record<string, unknown>;
  owner_user_id: string | null;
  challenge_id: string | null;
  sandbox: boolean;
  created_at: Date;
}

export interface NewOutboxEvent {
  type: string;
  payload: Record<string, unknown>;
  ownerUserId: string | null;
  challengeId: string | null;
  sandbox: boolean;
}

/**
 * Inserts the events and notifies the dispatcher of each (the NOTIFYs leave when the transaction
 * commits), all in one named statement: an event costs its transaction no extra round trip.
 * Returns the ids in the order given.
 */
export async function insertOutboxEvents(db: Queryable, events: NewOutboxEvent[]): Promise<string[]> {
  if (events.length === 0) return [];
  // Ids are drawn once in a materialised CTE, so the NOTIFY and the answer name the rows inserted.
  const res = await db.query<{ id: string }>({
    name: 'outbox_insert',
    text: `WITH given AS MATERIALIZED (
             SELECT gen_random_uuid() AS id, g.*
               FROM unnest($1::text[], $2::jsonb[], $3::uuid[], $4::uuid[], $5::boolean[])
                    WITH ORDINALITY AS g(event_type, payload, owner_user_id, challenge_id, sandbox, ord)
           ), inserted AS (
             INSERT INTO outbox_events (id, event_type, payload, owner_user_id, challenge_id, sandbox)
             SELECT id, event_type, payload, owner_user_id, challenge_id, sandbox FROM given
             RETURNING id
           )
           SELECT given.id, pg_notify($6, given.id::text)
             FROM given JOIN inserted USING (id)
            ORDER BY given.ord`,
    values: [
      events.map((e) => e.type),
      events.map((e) => JSON.stringify(e.payload)),
      events.map((e) => e.ownerUserId),
      events.map((e) => e.challengeId),
      events.map((e) => e.sandbox),
      OUTBOX_CHANNEL,
    ],
  });
  return res.rows.map((r) => r.id);
}

/** Claims up to `limit` undispatched events, oldest first, skipping those another dispatcher holds. */
export async function claimUndispatchedEvents(db: Queryable, limit: number): Promise<OutboxEventRow[]> {
  const res = await db.query<OutboxEventRow>(
    `SELECT id, event_type, payload, owner_user_id, challenge_id, sandbox, created_at
       FROM outbox_events
      WHERE dispatched_at IS NULL
      ORDER BY created_at
      LIMIT $1
      FOR UPDATE SKIP LOCKED`,
    [limit],
  );
  return res.rows;
}

export async function markEventsDispatched(db: Queryable, ids: string[]): Promise<void> {
  if (ids.length > 0)
    await db.query('UPDATE outbox_events SET dispatched_at = now() WHERE id = ANY($1::uuid[])', [ids]);
}
