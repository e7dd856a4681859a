import { iso } from '../src/lib/time';
import { databaseNow, lockChallengeById, updateChallenge, type ChallengeRow, type ChallengeStatus } from '../src/db/queries/challenges';
import { withTransaction } from '../src/db/pool';
import { emitEvent } from '../src/events/outbox';
import type { ActivityDeps } from './index';

/** What the lifecycle workflow learns back: the database's current truth for the challenge. */
export interface ChallengeLifecycleSnapshot {
  status: ChallengeStatus | 'missing';
  startsAt: string | null;
  endsAt: string | null;
  startedEventAt: string | null;
  /** This call emitted the event (false: not due, not active, or already emitted). */
  emitted: boolean;
}

function snapshot(row: ChallengeRow | null, emitted: boolean): ChallengeLifecycleSnapshot {
  if (!row) return { status: 'missing', startsAt: null, endsAt: null, startedEventAt: null, emitted: false };
  return { status: row.status, startsAt: iso(row.starts_at), endsAt: iso(row.ends_at), startedEventAt: iso(row.started_event_at), emitted };
}

/**
 * A time is due when the database clock has passed it, or when it is exactly the time whose
 * timer just fired in the workflow (Temporal's clock decided; no clock-skew loop).
 */
function isDue(at: Date, now: Date, expected: string | null): boolean {
  return at.getTime() <= now.getTime() || (expected !== null && at.getTime() === Date.parse(expected));
}

/**
 * Lifecycle activities. Each runs in one transaction with the challenge row locked (so it waits
 * for an operator transition in flight and sees its outcome), re-checks the state, and guards
 * its event with a column written in the same transaction: running twice emits once.
 */
export function createChallengeActivities(deps: Pick<ActivityDeps, 'db' | 'logger'>) {
  return {
    /** challenge.started, once, when an active challenge's starts_at (or its publication, when null) has come. */
    async challengeStartReached(input: { challengeId: string; expectedStartsAt: string | null }): Promise<ChallengeLifecycleSnapshot> {
      return withTransaction(deps.db, async (tx) => {
        const row = await lockChallengeById(tx, input.challengeId);
        if (!row || row.status !== 'active') return snapshot(row, false);
        const now = await databaseNow(tx);
        if (row.starts_at && !isDue(row.starts_at, now, input.expectedStartsAt)) return snapshot(row, false);
        if (row.started_event_at) return snapshot(row, false);
        const updated = await updateChallenge(tx, row.id, { started_event_at: now });
        await emitEvent(tx, {
          type: 'challenge.started',
          payload: { challenge_id: row.id, status: 'active', starts_at: iso(row.starts_at) },
          challengeId: row.id,
          ownerUserId: null,
        });
        deps.logger.info({ challengeId: row.id }, 'challenge started');
        return snapshot(updated, true);
      });
    },

    /** active → complete and challenge.ended, once, when ends_at has come (only if still active). */
    async challengeEndReached(input: { challengeId: string; expectedEndsAt: string | null }): Promise<ChallengeLifecycleSnapshot> {
      return withTransaction(deps.db, async (tx) => {
        const row = await lockChallengeById(tx, input.challengeId);
        if (!row || row.status !== 'active' || !row.ends_at) return snapshot(row, false);
        const now = await databaseNow(tx);
        if (!isDue(row.ends_at, now, input.expectedEndsAt)) return snapshot(row, false);
        const updated = await updateChallenge(tx, row.id, { status: 'complete', ended_event_at: now });
        await emitEvent(tx, {
          type: 'challenge.ended',
          payload: { challenge_id: row.id, status: 'complete', ends_at: iso(row.ends_at) },
          challengeId: row.id,
          ownerUserId: null,
        });
        deps.logger.info({ challengeId: row.id }, 'challenge ended');
        return snapshot(updated, true);
      });
    },
  };
}

export type ChallengeActivities = ReturnType<typeof createChallengeActivities>;
