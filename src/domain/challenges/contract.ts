/**
 * The challenge-lifecycle workflow's contract: its name, id, signals, query and payloads, shared by
 * the workflow (workflows/challenge-lifecycle.ts), its activities and the code that starts or
 * signals it. Workflow contracts name things with plain strings and import nothing (except
 * @temporalio/common): the deterministic workflow bundle imports this file.
 */
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
