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

/** Inserts the event and notifies the dispatcher (the NOTIFY leaves when the transaction commits). */
export async function insertOutboxEvent(db: Queryable, event: NewOutboxEvent): Promise<string> {
  const res = await db.query<{ id: string }>(
    `INSERT INTO outbox_events (event_type, payload, owner_user_id, challenge_id, sandbox)
     VALUES ($1, $2, $3, $4, $5) RETURNING id`,
    [event.type, JSON.stringify(event.payload), event.ownerUserId, event.challengeId, event.sandbox],
  );
  const id = res.rows[0].id;
  await db.query('SELECT pg_notify($1, $2)', [OUTBOX_CHANNEL, id]);
  return id;
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
