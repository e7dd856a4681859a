/**
 * Fair share of the judges: a submission run that judges in sandboxes (`tests`, `program`) waits
 * in the service's judging queue (src/domain/judging-queue/) for the sandbox slots it runs in.
 * Caps count slots (JUDGE_MAX_IN_FLIGHT_PER_AGENT / _PER_USER, across all workers); the order is
 * fair per owner, so one competitor flooding submissions cannot keep another competitor's single
 * submission waiting behind the flood. A rejudge waits at low priority and counts against no owner.
 */
import type { Pool } from 'pg';
import type { Config } from '../../config';
import { findChallengeJudge } from '../../db/queries/challenges';
import type { NewQueueWork } from '../../db/queries/judging-queue';
import { findResultForRun } from '../../db/queries/results';
import { findSubmissionById } from '../../db/queries/submissions';
import { QUEUE_PRIORITY, slotsForJudge } from '../judging-queue/order';
import {
  type QueueConfig,
  type WaitControls,
  privatePassWorkKey,
  submissionWorkKey,
  tryAdmit,
  waitForSlots,
} from '../judging-queue/queue';
import type { RunRef } from './contract';

export type AdmissionConfig = QueueConfig & Pick<Config, 'JUDGE_PROGRAM_SLOTS'>;

type RunWork = { missing: true } | { stale: true } | { work: NewQueueWork };

async function runWork(db: Pool, config: AdmissionConfig, ref: RunRef): Promise<RunWork> {
  const submission = await findSubmissionById(db, ref.submissionId);
  if (!submission) return { missing: true };
  // A superseded or finished run needs no slot: the workflow ends as stale.
  if (
    submission.judge_run !== ref.run ||
    submission.status === 'complete' ||
    submission.status === 'failed'
  ) {
    return { stale: true };
  }
  const judge = await findChallengeJudge(db, submission.challenge_id);
  return { work: runQueueWork(submission, judge, ref, config.JUDGE_PROGRAM_SLOTS) };
}

/**
 * The queue entry of a submission run (pure, so the unit tier proves it): a first judging counts
 * against its owner and agent at normal priority; a rejudge against no one, at low priority; the
 * slots are the judge's (a `program` judge's up to JUDGE_PROGRAM_SLOTS, never more than its tests).
 */
export function runQueueWork(
  submission: { id: string; owner_user_id: string; agent_id: string },
  judge: unknown,
  ref: RunRef,
  programSlots: number,
): NewQueueWork {
  const rejudge = ref.run > 0;
  return {
    workKey: submissionWorkKey(submission.id, ref.run),
    kind: rejudge ? 'rejudge' : 'submission',
    priority: rejudge ? QUEUE_PRIORITY.low : QUEUE_PRIORITY.normal,
    ownerUserId: rejudge ? null : submission.owner_user_id,
    agentId: rejudge ? null : submission.agent_id,
    submissionId: submission.id,
    run: ref.run,
    slots: Math.max(1, slotsForJudge(judge, programSlots)),
  };
}

export type JudgingAdmission = { admitted: boolean } | { stale: true } | { missing: true };

/**
 * One admission attempt, for submission workflows started before the queue (they wait with
 * Temporal retries of `admitJudging`): their run takes its place in the same queue and is
 * granted in the queue's order, whenever its retry asks.
 */
export async function admitJudging(
  db: Pool,
  config: AdmissionConfig,
  ref: RunRef,
): Promise<JudgingAdmission> {
  const found = await runWork(db, config, ref);
  if (!('work' in found)) return found;
  return { admitted: await tryAdmit(db, config, found.work) };
}

/** Waits in the queue until the run holds its slots; answers them (or stale/missing). */
export async function waitForJudgingSlots(
  db: Pool,
  config: AdmissionConfig,
  ref: RunRef,
  controls: WaitControls = {},
): Promise<{ slots: number } | { stale: true } | { missing: true }> {
  const found = await runWork(db, config, ref);
  if (!('work' in found)) return found;
  return { slots: await waitForSlots(db, config, found.work, controls) };
}

/**
 * Waits in the queue until the run's private pass holds its slots (DESIGN, "Fifth-round
 * extensions"): low priority and counted against no owner or agent, like a rejudge, so that it
 * never delays anyone's next submission. `done` when there is no pass left to run (already
 * stored, or the result is gone).
 */
export async function waitForPrivatePassSlots(
  db: Pool,
  config: AdmissionConfig,
  ref: RunRef,
  controls: WaitControls = {},
): Promise<{ slots: number } | { done: true }> {
  const result = await findResultForRun(db, ref.submissionId, ref.run);
  if (!result || result.private_state !== 'pending') return { done: true };
  const judge = await findChallengeJudge(db, result.challenge_id);
  const work: NewQueueWork = {
    workKey: privatePassWorkKey(ref.submissionId, ref.run),
    kind: 'private_pass',
    priority: 1,
    ownerUserId: null,
    agentId: null,
    submissionId: ref.submissionId,
    run: ref.run,
    slots: Math.max(1, slotsForJudge(judge, config.JUDGE_PROGRAM_SLOTS)),
  };
  return { slots: await waitForSlots(db, config, work, controls) };
}
