/** Rejudge: an operator starts a new judge run of a finished submission. */
import { ServiceError, notFound } from '../../errors';
import { withTransaction } from '../../db/pool';
import { beginRejudge, findSubmissionById, insertSubmissionEvent } from '../../db/queries/submissions';
import { emitEvent } from '../../events/outbox';
import { storableText } from '../../lib/storable-text';
import type { ServiceDeps } from '../../service-deps';
import { submissionWorkflowId } from './contract';
import { startSubmissionWorkflowSoon } from './workflow-start';
import { recordAudit, type Actor } from '../audit/trail';

/**
 * Starts a new judge run of a finished submission. Its result supersedes the current one when
 * stored (the old stays as history); the leaderboard follows and result.finalized is emitted again.
 */
export async function rejudgeSubmission(
  deps: Pick<ServiceDeps, 'db' | 'config' | 'temporal' | 'logger'>,
  actor: Actor,
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
    await recordAudit(
      tx,
      actor,
      'submission.rejudge',
      { type: 'submission', id: submissionId },
      {
        run: row.judge_run,
        from_status: existing.status,
        challenge_id: row.challenge_id,
        agent_id: row.agent_id,
      },
    );
    await insertSubmissionEvent(tx, {
      submissionId,
      run: row.judge_run,
      status: 'queued',
      message: storableText(`rejudge #${row.judge_run} requested by an operator`),
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
