import { continueAsNew, proxyActivities } from '@temporalio/workflow';
import type { SubmissionActivities } from '../activities';
import type { SubmissionSweeperInput } from '../contract';

/**
 * The submission sweeper: one per task queue (workflow id `submission-sweeper-<queue>`), started
 * by every worker at boot with "use existing", so exactly one runs however many workers there are.
 * Its single long-running activity sweeps in a loop with heartbeats (a crashed worker's loop is
 * retried elsewhere after 30 s); after `runForMs` the workflow continues as new, so its history
 * stays a few events long. A run timeout (set at start) lets an abandoned sweeper (every worker of
 * its queue gone) close by itself.
 */
export async function submissionSweeperWorkflow(input: SubmissionSweeperInput): Promise<void> {
  const { runSubmissionSweeper } = proxyActivities<SubmissionActivities>({
    startToCloseTimeout: input.runForMs + 60_000,
    heartbeatTimeout: '30s',
    retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s' },
  });
  await runSubmissionSweeper({ runForMs: input.runForMs });
  await continueAsNew<typeof submissionSweeperWorkflow>(input);
}
