/**
 * Dry run (operators): judge one sample submission with a judge config that is still being edited,
 * on a worker (the `tests` judge needs the worker's sandbox and judging slots), and answer the admin
 * breakdown. Nothing is written to the database: no submission, result, event or outbox row.
 */
import { randomUUID } from 'node:crypto';
import { WorkflowFailedError } from '@temporalio/client';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { ServiceError } from '../../errors';
import {
  breakdownView,
  GraderRejectedError,
  InvalidJudgeConfigError,
  JudgeInfrastructureError,
  runJudge,
  type AdminBreakdown,
  type JudgeConfigInput,
} from '../../judging';
import type { ServiceDeps } from '../../service-deps';
import type { Pool } from 'pg';
import { heldSlots, removeWork, touchWork } from '../../db/queries/judging-queue';
import { RUNNING_TTL_SECONDS, waitForSlots } from '../judging-queue/queue';
import { slotsForJudge } from '../judging-queue/order';
import {
  CHALLENGE_DRY_RUN_WORKFLOW,
  challengeDryRunWorkflowId,
  DRY_RUN_NON_RETRYABLE,
  type ChallengeDryRunInput,
  type DryRunSteps,
} from './contract';

/** Longest a dry run may take end to end (queueing for a judging slot included). */
const DRY_RUN_TIMEOUT = '5 minutes';

export interface DryRunControls {
  signal?: AbortSignal;
  heartbeat: (details: unknown) => void;
}

/**
 * The workflow's judge step: runs the judge, returns what an operator sees. Writes nothing but,
 * with `queueKey`, the judging queue's row whose slots it runs in (as many tests at once as it
 * holds slots), given back when the step ends.
 */
export async function judgeDryRun(
  input: ChallengeDryRunInput & { queueKey?: string },
  controls: DryRunControls,
  db?: Pool,
): Promise<AdminBreakdown> {
  const queued = input.queueKey !== undefined && db !== undefined ? { key: input.queueKey, db } : null;
  const slots = queued ? await heldSlots(queued.db, queued.key) : null;
  const tick = queued
    ? setInterval(
        () => void touchWork(queued.db, queued.key, RUNNING_TTL_SECONDS).catch(() => undefined),
        5_000,
      )
    : undefined;
  try {
    const outcome = await runJudge(input.judge as JudgeConfigInput, input.submission, {
      signal: controls.signal,
      onProgress: (progress) => controls.heartbeat(progress),
      // A `game` judge's dry run plays the sample against the game's baseline bot (issue 31).
      gameOpponent: 'boss',
      ...(slots !== null ? { testConcurrency: slots } : {}),
    });
    return breakdownView(outcome, 'admin');
  } catch (err) {
    if (err instanceof GraderRejectedError || err instanceof InvalidJudgeConfigError)
      throw ApplicationFailure.create({ message: err.message, type: err.name, nonRetryable: true });
    if (err instanceof JudgeInfrastructureError)
      throw ApplicationFailure.create({ message: err.message, type: err.name, nonRetryable: !err.retryable });
    throw err;
  } finally {
    clearInterval(tick);
    if (queued) await removeWork(queued.db, queued.key).catch(() => undefined);
  }
}

/**
 * The dry-run workflow's steps as the worker registers them (activity types `waitForDryRunSlots`,
 * `judgeDryRun`): the wait in the judging queue (heartbeating) and the judge, with the activity's
 * cancellation and heartbeats.
 */
export function createDryRunSteps(deps: Pick<ServiceDeps, 'db' | 'config'>): DryRunSteps {
  return {
    async waitForDryRunSlots({ queueKey, judge }) {
      const ctx = Context.current();
      const slots = await waitForSlots(
        deps.db,
        deps.config,
        {
          workKey: queueKey,
          kind: 'dry_run',
          priority: 0,
          ownerUserId: null,
          agentId: null,
          submissionId: null,
          run: null,
          slots: Math.max(1, slotsForJudge(judge, deps.config.JUDGE_PROGRAM_SLOTS)),
        },
        { signal: ctx.cancellationSignal, onPoll: (details) => ctx.heartbeat(details) },
      );
      return { slots };
    },
    judgeDryRun(input) {
      const ctx = Context.current();
      return judgeDryRun(
        input,
        { signal: ctx.cancellationSignal, heartbeat: (d) => ctx.heartbeat(d) },
        deps.db,
      );
    },
  };
}

/**
 * Failures that are the config's, not the service's: a refusal (bad config, the grader said no),
 * and the configured grader still unreachable after the step's retries. The operator is testing
 * exactly that config, so they get a 400 saying why; only a worker or Temporal that cannot answer
 * is a 503.
 */
const CONFIG_FAILURES = [...DRY_RUN_NON_RETRYABLE, 'GraderUnavailableError'];

/** The failure's innermost ApplicationFailure, when the judge step failed because of the config. */
function refusal(err: unknown): ApplicationFailure | null {
  for (let e: unknown = err; e instanceof Error; e = (e as { cause?: unknown }).cause)
    if (e instanceof ApplicationFailure && CONFIG_FAILURES.includes(e.type ?? '')) return e;
  return null;
}

/**
 * Starts the dry-run workflow and waits for its answer. A config refusal, or a grader that refused
 * or never answered, is a 400 the operator can act on; a worker or Temporal that cannot answer is a
 * 503 (nothing was stored either way).
 */
export async function dryRunJudge(
  deps: Pick<ServiceDeps, 'config' | 'temporal' | 'logger'>,
  input: ChallengeDryRunInput,
): Promise<{ workflow_id: string; breakdown: AdminBreakdown }> {
  const workflowId = challengeDryRunWorkflowId(randomUUID());
  const unavailable = () =>
    new ServiceError('SERVICE_UNAVAILABLE', 'the judging workers did not answer the dry run; retry later');
  let client;
  try {
    client = await deps.temporal();
  } catch (err) {
    deps.logger.error({ err }, 'Temporal unavailable');
    throw unavailable();
  }
  try {
    const breakdown = await client.workflow.execute(CHALLENGE_DRY_RUN_WORKFLOW, {
      taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
      workflowId,
      args: [input],
      workflowExecutionTimeout: DRY_RUN_TIMEOUT,
    });
    return { workflow_id: workflowId, breakdown: breakdown as AdminBreakdown };
  } catch (err) {
    const refused = err instanceof WorkflowFailedError ? refusal(err) : null;
    if (refused) throw new ServiceError('VALIDATION_ERROR', `dry run refused: ${refused.message}`);
    deps.logger.warn({ err, workflowId }, 'dry run did not complete');
    throw unavailable();
  }
}
