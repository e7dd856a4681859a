import type { Queryable } from '../db/pool';
import type { EventType } from './types';

export interface DomainEvent {
  type: EventType;
  /** Event-specific fields (snake_case), e.g. {submission_id, final_score, result_state, challenge_id}. */
  payload: Record<string, unknown>;
  /** Owner of the agent the event is about; null broadcasts to every subscriber of the type (challenge events). */
  ownerUserId?: string | null;
  challengeId?: string | null;
  /** Sandbox activity is kept out of public views; deliveries still go to the owner. */
  sandbox?: boolean;
}

/** Channel the outbox dispatcher LISTENs on; NOTIFY is delivered only when the transaction commits. */
export const OUTBOX_CHANNEL = 'outbox_events';

/**
 * Records a domain event in the transactional outbox. Call it with the same transaction client
 * as the state change it describes, so the event exists exactly when the change does.
 */
export async function emitEvent(db: Queryable, event: DomainEvent): Promise<string> {
  const res = await db.query<{ id: string }>(
    `INSERT INTO outbox_events (event_type, payload, owner_user_id, challenge_id, sandbox)
     VALUES ($1, $2, $3, $4, $5) RETURNING id`,
    [event.type, JSON.stringify(event.payload), event.ownerUserId ?? null, event.challengeId ?? null, event.sandbox ?? false],
  );
  const id = res.rows[0].id;
  await db.query('SELECT pg_notify($1, $2)', [OUTBOX_CHANNEL, id]);
  return id;
}
