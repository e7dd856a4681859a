/** Starting a submission run's workflow: at once after intake or rejudge, or later by the sweeper. */
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { AgentIdKey, ChallengeIdKey, SubmissionStatusKey } from '../../temporal-client/search-attributes';
import type { Queryable } from '../../db/pool';
import {
  sqlWorkflowStartStore,
  type SubmissionStatus,
  type WorkflowStartStore,
} from '../../db/queries/submissions';
import type { ServiceDeps } from '../../service-deps';
import { SUBMISSION_WORKFLOW, submissionWorkflowId, type SubmissionWorkflowInput } from './contract';

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
/** What starting a run needs: Temporal, and the store recording the start (the SQL one on `db` unless the deps carry another). */
export type WorkflowStartDeps = { db: Queryable } & Pick<ServiceDeps, 'config' | 'temporal' | 'stores'>;

const storeOf = (deps: WorkflowStartDeps): WorkflowStartStore =>
  deps.stores?.workflowStarts ?? sqlWorkflowStartStore(deps.db);

export async function startSubmissionWorkflow(
  deps: WorkflowStartDeps,
  ref: SubmissionRunRef,
  status: SubmissionStatus = 'received',
): Promise<void> {
  const client = await deps.temporal();
  try {
    const input: SubmissionWorkflowInput = {
      submissionId: ref.id,
      challengeId: ref.challenge_id,
      agentId: ref.agent_id,
      run: ref.judge_run,
    };
    await client.workflow.start(SUBMISSION_WORKFLOW, {
      taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
      workflowId: submissionWorkflowId(ref.id, ref.judge_run),
      args: [input],
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
  await storeOf(deps).markWorkflowStarted(ref.id, ref.judge_run);
}

/** Starts the workflow but never fails the caller: whatever does not start now, the sweeper starts later. */
export async function startSubmissionWorkflowSoon(
  deps: WorkflowStartDeps & Pick<ServiceDeps, 'logger'>,
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
