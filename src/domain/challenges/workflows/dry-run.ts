/**
 * Challenge dry run (id `challenge-dry-run-<uuid>`): for a sandboxed judge, a wait in the service's
 * judging queue for its slots, then one judge step on the judging task queue (a worker with a free
 * judging slot and the sandbox), its admin breakdown as the result. Deterministic: the
 * only side effect is the step, which writes nothing.
 */
import { patched, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { AdminBreakdown } from '../../../judging/breakdown';
import { judgingTaskQueue } from '../../submissions/contract';
import {
  DRY_RUN_NON_RETRYABLE,
  DRY_RUN_QUEUE_PATCH,
  type ChallengeDryRunInput,
  type DryRunSteps,
} from '../contract';

export async function challengeDryRunWorkflow(input: ChallengeDryRunInput): Promise<AdminBreakdown> {
  const { judgeDryRun } = proxyActivities<DryRunSteps>({
    startToCloseTimeout: '2 minutes',
    heartbeatTimeout: '30s',
    taskQueue: judgingTaskQueue(workflowInfo().taskQueue),
    retry: {
      initialInterval: '500ms',
      backoffCoefficient: 2,
      maximumAttempts: 3,
      nonRetryableErrorTypes: DRY_RUN_NON_RETRYABLE,
    },
  });
  // Sandboxed judges wait in the service's judging queue first (operators' work: normal priority,
  // counted against no owner); the judge then runs in the slots granted and gives them back.
  const kind = (input.judge as { kind?: unknown } | null)?.kind;
  if ((kind === 'tests' || kind === 'program') && patched(DRY_RUN_QUEUE_PATCH)) {
    const { waitForDryRunSlots } = proxyActivities<DryRunSteps>({
      startToCloseTimeout: '5 minutes',
      heartbeatTimeout: '30s',
      retry: { initialInterval: '1s', maximumInterval: '10s' },
    });
    const queueKey = `dry-run:${workflowInfo().workflowId}`;
    await waitForDryRunSlots({ queueKey, judge: input.judge });
    return judgeDryRun({ ...input, queueKey });
  }
  return judgeDryRun(input);
}
