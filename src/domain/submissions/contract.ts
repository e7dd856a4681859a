/**
 * The submission workflows' contract: names, ids, payloads and task queues shared by
 * ./workflows/submission.ts and ./workflows/submission-sweeper.ts, their activities and the code that
 * starts them. Plain values only: the deterministic workflow bundle imports this file.
 */
export const SUBMISSION_WORKFLOW = 'submissionWorkflow';
export const SUBMISSION_SWEEPER_WORKFLOW = 'submissionSweeperWorkflow';
/** Marks in visibility an outcome reached without the run's own workflow (./workflows/submission-outcome.ts). */
export const SUBMISSION_OUTCOME_WORKFLOW = 'submissionOutcomeWorkflow';

/** `submission-<uuid>` for the first judging, `submission-<uuid>-rejudge-<n>` for rejudge run n. */
export function submissionWorkflowId(submissionId: string, run: number): string {
  return run === 0 ? `submission-${submissionId}` : `submission-${submissionId}-rejudge-${run}`;
}

/** One sweeper per task queue. */
export function sweeperWorkflowId(taskQueue: string): string {
  return `submission-sweeper-${taskQueue}`;
}

/** One judge run of a submission: run 0 is the first judging, n the n-th rejudge. */
export interface RunRef {
  submissionId: string;
  run: number;
}

export interface SubmissionWorkflowInput {
  submissionId: string;
  challengeId: string;
  agentId: string;
  /** Judge run: 0 for the first judging, n for rejudge n. */
  run: number;
}

export interface SubmissionWorkflowResult {
  status: 'complete' | 'failed' | 'stale';
  resultId?: string | null;
  finalScore?: number | null;
  resultState?: string | null;
  reason?: string;
}

export interface RecordedJudgement {
  resultId: string | null;
  finalScore: number | null;
  resultState: string | null;
  /** True when this run was superseded by a newer one before it could record anything. */
  stale: boolean;
  /** The result waits for its private pass (recorded with `split`; absent from runs before PRIVATE_PASS_PATCH). */
  privatePending?: boolean;
}

/** The judge step's input: the run, and whether it judges the public pass only (a private pass follows). */
export interface JudgeStepInput extends RunRef {
  split?: boolean;
}

export interface SubmissionOutcomeInput {
  submissionId: string;
  run: number;
  status: 'failed';
  reason: string;
}

export interface SubmissionSweeperInput {
  /** How long one activity run sweeps before the workflow continues as new. */
  runForMs: number;
}

/*
 * `tests` judgings run on their own task queue, polled by a worker whose activity concurrency is its
 * judging slots, so Temporal hands a judging only to a worker with a free slot
 * (docs/decisions/security.md, "Fair share of the judges").
 */
export function judgingTaskQueue(taskQueue: string): string {
  return `${taskQueue}-judging`;
}

/** Judge attempts: 1 + 4 retries (0.5 s, 1 s, 2 s, 4 s apart) on retryable failures, then `failed`. */
export const JUDGE_MAX_ATTEMPTS = 5;

/** Marker of the workflow change that added admission (by retries) and the judging task queue (replay-safe). */
export const JUDGING_SLOTS_PATCH = 'judging-admission-and-slots';
/**
 * Marker of the change to the service's judging queue: `tests` and `program` runs wait in the
 * queue (one activity that holds its place and heartbeats) for the slots they run in, instead of
 * retrying admission; `program` judgings run on the judging task queue too.
 */
export const JUDGING_QUEUE_PATCH = 'judging-queue-fair-slots';
/**
 * Marker of the change that sends `game` judgings (a self-play validation game, one slot per
 * player) through the judging queue and onto the judging task queue, like `program` ones.
 */
export const GAME_JUDGING_PATCH = 'game-judging-in-the-queue';
/** received → queued → judging as one local activity (one transaction) instead of two. */
export const STATUS_STEPS_PATCH = 'queued-and-judging-in-one-step';
/**
 * Marker of the change that judges private tests and criteria in a pass of their own after the
 * public result (DESIGN, "Fifth-round extensions"): the judge step judges the public ones and
 * stores the result `complete` with its private pass pending; the private pass then waits in the
 * judging queue at low priority (sandboxed judges) and stores private_score, or 0 with its reason.
 */
export const PRIVATE_PASS_PATCH = 'private-tests-in-a-pass-of-their-own';
