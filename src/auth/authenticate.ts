import type { ServiceDeps } from '../service-deps';
import type { AgentKeyAuthRow } from '../db/queries/agent-keys';
import type { ApiTokenAuthRow } from '../db/queries/api-tokens';
import { sqlCredentialStore, type CredentialStore } from '../db/queries/credentials';
import type { CredentialCache } from './credential-cache';
import { IdentityProviderUnavailableError, type SessionJwtVerifier } from './jwt';
import type { Principal } from './principal';
import { scopeSchema, type Scope } from './scopes';
import { AGENT_KEY_PREFIX, API_TOKEN_PREFIX, constantTimeEqual, sha256Hex } from './secrets';
import { storableTextOrNull } from '../lib/storable-text';

export type CredentialOutcome =
  | { ok: true; principal: Principal }
  /**
   * `unavailable`: the credential could not be judged (the identity provider's keys could not be
   * fetched); answered 503 with Retry-After, never 401. `detail` is for the log, not the caller.
   */
  | { ok: false; reason: string; unavailable?: boolean; detail?: string };

export interface CredentialHeaders {
  authorization?: string;
  agentKey?: string;
}

/**
 * Resolves the request's credentials to a principal. Presenting a bad credential is a failure
 * (never silently anonymous), so a typo in a token cannot downgrade a caller to public access.
 */
/** What resolving needs: the credentials' store (the SQL one on `db` unless the deps carry another). */
export type CredentialDeps = Pick<ServiceDeps, 'db' | 'stores'>;

export async function resolveCredentials(
  deps: CredentialDeps,
  jwt: SessionJwtVerifier,
  headers: CredentialHeaders,
  cache: CredentialCache<ApiTokenAuthRow | AgentKeyAuthRow> | null = null,
): Promise<CredentialOutcome> {
  const db = deps.stores?.credentials ?? sqlCredentialStore(deps.db);
  if (headers.agentKey !== undefined) return resolveAgentKey(db, headers.agentKey.trim(), cache);
  if (headers.authorization === undefined) return { ok: true, principal: { kind: 'anonymous' } };
  const match = /^Bearer\s+(\S+)\s*$/i.exec(headers.authorization);
  if (!match) return { ok: false, reason: 'Authorization header must be "Bearer <token>"' };
  const credential = match[1];
  if (credential.startsWith(API_TOKEN_PREFIX)) return resolveApiToken(db, credential, cache);
  return resolveSessionJwt(db, jwt, credential);
}

/**
 * last_used_at is written at most once a minute per credential (the UPDATE's own condition); this
 * process also skips the statement while its own last touch is younger than that, which takes one
 * database round trip off nearly every authenticated request (docs/benchmarks.md).
 */
const TOUCH_EVERY_MS = 60_000;
const lastTouch = new Map<string, number>();
function touchDue(credential: string): boolean {
  const now = Date.now();
  const last = lastTouch.get(credential);
  if (last !== undefined && now - last < TOUCH_EVERY_MS) return false;
  if (lastTouch.size >= 100_000) lastTouch.clear(); // bounded memory
  lastTouch.set(credential, now);
  return true;
}

type Cache = CredentialCache<ApiTokenAuthRow | AgentKeyAuthRow> | null;

/** Through the process's cache when there is one; only live credentials are cached. */
function lookup<R extends ApiTokenAuthRow | AgentKeyAuthRow>(
  cache: Cache,
  hash: string,
  load: () => Promise<R | null>,
): Promise<R | null> {
  return cache ? cache.lookup(hash, load, (row) => row.revoked_at === null) : load();
}

/** A token row's scopes that this build knows, worked out once per (cached) row, not per request. */
const scopesOfRow = new WeakMap<ApiTokenAuthRow, Scope[]>();
function knownScopes(row: ApiTokenAuthRow): Scope[] {
  let scopes = scopesOfRow.get(row);
  if (!scopes) {
    scopes = row.scopes.filter((s): s is Scope => scopeSchema.safeParse(s).success);
    scopesOfRow.set(row, scopes);
  }
  return scopes;
}

async function resolveApiToken(db: CredentialStore, token: string, cache: Cache): Promise<CredentialOutcome> {
  const hash = sha256Hex(token);
  const row = await lookup(cache, hash, () => db.findApiTokenByHash(hash));
  if (!row || !constantTimeEqual(row.token_hash, hash)) return { ok: false, reason: 'invalid API token' };
  if (row.revoked_at) return { ok: false, reason: 'API token has been revoked' };
  if (row.expires_at && row.expires_at.getTime() <= Date.now())
    return { ok: false, reason: 'API token has expired' };
  if (touchDue(`tok:${row.id}`)) void db.touchApiToken(row.id).catch(() => undefined);
  const scopes = knownScopes(row);
  return {
    ok: true,
    principal: {
      kind: 'apiToken',
      tokenId: row.id,
      userId: row.user_id,
      agentId: row.agent_id,
      scopes,
      sandbox: row.sandbox,
      role: row.role,
    },
  };
}

async function resolveAgentKey(db: CredentialStore, key: string, cache: Cache): Promise<CredentialOutcome> {
  if (!key.startsWith(AGENT_KEY_PREFIX)) return { ok: false, reason: 'invalid agent key' };
  const hash = sha256Hex(key);
  const row = await lookup(cache, hash, () => db.findAgentKeyByHash(hash));
  if (!row || !constantTimeEqual(row.key_hash, hash)) return { ok: false, reason: 'invalid agent key' };
  if (row.revoked_at) return { ok: false, reason: 'agent key has been revoked' };
  if (row.expires_at.getTime() <= Date.now()) return { ok: false, reason: 'agent key has expired' };
  if (touchDue(`key:${row.id}`)) void db.touchAgentKey(row.id).catch(() => undefined);
  return {
    ok: true,
    principal: { kind: 'agentKey', keyId: row.id, agentId: row.agent_id, userId: row.owner_user_id },
  };
}

async function resolveSessionJwt(
  db: CredentialStore,
  jwt: SessionJwtVerifier,
  token: string,
): Promise<CredentialOutcome> {
  let claims;
  try {
    claims = await jwt.verify(token);
  } catch (err) {
    if (err instanceof IdentityProviderUnavailableError) {
      return {
        ok: false,
        unavailable: true,
        reason: "the identity provider's signing keys cannot be fetched right now; retry later",
        detail: err.message,
      };
    }
    return { ok: false, reason: 'invalid or expired session token' };
  }
  const role = claims.role ?? 'user';
  const user = await db.upsertUserBySubject(claims.sub, storableTextOrNull(claims.name), role);
  return { ok: true, principal: { kind: 'user', userId: user.id, role, name: user.name } };
}
