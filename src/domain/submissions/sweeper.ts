/**
 * The submission sweeper's passes ("never stuck"): start workflows that never started, close lapsed
 * sessions durably, fail runs whose workflow ended without finishing them. One sweeper workflow per
 * task queue runs these in a loop (./workflows/submission-sweeper.ts).
 */
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import { closeExpiredSessions, closeSessionsOfInactiveChallenges } from '../../db/queries/sessions';
import { listStalledPrivatePasses } from '../../db/queries/results';
import { listStalledSubmissions, listUnstartedSubmissions } from '../../db/queries/submissions';
import { deleteWebSessionsExpiredBefore } from '../../db/queries/web-sessions';
import type { ServiceDeps } from '../../service-deps';
import { AgentIdKey, ChallengeIdKey, SubmissionStatusKey } from '../../temporal-client/search-attributes';
import {
  SUBMISSION_OUTCOME_WORKFLOW,
  SUBMISSION_SWEEPER_WORKFLOW,
  type SubmissionOutcomeInput,
  submissionWorkflowId,
  sweeperWorkflowId,
  type SubmissionSweeperInput,
} from './contract';
import { markSubmissionFailed, recordPrivatePassFailure } from './judging';
import { stallAfterMs } from './rules';
import { startSubmissionWorkflow } from './workflow-start';

export interface SweepReport {
  workflowsStarted: number;
  sessionsClosed: number;
  /** Runs whose workflow had ended (terminated, failed, lost) without finishing them: now `failed`. */
  stalledFailed: number;
  /** Private passes left pending by a workflow that ended (DESIGN: never left pending): stored as 0. */
  privatePassesClosed: number;
  /** Web sign-in sessions a day past their absolute expiry, deleted. */
  webSessionsDeleted: number;
}

/** Ended web sessions stay this long (support can still see a sign-out), then go. */
const WEB_SESSION_KEEP_DAYS = 1;

/**
 * "Never stuck": a run whose workflow has closed (terminated by an operator, failed on a bug, or
 * is unknown to Temporal) while the submission is still received/queued/judging is marked failed
 * with the reason. Running workflows are left alone, however long they take.
 */
export async function failStalledSubmissions(
  deps: Pick<ServiceDeps, 'db' | 'config' | 'temporal' | 'logger'>,
  batch = 20,
): Promise<number> {
  const stalled = await listStalledSubmissions(deps.db, stallAfterMs(deps.config), batch);
  if (stalled.length === 0) return 0;
  const client = await deps.temporal();
  let failed = 0;
  for (const ref of stalled) {
    const gone = await workflowGoneReason(client, deps, { submissionId: ref.id, run: ref.judge_run });
    const reason = gone === null ? null : `judging did not finish: ${gone}`;
    if (
      reason &&
      (await markSubmissionFailed(deps.db, { submissionId: ref.id, run: ref.judge_run }, reason))
    ) {
      failed += 1;
      deps.logger.warn(
        { submission_id: ref.id, run: ref.judge_run, reason },
        'stalled submission marked failed',
      );
      await markFailedInVisibility(client, deps, ref, reason).catch((err: unknown) =>
        deps.logger.warn(
          { err, submission_id: ref.id },
          'could not mirror a failed submission in Temporal visibility (the database stays the record)',
        ),
      );
    }
  }
  return failed;
}

/** Why a run's workflow will not finish it: null while it runs (or when Temporal cannot say now). */
async function workflowGoneReason(
  client: Client,
  deps: Pick<ServiceDeps, 'logger'>,
  ref: { submissionId: string; run: number },
): Promise<string | null> {
  try {
    const description = await client.workflow
      .getHandle(submissionWorkflowId(ref.submissionId, ref.run))
      .describe();
    return description.status.name === 'RUNNING'
      ? null
      : `the workflow is ${description.status.name.toLowerCase()}`;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return 'the workflow no longer exists';
    deps.logger.warn(
      { err, submission_id: ref.submissionId },
      'sweeper could not describe a submission workflow',
    );
    return null;
  }
}

/**
 * A private pass runs in its submission's workflow after the public result is stored. When that
 * workflow is terminated or lost in between, nothing else would finish the pass: DESIGN says a
 * pass that cannot finish is stored as 0 with its reason (`done`), never left pending, so the
 * sweeper does it. A pass whose workflow still runs (a long private test) is left alone.
 */
export async function closeStalledPrivatePasses(
  deps: Pick<ServiceDeps, 'db' | 'config' | 'temporal' | 'logger'>,
  batch = 20,
): Promise<number> {
  const stalled = await listStalledPrivatePasses(deps.db, stallAfterMs(deps.config), batch);
  if (stalled.length === 0) return 0;
  const client = await deps.temporal();
  let closed = 0;
  for (const row of stalled) {
    const ref = { submissionId: row.submission_id, run: row.run };
    const gone = await workflowGoneReason(client, deps, ref);
    if (gone === null) continue;
    const stored = await recordPrivatePassFailure(deps, ref, `private pass did not finish: ${gone}`);
    if (stored.stored) {
      closed += 1;
      deps.logger.warn(
        { submission_id: ref.submissionId, run: ref.run, reason: gone },
        'stalled private pass stored as 0',
      );
    }
  }
  return closed;
}

/**
 * The run's workflow has closed, so its SubmissionStatus cannot change any more: a marker run under
 * the same workflow id (a closed id may be reused) carries `failed` and the reason instead.
 */
async function markFailedInVisibility(
  client: Client,
  deps: Pick<ServiceDeps, 'config'>,
  ref: { id: string; challenge_id: string; agent_id: string; judge_run: number },
  reason: string,
): Promise<void> {
  const input: SubmissionOutcomeInput = {
    submissionId: ref.id,
    run: ref.judge_run,
    status: 'failed',
    reason,
  };
  try {
    await client.workflow.start(SUBMISSION_OUTCOME_WORKFLOW, {
      taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
      workflowId: submissionWorkflowId(ref.id, ref.judge_run),
      args: [input],
      workflowIdReusePolicy: 'ALLOW_DUPLICATE',
      workflowRunTimeout: '1 day',
      typedSearchAttributes: [
        { key: ChallengeIdKey, value: ref.challenge_id },
        { key: AgentIdKey, value: ref.agent_id },
        { key: SubmissionStatusKey, value: 'failed' },
      ],
    });
  } catch (err) {
    // Running again after all (it was closed a moment ago): the sweeper will see it next pass.
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}

/**
 * One pass of the sweeper: starts the workflows of accepted submissions that have waited longer
 * than SUBMISSION_SWEEP_AFTER_MS without one, closes lapsed sessions durably, deletes web sign-in
 * sessions long ended and, when asked, fails runs whose workflow ended without finishing them.
 */
export async function sweepOnce(
  deps: Pick<ServiceDeps, 'db' | 'config' | 'temporal' | 'logger'>,
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
  const privatePassesClosed = options.checkStalled ? await closeStalledPrivatePasses(deps) : 0;
  const webSessionsDeleted = await deleteWebSessionsExpiredBefore(deps.db, WEB_SESSION_KEEP_DAYS, batch);
  return { workflowsStarted, sessionsClosed, stalledFailed, privatePassesClosed, webSessionsDeleted };
}

/** How long one sweeper activity loops before the workflow continues as new. */
const SWEEPER_RUN_FOR_MS = 5 * 60_000;
/** An abandoned sweeper (no worker left on its queue) closes itself after this. */
const SWEEPER_RUN_TIMEOUT = '15 minutes';

/** Starts the sweeper workflow unless it already runs ("use existing": idempotent, one RPC). */
export async function ensureSubmissionSweeper(deps: Pick<ServiceDeps, 'config' | 'temporal'>): Promise<void> {
  const client = await deps.temporal();
  const input: SubmissionSweeperInput = { runForMs: SWEEPER_RUN_FOR_MS };
  await client.workflow.start(SUBMISSION_SWEEPER_WORKFLOW, {
    taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
    workflowId: sweeperWorkflowId(deps.config.TEMPORAL_TASK_QUEUE),
    args: [input],
    workflowIdConflictPolicy: 'USE_EXISTING',
    workflowRunTimeout: SWEEPER_RUN_TIMEOUT,
  });
}
