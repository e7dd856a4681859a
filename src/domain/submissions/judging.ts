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
import { sqlPrivatePassStore, type PrivatePassStore } from '../../db/queries/private-passes';
import { findResultForRun, storeResult, type PrivateState } from '../../db/queries/results';
import {
  advanceSubmissionStatus,
  findJudgeKindOfSubmission,
  findSubmissionById,
  insertSubmissionEvent,
  setSubmissionCharged,
} from '../../db/queries/submissions';
import { emitEvent, emitEvents } from '../../events/outbox';
import {
  failedPrivatePass,
  hasPrivatePass,
  judgeConfigSchema,
  mergePrivatePass,
  runJudge,
  type JudgeConfig,
  type JudgeConfigInput,
  type JudgeOutcome,
} from '../../judging';
import { sanitizeJson, sanitizeText, storableJson, storableText } from '../../lib/storable-text';
import type { ServiceDeps } from '../../service-deps';
import { RUNNING_TTL_SECONDS, privatePassWorkKey, submissionWorkKey } from '../judging-queue/queue';
import { isDeterministicError } from '../../lib/deterministic-error';
import type { RecordedJudgement, RunRef } from './contract';
import { countsAgainstLimits, verdictsOnly } from './rules';

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
    message: storableText(STEP_MESSAGES[to]),
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
  /** 'pending' when a private pass follows this (public) outcome; by default what the outcome holds. */
  privateState: PrivateState = outcome.privateScore == null ? 'none' : 'done',
): Promise<RecordedJudgement> {
  return withTransaction(db, async (tx) => {
    const submission = await findSubmissionById(tx, ref.submissionId);
    if (!submission) throw new Error(`submission ${ref.submissionId} not found`);
    await lockEntry(tx, submission.challenge_id, submission.agent_id);
    const moved = await advanceSubmissionStatus(tx, ref.submissionId, ref.run, 'complete');
    if (!moved) {
      const existing = await findResultForRun(tx, ref.submissionId, ref.run);
      return existing
        ? recordedOf(existing)
        : { resultId: null, finalScore: null, resultState: null, stale: true };
    }
    const stored = await storeResult(tx, {
      submissionId: submission.id,
      challengeId: submission.challenge_id,
      agentId: submission.agent_id,
      run: ref.run,
      finalScore: outcome.score,
      privateScore: privateState === 'pending' ? null : (outcome.privateScore ?? null),
      privateState,
      resultState: outcome.resultState,
      judge: judgeKind,
      // What a judge reports quotes the program, the grader or the compiler: stored as storable text.
      summary: sanitizeText(outcome.summary).value,
      breakdown: sanitizeJson(outcome).value,
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
      message: storableText(`judged: ${outcome.resultState}, score ${outcome.score}`),
      data: storableJson({
        result_id: stored.id,
        final_score: outcome.score,
        result_state: outcome.resultState,
      }),
    });
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
    // Last before the commit: its trigger locks the challenge's leaderboard version row, which
    // every judging of the challenge takes; held only for the commit, not for the statements above.
    await refreshLeaderboardEntry(tx, submission.challenge_id, submission.agent_id);
    return {
      resultId: stored.id,
      finalScore: outcome.score,
      resultState: outcome.resultState,
      stale: false,
      privatePending: privateState === 'pending',
    };
  });
}

function recordedOf(result: {
  id: string;
  final_score: number;
  result_state: string;
  private_state: PrivateState;
}): RecordedJudgement {
  return {
    resultId: result.id,
    finalScore: result.final_score,
    resultState: result.result_state,
    stale: false,
    privatePending: result.private_state === 'pending',
  };
}

/** Judging could not complete (grader refused, retries exhausted, judge crash): `failed`, with the reason. */
export async function markSubmissionFailed(db: Pool, ref: RunRef, reason: string): Promise<boolean> {
  // The reason may quote an error's words (a grader's, the database's): storable text.
  const trimmed = storableText(reason.length > 1000 ? `${reason.slice(0, 999)}…` : reason);
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
  /** The public pass only, a private pass to follow (workflows since PRIVATE_PASS_PATCH); else both at once. */
  split = false,
): Promise<RecordedJudgement> {
  const existing = await findResultForRun(deps.db, ref.submissionId, ref.run);
  if (existing) return recordedOf(existing);
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
  const parsed = judgeConfigSchema.safeParse(judgeConfig);
  // An invalid config fails in runJudge below, with its reason.
  const privateFollows = split && parsed.success && hasPrivatePass(parsed.data);

  // A judging granted by the judging queue runs as many tests at once as it holds slots (the
  // caps count slots honestly) and keeps its slots while it runs; judges without sandboxes (and
  // runs of workflows that never queued) hold none and use the judge's default.
  const workKey = submissionWorkKey(ref.submissionId, ref.run);
  const outcome = await judgeHoldingSlots(deps, workKey, 'judging', judgeConfig, submission, controls, {
    ...(privateFollows ? { pass: 'public' as const } : {}),
  });
  const pending = privateFollows ? ('pending' as const) : undefined;
  try {
    return await recordJudgement(deps.db, ref, outcome, judgeKind, pending);
  } catch (err) {
    // A value the database refuses would be refused on every retry: the run is judged with what
    // can be stored (its verdicts), never `failed` for what the program wrote.
    if (!isDeterministicError(err)) throw err;
    deps.logger.warn(
      { err, submissionId: ref.submissionId },
      'judged outcome not storable; storing its verdicts',
    );
    return recordJudgement(deps.db, ref, verdictsOnly(outcome, errorWords(err)), judgeKind, pending);
  }
}

/** What became of a run's private pass: stored now, or nothing to do (already stored, or none pending). */
export interface PrivatePassRecord {
  stored: boolean;
}

/**
 * The private pass of a run whose public result is stored `pending` (DESIGN, "Fifth-round
 * extensions"; docs/decisions/judging.md, "The private pass"): judges the private tests or
 * criteria, stores private_score with the private items put back in the breakdown, and `done`.
 * Nothing a competitor reads changes (the result's public score, summary and events stay); the
 * leaderboard's version moves so that cached final boards follow. Idempotent: a stored pass is
 * not judged again. A run superseded meanwhile (a rejudge) is stored as 0 with that reason.
 */
export async function judgePrivatePass(
  deps: Pick<ServiceDeps, 'db' | 'logger'>,
  ref: RunRef,
  controls: JudgingControls,
): Promise<PrivatePassRecord> {
  const result = await findResultForRun(deps.db, ref.submissionId, ref.run);
  if (!result || result.private_state !== 'pending') return { stored: false };
  const submission = await findSubmissionById(deps.db, ref.submissionId);
  if (!submission) throw notFound('submission');
  const judgeConfig = await findChallengeJudge(deps.db, submission.challenge_id);
  if (judgeConfig === null) throw notFound('challenge');
  if (submission.judge_run !== ref.run)
    return recordPrivatePassFailure(deps, ref, 'superseded by a newer run before its private pass');
  const workKey = privatePassWorkKey(ref.submissionId, ref.run);
  const outcome = await judgeHoldingSlots(deps, workKey, 'private pass', judgeConfig, submission, controls, {
    pass: 'private',
  });
  const parsed = judgeConfigSchema.safeParse(judgeConfig);
  return storePass(
    privatePassStore(deps),
    ref,
    parsed.success ? parsed.data : null,
    result.breakdown,
    outcome,
    null,
  );
}

/** What storing a private pass needs: its store (the SQL one on `db` unless the deps carry another). */
export type PrivatePassDeps = Pick<ServiceDeps, 'db' | 'stores'>;

const privatePassStore = (deps: PrivatePassDeps): PrivatePassStore =>
  deps.stores?.privatePasses ?? sqlPrivatePassStore(deps.db);

/**
 * A private pass that cannot finish (retries exhausted, a judge that refuses): stored as 0 with
 * its reason, `done`, never left pending (DESIGN). Idempotent.
 */
export async function recordPrivatePassFailure(
  deps: PrivatePassDeps,
  ref: RunRef,
  reason: string,
): Promise<PrivatePassRecord> {
  const store = privatePassStore(deps);
  const trimmed = reason.length > 1000 ? `${reason.slice(0, 999)}…` : reason;
  const result = await store.findResultForRun(ref.submissionId, ref.run);
  if (!result || result.private_state !== 'pending') return { stored: false };
  const stored = await store.findChallengeJudge(result.challenge_id);
  const parsed = judgeConfigSchema.safeParse(stored);
  const held = parsed.success
    ? failedPrivatePass(parsed.data, trimmed)
    : { criteria: [], privateScore: 0, details: { not_judged: trimmed } };
  return storePass(store, ref, parsed.success ? parsed.data : null, result.breakdown, held, trimmed);
}

async function storePass(
  store: PrivatePassStore,
  ref: RunRef,
  config: JudgeConfig | null,
  publicOutcome: JudgeOutcome,
  privateOutcome: Pick<JudgeOutcome, 'criteria' | 'details' | 'privateScore'>,
  reason: string | null,
): Promise<PrivatePassRecord> {
  const merged = mergePrivatePass(config, publicOutcome, privateOutcome);
  // The public board is left alone: its version (an ETag competitors read) must not move when a
  // private pass ends. The final board's cache follows the passes themselves (finalBoardMark).
  const stored = await store.storePrivatePass({
    submissionId: ref.submissionId,
    run: ref.run,
    privateScore: reason === null ? (merged.privateScore ?? null) : 0,
    reason: reason === null ? null : storableText(reason),
    breakdown: sanitizeJson(merged).value,
  });
  await store.removeWork(privatePassWorkKey(ref.submissionId, ref.run));
  return { stored: stored !== null };
}

/** An error's class and message, for a reason a person reads. */
function errorWords(err: unknown): string {
  const code = (err as { code?: unknown })?.code;
  const message = err instanceof Error ? err.message : String(err);
  return typeof code === 'string' ? `${message} [${code}]` : message;
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
    /** The private pass could not finish: 0 with the reason, `done`. */
    markPrivatePassFailed: (input: RunRef & { reason: string }): Promise<PrivatePassRecord> =>
      recordPrivatePassFailure({ db }, input, input.reason),
  };
}

export type JudgingSteps = ReturnType<typeof createJudgingSteps>;

/**
 * Runs the judge while holding the run's queue slots: as many tests at once as it holds slots
 * (judges without sandboxes, and runs that never queued, hold none and use the judge's default),
 * the slots' lease refreshed on every tick. Shared by the public judging and the private pass.
 */
async function judgeHoldingSlots(
  deps: Pick<ServiceDeps, 'db' | 'logger'>,
  workKey: string,
  what: string,
  judgeConfig: unknown,
  submission: { content: string; files: unknown; language: string | null },
  controls: JudgingControls,
  options: { pass?: 'public' | 'private' },
): Promise<JudgeOutcome> {
  const slots = await heldSlots(deps.db, workKey);
  const tick = setInterval(() => {
    controls.onTick();
    if (slots !== null)
      touchWork(deps.db, workKey, RUNNING_TTL_SECONDS).catch((err) =>
        deps.logger.warn({ err }, `could not refresh the ${what} slots`),
      );
  }, JUDGE_TICK_EVERY_MS);
  try {
    return await runJudge(
      judgeConfig as JudgeConfigInput,
      {
        content: submission.content,
        files: submission.files as Parameters<typeof runJudge>[1]['files'],
        language: submission.language,
      },
      {
        signal: controls.signal,
        onProgress: controls.onProgress,
        ...options,
        ...(slots !== null ? { testConcurrency: slots } : {}),
      },
    );
  } finally {
    clearInterval(tick);
  }
}
