import { createHash } from 'node:crypto';
import {
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
  type Client as TemporalClient,
} from '@temporalio/client';
import type { Pool } from 'pg';
import type { Logger } from 'pino';
import { AgentIdKey, ChallengeIdKey, SubmissionStatusKey } from '../../temporal/search-attributes';
import type { submissionWorkflow } from '../../workflows/submission';
import { ServiceError, notFound } from '../errors';
import { canonicalJson } from '../lib/canonical-json';
import { isAdmin, type Principal } from '../auth/principal';
import type { Config } from '../config';
import { withTransaction, type Queryable } from '../db/pool';
import { releaseJudgingLease } from '../db/queries/judging-leases';
import { refreshLeaderboardEntry } from '../db/queries/leaderboard';
import { findResultForRun, storeResult } from '../db/queries/results';
import {
  advanceEntryStatus,
  closeExpiredSessions,
  closeSession,
  closeSessionsOfInactiveChallenges,
  findChallengeRules,
  findSessionById,
  lockEntry,
} from '../db/queries/sessions';
import {
  advanceSubmissionStatus,
  beginRejudge,
  countCountingDaySubmissions,
  countCountingSessionSubmissions,
  findSubmissionById,
  findSubmissionByIdempotencyKey,
  insertSubmission,
  insertSubmissionEvent,
  listStalledSubmissions,
  listUnstartedSubmissions,
  markWorkflowStarted,
  type SubmissionFile,
  type SubmissionRow,
  type SubmissionStatus,
} from '../db/queries/submissions';
import { emitEvent } from '../events/outbox';
import type { JudgeOutcome } from '../judging';
import { lapseReason, ownsAgentResource } from './sessions';

/** Bounds of a submission body (content's 100,000 characters is the spec's; the rest are ours). */
export const SUBMISSION_LIMITS = {
  maxContentChars: 100_000,
  maxFiles: 20,
  maxPathChars: 255,
  maxLanguageChars: 50,
  /** UTF-8 bytes of content + every file path and content. */
  maxTotalBytes: 1024 * 1024,
} as const;

/** Used when a challenge row has no per-session limit (the column defaults to 10 as well). */
export const DEFAULT_MAX_SUBMISSIONS_PER_SESSION = 10;

/** sha256 (hex) of the canonical JSON of `{content, files: [{path, content, language}]}` in the given file order. */
export function artifactHash(content: string, files: SubmissionFile[]): string {
  const normalized = {
    content,
    files: files.map((f) => ({ path: f.path, content: f.content, language: f.language ?? null })),
  };
  return createHash('sha256').update(canonicalJson(normalized)).digest('hex');
}

/** `submission-<uuid>` for the first judging, `submission-<uuid>-rejudge-<n>` for rejudge run n. */
export function submissionWorkflowId(submissionId: string, run: number): string {
  return run === 0 ? `submission-${submissionId}` : `submission-${submissionId}-rejudge-${run}`;
}

export interface SubmissionRunRef {
  id: string;
  challenge_id: string;
  agent_id: string;
  judge_run: number;
}

/**
 * Starts the submission's workflow for its current run. Conflict-safe: a workflow that already
 * started (or already finished: the id is never reused) counts as started. Then records
 * `workflow_started_at`, which is what the sweeper looks at.
 */
export async function startSubmissionWorkflow(
  deps: { db: Queryable; config: Config; temporal: () => Promise<TemporalClient> },
  ref: SubmissionRunRef,
  status: SubmissionStatus = 'received',
): Promise<void> {
  const client = await deps.temporal();
  try {
    await client.workflow.start<typeof submissionWorkflow>('submissionWorkflow', {
      taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
      workflowId: submissionWorkflowId(ref.id, ref.judge_run),
      args: [
        { submissionId: ref.id, challengeId: ref.challenge_id, agentId: ref.agent_id, run: ref.judge_run },
      ],
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      typedSearchAttributes: [
        { key: ChallengeIdKey, value: ref.challenge_id },
        { key: AgentIdKey, value: ref.agent_id },
        { key: SubmissionStatusKey, value: status },
      ],
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
  await markWorkflowStarted(deps.db, ref.id, ref.judge_run);
}

/** Starts the workflow but never fails the caller: whatever does not start now, the sweeper starts later. */
export async function startSubmissionWorkflowSoon(
  deps: { db: Queryable; config: Config; temporal: () => Promise<TemporalClient>; logger: Logger },
  ref: SubmissionRunRef,
  status: SubmissionStatus = 'received',
  timeoutMs = 5_000,
): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      startSubmissionWorkflow(deps, ref, status),
      new Promise((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`workflow start took longer than ${timeoutMs} ms`)),
          timeoutMs,
        );
      }),
    ]);
    return true;
  } catch (err) {
    deps.logger.warn(
      { err, submission_id: ref.id, run: ref.judge_run },
      'submission workflow not started; the sweeper will start it',
    );
    return false;
  } finally {
    clearTimeout(timer);
  }
}

export interface CreateSubmissionInput {
  content: string;
  files?: SubmissionFile[];
}

/**
 * Accepts a submission to an open session. The submission, its `received` event and the
 * submission.received outbox event are written in one transaction; the workflow is started after
 * the commit (and by the sweeper should this process die in between). With an Idempotency-Key the
 * key is stored on the row too, so even a crash before the idempotency record is written cannot
 * produce a second submission.
 */
export async function createSubmission(
  deps: { db: Pool; config: Config; temporal: () => Promise<TemporalClient>; logger: Logger },
  principal: Principal,
  sessionId: string,
  input: CreateSubmissionInput,
  idempotencyKey: string | null,
): Promise<{ submission: SubmissionRow; created: boolean }> {
  const { db } = deps;
  const session = await findSessionById(db, sessionId);
  if (!session || !ownsAgentResource(principal, session)) throw notFound('session');
  const files = (input.files ?? []).map((f) =>
    f.language === undefined ? { path: f.path, content: f.content } : { ...f },
  );
  const hash = artifactHash(input.content, files);

  const sameRequest = (existing: SubmissionRow) => {
    if (existing.session_id !== sessionId || existing.artifact_hash !== hash) {
      throw new ServiceError(
        'IDEMPOTENCY_KEY_REUSED',
        'this Idempotency-Key was already used for a different submission',
      );
    }
    return { submission: existing, created: false };
  };

  if (idempotencyKey) {
    const existing = await findSubmissionByIdempotencyKey(db, session.agent_id, idempotencyKey);
    if (existing) return sameRequest(existing);
  }

  const challenge = await findChallengeRules(db, session.challenge_id);
  const lapsed = lapseReason(session, challenge);
  if (lapsed) await closeSession(db, session.id, lapsed);
  if (session.status !== 'open' || lapsed)
    throw new ServiceError('SESSION_CLOSED', `session is closed (${lapsed ?? session.close_reason ?? 'closed'})`);

  let outcome: { submission: SubmissionRow; created: boolean };
  try {
    outcome = await withTransaction(db, async (tx) => {
      // One writer per (challenge, agent) at a time: the quota counts below cannot be raced past.
      await lockEntry(tx, session.challenge_id, session.agent_id);
      if (idempotencyKey) {
        const existing = await findSubmissionByIdempotencyKey(tx, session.agent_id, idempotencyKey);
        if (existing) return sameRequest(existing);
      }
      const current = await findSessionById(tx, sessionId);
      if (!current || current.status !== 'open') throw new ServiceError('SESSION_CLOSED', 'session is closed');

      const perSession = challenge!.max_submissions_per_session ?? DEFAULT_MAX_SUBMISSIONS_PER_SESSION;
      if ((await countCountingSessionSubmissions(tx, sessionId)) >= perSession) {
        throw new ServiceError(
          'SUBMISSION_LIMIT_REACHED',
          `at most ${perSession} submissions per session (failed judgings do not count)`,
        );
      }
      const perDay = challenge!.max_submissions_per_day;
      if (
        perDay !== null &&
        (await countCountingDaySubmissions(tx, session.agent_id, session.challenge_id)) >= perDay
      ) {
        throw new ServiceError(
          'SUBMISSION_LIMIT_REACHED',
          `at most ${perDay} submissions per agent per day in this challenge (failed judgings do not count)`,
        );
      }

      const row = await insertSubmission(tx, {
        sessionId,
        challengeId: session.challenge_id,
        agentId: session.agent_id,
        content: input.content,
        files,
        artifactHash: hash,
        idempotencyKey,
        sandbox: session.sandbox,
      });
      await insertSubmissionEvent(tx, {
        submissionId: row.id,
        run: 0,
        status: 'received',
        message: 'submission received',
      });
      await emitEvent(tx, {
        type: 'submission.received',
        payload: {
          submission_id: row.id,
          challenge_id: row.challenge_id,
          agent_id: row.agent_id,
          submission_status: 'received',
        },
        ownerUserId: session.owner_user_id,
        challengeId: row.challenge_id,
        sandbox: row.sandbox,
      });
      await advanceEntryStatus(tx, session.challenge_id, session.agent_id, 'submitted');
      return { submission: { ...row, owner_user_id: session.owner_user_id }, created: true };
    });
  } catch (err) {
    // The same key used concurrently on another challenge's session (another entry lock).
    const e = err as { code?: string; constraint?: string };
    if (
      idempotencyKey &&
      e?.code === '23505' &&
      e.constraint === 'submissions_agent_id_idempotency_key_key'
    ) {
      const existing = await findSubmissionByIdempotencyKey(db, session.agent_id, idempotencyKey);
      if (existing) return sameRequest(existing);
    }
    throw err;
  }

  if (outcome.created) {
    const started = await startSubmissionWorkflowSoon(deps, outcome.submission);
    if (started) outcome.submission.workflow_started_at = new Date();
  }
  return outcome;
}

/** The submission if the caller owns it or is an operator; otherwise 404 (ids do not leak). */
export async function loadSubmissionFor(
  db: Queryable,
  principal: Principal,
  submissionId: string,
): Promise<SubmissionRow> {
  const submission = await findSubmissionById(db, submissionId);
  if (!submission || !(ownsAgentResource(principal, submission) || isAdmin(principal)))
    throw notFound('submission');
  return submission;
}

// ---- judging steps (called by the workflow's activities; each is idempotent) ------------------

export interface RunRef {
  submissionId: string;
  run: number;
}

const STEP_MESSAGES = {
  queued: 'queued for judging',
  judging: 'judging started',
} as const;

/**
 * Moves the submission to `queued` or `judging` within its run, recording the transition and its
 * event in one transaction. Returns false when it was already there or beyond (a retry).
 */
export async function markSubmissionStep(db: Pool, ref: RunRef, to: 'queued' | 'judging'): Promise<boolean> {
  return withTransaction(db, async (tx) => {
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
  });
}

export interface RecordedJudgement {
  resultId: string | null;
  finalScore: number | null;
  resultState: string | null;
  /** True when this run was superseded by a newer one before it could record anything. */
  stale: boolean;
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
      resultState: outcome.resultState,
      judge: judgeKind,
      summary: outcome.summary,
      breakdown: outcome,
      sandbox: submission.sandbox,
      submittedAt: submission.submitted_at,
    });
    await insertSubmissionEvent(tx, {
      submissionId: submission.id,
      run: ref.run,
      status: 'complete',
      message: `judged: ${outcome.resultState}, score ${outcome.score}`,
      data: { result_id: stored.id, final_score: outcome.score, result_state: outcome.resultState },
    });
    await refreshLeaderboardEntry(tx, submission.challenge_id, submission.agent_id);
    await advanceEntryStatus(tx, submission.challenge_id, submission.agent_id, 'judged');
    await releaseJudgingLease(tx, submission.id, ref.run);
    const common = {
      ownerUserId: submission.owner_user_id,
      challengeId: submission.challenge_id,
      sandbox: submission.sandbox,
    };
    await emitEvent(tx, {
      type: 'submission.completed',
      payload: { submission_id: submission.id, submission_status: 'completed' },
      ...common,
    });
    await emitEvent(tx, {
      type: 'result.finalized',
      payload: {
        submission_id: submission.id,
        challenge_id: submission.challenge_id,
        final_score: outcome.score,
        result_state: outcome.resultState,
      },
      ...common,
    });
    await emitEvent(tx, {
      type: 'breakdown.generated',
      payload: { submission_id: submission.id, challenge_id: submission.challenge_id },
      ...common,
    });
    return { resultId: stored.id, finalScore: outcome.score, resultState: outcome.resultState, stale: false };
  });
}

/** Judging could not complete (grader refused, retries exhausted, judge crash): `failed`, with the reason. */
export async function markSubmissionFailed(db: Pool, ref: RunRef, reason: string): Promise<boolean> {
  const trimmed = reason.length > 1000 ? `${reason.slice(0, 999)}…` : reason;
  return withTransaction(db, async (tx) => {
    const row = await advanceSubmissionStatus(tx, ref.submissionId, ref.run, 'failed', trimmed);
    await releaseJudgingLease(tx, ref.submissionId, ref.run);
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

// ---- rejudge ---------------------------------------------------------------------------------

/**
 * Starts a new judge run of a finished submission. Its result supersedes the current one when
 * stored (the old stays as history); the leaderboard follows and result.finalized is emitted again.
 */
export async function rejudgeSubmission(
  deps: { db: Pool; config: Config; temporal: () => Promise<TemporalClient>; logger: Logger },
  submissionId: string,
): Promise<{
  submission_id: string;
  run: number;
  workflow_id: string;
  submission_status: 'queued';
  workflow_started: boolean;
}> {
  const existing = await findSubmissionById(deps.db, submissionId);
  if (!existing) throw notFound('submission');
  const run = await withTransaction(deps.db, async (tx) => {
    const row = await beginRejudge(tx, submissionId);
    if (!row)
      throw new ServiceError(
        'CONFLICT',
        `submission is ${existing.status}: only a complete or failed submission can be rejudged`,
      );
    await insertSubmissionEvent(tx, {
      submissionId,
      run: row.judge_run,
      status: 'queued',
      message: `rejudge #${row.judge_run} requested by an operator`,
    });
    await emitEvent(tx, {
      type: 'submission.queued',
      payload: {
        submission_id: submissionId,
        challenge_id: row.challenge_id,
        agent_id: row.agent_id,
        submission_status: 'queued',
      },
      ownerUserId: existing.owner_user_id,
      challengeId: row.challenge_id,
      sandbox: row.sandbox,
    });
    return row;
  });
  const started = await startSubmissionWorkflowSoon(deps, run, 'queued');
  return {
    submission_id: submissionId,
    run: run.judge_run,
    workflow_id: submissionWorkflowId(submissionId, run.judge_run),
    submission_status: 'queued',
    workflow_started: started,
  };
}

// ---- sweeper ---------------------------------------------------------------------------------

export interface SweepReport {
  workflowsStarted: number;
  sessionsClosed: number;
  /** Runs whose workflow had ended (terminated, failed, lost) without finishing them: now `failed`. */
  stalledFailed: number;
}

/** A run in flight this long without progress gets its workflow checked (30 × the sweep delay, ≥ 30 s). */
export function stallAfterMs(config: Pick<Config, 'SUBMISSION_SWEEP_AFTER_MS'>): number {
  return Math.max(30_000, config.SUBMISSION_SWEEP_AFTER_MS * 30);
}

/**
 * "Never stuck": a run whose workflow has closed (terminated by an operator, failed on a bug, or
 * is unknown to Temporal) while the submission is still received/queued/judging is marked failed
 * with the reason. Running workflows are left alone, however long they take.
 */
export async function failStalledSubmissions(
  deps: { db: Pool; config: Config; temporal: () => Promise<TemporalClient>; logger: Logger },
  batch = 20,
): Promise<number> {
  const stalled = await listStalledSubmissions(deps.db, stallAfterMs(deps.config), batch);
  if (stalled.length === 0) return 0;
  const client = await deps.temporal();
  let failed = 0;
  for (const ref of stalled) {
    let reason: string | null = null;
    try {
      const description = await client.workflow
        .getHandle(submissionWorkflowId(ref.id, ref.judge_run))
        .describe();
      if (description.status.name !== 'RUNNING')
        reason = `judging did not finish: the workflow is ${description.status.name.toLowerCase()}`;
    } catch (err) {
      if (err instanceof WorkflowNotFoundError)
        reason = 'judging did not finish: the workflow no longer exists';
      else
        deps.logger.warn({ err, submission_id: ref.id }, 'sweeper could not describe a submission workflow');
    }
    if (
      reason &&
      (await markSubmissionFailed(deps.db, { submissionId: ref.id, run: ref.judge_run }, reason))
    ) {
      failed += 1;
      deps.logger.warn(
        { submission_id: ref.id, run: ref.judge_run, reason },
        'stalled submission marked failed',
      );
    }
  }
  return failed;
}

/**
 * One pass of the sweeper: starts the workflows of accepted submissions that have waited longer
 * than SUBMISSION_SWEEP_AFTER_MS without one, closes lapsed sessions durably and, when asked,
 * fails runs whose workflow ended without finishing them.
 */
export async function sweepOnce(
  deps: { db: Pool; config: Config; temporal: () => Promise<TemporalClient>; logger: Logger },
  batch = 100,
  options: { checkStalled?: boolean } = {},
): Promise<SweepReport> {
  const pending = await listUnstartedSubmissions(deps.db, deps.config.SUBMISSION_SWEEP_AFTER_MS, batch);
  let workflowsStarted = 0;
  for (const ref of pending) {
    try {
      await startSubmissionWorkflow(deps, ref, ref.judge_run === 0 ? 'received' : 'queued');
      workflowsStarted += 1;
    } catch (err) {
      deps.logger.warn({ err, submission_id: ref.id }, 'sweeper could not start a submission workflow');
    }
  }
  if (workflowsStarted > 0)
    deps.logger.info({ workflowsStarted }, 'sweeper started missing submission workflows');
  const sessionsClosed =
    (await closeExpiredSessions(deps.db)) + (await closeSessionsOfInactiveChallenges(deps.db));
  const stalledFailed = options.checkStalled ? await failStalledSubmissions(deps) : 0;
  return { workflowsStarted, sessionsClosed, stalledFailed };
}
