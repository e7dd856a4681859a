/**
 * A bout's life, as the match workflow's steps (workflows/match.ts): start it (assignments to every
 * participant at once), look at it (over at ends_at, or once everyone opened and closed a
 * session), end it (sessions closed), settle it (placement once judging is done or the grace is
 * over). Each step locks the match row, re-checks its status and changes it only forward, so a
 * re-delivered activity, a crashed worker or a restarted Temporal server change nothing.
 */
import type { PoolClient } from 'pg';
import { withTransaction } from '../../db/pool';
import { databaseNow, findChallengeById } from '../../db/queries/challenges';
import { insertBoutEntries, timeOutBoutEntries } from '../../db/queries/entries';
import {
  bestBoutScores,
  boutSessionState,
  countPendingBoutSubmissions,
  listParticipants,
  recordPlacement,
} from '../../db/queries/match-participants';
import {
  findMatchById,
  finishMatch,
  lockMatch,
  markBoutEnded,
  markMatchRunning,
  type MatchRow,
} from '../../db/queries/matches';
import { lockWeightClassRatings } from '../../db/queries/ratings';
import { closeBoutSessions } from '../../db/queries/sessions';
import { emitEventPerOwner } from '../../events/outbox';
import type { ServiceDeps } from '../../service-deps';
import type { MatchSnapshot, SettleOutcome } from './contract';
import { boutDeadlineMs, boutMinutes, JUDGING_GRACE_MS, placeBout, type Placement } from './rules';
import { applyPendingRatings } from './ratings';
import { gameMatchCapMs } from '../games/rules';
import { type StorableText, storableText } from '../../lib/storable-text';

type Deps = Pick<ServiceDeps, 'db' | 'logger' | 'config'>;

function snapshotOf(deps: Deps, match: MatchRow | null, boutOver: boolean): MatchSnapshot {
  return {
    status: match ? match.status : 'missing',
    kind: match?.kind ?? 'bout',
    endsAt: match?.ends_at ? match.ends_at.toISOString() : null,
    deadlineAt: match?.deadline_at ? match.deadline_at.toISOString() : null,
    boutOver,
    pollMs: deps.config.ARENA_POLL_MS,
    weightClassId: match?.weight_class_id ?? null,
    rated: match?.rated ?? false,
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

export function createBoutSteps(deps: Deps) {
  return {
    /**
     * scheduled → running (once): started now, ending after the bout's length; every participant's
     * bout entry `assigned` at the same moment; match.started to each owner. A match whose challenge
     * stopped being active before it started is void.
     */
    matchStart(input: { matchId: string }): Promise<MatchSnapshot> {
      return withTransaction(deps.db, async (tx) => {
        const match = await lockMatch(tx, input.matchId);
        if (!match || match.status !== 'scheduled') return snapshotOf(deps, match, false);
        const challenge = await findChallengeById(tx, match.challenge_id);
        if (!challenge || challenge.status !== 'active') {
          const voided = await finishInTransaction(
            tx,
            match,
            'void',
            storableText('the challenge is not active'),
            null,
          );
          return snapshotOf(deps, voided, true);
        }
        const participants = await listParticipants(tx, [match.id]);
        // Deleted agents are never matched: one deleted after the scheduling voids the match.
        const deleted = participants.find((p) => p.agent_deleted);
        if (deleted) {
          const voided = await finishInTransaction(
            tx,
            match,
            'void',
            storableText(`agent ${deleted.agent_id} was deleted`),
            null,
          );
          return snapshotOf(deps, voided, true);
        }
        // A game match's end is its whole-match wall cap; a bout's, its length.
        const runningMs =
          match.kind === 'game'
            ? gameMatchCapMs(challenge.judge, participants.length)
            : boutMinutes(challenge) * deps.config.ARENA_MINUTE_MS;
        // A bout's deadline runs from its start; a game match's from its slots' grant (match-steps.ts).
        const deadlineMs = match.kind === 'bout' ? boutDeadlineMs(runningMs) : null;
        const running = (await markMatchRunning(tx, match.id, runningMs, deadlineMs))!;
        // Game matches are played by the service (no bout entries, sessions or submissions).
        if (match.kind === 'bout')
          await insertBoutEntries(tx, {
            matchId: match.id,
            challengeId: match.challenge_id,
            agentIds: participants.map((p) => p.agent_id),
          });
        await emitEventPerOwner(
          tx,
          {
            type: 'match.started',
            payload: {
              match_id: match.id,
              challenge_id: match.challenge_id,
              participants: participants.map((p) => ({ agent_id: p.agent_id })),
            },
            challengeId: match.challenge_id,
          },
          participants.map((p) => p.owner_user_id),
        );
        deps.logger.info({ matchId: match.id }, 'match started');
        return snapshotOf(deps, running, false);
      });
    },

    /** Is the bout over? ends_at reached, voided, or every participant opened and closed a session. */
    async matchLook(input: { matchId: string }): Promise<MatchSnapshot> {
      const match = await findMatchById(deps.db, input.matchId);
      if (!match || match.status !== 'running') return snapshotOf(deps, match, true);
      const now = await databaseNow(deps.db);
      if (match.bout_ended_at || (match.ends_at && match.ends_at <= now))
        return snapshotOf(deps, match, true);
      const sessions = await boutSessionState(deps.db, match.id);
      const everyoneDone = sessions.length > 0 && sessions.every((s) => s.opened && !s.open_now);
      return snapshotOf(deps, match, everyoneDone);
    },

    /** The bout's end (once): its time recorded, its sessions closed. */
    matchEndBout(input: { matchId: string }): Promise<MatchSnapshot> {
      return withTransaction(deps.db, async (tx) => {
        const match = await lockMatch(tx, input.matchId);
        if (!match) return snapshotOf(deps, null, true);
        const ended = match.status === 'running' ? await markBoutEnded(tx, match.id) : null;
        await closeBoutSessions(tx, match.id);
        return snapshotOf(deps, ended ?? match, true);
      });
    },

    /**
     * Places the bout once nothing made before its end is still being judged, or once the grace
     * after its end is over (whatever is judged by then counts). Everyone forfeiting → void.
     */
    matchSettle(input: { matchId: string }): Promise<SettleOutcome> {
      return withTransaction(deps.db, async (tx) => {
        const match = await lockMatch(tx, input.matchId);
        const outcome = (m: MatchRow | null, settled: boolean): SettleOutcome => ({
          settled,
          status: m ? m.status : 'missing',
          pollMs: deps.config.ARENA_POLL_MS,
          rated: !!m && m.status === 'complete' && m.rated,
          weightClassId: m?.weight_class_id ?? null,
        });
        if (!match || match.status !== 'running') return outcome(match, true);
        const endedAt = match.bout_ended_at ?? (await markBoutEnded(tx, match.id))?.bout_ended_at;
        const now = await databaseNow(tx);
        const graceOver = !!endedAt && now.getTime() >= endedAt.getTime() + JUDGING_GRACE_MS;
        if (!graceOver && (await countPendingBoutSubmissions(tx, match.id)) > 0) return outcome(match, false);
        const participants = await listParticipants(tx, [match.id]);
        const best = new Map(
          (await bestBoutScores(tx, match.id, JUDGING_GRACE_MS)).map((b) => [b.agent_id, b]),
        );
        const placed = placeBout(
          participants.map((p) => {
            const b = best.get(p.agent_id);
            return {
              agentId: p.agent_id,
              best: b ? { score: Number(b.score), submissionId: b.submission_id } : null,
            };
          }),
        );
        const finished = await finishInTransaction(
          tx,
          match,
          placed.status,
          placed.status === 'void' ? storableText('every participant forfeited') : null,
          placed.placements,
        );
        deps.logger.info({ matchId: match.id, status: placed.status }, 'match finished');
        return outcome(finished ?? match, true);
      });
    },

    /** Applies the weight class's rated matches not applied yet, in completion order (once each). */
    async matchApplyRatings(input: { weightClassId: string }): Promise<{ applied: number }> {
      return { applied: await applyPendingRatings(deps.db, input.weightClassId) };
    },
  };
}

export type BoutSteps = ReturnType<typeof createBoutSteps>;
