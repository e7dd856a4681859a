/**
 * One outbound delivery attempt: POST the raw body to the subscription URL and classify the outcome.
 *
 * - Never throws for receiver-side problems (bad URL, DNS, refused target, connection, TLS, timeout,
 *   non-2xx); the caller records the outcome and schedules the next attempt.
 * - SSRF: the URL is checked (after DNS) with `assertDeliverableUrl`, and the TCP connection is made to
 *   exactly those addresses through a pinned `lookup`, so a DNS answer that changes between check and
 *   connect (DNS rebinding) cannot redirect the request. TLS still verifies the certificate against the
 *   host name (SNI and hostname check come from the URL, not from the address).
 * - No redirects are followed: a 3xx is a failure (a redirect could point anywhere, including inside).
 * - `timeoutMs` bounds DNS + connect + TLS + waiting for the response head. Once the status line has
 *   arrived the outcome is known; the body is read only for an excerpt (at most `maxExcerptBytes`) and
 *   only until the same deadline, after which we stop reading without turning the outcome into a timeout.
 * - 410 Gone means the receiver wants no more deliveries: `gone: true`, the caller disables the
 *   subscription at once.
 * - `sentAtMs` is the moment the request went out: taken once the connection (and TLS) is up, right
 *   before the head and body are written, so the receiver cannot see the request before it. That is
 *   the attempt's time (recorded, and the start of the next retry's delay); headers given as a
 *   function are built at that moment (the Standard Webhooks timestamp is the sending time).
 */
import http from 'node:http';
import https from 'node:https';
import type { LookupAddress, LookupOptions } from 'node:dns';
import { type Sanitized, type StorableText, cutAtCharacter, sanitizeText } from '../lib/storable-text';
import {
  assertDeliverableUrl,
  UnsafeWebhookUrlError,
  type DeliverableTarget,
  type HostLookup,
  type ResolvedAddress,
} from './ssrf';

export const DEFAULT_RESPONSE_EXCERPT_BYTES = 4096;
const MAX_ERROR_CHARS = 500;

export interface WebhookAttemptInput {
  url: string;
  /**
   * From buildDeliveryHeaders; Content-Length is added here. A function is called with the moment the
   * request goes out (`sentAtMs`), so a signed timestamp can be that moment.
   */
  headers: Record<string, string> | ((sentAtMs: number) => Record<string, string>);
  /** The exact bytes that were signed. */
  rawBody: string;
  timeoutMs: number;
  allowPrivate: boolean;
  /** WEBHOOK_INTERNAL_ORIGINS. */
  internalOrigins?: readonly string[];
  lookup?: HostLookup;
  maxExcerptBytes?: number;
}

export interface WebhookAttemptOutcome {
  /** The receiver answered 2xx. */
  ok: boolean;
  /** HTTP status, or null when no response head arrived (timeout, connection or TLS error, refused URL). */
  statusCode: number | null;
  /** Milliseconds from the start of the attempt to the response head (or to the failure). */
  latencyMs: number;
  /** Short reason for a failed attempt, null on success. 'timeout' when the deadline passed. */
  error: string | null;
  /**
   * Start of the response body as storable text: its bytes through the one sanitizer (NUL and
   * invalid UTF-8 as U+FFFD, never a character cut in two at the cap).
   */
  responseBodyExcerpt: StorableText | null;
  /** Whether the excerpt has bytes replaced (what shows it says so). */
  responseBodyReplaced: boolean;
  /** The receiver answered 410 Gone: disable the subscription now, do not retry. */
  gone: boolean;
  /**
   * Epoch ms when the request went out (connection up, head and body about to be written); null when
   * it never did (refused target, DNS or connection failure, timeout before connecting).
   */
  sentAtMs: number | null;
}

export async function sendWebhookAttempt(input: WebhookAttemptInput): Promise<WebhookAttemptOutcome> {
  const startedAt = performance.now();
  const elapsedMs = () => Math.round(performance.now() - startedAt);
  const failure = (error: string): WebhookAttemptOutcome => ({
    ok: false,
    statusCode: null,
    latencyMs: elapsedMs(),
    error: truncate(error),
    responseBodyExcerpt: null,
    responseBodyReplaced: false,
    gone: false,
    sentAtMs: null,
  });

  let target: DeliverableTarget;
  try {
    const checked = assertDeliverableUrl(input.url, {
      allowPrivate: input.allowPrivate,
      internalOrigins: input.internalOrigins,
      lookup: input.lookup,
    });
    target = await withinDeadline(checked, input.timeoutMs);
  } catch (error) {
    if (error === DEADLINE_PASSED) return failure('timeout');
    if (error instanceof UnsafeWebhookUrlError) {
      return failure(error.code === 'UNRESOLVABLE' ? error.message : `refused target: ${error.message}`);
    }
    return failure(`target check failed: ${describeError(error)}`);
  }

  const remainingMs = Math.max(1, input.timeoutMs - (performance.now() - startedAt));
  return postToPinnedAddresses(target.url, target.addresses, input, remainingMs, elapsedMs, failure);
}

function postToPinnedAddresses(
  url: URL,
  addresses: ResolvedAddress[],
  input: WebhookAttemptInput,
  remainingMs: number,
  elapsedMs: () => number,
  failure: (error: string) => WebhookAttemptOutcome,
): Promise<WebhookAttemptOutcome> {
  const excerptCap = input.maxExcerptBytes ?? DEFAULT_RESPONSE_EXCERPT_BYTES;

  return new Promise((resolve) => {
    let settled = false;
    let sentAtMs: number | null = null;
    let request: http.ClientRequest | undefined;
    let response: { statusCode: number; latencyMs: number } | undefined;
    const excerptChunks: Buffer[] = [];
    let excerptBytes = 0;

    const finish = (outcome: WebhookAttemptOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      request?.destroy();
      resolve(outcome);
    };
    const finishWithResponse = () => {
      if (!response) return;
      finish({
        ...classifyResponse(response.statusCode, response.latencyMs, excerptOf(excerptChunks, excerptCap)),
        sentAtMs,
      });
    };

    // The deadline decides after the I/O that was ready when it fired: after a stall of this
    // process (CPU starved, a long GC) the expired timer runs before the socket's data is read, and
    // a response that arrived in time was counted a timeout. Ten such at once disable a
    // subscription (spec: 10 consecutive failures): the topology beside six busy loops, 29 Nov.
    // setImmediate runs after this iteration's poll phase, where that data is handled.
    const deadline = setTimeout(
      () =>
        setImmediate(() => {
          if (response) finishWithResponse();
          else finish({ ...failure('timeout'), sentAtMs });
        }),
      remainingMs,
    );

    const isHttps = url.protocol === 'https:';
    const staticHeaders = typeof input.headers === 'function' ? {} : input.headers;
    try {
      const transport = isHttps ? https : http;
      const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
      request = transport.request({
        method: 'POST',
        protocol: url.protocol,
        hostname,
        port: url.port === '' ? undefined : Number(url.port),
        path: `${url.pathname}${url.search}`,
        headers: { ...staticHeaders, 'Content-Length': String(Buffer.byteLength(input.rawBody, 'utf8')) },
        lookup: pinnedLookup(addresses),
        agent: false, // a fresh connection per attempt: nothing pooled from another (pre-check) resolution
      });
    } catch (error) {
      // Invalid header values and the like are thrown synchronously by http.request.
      finish(failure(`request not sent: ${describeError(error)}`));
      return;
    }

    // Nothing is written before the connection is up (end() is not called yet), so the moment taken
    // here precedes every byte the receiver gets; a request written at once would sit in the socket's
    // buffer until the connect, and a time taken before it could be long before the request left.
    const send = () => {
      if (settled || sentAtMs !== null || !request) return;
      sentAtMs = Date.now();
      try {
        if (typeof input.headers === 'function') {
          for (const [name, value] of Object.entries(input.headers(sentAtMs))) request.setHeader(name, value);
        }
      } catch (error) {
        finish(failure(`request not sent: ${describeError(error)}`));
        return;
      }
      request.end(input.rawBody, 'utf8');
    };
    request.on('socket', (socket) => {
      // agent: false, so the socket is new and still connecting ('socket' is emitted on the next tick,
      // the connect comes from I/O later); https sends once the TLS handshake is done.
      if (isHttps) socket.once('secureConnect', send);
      else if (socket.connecting) socket.once('connect', send);
      else send();
    });

    request.on('response', (res) => {
      response = { statusCode: res.statusCode ?? 0, latencyMs: elapsedMs() };
      res.on('data', (chunk: Buffer) => {
        if (excerptBytes >= excerptCap) return;
        const slice = chunk.subarray(0, excerptCap - excerptBytes);
        excerptBytes += slice.length;
        excerptChunks.push(Buffer.from(slice));
        if (excerptBytes >= excerptCap) finishWithResponse();
      });
      res.on('end', finishWithResponse);
      res.on('error', finishWithResponse);
      res.on('aborted', finishWithResponse);
    });
    request.on('error', (error) => {
      if (response) finishWithResponse();
      else finish({ ...failure(describeRequestError(error)), sentAtMs });
    });
  });
}

/** The body's first bytes as storable text; at the cap, a character cut in two is left out. */
function excerptOf(chunks: readonly Buffer[], cap: number): Sanitized<StorableText> {
  const bytes = Buffer.concat(chunks);
  return sanitizeText(bytes.length >= cap ? cutAtCharacter(bytes) : bytes);
}

function classifyResponse(
  statusCode: number,
  latencyMs: number,
  excerpt: Sanitized<StorableText>,
): Omit<WebhookAttemptOutcome, 'sentAtMs'> {
  const ok = statusCode >= 200 && statusCode < 300;
  let error: string | null = null;
  if (statusCode === 410) error = 'HTTP 410: the receiver reports the subscription gone';
  else if (statusCode >= 300 && statusCode < 400) error = `HTTP ${statusCode}: redirects are not followed`;
  else if (!ok) error = `HTTP ${statusCode}`;
  return {
    ok,
    statusCode,
    latencyMs,
    error,
    responseBodyExcerpt: excerpt.value,
    responseBodyReplaced: excerpt.replaced,
    gone: statusCode === 410,
  };
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/** A `lookup` for http.request that answers only with the pre-validated addresses. */
function pinnedLookup(addresses: ResolvedAddress[]) {
  return (_hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    const wanted = typeof options.family === 'number' ? options.family : 0;
    const candidates = addresses.filter((a) => wanted === 0 || a.family === wanted);
    if (candidates.length === 0) {
      const error: NodeJS.ErrnoException = new Error(`no validated IPv${wanted} address`);
      error.code = 'ENOTFOUND';
      callback(error, '', undefined);
      return;
    }
    // With autoSelectFamily (default since Node 20) net asks for all addresses.
    if (options.all) callback(null, candidates);
    else callback(null, candidates[0]!.address, candidates[0]!.family);
  };
}

const DEADLINE_PASSED = Symbol('deadline passed');

function withinDeadline<T>(work: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    // After the I/O that was ready when the timer fired (see the request's deadline).
    timer = setTimeout(() => setImmediate(() => reject(DEADLINE_PASSED)), timeoutMs);
  });
  work.catch(() => undefined); // a late rejection after the deadline must not become unhandled
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

/** OpenSSL reports a non-TLS peer (e.g. plain HTTP on the port) as ERR_SSL_WRONG_VERSION_NUMBER, or EPROTO to a pending write. */
const TLS_ERROR = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|EPROTO$)/;

function describeRequestError(error: unknown): string {
  const code = errorCode(error);
  if (code && TLS_ERROR.test(code)) return `TLS error: ${code}`;
  if (code) return `connection failed: ${code}`;
  return `request failed: ${describeError(error)}`;
}

/** Node reports a failed multi-address connect (autoSelectFamily) as an AggregateError. */
function errorCode(error: unknown): string | undefined {
  const direct = (error as NodeJS.ErrnoException | undefined)?.code;
  if (direct) return direct;
  if (error instanceof AggregateError) return errorCode(error.errors[0]);
  return undefined;
}

function describeError(error: unknown): string {
  return errorCode(error) ?? (error instanceof Error ? error.message : String(error));
}

function truncate(text: string): string {
  return text.length > MAX_ERROR_CHARS ? `${text.slice(0, MAX_ERROR_CHARS - 1)}…` : text;
}
