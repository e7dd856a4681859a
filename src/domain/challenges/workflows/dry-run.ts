/**
 * Challenge dry run (id `challenge-dry-run-<uuid>`): one judge step on the judging queue (a worker
 * with a free judging slot and the sandbox), its admin breakdown as the result. Deterministic: the
 * only side effect is the step, which writes nothing.
 */
import { proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { AdminBreakdown } from '../../../judging/breakdown';
import { judgingTaskQueue } from '../../submissions/contract';
import { DRY_RUN_NON_RETRYABLE, type ChallengeDryRunInput, type DryRunSteps } from '../contract';

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
  return judgeDryRun(input);
}
