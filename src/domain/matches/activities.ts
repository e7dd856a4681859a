/**
 * What adapts the match steps to Temporal: failure classes. An error that repeats on a retry (a
 * RangeError in a reducer, a value the database refuses) is attempted at most twice (DESIGN,
 * "Whatever a program writes is data"): retryable on the first attempt, not after; the workflow then
 * voids the match with the failure. Anything else (a connection lost, the wall failing) keeps the
 * step's own retry policy, bounded by the match's deadline.
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';

/** The failure type the match workflow reads as "failed for good" (see isDeterministicFailure). */
export const DETERMINISTIC_FAILURE = 'DeterministicFailure';

/**
 * PostgreSQL refusing a value or a statement (SQLSTATE classes 22 data exception, 23 integrity
 * constraint violation, 42 syntax or access rule) refuses it again on a retry; JavaScript's own
 * RangeError, TypeError and SyntaxError do too (a stack overflow, a bug).
 */
export function isDeterministicFailure(err: unknown): boolean {
  if (err instanceof RangeError || err instanceof TypeError || err instanceof SyntaxError) return true;
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^(22|23|42)[0-9A-Z]{3}$/.test(code);
}

/** The same steps, each failing deterministically as `DeterministicFailure`: retried once, then not. */
export function attemptedAtMostTwice<T extends object>(steps: T): T {
  const wrapped: Record<string, unknown> = {};
  for (const [name, step] of Object.entries(steps)) {
    if (typeof step !== 'function') {
      wrapped[name] = step;
      continue;
    }
    wrapped[name] = async (...args: unknown[]) => {
      try {
        return await (step as (...a: unknown[]) => Promise<unknown>)(...args);
      } catch (err) {
        if (err instanceof ApplicationFailure || !isDeterministicFailure(err)) throw err;
        const error = err as Error;
        throw ApplicationFailure.create({
          type: DETERMINISTIC_FAILURE,
          message: `${error.name}: ${error.message}`.slice(0, 1_000),
          nonRetryable: Context.current().info.attempt >= 2,
          cause: error,
        });
      }
    };
  }
  return wrapped as T;
}
