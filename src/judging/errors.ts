/**
 * Errors runJudge throws. None of them is about the submission itself (a bad submission is a
 * scored or failed outcome); they are about the judging infrastructure or the judge config.
 * `retryable` tells the activity layer whether a retry can help.
 */
export abstract class JudgeInfrastructureError extends Error {
  abstract readonly retryable: boolean;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The external grader could not be reached or is overloaded: network error, timeout, 5xx, 429. */
export class GraderUnavailableError extends JudgeInfrastructureError {
  readonly retryable = true;
  /** HTTP status when the grader answered, undefined for network errors and timeouts. */
  readonly status: number | undefined;
  /** Parsed Retry-After header (429/503), in milliseconds. */
  readonly retryAfterMs: number | undefined;

  constructor(message: string, details: { status?: number; retryAfterMs?: number; cause?: unknown } = {}) {
    super(message, { cause: details.cause });
    this.status = details.status;
    this.retryAfterMs = details.retryAfterMs;
  }
}

/** The grader refused the request (4xx other than 429) or answered with an invalid body. */
export class GraderRejectedError extends JudgeInfrastructureError {
  readonly retryable = false;
  readonly status: number | undefined;

  constructor(message: string, details: { status?: number; cause?: unknown } = {}) {
    super(message, { cause: details.cause });
    this.status = details.status;
  }
}

/**
 * The sandbox process could not be started or died before any submitted code ran
 * (spawn failure, machine overloaded). Nothing about the submission is known yet.
 */
export class SandboxUnavailableError extends JudgeInfrastructureError {
  readonly retryable = true;
}

/** The stored judge config does not pass judgeConfigSchema (an admin must fix it). */
export class InvalidJudgeConfigError extends JudgeInfrastructureError {
  readonly retryable = false;
}
