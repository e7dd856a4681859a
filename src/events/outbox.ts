import type { Queryable } from '../db/pool';
import { insertOutboxEvents, type NewOutboxEvent } from '../db/queries/outbox-events';
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

/** The outbox row of an event (for a store that inserts rows: ChallengeStore, MatchFinishStore). */
export const eventRow = (event: DomainEvent): NewOutboxEvent => ({
  type: event.type,
  payload: event.payload,
  ownerUserId: event.ownerUserId ?? null,
  challengeId: event.challengeId ?? null,
  sandbox: event.sandbox ?? false,
});

/**
 * Records a domain event in the transactional outbox. Call it with the same transaction client
 * as the state change it describes, so the event exists exactly when the change does.
 */
export async function emitEvent(db: Queryable, event: DomainEvent): Promise<string> {
  const [id] = await insertOutboxEvents(db, [eventRow(event)]);
  return id;
}

/** Records several events of one state change in one statement (ids in the order given). */
export function emitEvents(db: Queryable, events: DomainEvent[]): Promise<string[]> {
  return insertOutboxEvents(db, events.map(eventRow));
}

/**
 * One event per distinct owner (an event about several owners' agents, e.g. a match): each owner's
 * subscriptions receive it once, however many of their agents take part.
 */
export function emitEventPerOwner(
  db: Queryable,
  event: Omit<DomainEvent, 'ownerUserId'>,
  ownerUserIds: string[],
): Promise<string[]> {
  return insertOutboxEvents(db, eventRowsPerOwner(event, ownerUserIds));
}

/** The outbox rows of emitEventPerOwner, for a store that inserts them (MatchFinishStore). */
export function eventRowsPerOwner(
  event: Omit<DomainEvent, 'ownerUserId'>,
  ownerUserIds: string[],
): NewOutboxEvent[] {
  return [...new Set(ownerUserIds)].map((ownerUserId) => eventRow({ ...event, ownerUserId }));
}
