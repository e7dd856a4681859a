/**
 * The judging steps of a submission run, called by the submission workflow's activities; each is
 * idempotent (Temporal may run it twice) and writes its transition, events and outbox rows in one
 * transaction.
 */
import type { Pool, PoolClient } from 'pg';
import { notFound } from '../../errors';
import { withTransaction } from '../../db/pool';
import { findChallengeJudge } from '../../db/queries/challenges';
import { advanceSessionEntryStatus, lockEntry } from '../../db/queries/entries';
import { heldSlots, removeSubmissionWork, touchWork } from '../../db/queries/judging-queue';
import { refreshLeaderboardEntry } from '../../db/queries/leaderboard';
import { findResultForRun, storeResult } from '../../db/queries/results';
import {
  advanceSubmissionStatus,
  findJudgeKindOfSubmission,
  findSubmissionById,
  insertSubmissionEvent,
  setSubmissionCharged,
} from '../../db/queries/submissions';
import { emitEvent, emitEvents } from '../../events/outbox';
import { runJudge, type JudgeConfigInput, type JudgeOutcome } from '../../judging';
import type { ServiceDeps } from '../../service-deps';
import { RUNNING_TTL_SECONDS, submissionWorkKey } from '../judging-queue/queue';
import type { RecordedJudgement, RunRef } from './contract';
import { countsAgainstLimits } from './rules';

const STEP_MESSAGES = {
  queued: 'queued for judging',
  judging: 'judging started',
} as const;

/**
 * Moves the submission to `queued` or `judging` within its run, recording the transition and its
 * event in one transaction. Returns false when it was already there or beyond (a retry).
 */
export async function markSubmissionStep(db: Pool, ref: RunRef, to: 'queued' | 'judging'): Promise<boolean> {
  return withTransaction(db, (tx) => recordStep(tx, ref, to));
}

/**
 * received → queued → judging in one transaction (each transition with its event, and the
 * submission.queued outbox event), and which judge the run's challenge uses: one step of the
 * workflow instead of two. A retry finds the run already there and moves nothing.
 */
export async function beginJudging(
  db: Pool,
  ref: RunRef,
): Promise<{ moved: boolean; judgeKind: string | null }> {
  return withTransaction(db, async (tx) => {
    const queued = await recordStep(tx, ref, 'queued');
    const judging = await recordStep(tx, ref, 'judging');
    return { moved: queued || judging, judgeKind: await findJudgeKindOfSubmission(tx, ref.submissionId) };
  });
}

async function recordStep(tx: PoolClient, ref: RunRef, to: 'queued' | 'judging'): Promise<boolean> {
  const row = await advanceSubmissionStatus(tx, ref.submissionId, ref.run, to);
  if (!row) return false;
  await insertSubmissionEvent(tx, {
    submissionId: row.id,
    run: ref.run,
    status: to,
    message: STEP_MESSAGES[to],
  });
  if (to === 'queued') {
    await emitEvent(tx, {
      type: 'submission.queued',
      payload: {
        submission_id: row.id,
        challenge_id: row.challenge_id,
        agent_id: row.agent_id,
        submission_status: 'queued',
      },
      ownerUserId: row.owner_user_id,
      challengeId: row.challenge_id,
      sandbox: row.sandbox,
    });
  }
  return true;
}

/**
 * Stores a judge outcome: the result (superseding the previous one), the leaderboard row, the
 * `complete` status and event, the entry's `judged` status and the submission.completed,
 * result.finalized and breakdown.generated events, all in one transaction. Idempotent per run.
 */
export async function recordJudgement(
  db: Pool,
  ref: RunRef,
  outcome: JudgeOutcome,
  judgeKind: string,
): Promise<RecordedJudgement> {
  return withTransaction(db, async (tx) => {
    const submission = await findSubmissionById(tx, ref.submissionId);
    if (!submission) throw new Error(`submission ${ref.submissionId} not found`);
    await lockEntry(tx, submission.challenge_id, submission.agent_id);
    const moved = await advanceSubmissionStatus(tx, ref.submissionId, ref.run, 'complete');
    if (!moved) {
      const existing = await findResultForRun(tx, ref.submissionId, ref.run);
      return existing
        ? {
            resultId: existing.id,
            finalScore: existing.final_score,
            resultState: existing.result_state,
            stale: false,
          }
        : { resultId: null, finalScore: null, resultState: null, stale: true };
    }
    const stored = await storeResult(tx, {
      submissionId: submission.id,
      challengeId: submission.challenge_id,
      agentId: submission.agent_id,
      run: ref.run,
      finalScore: outcome.score,
      privateScore: outcome.privateScore ?? null,
      resultState: outcome.resultState,
      judge: judgeKind,
      summary: outcome.summary,
      breakdown: outcome,
      sandbox: submission.sandbox,
      submittedAt: submission.submitted_at,
    });
    // Charged while judging; a compile error the compiler reported is given back (and a rejudge
    // that compiles charges it again).
    await setSubmissionCharged(tx, submission.id, countsAgainstLimits(outcome));
    await insertSubmissionEvent(tx, {
      submissionId: submission.id,
      run: ref.run,
      status: 'complete',
      message: `judged: ${outcome.resultState}, score ${outcome.score}`,
      data: { result_id: stored.id, final_score: outcome.score, result_state: outcome.resultState },
    });
    await refreshLeaderboardEntry(tx, submission.challenge_id, submission.agent_id);
    await advanceSessionEntryStatus(tx, submission.session_id, 'judged');
    await removeSubmissionWork(tx, submission.id, ref.run);
    const common = {
      ownerUserId: submission.owner_user_id,
      challengeId: submission.challenge_id,
      sandbox: submission.sandbox,
    };
    await emitEvents(tx, [
      {
        type: 'submission.completed',
        payload: { submission_id: submission.id, submission_status: 'completed' },
        ...common,
      },
      {
        type: 'result.finalized',
        payload: {
          submission_id: submission.id,
          challenge_id: submission.challenge_id,
          final_score: outcome.score,
          result_state: outcome.resultState,
        },
        ...common,
      },
      {
        type: 'breakdown.generated',
        payload: { submission_id: submission.id, challenge_id: submission.challenge_id },
        ...common,
      },
    ]);
    return { resultId: stored.id, finalScore: outcome.score, resultState: outcome.resultState, stale: false };
  });
}

/** Judging could not complete (grader refused, retries exhausted, judge crash): `failed`, with the reason. */
export async function markSubmissionFailed(db: Pool, ref: RunRef, reason: string): Promise<boolean> {
  const trimmed = reason.length > 1000 ? `${reason.slice(0, 999)}…` : reason;
  return withTransaction(db, async (tx) => {
    const row = await advanceSubmissionStatus(tx, ref.submissionId, ref.run, 'failed', trimmed);
    await removeSubmissionWork(tx, ref.submissionId, ref.run);
    if (!row) return false;
    await insertSubmissionEvent(tx, {
      submissionId: row.id,
      run: ref.run,
      status: 'failed',
      message: trimmed,
    });
    await emitEvent(tx, {
      type: 'submission.failed',
      payload: {
        submission_id: row.id,
        challenge_id: row.challenge_id,
        agent_id: row.agent_id,
        submission_status: 'failed',
        reason: trimmed,
      },
      ownerUserId: row.owner_user_id,
      challengeId: row.challenge_id,
      sandbox: row.sandbox,
    });
    return true;
  });
}

/** Which judge the run's challenge uses (rubric judging runs as a local activity). */
export async function markJudgingStarted(
  db: Pool,
  ref: RunRef,
): Promise<{ moved: boolean; judgeKind: string | null }> {
  const moved = await markSubmissionStep(db, ref, 'judging');
  return { moved, judgeKind: await findJudgeKindOfSubmission(db, ref.submissionId) };
}

/** How a judging run reports progress and learns it should stop (the activity's heartbeat and cancellation). */
export interface JudgingControls {
  signal?: AbortSignal;
  onProgress: (progress: unknown) => void;
  /** Every few seconds while the judge runs. */
  onTick: () => void;
}

const JUDGE_TICK_EVERY_MS = 5_000;

/**
 * Runs the challenge's judge over the submission and records the outcome (result, leaderboard,
 * `complete`, events) in one transaction. Idempotent: a run that already has its result returns it;
 * a superseded run leaves the judging queue and reports stale. NOT_FOUND when the submission or its
 * challenge is gone; the judge's own infrastructure errors propagate.
 */
export async function judgeRun(
  deps: Pick<ServiceDeps, 'db' | 'logger'>,
  ref: RunRef,
  controls: JudgingControls,
): Promise<RecordedJudgement> {
  const existing = await findResultForRun(deps.db, ref.submissionId, ref.run);
  if (existing)
    return {
      resultId: existing.id,
      finalScore: existing.final_score,
      resultState: existing.result_state,
      stale: false,
    };
  const submission = await findSubmissionById(deps.db, ref.submissionId);
  if (!submission) throw notFound('submission');
  if (
    submission.judge_run !== ref.run ||
    submission.status === 'complete' ||
    submission.status === 'failed'
  ) {
    await removeSubmissionWork(deps.db, ref.submissionId, ref.run);
    return { resultId: null, finalScore: null, resultState: null, stale: true };
  }
  const judgeConfig = await findChallengeJudge(deps.db, submission.challenge_id);
  if (judgeConfig === null) throw notFound('challenge');
  const judgeKind =
    typeof (judgeConfig as { kind?: unknown })?.kind === 'string'
      ? (judgeConfig as { kind: string }).kind
      : 'unknown';

  // A judging granted by the judging queue runs as many tests at once as it holds slots (the
  // caps count slots honestly) and keeps its slots while it runs; judges without sandboxes (and
  // runs of workflows that never queued) hold none and use the judge's default.
  const workKey = submissionWorkKey(ref.submissionId, ref.run);
  const slots = await heldSlots(deps.db, workKey);
  const tick = setInterval(() => {
    controls.onTick();
    if (slots !== null)
      touchWork(deps.db, workKey, RUNNING_TTL_SECONDS).catch((err) =>
        deps.logger.warn({ err }, 'could not refresh the judging slots'),
      );
  }, JUDGE_TICK_EVERY_MS);
  let outcome: JudgeOutcome;
  try {
    outcome = await runJudge(
      judgeConfig as JudgeConfigInput,
      { content: submission.content, files: submission.files, language: submission.language },
      {
        signal: controls.signal,
        onProgress: controls.onProgress,
        ...(slots !== null ? { testConcurrency: slots } : {}),
      },
    );
  } finally {
    clearInterval(tick);
  }
  return recordJudgement(deps.db, ref, outcome, judgeKind);
}

/**
 * The submission workflow's database steps, registered by the worker as they are (the activity
 * type names are the method names; recorded histories name them, so they do not change). What
 * needs adapting to Temporal (failure mapping, heartbeats) is in ./activities.ts.
 */
export function createJudgingSteps(db: Pool) {
  return {
    markSubmissionQueued: (ref: RunRef): Promise<boolean> => markSubmissionStep(db, ref, 'queued'),
    /** Also tells the workflow which judge the challenge uses (rubric judging runs as a local activity). */
    markSubmissionJudging: (ref: RunRef) => markJudgingStarted(db, ref),
    /** received → queued → judging in one transaction; tells the workflow which judge the challenge uses. */
    beginJudging: (ref: RunRef) => beginJudging(db, ref),
    markSubmissionFailed: (input: RunRef & { reason: string }): Promise<boolean> =>
      markSubmissionFailed(db, input, input.reason),
  };
}

export type JudgingSteps = ReturnType<typeof createJudgingSteps>;
