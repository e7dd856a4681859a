/**
 * How every match ends, bouts and games alike: finished in its transaction (complete with its
 * placements, or void with its reason), then its rating hand-off (the match workflow's last step).
 * bout.ts and game.ts place it; deadline.ts and void.ts void it; all of them end it here.
 */
import type { PoolClient } from 'pg';
import { sqlMatchFinishStore, type MatchFinishStore } from '../../db/queries/match-finish';
import type { MatchRow } from '../../db/queries/matches';
import { eventRowsPerOwner } from '../../events/outbox';
import type { StorableText } from '../../lib/storable-text';
import type { ServiceDeps } from '../../service-deps';
import type { SettleOutcome } from './contract';
import { applyPendingRatings } from './ratings';
import type { Placement } from './rules';

/** What a settling step answers the workflow about the match `m` (settled or still waiting). */
export function settleOutcome(m: MatchRow | null, settled: boolean, pollMs: number): SettleOutcome {
  return {
    settled,
    status: m ? m.status : 'missing',
    pollMs,
    rated: !!m && m.status === 'complete' && m.rated,
    weightClassId: m?.weight_class_id ?? null,
  };
}

/**
 * Finishes a match in its transaction (the row locked): its status, placements, the bout entries
 * nobody finished timed out, and match.completed to each participant's owner once. A rated
 * complete match takes its weight class's rating lock first, so `completed_seq` orders the class's
 * completions exactly as they commit (ratings apply in that order). `store`: the transaction's
 * statements (sqlMatchFinishStore(tx), or an in-memory one in a unit test).
 */
export async function finishMatchWith(
  store: MatchFinishStore,
  match: MatchRow,
  status: 'complete' | 'void',
  reason: StorableText | null,
  placements: Placement[] | null,
): Promise<MatchRow | null> {
  if (status === 'complete' && match.rated) await store.lockWeightClassRatings(match.weight_class_id);
  const finished = await store.finishMatch(match.id, status, reason);
  if (!finished) return null;
  for (const p of placements ?? []) await store.recordPlacement(match.id, p);
  await store.timeOutBoutEntries(match.id);
  await store.closeBoutSessions(match.id);
  const participants = await store.listParticipants([match.id]);
  await store.insertOutboxEvents(
    eventRowsPerOwner(
      {
        type: 'match.completed',
        payload: {
          match_id: match.id,
          challenge_id: match.challenge_id,
          result_id: finished.result_id,
          rated: status === 'complete' && match.rated,
          placements: participants.map((p) => ({
            agent_id: p.agent_id,
            rank: p.rank,
            outcome: p.outcome,
            score: p.score === null ? null : Number(p.score),
          })),
        },
        challengeId: match.challenge_id,
      },
      participants.map((p) => p.owner_user_id),
    ),
  );
  return finished;
}

/** finishMatchWith on a transaction's client (the bout, game and start steps hold one). */
export function finishInTransaction(
  tx: PoolClient,
  match: MatchRow,
  status: 'complete' | 'void',
  reason: StorableText | null,
  placements: Placement[] | null,
): Promise<MatchRow | null> {
  return finishMatchWith(sqlMatchFinishStore(tx), match, status, reason, placements);
}

export function createSettleSteps(deps: Pick<ServiceDeps, 'db'>) {
  return {
    /** Applies the weight class's rated matches not applied yet, in completion order (once each). */
    async matchApplyRatings(input: { weightClassId: string }): Promise<{ applied: number }> {
      return { applied: await applyPendingRatings(deps.db, input.weightClassId) };
    },
  };
}

export type SettleSteps = ReturnType<typeof createSettleSteps>;
