/**
 * Errors that repeat on a retry (DESIGN, "Whatever a program writes is data"): a value
 * PostgreSQL refuses (SQLSTATE class 22, data exception: 22P05 an unsupported escape such as
 * `\u0000` in jsonb, 22021 a NUL in text, 22P02 a lone surrogate in JSON), or a RangeError (a
 * stack overflow on deep input, a string too long). Retrying them only burns attempts, so they
 * are attempted at most twice (a second attempt covers a fluke, nothing more).
 */
export function isDeterministicError(err: unknown): boolean {
  if (err instanceof RangeError) return true;
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^22[0-9A-Z]{3}$/.test(code);
}

/** Attempts of a deterministic error before it is not retried any more. */
export const DETERMINISTIC_ERROR_MAX_ATTEMPTS = 2;
