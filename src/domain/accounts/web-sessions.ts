/**
 * Web sessions: the server-side record of a person signed in on the web (docs/decisions/web.md).
 * The cookie carries a random secret; the database keeps only its SHA-256, so a session is ended
 * for good by revoking its row (sign out, sign out everywhere), and a leaked table signs nobody in.
 */
import { createHmac } from 'node:crypto';
import type { Pool } from 'pg';
import { generateSecret, sha256Hex } from '../../auth/secrets';
import type { Config } from '../../config';
import {
  findWebSessionByHash,
  insertWebSession,
  revokeWebSession,
  revokeWebSessionsOfUser,
  touchWebSession,
} from '../../db/queries/web-sessions';
import { upsertUserBySubject } from '../../db/queries/users';
import { formTokenFor, sessionVerdict } from './rules';
import { storableTextOrNull } from '../../lib/storable-text';

/** Readable prefix of session secrets (found in a log or a paste, it says what it is). */
export const WEB_SESSION_PREFIX = 'ccs_ws_';

/** Who is signed in, as pages and form handlers see it. */
export interface WebSession {
  id: string;
  userId: string;
  subject: string;
  name: string | null;
  role: 'user' | 'admin';
  /** The value every state-changing form of this session carries in `_csrf` (with its signed subject). */
  csrfToken: string;
}

/**
 * The key that signs whose a form is (rules.ts `formTokenFor`): derived from WEBHOOK_SECRET_KEY, the
 * one service secret production always sets to its own value (AUTH_JWT_SECRET may stay the
 * development default behind an identity provider's JWKS); a label keeps the two uses apart.
 */
export function webFormKey(config: Pick<Config, 'WEBHOOK_SECRET_KEY'>): string {
  return createHmac('sha256', config.WEBHOOK_SECRET_KEY)
    .update('ccs web form subject key v1')
    .digest('base64url');
}

/** The person the identity provider vouched for. */
export interface SignedInPerson {
  subject: string;
  name: string | null;
  role: 'user' | 'admin';
}

/**
 * Starts a session for the person: the same `users` row a session JWT with that `sub` acts as.
 * Always a new secret (a session id chosen before sign-in is never promoted: no fixation).
 */
export async function startWebSession(
  db: Pool,
  config: Pick<Config, 'WEB_SESSION_ABSOLUTE_HOURS' | 'WEBHOOK_SECRET_KEY'>,
  person: SignedInPerson,
  provider: { idToken?: string | null } = {},
): Promise<{ secret: string; session: WebSession }> {
  const user = await upsertUserBySubject(db, person.subject, storableTextOrNull(person.name), person.role);
  const secret = generateSecret(WEB_SESSION_PREFIX);
  const row = await insertWebSession(db, {
    secretHash: sha256Hex(secret),
    userId: user.id,
    role: person.role,
    absoluteHours: config.WEB_SESSION_ABSOLUTE_HOURS,
    idToken: provider.idToken ?? null,
  });
  return {
    secret,
    session: {
      id: row!.id,
      userId: user.id,
      subject: user.subject,
      name: user.name,
      role: person.role,
      csrfToken: formTokenFor(secret, user.id, webFormKey(config)),
    },
  };
}

/** The live session the cookie's secret belongs to, or null (unknown, revoked, idle or expired). */
export async function resolveWebSession(
  db: Pool,
  config: Pick<Config, 'WEB_SESSION_IDLE_MINUTES' | 'WEBHOOK_SECRET_KEY'>,
  secret: string | undefined,
): Promise<WebSession | null> {
  if (!secret || !secret.startsWith(WEB_SESSION_PREFIX) || secret.length > 200) return null;
  const row = await findWebSessionByHash(db, sha256Hex(secret));
  if (!row || sessionVerdict(row, config.WEB_SESSION_IDLE_MINUTES) !== 'live') return null;
  await touchWebSession(db, row.id);
  return {
    id: row.id,
    userId: row.user_id,
    subject: row.subject,
    name: row.name,
    role: row.role,
    csrfToken: formTokenFor(secret, row.user_id, webFormKey(config)),
  };
}

/**
 * Sign out: this session ends now, on the server (its cookie is refused from then on). Answers the
 * provider's ID token the session kept, the hint of the provider's own logout (null: none).
 */
export async function endWebSession(db: Pool, session: WebSession): Promise<{ idToken: string | null }> {
  const ended = await revokeWebSession(db, session.id);
  return { idToken: ended?.id_token ?? null };
}

/** Sign out everywhere: every session of the person ends now (this one's ID token answered, as above). */
export async function endEveryWebSession(db: Pool, session: WebSession): Promise<{ idToken: string | null }> {
  const ended = await endWebSession(db, session);
  await revokeWebSessionsOfUser(db, session.userId);
  return ended;
}
