export interface BackoffOptions {
  /** First retry waits about this long (default 1 s). */
  baseMs?: number;
  /** Never wait longer than this (default 60 s). */
  maxMs?: number;
  /** Injected for tests; defaults to Math.random. */
  random?: () => number;
}

/**
 * Exponential backoff with "equal jitter": attempt n waits between half and all of
 * min(max, base·2ⁿ), so retries of many agents spread out but never collapse to zero.
 */
export function backoffDelay(attempt: number, options: BackoffOptions = {}): number {
  const base = options.baseMs ?? 1_000;
  const max = options.maxMs ?? 60_000;
  const random = options.random ?? Math.random;
  const ceiling = Math.min(max, base * 2 ** Math.max(0, Math.min(attempt, 30)));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

/** Resolves after `ms`, or at once (false) when the signal aborts; the timer is always cleared. */
export function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(
      () => {
        signal?.removeEventListener('abort', onAbort);
        resolve(true);
      },
      Math.max(0, ms),
    );
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
