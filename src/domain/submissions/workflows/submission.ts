import type { RetryPolicy } from '@temporalio/common';
import {
  ActivityFailure,
  ApplicationFailure,
  patched,
  proxyActivities,
  proxyLocalActivities,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { SubmissionActivities } from '../activities';
import { AgentIdKey, ChallengeIdKey, SubmissionStatusKey } from '../../../temporal-client/search-attributes';
import {
  JUDGE_MAX_ATTEMPTS,
  GAME_JUDGING_PATCH,
  JUDGING_QUEUE_PATCH,
  JUDGING_SLOTS_PATCH,
  judgingTaskQueue,
  PRIVATE_PASS_PATCH,
  STATUS_STEPS_PATCH,
  type RunRef,
  type SubmissionWorkflowInput,
  type SubmissionWorkflowResult,
} from '../contract';

// Short, idempotent database steps run as local activities (no extra server round trips).
const steps = proxyLocalActivities<SubmissionActivities>({
  startToCloseTimeout: '30s',
  retry: { initialInterval: '200ms', backoffCoefficient: 2, maximumInterval: '30s', maximumAttempts: 30 },
});

const judgeRetry: RetryPolicy = {
  initialInterval: '500ms',
  backoffCoefficient: 2,
  maximumInterval: '30s',
  maximumAttempts: JUDGE_MAX_ATTEMPTS,
  nonRetryableErrorTypes: [
    'GraderRejectedError',
    'InvalidJudgeConfigError',
    'SubmissionNotFound',
    'ChallengeNotFound',
  ],
};

// `tests` (sandboxed processes, up to 200 tests) and `http` (an external grader) judges run as
// regular activities: heartbeats detect a dead worker long before the start-to-close timeout.
const judge = proxyActivities<SubmissionActivities>({
  startToCloseTimeout: '30 minutes',
  heartbeatTimeout: '30s',
  retry: judgeRetry,
});

// The judging queue (JUDGING_QUEUE_PATCH): one activity puts the run in the service's queue and
// waits, heartbeating, until the queue grants it its slots, for as long as it takes; the order is
// the queue's (fair per owner), not retry timing. A worker that dies mid-wait is noticed by the
// heartbeat and the retry keeps the run's place in the queue.
const queue = proxyActivities<SubmissionActivities>({
  startToCloseTimeout: '7 days',
  heartbeatTimeout: '30s',
  retry: {
    initialInterval: '1s',
    backoffCoefficient: 2,
    maximumInterval: '30s',
    nonRetryableErrorTypes: ['SubmissionNotFound'],
  },
});

// Before the queue: admission failed with JudgingCapReached and Temporal retried it (no history
// events per retry), for as long as it took. Kept for the runs started then (replay).
const admission = proxyActivities<SubmissionActivities>({
  startToCloseTimeout: '30s',
  retry: {
    initialInterval: '250ms',
    backoffCoefficient: 1.5,
    maximumInterval: '2s',
    nonRetryableErrorTypes: ['SubmissionNotFound'],
  },
});

// The rubric judge is pure in-memory work of a few milliseconds (its regexes are vetted against
// catastrophic backtracking): as a local activity the whole pipeline runs in one workflow task.
const localJudge = proxyLocalActivities<SubmissionActivities>({
  startToCloseTimeout: '1 minute',
  retry: judgeRetry,
});

function describeFailure(err: unknown): string {
  if (err instanceof ActivityFailure) {
    const cause = err.cause instanceof Error ? err.cause.message : 'unknown error';
    switch (err.retryState) {
      case 'MAXIMUM_ATTEMPTS_REACHED':
        return `judging failed after ${JUDGE_MAX_ATTEMPTS} attempts: ${cause}`;
      case 'TIMEOUT':
        return `judging timed out: ${cause}`;
      default:
        return `judging failed: ${cause}`;
    }
  }
  if (err instanceof ApplicationFailure) return `judging failed: ${err.message}`;
  return `judging failed: ${err instanceof Error ? err.message : String(err)}`;
}

/**
 * The private pass (PRIVATE_PASS_PATCH), after the submission is `complete`: sandboxed judges wait
 * in the judging queue at low priority and run on the judging task queue; the rubric judge runs
 * locally. A pass that cannot finish is stored as 0 with its reason, never left pending.
 */
async function privatePass(ref: RunRef, sandboxed: boolean, local: boolean): Promise<void> {
  try {
    if (sandboxed) {
      const granted = await queue.waitForPrivatePassSlots(ref);
      if (granted.done) return;
      await proxyActivities<SubmissionActivities>({
        startToCloseTimeout: '30 minutes',
        heartbeatTimeout: '30s',
        retry: judgeRetry,
        taskQueue: judgingTaskQueue(workflowInfo().taskQueue),
      }).judgePrivatePass(ref);
    } else {
      await (local ? localJudge : judge).judgePrivatePass(ref);
    }
  } catch (err) {
    await steps.markPrivatePassFailed({ ...ref, reason: `private pass: ${describeFailure(err)}` });
  }
}

/**
 * received → queued → judging → complete | failed. Every step is persisted by an idempotent
 * activity (status only moves forward, within the run) that also records the submission event
 * and the outbox event; search attributes follow so operators can filter runs in the Web UI.
 */
export async function submissionWorkflow(input: SubmissionWorkflowInput): Promise<SubmissionWorkflowResult> {
  const ref: RunRef = { submissionId: input.submissionId, run: input.run };
  const mark = (status: string) =>
    upsertSearchAttributes([
      { key: ChallengeIdKey, value: input.challengeId },
      { key: AgentIdKey, value: input.agentId },
      { key: SubmissionStatusKey, value: status },
    ]);

  let judgeKind: string | null;
  if (patched(STATUS_STEPS_PATCH)) {
    ({ judgeKind } = await steps.beginJudging(ref));
  } else {
    await steps.markSubmissionQueued(ref);
    ({ judgeKind } = await steps.markSubmissionJudging(ref));
  }
  const local = judgeKind === 'rubric';
  // Search attributes reach visibility when a workflow task completes. queued → judging is one
  // local activity (two before STATUS_STEPS_PATCH) of the first workflow task, so `queued` is never
  // observable there; with the rubric judge (also local) the whole run is one workflow task and
  // only the outcome is. The submission's own history (its events) records every step.
  if (!local) mark('judging');
  // Private tests and criteria in a pass of their own, after the public result.
  const split = patched(PRIVATE_PASS_PATCH);
  const judgeInput = split ? { ...ref, split: true } : ref;

  let failure = '';
  let complete: SubmissionWorkflowResult | undefined;
  let privateFollows = false;
  let sandboxed = false;
  try {
    let recorded;
    const onSlots = () =>
      proxyActivities<SubmissionActivities>({
        startToCloseTimeout: '30 minutes',
        heartbeatTimeout: '30s',
        retry: judgeRetry,
        taskQueue: judgingTaskQueue(workflowInfo().taskQueue),
      });
    sandboxed =
      judgeKind === 'tests' ||
      judgeKind === 'program' ||
      (judgeKind === 'game' && patched(GAME_JUDGING_PATCH));
    if (sandboxed && patched(JUDGING_QUEUE_PATCH)) {
      const granted = await queue.waitForJudgingSlots(ref);
      if (granted.stale) return { status: 'stale' };
      recorded = await onSlots().judgeSubmission(judgeInput);
    } else if (judgeKind === 'tests' && patched(JUDGING_SLOTS_PATCH)) {
      const admitted = await admission.admitJudging(ref);
      if (admitted.stale) return { status: 'stale' };
      recorded = await onSlots().judgeSubmission(judgeInput);
    } else {
      recorded = await (local ? localJudge : judge).judgeSubmission(judgeInput);
    }
    if (recorded.stale) return { status: 'stale' };
    mark('complete');
    complete = {
      status: 'complete',
      resultId: recorded.resultId,
      finalScore: recorded.finalScore,
      resultState: recorded.resultState,
    };
    privateFollows = split && recorded.privatePending === true;
  } catch (err) {
    failure = describeFailure(err);
  }
  if (complete) {
    // The competitor's result, events and next submission are done with; the private pass follows.
    if (privateFollows) await privatePass(ref, sandboxed, local);
    return complete;
  }
  await steps.markSubmissionFailed({ ...ref, reason: failure });
  mark('failed');
  return { status: 'failed', reason: failure };
}
