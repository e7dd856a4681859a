import { createHash, randomBytes } from 'node:crypto';
import type {
  Breakdown,
  SubmissionState,
  AssignedAnswer,
  Assignment,
  HeartbeatProfile,
  HeartbeatResult,
  LiveEvent,
  LiveEventInput,
  StreamResult,
  SubmissionFile,
  SubmitResult,
} from '../wire/connector';

export interface ConnectorClientOptions {
  /** e.g. http://127.0.0.1:3000 (no trailing /api/v1). */
  baseUrl: string;
  /** Connector key `aa_...`, sent as x-service-api-key. */
  agentKey: string;
  /** Optional API token `svc_sk_...` (scopes challenge:enter + submission:create) for submit(). */
  apiToken?: string;
  /** The key's agent; learned from the first heartbeat when omitted. */
  agentId?: string;
  /** Per-request timeout (default 10 s). */
  timeoutMs?: number;
  /** Injected for tests. */
  fetch?: typeof fetch;
  userAgent?: string;
}

export interface RequestOptions {
  signal?: AbortSignal;
}

/** The server answered with a non-2xx status. */
export class ConnectorHttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** From Retry-After, when the server sent one. */
    readonly retryAfterMs: number | null,
    readonly body: unknown,
  ) {
    super(`HTTP ${status}: ${message}`);
    this.name = 'ConnectorHttpError';
  }

  /** 408, 429 and 5xx may succeed later; other 4xx will not. */
  get retryable(): boolean {
    return this.status === 408 || this.status === 429 || this.status >= 500;
  }
}

/** The request never got an answer (connection refused, reset, timeout). Always retryable. */
export class ConnectorNetworkError extends Error {
  readonly retryable = true;
  constructor(message: string, cause?: unknown) {
    super(message, { cause });
    this.name = 'ConnectorNetworkError';
  }
}

export function isRetryable(err: unknown): boolean {
  return (err instanceof ConnectorHttpError && err.retryable) || err instanceof ConnectorNetworkError;
}

export function isAbort(err: unknown): boolean {
  return (
    err instanceof Error && (err.name === 'AbortError' || (err as { code?: string }).code === 'ABORT_ERR')
  );
}

/** Retry-After: delta seconds or an HTTP date. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | null {
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

function errorMessage(body: unknown, fallback: string): string {
  if (body && typeof body === 'object' && 'error' in body) {
    const error = (body as { error: unknown }).error;
    if (typeof error === 'string') return error;
    if (error && typeof error === 'object' && 'message' in error)
      return String((error as { message: unknown }).message);
  }
  return fallback;
}

/** A 64-hex Idempotency-Key derived from the content, so a retried submit never submits twice. */
export function idempotencyKeyFor(...parts: string[]): string {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part).update('\u0000');
  return hash.digest('hex');
}

/** A random 64-hex Idempotency-Key: one per logical operation (an event), reused on its retries. */
export const randomIdempotencyKey = (): string => randomBytes(32).toString('hex');

/**
 * Typed client of the connector endpoints (agent key) and, with an API token, of the session
 * flow used to submit. One method per operation; no retries here (the runner owns those).
 */
export class ConnectorClient {
  readonly baseUrl: string;
  private readonly fetchImpl: typeof fetch;
  private readonly timeoutMs: number;
  private knownAgentId: string | null;

  constructor(private readonly options: ConnectorClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.fetchImpl = options.fetch ?? fetch;
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.knownAgentId = options.agentId ?? null;
  }

  /** The key's agent id, once known (given, or learned from a heartbeat). */
  get agentId(): string | null {
    return this.knownAgentId;
  }

  get canSubmit(): boolean {
    return Boolean(this.options.apiToken);
  }

  /** POST /api/v1/agents/ping: marks the agent online (send every 30 s). */
  async heartbeat(profile: HeartbeatProfile = {}, options: RequestOptions = {}): Promise<HeartbeatResult> {
    const result = await this.request<HeartbeatResult>('POST', '/api/v1/agents/ping', {
      body: profile,
      signal: options.signal,
      auth: 'key',
    });
    this.knownAgentId = result.agent_id;
    return result;
  }

  /** GET /api/v1/challenges/assigned: entries waiting to be picked up (poll every 5 s). */
  async pollAssignments(options: RequestOptions = {}): Promise<Assignment[]> {
    return (await this.pollAssigned(options)).challenges;
  }

  /** The whole answer: the assignments, and why each other entry is not one (`idle`). */
  async pollAssigned(options: RequestOptions = {}): Promise<AssignedAnswer> {
    const result = await this.request<AssignedAnswer>('GET', '/api/v1/challenges/assigned', {
      signal: options.signal,
      auth: 'key',
    });
    return { challenges: result.challenges, idle: result.idle ?? [] };
  }

  /**
   * POST /api/v1/events/stream: one live event (spectators see it 30 s later). Sent with an
   * Idempotency-Key: a fresh random one per call unless `idempotencyKey` is given. To retry an
   * event whose answer was lost, call again with the SAME key and the same event (timestamp
   * included): the server answers the original seq_num and stores nothing. The runner does that.
   */
  async streamEvent(
    challengeId: string,
    event: LiveEventInput,
    options: RequestOptions & { idempotencyKey?: string } = {},
  ): Promise<StreamResult> {
    const agentId = this.knownAgentId ?? (await this.heartbeat({}, options)).agent_id;
    const timestamp =
      event.timestamp instanceof Date
        ? event.timestamp.toISOString()
        : (event.timestamp ?? new Date().toISOString());
    const body: { challengeId: string; agentId: string; event: LiveEvent } = {
      challengeId,
      agentId,
      event: { ...event, timestamp },
    };
    const key = options.idempotencyKey ?? randomIdempotencyKey();
    return this.request<StreamResult>('POST', '/api/v1/events/stream', {
      body,
      signal: options.signal,
      auth: 'key',
      headers: { 'Idempotency-Key': key },
    });
  }

  /**
   * Submits through the session flow with the API token: opens (or reuses) the session of the
   * challenge, then posts the submission with an Idempotency-Key (derived from the content unless
   * given), so calling submit again after a lost answer returns the same submission.
   */
  async submit(
    challengeId: string,
    content: string,
    files: SubmissionFile[] = [],
    options: RequestOptions & { idempotencyKey?: string } = {},
  ): Promise<SubmitResult> {
    if (!this.options.apiToken)
      throw new Error(
        'submit() needs an API token (apiToken option, scopes challenge:enter and submission:create)',
      );
    const session = await this.request<{ data: SubmitResult['session'] }>(
      'POST',
      `/api/v1/challenges/${encodeURIComponent(challengeId)}/sessions`,
      {
        signal: options.signal,
        auth: 'token',
      },
    );
    const key = options.idempotencyKey ?? idempotencyKeyFor(challengeId, content, JSON.stringify(files));
    const submission = await this.request<{ data: SubmitResult['submission'] }>(
      'POST',
      `/api/v1/sessions/${encodeURIComponent(session.data.session_id)}/submissions`,
      {
        body: { content, files },
        signal: options.signal,
        auth: 'token',
        headers: { 'Idempotency-Key': key },
      },
    );
    return { session: session.data, submission: submission.data };
  }

  /** GET /api/v1/submissions/{id} with the API token: status and current result. */
  async getSubmission(submissionId: string, options: RequestOptions = {}): Promise<SubmissionState> {
    const res = await this.request<{ data: SubmissionState }>(
      'GET',
      `/api/v1/submissions/${encodeURIComponent(submissionId)}`,
      {
        signal: options.signal,
        auth: 'token',
      },
    );
    return res.data;
  }

  /** GET /api/v1/submissions/{id}/breakdown: the competitor's view of the judge's criteria or tests. */
  async getBreakdown(submissionId: string, options: RequestOptions = {}): Promise<Breakdown> {
    const res = await this.request<{ data: Breakdown }>(
      'GET',
      `/api/v1/submissions/${encodeURIComponent(submissionId)}/breakdown`,
      {
        signal: options.signal,
        auth: 'token',
      },
    );
    return res.data;
  }

  private async request<T>(
    method: 'GET' | 'POST',
    path: string,
    input: { body?: unknown; signal?: AbortSignal; auth: 'key' | 'token'; headers?: Record<string, string> },
  ): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json', ...input.headers };
    if (this.options.userAgent) headers['user-agent'] = this.options.userAgent;
    if (input.auth === 'key') headers['x-service-api-key'] = this.options.agentKey;
    else headers.authorization = `Bearer ${this.options.apiToken}`;
    let payload: string | undefined;
    if (input.body !== undefined) {
      payload = JSON.stringify(input.body);
      headers['content-type'] = 'application/json';
    }
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const signal = input.signal ? AbortSignal.any([input.signal, timeout]) : timeout;
    let res: Response;
    let text: string;
    try {
      res = await this.fetchImpl(this.baseUrl + path, { method, headers, body: payload, signal });
      text = await res.text();
    } catch (err) {
      if (input.signal?.aborted) throw err; // stopped by the caller: not a failure
      if (timeout.aborted)
        throw new ConnectorNetworkError(`${method} ${path} timed out after ${this.timeoutMs} ms`, err);
      throw new ConnectorNetworkError(
        `${method} ${path} failed: ${(err as Error)?.message ?? String(err)}`,
        err,
      );
    }
    let body: unknown = null;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      body = text;
    }
    if (!res.ok) {
      throw new ConnectorHttpError(
        res.status,
        errorMessage(body, res.statusText || 'request failed'),
        parseRetryAfter(res.headers.get('retry-after')),
        body,
      );
    }
    return body as T;
  }
}
