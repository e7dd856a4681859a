import { hash } from 'node:crypto';
import type { Principal } from '../auth/principal';

/**
 * HTTP caching of public reads (DESIGN.md, docs/decisions/platform.md "HTTP caching"): a strong
 * ETag over exactly the bytes shown (the envelope's data and pagination, or the raw body), a 304
 * without a body when the client's copy is current, and Cache-Control by audience.
 */

/** Anonymous copies may be served by a shared cache this long without asking us... */
export const PUBLIC_MAX_AGE_SEC = 5;
/** ...and this much longer while the cache revalidates in the background. */
export const PUBLIC_STALE_WHILE_REVALIDATE_SEC = 30;

/**
 * Anonymous answers are the same for everyone: shareable for a few seconds. Anything a
 * credential can change (operators see drafts; an API token may lack a scope) stays in the
 * caller's own cache and is revalidated on every use (`no-cache` = store, but ask first).
 */
export function cacheControlFor(principal: Principal): string {
  return principal.kind === 'anonymous'
    ? `public, max-age=${PUBLIC_MAX_AGE_SEC}, stale-while-revalidate=${PUBLIC_STALE_WHILE_REVALIDATE_SEC}`
    : 'private, no-cache';
}

/** Strong validator: a byte-identical representation has the same tag, any other a different one. */
export function strongEtag(representation: string | Buffer): string {
  return `"${hash('sha256', representation, 'base64url').slice(0, 32)}"`;
}

/**
 * Which rendering of a versioned answer a tag names: bump when what a route with `cacheVersion`
 * answers for the same version changes (a field added, a format changed), so copies rendered by
 * an older build are not revalidated as current.
 */
export const VERSIONED_RENDERING = 1;

/**
 * The strong validator of a versioned answer (a route with `cacheVersion`): a digest of the route,
 * the audience, the version of what it shows and the request's params and query (the key its
 * rendered answer is kept under). The answer for that key is one sequence of bytes (it is kept
 * only when the version did not move while it was rendered), so the tag is as strong as a digest
 * of the body, and a 304 needs only the version, not the page.
 */
export function versionEtag(operationId: string, key: string): string {
  return `"v${hash('sha256', `${VERSIONED_RENDERING}\n${operationId}\n${key}`, 'base64url').slice(0, 31)}"`;
}

/**
 * RFC 9110 §13.1.2: If-None-Match compares weakly (W/"x" matches "x"); `*` matches any current
 * representation. A malformed header matches nothing, so the full answer is sent.
 */
export function ifNoneMatchHits(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  const opaque = etag.replace(/^W\//, '');
  for (const candidate of header.split(',')) {
    if (candidate.trim().replace(/^W\//, '') === opaque) return true;
  }
  return false;
}

/** A cacheable 200, rendered once: what its ETag covers, and how to send it again. */
export interface RenderedAnswer {
  etag: string;
  /** An envelope's `data` and `pagination` as JSON (the request_id is added per request)... */
  dataJson?: string;
  paginationJson?: string;
  /** The envelope's top-level `meta` fields, each as `,"key":value`. */
  metaJson?: string;
  /** ...or a raw body. */
  raw?: string | Buffer;
  contentType: string;
  headers: Record<string, string>;
  bytes: number;
}

/**
 * Rendered answers of one route in this process, keyed by the route's version of what they show
 * (`cacheVersion`), bounded by bytes (least recently used go first). No invalidation: a change
 * moves the version, so the old answers are simply never asked for again and age out.
 */
export class ResponseCache {
  private readonly answers = new Map<string, RenderedAnswer>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  get(key: string): RenderedAnswer | undefined {
    const answer = this.answers.get(key);
    if (answer) {
      this.answers.delete(key);
      this.answers.set(key, answer);
    }
    return answer;
  }

  set(key: string, answer: RenderedAnswer): void {
    if (answer.bytes > this.maxBytes / 4) return;
    const previous = this.answers.get(key);
    if (previous) {
      this.answers.delete(key);
      this.bytes -= previous.bytes;
    }
    this.answers.set(key, answer);
    this.bytes += answer.bytes;
    for (const [oldest, old] of this.answers) {
      if (this.bytes <= this.maxBytes) break;
      this.answers.delete(oldest);
      this.bytes -= old.bytes;
    }
  }

  get size(): number {
    return this.answers.size;
  }
}
