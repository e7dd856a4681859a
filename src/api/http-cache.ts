import { createHash } from 'node:crypto';
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
  return `"${createHash('sha256').update(representation).digest('base64url').slice(0, 32)}"`;
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
