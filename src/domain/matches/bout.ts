/**
 * A bout's own steps (workflows/match.ts, after start.ts made it running): look at it (over at
 * ends_at, or once everyone opened and closed a session), end it (sessions closed), settle it
 * (placement once judging is done or the grace is over; settle.ts ends it). Each step locks the
 * match row, re-checks its status and changes it only forward, so a re-delivered activity, a
 * crashed worker or a restarted Temporal server change nothing.
 */
import { withTransaction } from '../../db/pool';
import { databaseNow } from '../../db/queries/challenges';
import {
  bestBoutScores,
  boutSessionState,
  countPendingBoutSubmissions,
  listParticipants,
} from '../../db/queries/match-participants';
import { findMatchById, lockMatch, markBoutEnded, type MatchRow } from '../../db/queries/matches';
import { closeBoutSessions } from '../../db/queries/sessions';
import { storableText } from '../../lib/storable-text';
import type { PoolClient } from 'pg';
import type { ServiceDeps } from '../../service-deps';
import type { LookOrFinish, MatchSnapshot, SettleOutcome } from './contract';
import { applyPendingRatingsIn } from './ratings';
import { everyoneLeftBout, JUDGING_GRACE_MS, placeBout } from './rules';
import { finishInTransaction, settleOutcome } from './settle';
import { snapshotOf } from './start';

type Deps = Pick<ServiceDeps, 'db' | 'logger' | 'config'>;

/**
 * The settlement of a running bout whose end is recorded (`match` locked in `tx`, `now` the
 * database's): placed once nothing made before its end is still being judged, or once the grace
 * after its end is over (whatever is judged by then counts). Everyone forfeiting → void.
 */
async function settleLocked(
  tx: PoolClient,
  match: MatchRow,
  now: Date,
  logger: ServiceDeps['logger'],
  pollMs: number,
): Promise<SettleOutcome> {
  const outcome = (m: MatchRow | null, settled: boolean) => settleOutcome(m, settled, pollMs);
  const endedAt = match.bout_ended_at;
  const graceOver = !!endedAt && now.getTime() >= endedAt.getTime() + JUDGING_GRACE_MS;
  if (!graceOver && (await countPendingBoutSubmissions(tx, match.id)) > 0) return outcome(match, false);
  const participants = await listParticipants(tx, [match.id]);
  const best = new Map((await bestBoutScores(tx, match.id, JUDGING_GRACE_MS)).map((b) => [b.agent_id, b]));
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
  logger.info({ matchId: match.id, status: placed.status }, 'match finished');
  return outcome(finished ?? match, true);
}

export function createBoutSteps(deps: Deps) {
  const steps = {
    /** Is the bout over? ends_at reached, voided, or every participant opened and closed a session. */
    async matchLook(input: { matchId: string }): Promise<MatchSnapshot> {
      const match = await findMatchById(deps.db, input.matchId);
      if (!match || match.status !== 'running') return snapshotOf(deps, match, true);
      const now = await databaseNow(deps.db);
      if (match.bout_ended_at || (match.ends_at && match.ends_at <= now))
        return snapshotOf(deps, match, true);
      return snapshotOf(deps, match, everyoneLeftBout(await boutSessionState(deps.db, match.id)));
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
        if (!match || match.status !== 'running')
          return settleOutcome(match, true, deps.config.ARENA_POLL_MS);
        const ended = match.bout_ended_at ? match : ((await markBoutEnded(tx, match.id)) ?? match);
        return settleLocked(tx, ended, await databaseNow(tx), deps.logger, deps.config.ARENA_POLL_MS);
      });
    },

    /**
     * The look, and once the bout is over its end, its settlement and (complete and rated) the
     * class's ratings (BOUT_ONE_STEP_PATCH), all in one transaction on the locked match: each part
     * is the step above, so a retry repeats nothing (the end and settlement re-check, the ratings
     * apply each match once). One transaction, not four (issue 42: a played match's statements and
     * commits); a look that finds the bout still on changes nothing.
     */
    matchLookOrFinish(input: { matchId: string }): Promise<LookOrFinish> {
      return withTransaction(deps.db, async (tx) => {
        const match = await lockMatch(tx, input.matchId);
        const now = await databaseNow(tx);
        let settle: SettleOutcome;
        if (!match || match.status !== 'running') {
          settle = settleOutcome(match, true, deps.config.ARENA_POLL_MS);
        } else {
          const over =
            !!match.bout_ended_at ||
            (!!match.ends_at && match.ends_at <= now) ||
            everyoneLeftBout(await boutSessionState(tx, match.id));
          if (!over) return { look: snapshotOf(deps, match, false), settle: null, ratingsApplied: false };
          const ended = match.bout_ended_at ? match : ((await markBoutEnded(tx, match.id)) ?? match);
          await closeBoutSessions(tx, match.id);
          settle = await settleLocked(tx, ended, now, deps.logger, deps.config.ARENA_POLL_MS);
        }
        const rate = settle.settled && settle.status === 'complete' && settle.rated && !!settle.weightClassId;
        if (rate) await applyPendingRatingsIn(tx, settle.weightClassId!);
        return { look: snapshotOf(deps, match, true), settle, ratingsApplied: rate };
      });
    },
  };
  return steps;
}

export type BoutSteps = ReturnType<typeof createBoutSteps>;
