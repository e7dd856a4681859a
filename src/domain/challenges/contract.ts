/**
 * The challenge-lifecycle workflow's contract: its name, id, signals, query and payloads, shared by
 * the workflow (./workflows/challenge-lifecycle.ts), its activities and the code that starts or
 * signals it. Workflow contracts name things with plain strings and import nothing (except
 * @temporalio/common): the deterministic workflow bundle imports this file.
 */
import type { AdminBreakdown } from '../../judging/breakdown';

export const CHALLENGE_LIFECYCLE_WORKFLOW = 'challengeLifecycleWorkflow';
/** New times for an active challenge (publish, edit). Also cancels an earlier stop. */
export const CHALLENGE_SCHEDULE_SIGNAL = 'challengeSchedule';
/** Quarantine or retirement: the workflow ends. */
export const CHALLENGE_STOP_SIGNAL = 'challengeStop';
export const CHALLENGE_LIFECYCLE_STATE_QUERY = 'challengeLifecycleState';

/** History stays bounded: after this many signals the run continues as new. */
export const CHALLENGE_LIFECYCLE_MAX_SIGNALS_PER_RUN = 100;

export function challengeLifecycleWorkflowId(challengeId: string): string {
  return `challenge-lifecycle-${challengeId}`;
}

export interface ChallengeSchedule {
  /** ISO 8601 or null (null: open from publication). */
  startsAt: string | null;
  /** ISO 8601 or null (null: open-ended, never completes by itself). */
  endsAt: string | null;
}

export interface ChallengeStopSignal {
  reason: string;
}

export interface ChallengeLifecycleInput {
  challengeId: string;
  schedule: ChallengeSchedule;
  /** Carried over continue-as-new: challenge.started was already handled for this schedule. */
  startedDone?: boolean;
}

export type ChallengeLifecycleOutcome = 'completed' | 'stopped' | 'inactive';

export interface ChallengeLifecycleState {
  challengeId: string;
  schedule: ChallengeSchedule;
  startedDone: boolean;
  phase: 'waiting_start' | 'waiting_end' | 'open_ended' | 'acting';
  signalsThisRun: number;
}

/** What the lifecycle workflow learns back from its activities: the database's current truth. */
export interface ChallengeLifecycleSnapshot {
  status: 'draft' | 'active' | 'complete' | 'archived' | 'missing';
  startsAt: string | null;
  endsAt: string | null;
  startedEventAt: string | null;
  /** This call emitted the event (false: not due, not active, or already emitted). */
  emitted: boolean;
}

// ---- dry run (operators judge a sample with a config being edited; nothing stored) ----------------

export const CHALLENGE_DRY_RUN_WORKFLOW = 'challengeDryRunWorkflow';

export function challengeDryRunWorkflowId(runId: string): string {
  return `challenge-dry-run-${runId}`;
}

/** A judge config being edited and one sample submission; neither is stored anywhere. */
export interface ChallengeDryRunInput {
  judge: unknown;
  submission: { content: string; files: { path: string; content: string }[] };
}

/**
 * The dry run's steps, as the worker registers them (src/domain/challenges/dry-run.ts): waiting in
 * the judging queue (DRY_RUN_QUEUE_PATCH; sandboxed judges only), then the judge. `queueKey`: the
 * queue work whose slots the judge runs in (absent for runs started before the queue).
 */
export interface DryRunSteps {
  waitForDryRunSlots(input: { queueKey: string; judge: unknown }): Promise<{ slots: number }>;
  judgeDryRun(input: ChallengeDryRunInput & { queueKey?: string }): Promise<AdminBreakdown>;
}

/** Marker of the change that puts sandboxed dry runs in the service's judging queue (replay-safe). */
export const DRY_RUN_QUEUE_PATCH = 'dry-run-judging-queue';

/** Errors of the judge step the workflow does not retry (the config or the grader said no). */
export const DRY_RUN_NON_RETRYABLE = ['InvalidJudgeConfigError', 'GraderRejectedError'];
