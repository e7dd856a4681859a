import type { AppDeps } from '../../api/deps';
import { ApiError, forbidden } from '../../api/errors';
import type { LiveEventType, StreamBody } from '../../api/schemas/connector';
import type { EntryStatus } from '../../db/queries/connector';
import { ingestLiveEvent, type IngestPlans } from '../../db/queries/live-events';
import { planEntryTransition } from './entry-transitions';
import { nudgeRelay } from './relay-client';

export interface AcceptedEvent {
  seqNum: number;
  entryStatus: string;
}

const STATUSES: EntryStatus[] = ['assigned', 'active', 'submitted', 'judged', 'timed_out', 'withdrawn'];

/**
 * The transition rule for this event type under every entry status, for the database to pick
 * from once it holds the entry's lock ('<status>:reported' = a `submitted` event was already
 * streamed). The rule itself lives in one place: planEntryTransition.
 */
export function transitionPlans(type: LiveEventType): IngestPlans {
  const plans: IngestPlans = {};
  for (const status of STATUSES) plans[status] = planEntryTransition(status, type, false);
  for (const status of ['submitted', 'judged'] as const) plans[`${status}:reported`] = planEntryTransition(status, type, true);
  return plans;
}

/**
 * Stores one live event durably (one round trip: entry lock, challenge check, entry transition,
 * insert with the next gap-free seq_num), then nudges the relay after the commit.
 */
export async function acceptLiveEvent(deps: AppDeps, agentId: string, body: StreamBody): Promise<AcceptedEvent> {
  if (body.agentId !== agentId) throw forbidden('agentId does not match the agent of this key');
  const outcome = await ingestLiveEvent(deps.db, {
    challengeId: body.challengeId,
    agentId,
    type: body.event.type,
    occurredAt: body.event.timestamp,
    event: body.event,
    plans: transitionPlans(body.event.type),
  });
  if (!outcome.ok) throw outcome.status === 403 ? forbidden(outcome.message) : new ApiError('VALIDATION_ERROR', outcome.message);
  if (!outcome.sandbox) {
    // After the commit, off the request's critical path: the event is durable already, and a
    // relay that is not nudged now is nudged by a later event (or found overdue), so a failure
    // here must not fail the request.
    nudgeRelay(deps, body.challengeId);
  }
  return { seqNum: outcome.seqNum, entryStatus: outcome.entryStatus };
}
