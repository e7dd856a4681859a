import { z } from 'zod';
import type { HttpJudgeConfig } from './config';
import { GraderRejectedError, GraderUnavailableError } from './errors';
import { roundScore } from './scoring';
import type { CriterionResult, JudgeOutcome, JudgeRunOptions, SubmissionForJudging } from './types';

export const MAX_GRADER_RESPONSE_BYTES = 1024 * 1024;

const graderCriterionSchema = z.object({
  name: z.string().min(1).max(200),
  score: z.number().finite().min(0).max(100),
  weight: z.number().finite().positive().max(1_000_000).default(1),
  /** Defaults to score >= 50. */
  passed: z.boolean().optional(),
  feedback: z.string().max(10_000).default(''),
  hidden: z.boolean().default(false),
});

/** What a grader must answer with (unknown extra fields are ignored). */
export const graderResponseSchema = z.object({
  score: z.number().finite().min(0).max(100),
  feedback: z.string().max(10_000).optional(),
  criteria: z.array(graderCriterionSchema).max(200).optional(),
  /** Lets a grader fail or disqualify a submission instead of scoring it. */
  result_state: z.enum(['scored', 'failed', 'disqualified']).optional(),
});

function parseRetryAfter(header: string | null): number | undefined {
  if (header === null) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** Reads at most `maxBytes` of the body; returns null when it is larger. */
async function readBodyCapped(response: Response, maxBytes: number): Promise<string | null> {
  if (response.body === null) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * fetch wraps socket errors as `TypeError: fetch failed` with the useful part in `cause`.
 * Duck-typed: errors from Node internals may come from another realm (e.g. under jest).
 */
function networkErrorText(error: unknown): string {
  const messageOf = (value: unknown): string | undefined => {
    const message = (value as { message?: unknown } | null)?.message;
    return typeof message === 'string' && message !== '' ? message : undefined;
  };
  const cause = (error as { cause?: unknown } | null)?.cause;
  return messageOf(cause) ?? messageOf(error) ?? String(error);
}

function firstLine(text: string, maxChars = 300): string {
  const line = text.split(/\r?\n/, 1)[0].trim();
  return line.length > maxChars ? `${line.slice(0, maxChars)}…` : line;
}

/**
 * POSTs `{submission: {content, files}}` to the grader. Throws GraderUnavailableError
 * (retryable: network error, timeout, 5xx, 429) or GraderRejectedError (not retryable: other
 * 4xx, redirects, invalid body); an abort through options.signal rejects with its reason.
 */
export async function runHttpJudge(
  config: HttpJudgeConfig,
  submission: SubmissionForJudging,
  options: JudgeRunOptions = {},
): Promise<JudgeOutcome> {
  const timeoutSignal = AbortSignal.timeout(config.timeout_ms);
  const signal = options.signal ? AbortSignal.any([options.signal, timeoutSignal]) : timeoutSignal;
  const headers = new Headers({ 'content-type': 'application/json', accept: 'application/json' });
  for (const [name, value] of Object.entries(config.headers ?? {})) headers.set(name, value);
  const startedAt = Date.now();

  const networkFailure = (error: unknown): never => {
    if (options.signal?.aborted) throw options.signal.reason;
    if (timeoutSignal.aborted) {
      throw new GraderUnavailableError(`grader did not answer within ${config.timeout_ms} ms`, {
        cause: error,
      });
    }
    throw new GraderUnavailableError(`grader unreachable: ${networkErrorText(error)}`, { cause: error });
  };

  let response: Response;
  try {
    response = await fetch(config.url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ submission: { content: submission.content, files: submission.files ?? [] } }),
      signal,
      redirect: 'manual',
    });
  } catch (error) {
    return networkFailure(error);
  }

  const { status } = response;
  if (status === 429 || status >= 500) {
    await response.body?.cancel().catch(() => {});
    throw new GraderUnavailableError(`grader answered ${status}`, {
      status,
      retryAfterMs: parseRetryAfter(response.headers.get('retry-after')),
    });
  }
  if (status < 200 || status >= 300) {
    await response.body?.cancel().catch(() => {});
    throw new GraderRejectedError(`grader answered ${status}`, { status });
  }

  let text: string | null;
  try {
    text = await readBodyCapped(response, MAX_GRADER_RESPONSE_BYTES);
  } catch (error) {
    return networkFailure(error);
  }
  if (text === null) {
    throw new GraderRejectedError(`grader response exceeds ${MAX_GRADER_RESPONSE_BYTES} bytes`, { status });
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw new GraderRejectedError('grader response is not JSON', { status, cause: error });
  }
  const parsed = graderResponseSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new GraderRejectedError(
      `grader response is invalid: ${issue.path.join('.') || '(root)'}: ${issue.message}`,
      { status, cause: parsed.error },
    );
  }

  const grade = parsed.data;
  const score = roundScore(grade.score);
  const criteria: CriterionResult[] = (grade.criteria ?? []).map((criterion) => ({
    name: criterion.name,
    weight: criterion.weight,
    score: roundScore(criterion.score),
    passed: criterion.passed ?? criterion.score >= 50,
    feedback: criterion.feedback,
    hidden: criterion.hidden,
  }));
  return {
    score,
    resultState: grade.result_state ?? 'scored',
    summary: grade.feedback?.trim() ? firstLine(grade.feedback) : `Graded ${score} by the external grader`,
    criteria,
    details: {
      grader_status: status,
      grader_duration_ms: Date.now() - startedAt,
      ...(grade.feedback === undefined ? {} : { grader_feedback: grade.feedback }),
    },
  };
}
