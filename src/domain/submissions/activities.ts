import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { ServiceError } from '../../errors';
import { admitJudging, waitForJudgingSlots, waitForPrivatePassSlots } from './admission';
import type { JudgeStepInput, RecordedJudgement, RunRef } from './contract';
import { judgePrivatePass, judgeRun, type JudgingSteps, type PrivatePassRecord } from './judging';
import { sweepIntervalMs } from './rules';
import { sweepOnce } from './sweeper';
import {
  GraderRejectedError,
  GraderUnavailableError,
  InvalidJudgeConfigError,
  JudgeInfrastructureError,
} from '../../judging';
import { DETERMINISTIC_ERROR_MAX_ATTEMPTS, isDeterministicError } from '../../lib/deterministic-error';
import type { ServiceDeps } from '../../service-deps';
import { nudgeEndedBoutOfSubmission } from '../matches/workflow-start';

/** Longest wait a grader's Retry-After may impose between attempts. */
const MAX_GRADER_RETRY_AFTER_MS = 30_000;
/** Sweeper passes between two checks for runs whose workflow ended without finishing them. */
const STALL_CHECK_EVERY = 10;

/**
 * runJudge's infrastructure errors → Temporal failures: retryable or not, as each error says.
 * `attempt`: this activity attempt (from 1); an error that repeats on a retry (a value the
 * database refuses, a RangeError) is retried once, then not again (DESIGN, "Whatever a program
 * writes is data": attempted at most twice, not JUDGE_MAX_ATTEMPTS times).
 */
export function toActivityFailure(err: unknown, attempt = 1): unknown {
  if (isDeterministicError(err)) {
    return ApplicationFailure.create({
      message: err instanceof Error ? err.message : String(err),
      type: 'DeterministicError',
      nonRetryable: attempt >= DETERMINISTIC_ERROR_MAX_ATTEMPTS,
      cause: err instanceof Error ? err : undefined,
    });
  }
  // The submission or its challenge is gone: retrying cannot help (types the workflow's retry policy names).
  if (err instanceof ServiceError && err.code === 'NOT_FOUND') {
    return ApplicationFailure.create({
      message: err.message,
      type: /challenge/.test(err.message) ? 'ChallengeNotFound' : 'SubmissionNotFound',
      nonRetryable: true,
    });
  }
  if (err instanceof GraderUnavailableError) {
    return ApplicationFailure.create({
      message: err.message,
      type: err.name,
      nonRetryable: false,
      nextRetryDelay:
        err.retryAfterMs !== undefined ? Math.min(err.retryAfterMs, MAX_GRADER_RETRY_AFTER_MS) : undefined,
    });
  }
  if (err instanceof GraderRejectedError || err instanceof InvalidJudgeConfigError) {
    return ApplicationFailure.create({ message: err.message, type: err.name, nonRetryable: true });
  }
  if (err instanceof JudgeInfrastructureError) {
    return ApplicationFailure.create({ message: err.message, type: err.name, nonRetryable: !err.retryable });
  }
  return err;
}

function submissionNotFound(ref: RunRef): ApplicationFailure {
  return ApplicationFailure.create({
    message: `submission ${ref.submissionId} not found`,
    type: 'SubmissionNotFound',
    nonRetryable: true,
  });
}

/**
 * The submission workflows' activities that adapt the domain to Temporal: failure mapping
 * (admission caps, judge errors) and heartbeats (judging, the sweeper loop). The plain database
 * steps are registered straight from ./judging.ts (createJudgingSteps).
 *
 * `stopping` aborts when the worker process is asked to stop: the sweeper loop then ends at once
 * instead of holding the worker's graceful shutdown for its whole grace time (the next worker resumes it).
 */
export function createSubmissionActivities(deps: ServiceDeps, stopping: AbortSignal) {
  return {
    /**
     * Workflows started before the judging queue (JUDGING_QUEUE_PATCH): one attempt to take the
     * run's slots in the queue, or the retryable JudgingCapReached while the queue has not granted
     * them (the workflow's retry policy asks again without limit; the run keeps its place).
     */
    async admitJudging(ref: RunRef): Promise<{ stale: boolean }> {
      const admission = await admitJudging(deps.db, deps.config, ref);
      if ('missing' in admission) throw submissionNotFound(ref);
      if ('stale' in admission) return { stale: true };
      if (!admission.admitted) {
        throw ApplicationFailure.create({
          type: 'JudgingCapReached',
          message: 'waiting in the judging queue for sandbox slots',
          nonRetryable: false,
        });
      }
      return { stale: false };
    },

    /**
     * Puts the run in the judging queue once and waits (heartbeating) until the queue grants it
     * its sandbox slots, in the queue's fair order. A retry after a worker died keeps the run's place.
     */
    async waitForJudgingSlots(ref: RunRef): Promise<{ stale: boolean; slots: number }> {
      const ctx = Context.current();
      const admission = await waitForJudgingSlots(deps.db, deps.config, ref, {
        signal: ctx.cancellationSignal,
        onPoll: (details) => ctx.heartbeat(details),
      });
      if ('missing' in admission) throw submissionNotFound(ref);
      if ('stale' in admission) return { stale: true, slots: 0 };
      return { stale: false, slots: admission.slots };
    },

    /**
     * Runs the challenge's judge over the submission and records the outcome (result, leaderboard,
     * `complete`, events) in one transaction. Idempotent: a run that already has its result returns it.
     */
    async judgeSubmission(input: JudgeStepInput): Promise<RecordedJudgement> {
      const ctx = Context.current();
      // Local activities (rubric judging) cannot heartbeat; regular ones do, so a dead worker is noticed.
      const heartbeat = ctx.info.isLocal ? () => undefined : (details: unknown) => ctx.heartbeat(details);
      const ref: RunRef = { submissionId: input.submissionId, run: input.run };
      try {
        const recorded = await judgeRun(
          deps,
          ref,
          {
            signal: ctx.cancellationSignal,
            onProgress: (progress) => heartbeat(progress),
            onTick: () => heartbeat({ phase: 'judging' }),
          },
          input.split === true,
        );
        // An ended bout's settlement may be waiting for this judging (issue 42).
        if (!recorded.stale) await nudgeEndedBoutOfSubmission(deps, ref.submissionId);
        return recorded;
      } catch (err) {
        // The attempt decides whether a deterministic error gets its one retry (at most twice).
        throw toActivityFailure(err, ctx.info.attempt);
      }
    },

    /** The run's private pass waits in the judging queue (low priority, no owner) for its slots. */
    async waitForPrivatePassSlots(ref: RunRef): Promise<{ done: boolean; slots: number }> {
      const ctx = Context.current();
      const granted = await waitForPrivatePassSlots(deps.db, deps.config, ref, {
        signal: ctx.cancellationSignal,
        onPoll: (details) => ctx.heartbeat(details),
      });
      return 'done' in granted ? { done: true, slots: 0 } : { done: false, slots: granted.slots };
    },

    /** Judges the run's private tests or criteria and stores private_score (idempotent). */
    async judgePrivatePass(ref: RunRef): Promise<PrivatePassRecord> {
      const ctx = Context.current();
      const heartbeat = ctx.info.isLocal ? () => undefined : (details: unknown) => ctx.heartbeat(details);
      try {
        const recorded = await judgePrivatePass(deps, ref, {
          signal: ctx.cancellationSignal,
          onProgress: (progress) => heartbeat(progress),
          onTick: () => heartbeat({ phase: 'private pass' }),
        });
        await nudgeEndedBoutOfSubmission(deps, ref.submissionId);
        return recorded;
      } catch (err) {
        throw toActivityFailure(err, ctx.info.attempt);
      }
    },

    /**
     * The sweeper's body: sweeps every interval for `runForMs`, then returns so that the workflow
     * continues as new (bounded history). Heartbeats each pass, so a dead worker is noticed and the
     * loop resumes on another; worker shutdown cancels it cleanly.
     */
    async runSubmissionSweeper(input: {
      runForMs: number;
    }): Promise<{ passes: number; workflowsStarted: number; sessionsClosed: number; stalledFailed: number }> {
      const ctx = Context.current();
      const interval = sweepIntervalMs(deps.config.SUBMISSION_SWEEP_AFTER_MS);
      const until = Date.now() + input.runForMs;
      const totals = { passes: 0, workflowsStarted: 0, sessionsClosed: 0, stalledFailed: 0 };
      const stopped = new Promise((resolve) => stopping.addEventListener('abort', resolve, { once: true }));
      while (Date.now() < until && !stopping.aborted) {
        try {
          // The stalled-run check describes workflows: every STALL_CHECK_EVERY passes is plenty.
          const report = await sweepOnce(deps, 100, {
            checkStalled: totals.passes % STALL_CHECK_EVERY === 0,
          });
          totals.workflowsStarted += report.workflowsStarted;
          totals.sessionsClosed += report.sessionsClosed;
          totals.stalledFailed += report.stalledFailed;
        } catch (err) {
          deps.logger.warn({ err }, 'submission sweep failed; retrying next pass');
        }
        totals.passes += 1;
        ctx.heartbeat(totals);
        // Wakes early when the worker stops; rejects with CancelledFailure when the activity is cancelled.
        await Promise.race([ctx.sleep(interval), stopped]);
      }
      return totals;
    },
  };
}

/** Everything the submission workflows call: the domain's steps and these adapters. */
export type SubmissionActivities = JudgingSteps & ReturnType<typeof createSubmissionActivities>;
