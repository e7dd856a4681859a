/**
 * Scheduling a match (the matchmaker's groups, an operator's exhibition): the match row and its
 * participants (seats in the order given) in the caller's transaction; the workflow starts after
 * (startScheduledMatches) and moves it to running at once.
 */
import type { PoolClient } from 'pg';
import type { ChallengeRow } from '../../db/queries/challenges';
import { insertParticipants } from '../../db/queries/match-participants';
import { insertMatch, type MatchRow } from '../../db/queries/matches';
import type { ServiceDeps } from '../../service-deps';
import { startMatchWorkflow } from './workflow-start';

export async function scheduleMatch(
  tx: PoolClient,
  challenge: Pick<ChallengeRow, 'id' | 'weight_class_id' | 'format'>,
  agentIds: string[],
  options: {
    rated: boolean;
    origin: 'matchmaker' | 'exhibition';
    roundId?: string | null;
    createdBy?: string | null;
  },
): Promise<MatchRow> {
  const match = (await insertMatch(tx, {
    challengeId: challenge.id,
    weightClassId: challenge.weight_class_id,
    kind: challenge.format === 'game' ? 'game' : 'bout',
    rated: options.rated,
    origin: options.origin,
    roundId: options.roundId ?? null,
    createdBy: options.createdBy ?? null,
  }))!;
  await insertParticipants(tx, match.id, agentIds);
  return match;
}

/**
 * How many match workflows a round starts at once. bench/arena.ts, a 500-match round: one at a
 * time took minutes; 8 at once 31 s, 32 at once 9–22 s (about as long as starting as many empty
 * workflows the same way: the starts are Temporal's round trips, not ours).
 */
export const START_CONCURRENCY = 32;

/**
 * Starts the workflows of scheduled matches (conflict-safe: a started one counts as started), up
 * to START_CONCURRENCY at once. The first failure is thrown once every start was tried: a match
 * left scheduled is started by the challenge's next matchmaking round.
 */
export async function startScheduledMatches(
  deps: Pick<ServiceDeps, 'config' | 'temporal'>,
  matches: { id: string; challengeId: string; agentIds: string[] }[],
): Promise<void> {
  let next = 0;
  let failure: unknown = null;
  const lane = async () => {
    while (next < matches.length) {
      const m = matches[next++];
      try {
        await startMatchWorkflow(deps, m);
      } catch (err) {
        failure ??= err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(START_CONCURRENCY, matches.length) }, lane));
  if (failure) throw failure;
}
