/**
 * Issue 37 (DESIGN, "Whatever a program writes is data"): an error that repeats on a retry is
 * attempted at most twice. The judging activity must hand its attempt number to the failure
 * mapping: on the second attempt a RangeError (or a value PostgreSQL refuses) is not retried,
 * instead of running the judge JUDGE_MAX_ATTEMPTS (5) times. Found by the property test's
 * "nothing attempted more than twice": the private-pass merge had dropped the attempt.
 */
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import type { Pool } from 'pg';
import { createSubmissionActivities } from '../../../../src/domain/submissions/activities';
import { fakeServiceDeps } from '../../../fakes/deps';

/** A database whose every statement fails the same way, as a deterministic error does. */
function failingDb(make: () => Error): Pool {
  return { query: async () => Promise.reject(make()) } as unknown as Pool;
}

describe('judgeSubmission: a deterministic error is attempted at most twice', () => {
  it.each([
    ['a RangeError', () => new RangeError('Maximum call stack size exceeded')],
    [
      'a value PostgreSQL refuses',
      () => Object.assign(new Error('unsupported Unicode escape sequence'), { code: '22P05' }),
    ],
  ])('%s: retryable on attempt 1, not on attempt 2', async (_what, make) => {
    const deps = { ...fakeServiceDeps(), db: failingDb(make) };
    const activities = createSubmissionActivities(deps, new AbortController().signal);
    const input = { submissionId: '00000000-0000-4000-8000-000000000001', run: 0 };
    const failureAt = async (attempt: number) => {
      const env = new MockActivityEnvironment({ attempt });
      const error = await env.run(activities.judgeSubmission, input).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(error).toBeInstanceOf(ApplicationFailure);
      return error as ApplicationFailure;
    };
    const first = await failureAt(1);
    expect({ type: first.type, nonRetryable: first.nonRetryable }).toEqual({
      type: 'DeterministicError',
      nonRetryable: false,
    });
    const second = await failureAt(2);
    expect({ type: second.type, nonRetryable: second.nonRetryable }).toEqual({
      type: 'DeterministicError',
      nonRetryable: true,
    });
  });
});
