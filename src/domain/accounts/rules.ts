/**
 * People signed in on the web: the pure decisions (docs/decisions/web.md). No I/O here.
 */
import { createHmac } from 'node:crypto';
import { constantTimeEqual } from '../../auth/secrets';

/** Where a sign-in returns to when the asked-for place is not one of ours. */
export const DEFAULT_RETURN_TO = '/';

/**
 * `return_to` takes a path on this site only: it must start with one `/` followed by something that
 * is not another `/` or `\` (`//evil.example` and `/\evil.example` are other hosts to a browser),
 * carry no scheme, no control characters or whitespace, and stay short. Anything else is `/`.
 */
export function safeReturnTo(raw: unknown): string {
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > 2000) return DEFAULT_RETURN_TO;
  if (!raw.startsWith('/') || raw.startsWith('//') || raw.startsWith('/\\')) return DEFAULT_RETURN_TO;
  if (/[\u0000-\u0020\u007f\\]/.test(raw)) return DEFAULT_RETURN_TO;
  // Resolved against a placeholder origin it must stay on that origin (catches encoded tricks).
  try {
    const resolved = new URL(raw, 'http://same.invalid');
    if (resolved.origin !== 'http://same.invalid') return DEFAULT_RETURN_TO;
    return resolved.pathname + resolved.search + resolved.hash;
  } catch {
    return DEFAULT_RETURN_TO;
  }
}

export interface SessionTimes {
  now: Date;
  last_seen_at: Date;
  absolute_expires_at: Date;
  revoked_at: Date | null;
}

export type SessionVerdict = 'live' | 'revoked' | 'idle' | 'expired';

/** Whether a stored session still signs its holder in. */
export function sessionVerdict(s: SessionTimes, idleMinutes: number): SessionVerdict {
  if (s.revoked_at) return 'revoked';
  if (s.absolute_expires_at.getTime() <= s.now.getTime()) return 'expired';
  if (s.last_seen_at.getTime() + idleMinutes * 60_000 <= s.now.getTime()) return 'idle';
  return 'live';
}

/**
 * The CSRF token of a session: derived from the session's secret (held only in the HttpOnly
 * cookie and, hashed, in the database), so it is bound to that session and changes with it.
 */
export function csrfTokenFor(sessionSecret: string): string {
  return createHmac('sha256', sessionSecret).update('ccs csrf v1').digest('base64url');
}

/** The signature of "this form was rendered for user `userId`" under the service's form key. */
function formSubjectSignature(formKey: string, userId: string): string {
  return createHmac('sha256', formKey).update(`ccs form subject v1\n${userId}`).digest('base64url');
}

/**
 * The `_csrf` value every form of a session carries: the session's CSRF token, then the subject
 * the form was rendered for, signed with the service's key (`<csrf>.<user id>.<signature>`), so a
 * form sent after its session ended still says, unforgeably, whose it is (docs/decisions/web.md
 * "A form kept for a signed-out poster belongs to its person").
 */
export function formTokenFor(sessionSecret: string, userId: string, formKey: string): string {
  return `${csrfTokenFor(sessionSecret)}.${userId}.${formSubjectSignature(formKey, userId)}`;
}

/** The user a form's `_csrf` value says it was rendered for, when its signature holds (else null). */
export function formSubjectOf(presented: unknown, formKey: string): string | null {
  if (typeof presented !== 'string' || presented.length > 300) return null;
  const [, userId, signature, ...more] = presented.split('.');
  if (!userId || !signature || more.length > 0) return null;
  return constantTimeEqual(formSubjectSignature(formKey, userId), signature) ? userId : null;
}

/** A form's `_csrf` matches this session: its CSRF part (the form token's first part) is the session's. */
export function csrfTokenMatches(sessionSecret: string, presented: unknown): boolean {
  return (
    typeof presented === 'string' && constantTimeEqual(csrfTokenFor(sessionSecret), presented.split('.')[0])
  );
}

/**
 * A state-changing form post must come from a page of this origin: its Origin header, or when a
 * browser sent none, its Referer's origin. Neither (or `null`, an opaque origin) is refused.
 */
export function fromSameOrigin(
  headers: { origin?: string; referer?: string },
  expectedOrigin: string,
): boolean {
  if (headers.origin !== undefined && headers.origin !== '') return headers.origin === expectedOrigin;
  if (!headers.referer) return false;
  try {
    return new URL(headers.referer).origin === expectedOrigin;
  } catch {
    return false;
  }
}

/** A name typed on the embedded provider's sign-in page: its `sub`, exactly as `cli jwt mint --sub` takes it. */
export function embeddedSubject(raw: unknown): string | null {
  if (typeof raw !== 'string') return null;
  const sub = raw.trim();
  if (sub.length === 0 || sub.length > 255 || /[\u0000-\u001f\u007f]/.test(sub)) return null;
  return sub;
}
