import type { ServiceDeps } from '../../service-deps';
import { ServiceError, forbidden } from '../../errors';
import type { LiveEventType, StreamRequest } from '../../wire/connector';
import { ENTRY_STATUSES, type EntryStatus } from '../../db/queries/entries';
import { ingestLiveEvent, type IngestPlans } from '../../db/queries/live-events';
import { storableJson } from '../../lib/storable-text';
import { planEntryTransition } from './rules';
import { nudgeRelay } from './relay-client';
import { assertKeyActsFor } from './policy';

export interface AcceptedEvent {
  seqNum: number;
  entryStatus: string;
  /** The event was already stored under this Idempotency-Key: nothing new was stored. */
  replayed: boolean;
}

const STATUSES: readonly EntryStatus[] = ENTRY_STATUSES;

/**
 * The transition rule for this event type under every entry status, for the database to pick
 * from once it holds the entry's lock ('<status>:reported' = a `submitted` event was already
 * streamed). The rule itself lives in one place: planEntryTransition.
 */
export function transitionPlans(type: LiveEventType): IngestPlans {
  const plans: IngestPlans = {};
  for (const status of STATUSES) plans[status] = planEntryTransition(status, type, false);
  for (const status of ['submitted', 'judged'] as const)
    plans[`${status}:reported`] = planEntryTransition(status, type, true);
  return plans;
}

/**
 * Stores one live event durably (one round trip: entry lock, challenge check, entry transition,
 * insert with the next gap-free seq_num), then nudges the relay after the commit. With an
 * Idempotency-Key the key is stored with the event, so a repeat that gets past the pipeline's
 * idempotency record (a crash between the insert and that record's completion) still answers the
 * original seq_num and stores nothing; the same key for another event is 409.
 */
export async function acceptLiveEvent(
  deps: ServiceDeps,
  agentId: string,
  body: StreamRequest,
  idempotencyKey: string | null = null,
): Promise<AcceptedEvent> {
  assertKeyActsFor(agentId, body.agentId);
  const outcome = await ingestLiveEvent(deps.db, {
    challengeId: body.challengeId,
    agentId,
    type: body.event.type,
    occurredAt: body.event.timestamp,
    // The pipeline refused NUL and lone surrogates already; the sanitizer is what the query accepts.
    event: storableJson(body.event),
    plans: transitionPlans(body.event.type),
    idempotencyKey,
  });
  if (!outcome.ok) {
    if (outcome.status === 403) throw forbidden(outcome.message);
    if (outcome.status === 409) throw new ServiceError('IDEMPOTENCY_KEY_REUSED', outcome.message);
    throw new ServiceError('VALIDATION_ERROR', outcome.message);
  }
  if (!outcome.sandbox) {
    // After the commit, off the request's critical path: the event is durable already, and a
    // relay that is not nudged now is nudged by a later event (or found overdue), so a failure
    // here must not fail the request. A replay nudges too: the original may have died before it did.
    nudgeRelay(deps, body.challengeId);
  }
  return { seqNum: outcome.seqNum, entryStatus: outcome.entryStatus, replayed: outcome.replayed };
}
