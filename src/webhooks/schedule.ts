/**
 * Retry schedule of one delivery (spec section 6 "Delivery", DESIGN.md Webhooks).
 * No imports on purpose: Temporal workflow code can import this file directly (not the index, which
 * pulls in node:http and node:crypto that the workflow sandbox refuses).
 *
 * The spec's table lists four attempts (at once, +1 s, +5 s, +30 s) but its prose says "after 3 failed
 * attempts ... dead_letter"; DESIGN.md settles it: 4 attempts in all, dead_letter when all 4 fail.
 * The delays are the waits BEFORE attempts 2..n, so there is always one more attempt than delays.
 */

export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = Object.freeze([1000, 5000, 30000]);

/** Per attempt: DNS + connect + response head (spec section 8); pass it as sendWebhookAttempt timeoutMs. */
export const ATTEMPT_TIMEOUT_MS = 10_000;

/** Consecutive failed attempts (across deliveries) after which a subscription is disabled. */
export const DISABLE_AFTER_CONSECUTIVE_FAILURES = 10;

const MAX_RETRIES = 20;
const MAX_DELAY_MS = 24 * 60 * 60 * 1000;

export function totalAttempts(retryDelaysMs: readonly number[] = DEFAULT_RETRY_DELAYS_MS): number {
  return retryDelaysMs.length + 1;
}

/**
 * Wait before attempt `attemptNumber` (1-based): 0 for the first, null when there is no such attempt
 * (the delivery is then dead_letter).
 */
export function delayBeforeAttempt(
  attemptNumber: number,
  retryDelaysMs: readonly number[] = DEFAULT_RETRY_DELAYS_MS,
): number | null {
  if (!Number.isInteger(attemptNumber) || attemptNumber < 1) {
    throw new RangeError(`attempt numbers start at 1, got ${attemptNumber}`);
  }
  if (attemptNumber === 1) return 0;
  return retryDelaysMs[attemptNumber - 2] ?? null;
}

/** `failureCount` is the subscription's count after recording the latest failed attempt. */
export function shouldDisableSubscription(failureCount: number): boolean {
  return failureCount >= DISABLE_AFTER_CONSECUTIVE_FAILURES;
}

/**
 * Parse a configured schedule such as "1000,5000,30000" (tests use e.g. "50,50,50"). Whitespace around
 * entries is ignored. Throws on anything else: a blank value, non-integers, negative numbers, more than
 * 20 retries or a delay over 24 h, so a typo in configuration fails at start instead of silently
 * changing delivery guarantees.
 */
export function parseRetryDelays(csv: string): number[] {
  const entries = csv.split(',').map((entry) => entry.trim());
  if (entries.length === 1 && entries[0] === '') {
    throw new RangeError('retry delays must list at least one delay in milliseconds');
  }
  if (entries.length > MAX_RETRIES) {
    throw new RangeError(`at most ${MAX_RETRIES} retry delays are allowed, got ${entries.length}`);
  }
  return entries.map((entry) => {
    if (!/^\d+$/.test(entry)) {
      throw new RangeError(`retry delay ${JSON.stringify(entry)} is not a whole number of milliseconds`);
    }
    const delay = Number(entry);
    if (delay > MAX_DELAY_MS) throw new RangeError(`retry delay ${delay} ms is longer than 24 h`);
    return delay;
  });
}
