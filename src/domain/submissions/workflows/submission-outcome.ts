import type { SubmissionOutcomeInput } from '../contract';

/**
 * A one-task run that only carries search attributes: the sweeper starts it under a submission's
 * own workflow id when it fails a run whose workflow had already closed (a closed run's attributes
 * cannot change), so `SubmissionStatus = "failed"` in the Temporal UI finds every submission the
 * API reports failed. It does nothing; its input says why, for whoever opens it.
 */
export async function submissionOutcomeWorkflow(
  input: SubmissionOutcomeInput,
): Promise<SubmissionOutcomeInput> {
  return input;
}
