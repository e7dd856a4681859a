/**
 * How every match ends, bouts and games alike: finished in its transaction (complete with its
 * placements, or void with its reason), then its rating hand-off (the match workflow's last step).
 * bout.ts and game.ts place it; deadline.ts and void.ts void it; all of them end it here.
 */
import type { PoolClient } from 'pg';
import { recordPlacement, listParticipants } from '../../db/queries/match-participants';
import { finishMatch, type MatchRow } from '../../db/queries/matches';
import { lockWeightClassRatings } from '../../db/queries/ratings';
import { timeOutBoutEntries } from '../../db/queries/entries';
import { closeBoutSessions } from '../../db/queries/sessions';
import { emitEventPerOwner } from '../../events/outbox';
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
 * completions exactly as they commit (ratings apply in that order).
 */
export async function finishInTransaction(
  tx: PoolClient,
  match: MatchRow,
  status: 'complete' | 'void',
  reason: StorableText | null,
  placements: Placement[] | null,
): Promise<MatchRow | null> {
  if (status === 'complete' && match.rated) await lockWeightClassRatings(tx, match.weight_class_id);
  const finished = await finishMatch(tx, match.id, status, reason);
  if (!finished) return null;
  for (const p of placements ?? []) await recordPlacement(tx, match.id, p);
  await timeOutBoutEntries(tx, match.id);
  await closeBoutSessions(tx, match.id);
  const participants = await listParticipants(tx, [match.id]);
  await emitEventPerOwner(
    tx,
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
  );
  return finished;
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
