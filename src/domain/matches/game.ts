/**
 * A game match's own steps (workflows/match.ts, after start.ts made it running): wait in the
 * service's judging queue for one slot per player (the deadline counts from the grant), then play
 * it: the participants' latest validated programs handed to the game judge (../games/judge.ts,
 * which plays `games_per_match` games in the wall on the judging task queue and answers a result),
 * and store in one transaction the replay, each participant's stderr per game, the placements (by
 * total reward) and the completion (settle.ts). A match past its whole-match wall cap is stopped
 * and voided; a match voided while it plays is stopped within VOID_CHECK_MS (it reads its status
 * between heartbeats, beside Temporal's cancellation, which a throttled heartbeat may deliver only
 * tens of seconds later): the judge is aborted (the referee stops, the players' sandboxes are
 * killed), the queue's row is released and nothing is stored.
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { withTransaction } from '../../db/pool';
import { findChallengeById } from '../../db/queries/challenges';
import { removeWork, touchWork } from '../../db/queries/judging-queue';
import { insertMatchLog, insertReplay } from '../../db/queries/match-replays';
import { listParticipants } from '../../db/queries/match-participants';
import { findMatchById, lockMatch, setMatchDeadline, type MatchRow } from '../../db/queries/matches';
import { latestValidatedSubmissions } from '../../db/queries/results';
import { findSubmissionById } from '../../db/queries/submissions';
import { JudgeInfrastructureError } from '../../judging/errors';
import { wallSeats } from '../../judging/games/programs';
import type { SubmissionForJudging } from '../../judging/types';
import { isDeterministicError } from '../../lib/deterministic-error';
import { storableJson, storableText } from '../../lib/storable-text';
import type { ServiceDeps } from '../../service-deps';
import { playGameMatch, type MatchResult } from '../games/judge';
import { gameMatchCapMs, participantLogs } from '../games/rules';
import { matchQueueWork } from '../judging-queue/order';
import { RUNNING_TTL_SECONDS, waitForSlots } from '../judging-queue/queue';
import type { SettleOutcome } from './contract';
import { gameDeadlineMs, placeGame } from './rules';
import { finishInTransaction, settleOutcome } from './settle';

type Deps = Pick<ServiceDeps, 'db' | 'logger' | 'config'>;

/** How often a playing match reads whether it was voided meanwhile. */
const VOID_CHECK_MS = 1_000;

/** The abort reason when the match was voided while its games ran. */
class MatchVoidedWhilePlaying extends Error {
  constructor(status: string) {
    super(`the match became ${status} while its games ran`);
  }
}

/** The judging queue's key of a game match's work. */
export function gameMatchWorkKey(matchId: string): string {
  return `game-match:${matchId}`;
}

export function createGameMatchSteps(deps: Deps) {
  const outcome = (m: MatchRow | null): SettleOutcome => settleOutcome(m, true, deps.config.ARENA_POLL_MS);

  /** Ends the match as void in its transaction (once), with the reason. */
  const voidWith = (matchId: string, reason: string) =>
    withTransaction(deps.db, async (tx) => {
      const locked = await lockMatch(tx, matchId);
      if (!locked || locked.status !== 'running') return locked;
      return (await finishInTransaction(tx, locked, 'void', storableText(reason), null)) ?? locked;
    });

  return {
    /**
     * Waits (heartbeating) until the judging queue grants the match one slot per player (a matchmaker's match counted per seat
     * against its owner, an exhibition against no owner), then sets
     * the match's absolute deadline from this moment (its wall cap + the slack: waiting in the
     * queue does not count); answers it (null when the match is no longer running).
     */
    async waitForGameMatchSlots(input: {
      matchId: string;
    }): Promise<{ slots: number; deadlineAt: string | null }> {
      const ctx = Context.current();
      const participants = await listParticipants(deps.db, [input.matchId]);
      const queued = await findMatchById(deps.db, input.matchId);
      const counted = matchQueueWork(
        queued?.origin ?? 'exhibition',
        participants.map((p) => ({ ownerUserId: p.owner_user_id, agentId: p.agent_id })),
      );
      const slots = await waitForSlots(
        deps.db,
        deps.config,
        {
          workKey: gameMatchWorkKey(input.matchId),
          kind: 'game',
          priority: counted.priority,
          ownerUserId: null,
          agentId: null,
          owners: counted.owners,
          submissionId: null,
          run: null,
          slots: Math.max(1, participants.length),
        },
        { signal: ctx.cancellationSignal, onPoll: (details) => ctx.heartbeat(details) },
      );
      const match = await findMatchById(deps.db, input.matchId);
      const challenge = match ? await findChallengeById(deps.db, match.challenge_id) : null;
      if (!match || !challenge) return { slots, deadlineAt: null };
      let capMs: number;
      try {
        capMs = gameMatchCapMs(challenge.judge, Math.max(1, participants.length));
      } catch {
        return { slots, deadlineAt: null }; // not a game judge: the play step voids it
      }
      const withDeadline = await setMatchDeadline(deps.db, match.id, gameDeadlineMs(capMs));
      return { slots, deadlineAt: withDeadline?.deadline_at?.toISOString() ?? null };
    },

    /**
     * Gives the match's slots back (idempotent): a match voided after its grant but before its play
     * step started holds them otherwise (the play step's own `finally` never ran).
     */
    async releaseGameMatchSlots(input: { matchId: string }): Promise<void> {
      await removeWork(deps.db, gameMatchWorkKey(input.matchId));
    },

    /**
     * Plays the match's games and completes it (placements, replay, logs, match.completed), or
     * voids it (no validated program for someone, the wall cap). Idempotent: a match that is not
     * running changes nothing. The wall failing is retryable (the activity's retry plays again).
     */
    async playGameMatchGames(input: { matchId: string }): Promise<SettleOutcome> {
      const ctx = Context.current();
      const key = gameMatchWorkKey(input.matchId);
      const tick = setInterval(() => {
        ctx.heartbeat({ phase: 'playing' });
        void touchWork(deps.db, key, RUNNING_TTL_SECONDS).catch(() => undefined);
      }, 5_000);
      try {
        const match = await findMatchById(deps.db, input.matchId);
        if (!match || match.status !== 'running') return outcome(match);
        const challenge = await findChallengeById(deps.db, match.challenge_id);
        if (!challenge) return outcome(await voidWith(match.id, 'the challenge is gone'));
        const participants = await listParticipants(deps.db, [match.id]);
        // Every player is a sandbox of its own at once: a worker with fewer slots can never play it
        // (retrying would fail the workflow and leave the match running).
        const seats = await wallSeats();
        if (participants.length > seats)
          return outcome(
            await voidWith(
              match.id,
              `a game of ${participants.length} players needs ${participants.length} judging slots at once; this worker has ${seats} (JUDGE_SLOTS)`,
            ),
          );
        const chosen = await latestValidatedSubmissions(
          deps.db,
          challenge.id,
          participants.map((p) => p.agent_id),
        );
        const programs: { agentId: string; submissionId: string; program: SubmissionForJudging }[] = [];
        for (const p of participants) {
          const submissionId = chosen.get(p.agent_id);
          const submission = submissionId ? await findSubmissionById(deps.db, submissionId) : null;
          if (!submissionId || !submission)
            return outcome(await voidWith(match.id, `agent ${p.agent_id} has no validated program`));
          programs.push({
            agentId: p.agent_id,
            submissionId,
            program: { content: submission.content, files: submission.files, language: submission.language },
          });
        }

        const capMs = gameMatchCapMs(challenge.judge, participants.length);
        const capped = new AbortController();
        const cap = setTimeout(() => capped.abort(new Error('whole-match wall cap')), capMs);
        const onCancel = () => capped.abort(ctx.cancellationSignal.reason);
        ctx.cancellationSignal.addEventListener('abort', onCancel, { once: true });
        let looking = false;
        const voidCheck = setInterval(() => {
          if (looking || capped.signal.aborted) return;
          looking = true;
          findMatchById(deps.db, match.id)
            .then((now) => {
              if (now?.status !== 'running')
                capped.abort(new MatchVoidedWhilePlaying(now?.status ?? 'missing'));
            })
            .catch(() => undefined)
            .finally(() => (looking = false));
        }, VOID_CHECK_MS);
        let result: MatchResult;
        try {
          result = await playGameMatch({
            judge: challenge.judge,
            matchId: match.id,
            participants: programs.map(({ agentId, program }) => ({ agentId, program })),
            signal: capped.signal,
          });
          capped.signal.throwIfAborted();
        } catch (err) {
          if (capped.signal.reason instanceof MatchVoidedWhilePlaying && !ctx.cancellationSignal.aborted) {
            deps.logger.info({ matchId: match.id }, 'game match stopped: voided while playing');
            return outcome(await findMatchById(deps.db, match.id));
          }
          if (capped.signal.aborted && !ctx.cancellationSignal.aborted) {
            deps.logger.warn({ matchId: match.id, capMs }, 'game match stopped at its wall cap');
            return outcome(
              await voidWith(match.id, `the match went past its wall cap of ${Math.round(capMs / 1000)} s`),
            );
          }
          if (err instanceof JudgeInfrastructureError)
            throw ApplicationFailure.create({
              message: err.message,
              type: err.name,
              nonRetryable: !err.retryable,
            });
          throw err;
        } finally {
          clearTimeout(cap);
          clearInterval(voidCheck);
          ctx.cancellationSignal.removeEventListener('abort', onCancel);
        }

        // withRecords false: the replay and logs could not be stored (a value the database
        // refuses, which a retry would meet again); the match completes with what can be stored.
        const finish = (withRecords: boolean) =>
          withTransaction(deps.db, async (tx) => {
            const locked = await lockMatch(tx, match.id);
            if (!locked || locked.status !== 'running') return locked;
            if (withRecords) {
              // Players' actions and stderr are outside text: storable JSON only.
              await insertReplay(tx, {
                matchId: match.id,
                game: result.replay.game,
                replay: storableJson(result.replay),
              });
              for (const [index, p] of result.participants.entries()) {
                await insertMatchLog(tx, {
                  matchId: match.id,
                  agentId: p.id,
                  games: storableJson(participantLogs(p, index, participants.length)),
                });
              }
            }
            const placements = placeGame(
              programs.map((program, index) => ({
                agentId: program.agentId,
                total: result.participants[index].total,
                submissionId: program.submissionId,
              })),
            );
            return (await finishInTransaction(tx, locked, 'complete', null, placements)) ?? locked;
          });
        const finished = await finish(true).catch((err: unknown) => {
          if (!isDeterministicError(err)) throw err;
          deps.logger.warn(
            { err, matchId: match.id },
            'game match records not storable; completing without them',
          );
          return finish(false);
        });
        deps.logger.info({ matchId: match.id, status: finished?.status }, 'game match finished');
        return outcome(finished);
      } finally {
        clearInterval(tick);
        await removeWork(deps.db, key).catch(() => undefined);
      }
    },
  };
}

export type GameMatchSteps = ReturnType<typeof createGameMatchSteps>;
