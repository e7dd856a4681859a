/**
 * The matchmaker's round (the step of workflows/matchmaker.ts) and the operators' view of the last
 * one. A round is recorded once per (challenge, round number), with the matches it scheduled, in
 * one transaction: a re-delivered round finds its record and only makes sure its matches'
 * workflows run (starting a workflow twice is harmless), so it never schedules twice.
 */
import { randomUUID } from 'node:crypto';
import { withTransaction } from '../../db/pool';
import { findChallengeById, lockChallengeById } from '../../db/queries/challenges';
import { listGameMatchCandidates, listMatchCandidates } from '../../db/queries/entries';
import { listParticipants, pairHistory } from '../../db/queries/match-participants';
import { insertRoundMatches, listMatchIdsOfRound, listScheduledMatchIds } from '../../db/queries/matches';
import {
  findLatestRound,
  findRound,
  insertRound,
  lastRoundNo,
  type MatchmakingRoundRow,
} from '../../db/queries/matchmaking-rounds';
import { notFound } from '../../errors';
import type { ServiceDeps } from '../../service-deps';
import type { MatchmakingRoundOutcome } from './contract';
import { enterability } from '../challenges/rules';
import { isMatchFormat, isProvisional, matchSettingsOf, planRound } from './rules';
import { startScheduledMatches } from './schedule';
import { ensureMatchmaker } from './workflow-start';

type Deps = Pick<ServiceDeps, 'db' | 'logger' | 'config' | 'temporal'>;

async function startMatchesOf(deps: Deps, matchIds: string[], challengeId: string): Promise<void> {
  const participants = await listParticipants(deps.db, matchIds);
  await startScheduledMatches(
    deps,
    matchIds.map((id) => ({
      id,
      challengeId,
      agentIds: participants.filter((p) => p.match_id === id).map((p) => p.agent_id),
    })),
  );
}

export function createMatchmakingSteps(deps: Deps) {
  return {
    async matchmakingRound(input: { challengeId: string; round: number }): Promise<MatchmakingRoundOutcome> {
      const challenge = await findChallengeById(deps.db, input.challengeId);
      if (!challenge || challenge.status !== 'active' || !isMatchFormat(challenge.format))
        return { stop: true, nextInMs: 0, matchIds: [] };
      const settings = matchSettingsOf(challenge);
      const nextInMs = settings.every_minutes * deps.config.ARENA_MINUTE_MS;
      // Not started yet (or past its end, about to complete): no round now.
      if (!enterability(challenge).ok) return { stop: false, nextInMs, matchIds: [] };

      const existing = await findRound(deps.db, challenge.id, input.round);
      if (existing) {
        const matchIds = await listMatchIdsOfRound(deps.db, existing.id);
        await startMatchesOf(deps, matchIds, challenge.id);
        return { stop: false, nextInMs, matchIds };
      }

      const recorded = await withTransaction(deps.db, async (tx) => {
        const locked = await lockChallengeById(tx, challenge.id, 'share');
        if (!locked || locked.status !== 'active') return null;
        // Bouts: entered and online; games: a validated program (DESIGN "Games").
        const candidates =
          challenge.format === 'game'
            ? await listGameMatchCandidates(tx, {
                challengeId: challenge.id,
                weightClassId: challenge.weight_class_id,
              })
            : await listMatchCandidates(tx, {
                challengeId: challenge.id,
                weightClassId: challenge.weight_class_id,
                onlineMs: deps.config.AGENT_ONLINE_WINDOW_MS,
              });
        const agentIds = candidates.map((c) => c.agent_id);
        const pairs = await pairHistory(tx, challenge.id, agentIds);
        const now = new Date();
        const plan = planRound({
          candidates: candidates.map((c) => ({
            agentId: c.agent_id,
            ordinal: c.ordinal ?? 0,
            provisional: isProvisional(c.rated_matches),
            matchesLastHour: c.matches_last_hour,
            ownerUserId: c.owner_user_id,
          })),
          pairs: pairs.map((p) => ({
            a: p.a,
            b: p.b,
            countLastDay: p.count_last_day,
            lastMetAtMs: p.last_met_at.getTime(),
          })),
          settings,
          nowMs: now.getTime(),
          seed: `${challenge.id}:${input.round}`,
        });
        // An idle round (nobody eligible) after an idle round says nothing new: not recorded, so an
        // unattended match challenge does not write a row per round forever (every minute, a
        // day's 1,440). The first idle one is, so the last recorded round tells an operator so.
        if (candidates.length === 0) {
          const previous = await findLatestRound(tx, challenge.id);
          const previousEligible = (previous?.summary as { eligible?: unknown[] } | undefined)?.eligible;
          if (previous && Array.isArray(previousEligible) && previousEligible.length === 0)
            return { idle: true as const };
        }
        const round = await insertRound(tx, {
          challengeId: challenge.id,
          roundNo: input.round,
          summary: {
            eligible: candidates.map((c) => ({
              agent_id: c.agent_id,
              ordinal: c.ordinal ?? 0,
              provisional: isProvisional(c.rated_matches),
            })),
            groups: plan.groups,
            waiting: plan.waiting,
            settings,
          },
        });
        if (!round) return null; // a concurrent run of this round recorded it first
        // Set-based: one statement for the round's matches and participants (one per group was a
        // thousand round trips at 1,000 agents).
        const matchIds: string[] = plan.groups.map(() => randomUUID());
        await insertRoundMatches(tx, {
          challengeId: challenge.id,
          weightClassId: challenge.weight_class_id,
          kind: challenge.format === 'game' ? 'game' : 'bout',
          rated: settings.rated,
          roundId: round.id,
          ids: matchIds,
          groups: plan.groups,
        });
        return { round, matchIds, groups: plan.groups };
      });
      if (recorded && 'idle' in recorded) return { stop: false, nextInMs, matchIds: [] };
      if (!recorded) {
        const again = await findRound(deps.db, challenge.id, input.round);
        const matchIds = again ? await listMatchIdsOfRound(deps.db, again.id) : [];
        await startMatchesOf(deps, matchIds, challenge.id);
        return { stop: false, nextInMs, matchIds };
      }
      // Matches of any earlier round whose workflow never started (a crash between commit and start).
      const ours = new Set(recorded.matchIds);
      const open = (await listScheduledMatchIds(deps.db, challenge.id, 100)).filter((id) => !ours.has(id));
      const participants = await listParticipants(deps.db, open);
      await startScheduledMatches(deps, [
        ...recorded.matchIds.map((id, index) => ({
          id,
          challengeId: challenge.id,
          agentIds: recorded.groups[index],
        })),
        ...open.map((id) => ({
          id,
          challengeId: challenge.id,
          agentIds: participants.filter((p) => p.match_id === id).map((p) => p.agent_id),
        })),
      ]);
      deps.logger.info(
        { challengeId: challenge.id, round: input.round, matches: recorded.matchIds.length },
        'matchmaking round',
      );
      return { stop: false, nextInMs, matchIds: recorded.matchIds };
    },
  };
}

export type MatchmakingSteps = ReturnType<typeof createMatchmakingSteps>;

/** Starts the matchmaker of an active match challenge (head_to_head, game) after publish; others: nothing. */
export async function startMatchmakerFor(
  deps: Deps,
  challenge: { id: string; format: string; status: string },
): Promise<void> {
  if (!isMatchFormat(challenge.format) || challenge.status !== 'active') return;
  try {
    await ensureMatchmaker(deps, challenge.id, (await lastRoundNo(deps.db, challenge.id)) + 1);
  } catch (err) {
    deps.logger.warn({ err, challengeId: challenge.id }, 'could not start the matchmaker');
  }
}

export interface MatchmakingView {
  challenge_id: string;
  round: number | null;
  ran_at: string | null;
  eligible: unknown[];
  groups: unknown[];
  waiting: unknown[];
  match_ids: string[];
}

/** GET /api/v1/admin/challenges/{id}/matchmaking: the last round (nulls before the first). */
export async function lastMatchmakingRound(
  deps: Pick<ServiceDeps, 'db'>,
  challengeId: string,
): Promise<MatchmakingView> {
  const challenge = await findChallengeById(deps.db, challengeId);
  if (!challenge) throw notFound('challenge');
  const round: MatchmakingRoundRow | null = await findLatestRound(deps.db, challengeId);
  if (!round)
    return {
      challenge_id: challengeId,
      round: null,
      ran_at: null,
      eligible: [],
      groups: [],
      waiting: [],
      match_ids: [],
    };
  const summary = round.summary as { eligible?: unknown[]; groups?: unknown[]; waiting?: unknown[] };
  return {
    challenge_id: challengeId,
    round: round.round_no,
    ran_at: round.ran_at.toISOString(),
    eligible: summary.eligible ?? [],
    groups: summary.groups ?? [],
    waiting: summary.waiting ?? [],
    match_ids: await listMatchIdsOfRound(deps.db, round.id),
  };
}
