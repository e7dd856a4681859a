/**
 * A well-behaved API client for the fault run: one Idempotency-Key per submission, reused on every
 * retry. It retries on network errors, 5xx, 429 (after Retry-After) and 409 CONFLICT (the same key
 * still in progress, e.g. its original request died with the API), with capped backoff, for a
 * bounded time. A submission is "answered 2xx" when one of its POSTs got a 2xx.
 */
import { sleep } from '../../bench/lib/processes';

export interface SubmissionAttemptLog {
  index: number;
  agentId: string;
  idempotencyKey: string;
  content: string;
  firstSentAt: number;
  /** The answer that ended the retries. */
  outcome: 'answered' | 'rejected' | 'gave_up';
  status: number | null;
  submissionId: string | null;
  answeredAt: number | null;
  attempts: number;
  networkErrors: number;
  serverErrors: number;
  conflicts: number;
  rateLimited: number;
  lastError: string | null;
}

export interface SubmitInput {
  baseUrl: string;
  token: string;
  sessionId: string;
  index: number;
  agentId: string;
  idempotencyKey: string;
  content: string;
  /** Give up after this long (bounded run). */
  giveUpAfterMs: number;
}

/**
 * POSTs currently waiting for an answer, by start time, and the durations of answered ones: the
 * harness kills the API while a POST is well into its processing (after its commit, ideally).
 */
export const inFlight = { count: 0, startedAt: new Set<number>(), answeredMs: [] as number[] };

/** Median duration of answered POSTs so far (ms). */
export function medianPostMs(): number {
  const sorted = [...inFlight.answeredMs].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.floor(sorted.length / 2)] : 20;
}

const backoff = (attempt: number) =>
  Math.min(5_000, 250 * 2 ** Math.min(attempt, 5)) * (0.75 + Math.random() * 0.5);

export async function submitWithRetries(input: SubmitInput): Promise<SubmissionAttemptLog> {
  const log: SubmissionAttemptLog = {
    index: input.index,
    agentId: input.agentId,
    idempotencyKey: input.idempotencyKey,
    content: input.content,
    firstSentAt: Date.now(),
    outcome: 'gave_up',
    status: null,
    submissionId: null,
    answeredAt: null,
    attempts: 0,
    networkErrors: 0,
    serverErrors: 0,
    conflicts: 0,
    rateLimited: 0,
    lastError: null,
  };
  const deadline = log.firstSentAt + input.giveUpAfterMs;
  const body = JSON.stringify({ content: input.content });
  while (Date.now() < deadline) {
    log.attempts += 1;
    let wait: number;
    inFlight.count += 1;
    const sentAt = performance.now();
    inFlight.startedAt.add(sentAt);
    try {
      const res = await fetch(`${input.baseUrl}/api/v1/sessions/${input.sessionId}/submissions`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${input.token}`,
          'content-type': 'application/json',
          'idempotency-key': input.idempotencyKey,
        },
        body,
        signal: AbortSignal.timeout(30_000),
      });
      const text = await res.text();
      let json: any = null;
      try {
        json = JSON.parse(text);
      } catch {
        /* not JSON */
      }
      log.status = res.status;
      if (res.status >= 200 && res.status < 300) {
        inFlight.answeredMs.push(performance.now() - sentAt);
        log.outcome = 'answered';
        log.submissionId = json?.data?.id ?? null;
        log.answeredAt = Date.now();
        return log;
      }
      const code = json?.error?.code as string | undefined;
      log.lastError = `${res.status} ${code ?? ''} ${json?.error?.message ?? text.slice(0, 200)}`.trim();
      if (res.status === 429) {
        log.rateLimited += 1;
        wait = Math.min(10_000, Number(res.headers.get('retry-after') ?? 1) * 1000);
      } else if (res.status === 409 && code === 'CONFLICT') {
        log.conflicts += 1;
        wait = backoff(log.attempts);
      } else if (res.status >= 500) {
        log.serverErrors += 1;
        wait = backoff(log.attempts);
      } else {
        log.outcome = 'rejected'; // a definite answer (validation, key reused, session closed...)
        return log;
      }
    } catch (err) {
      log.networkErrors += 1;
      log.lastError = `network: ${(err as Error).cause ? String((err as { cause: unknown }).cause) : (err as Error).message}`;
      wait = backoff(log.attempts);
    } finally {
      inFlight.count -= 1;
      inFlight.startedAt.delete(sentAt);
    }
    await sleep(Math.max(0, Math.min(wait, deadline - Date.now())));
  }
  return log;
}
