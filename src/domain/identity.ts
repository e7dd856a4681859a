import type { Pool } from 'pg';
import { ServiceError, conflict, forbidden, notFound, validationError } from '../errors';
import type { Principal } from '../auth/principal';
import {
  agentsListedFor,
  assertActsForAgent,
  assertMayCreateAgent,
  assertMayDeleteAgent,
  isAgentOfUser,
  mayRevokeToken,
  ownsAgent,
  tokenUserOf,
} from './identity-policy';
import type { Scope } from '../auth/scopes';
import {
  AGENT_KEY_PREFIX,
  displayPrefix,
  generateSecret,
  LIVE_TOKEN_PREFIX,
  SANDBOX_TOKEN_PREFIX,
  sha256Hex,
} from '../auth/secrets';
import {
  findAgentKey,
  insertAgentKey,
  revokeAgentKey,
  revokeAllAgentKeys,
  type AgentKeyRow,
} from '../db/queries/agent-keys';
import {
  findAgentById,
  insertAgent,
  listAgentsByOwner,
  markAgentDeleted,
  updateAgentProfile,
  type AgentProfilePatch,
  type AgentRow,
} from '../db/queries/agents';
import {
  countActiveApiTokens,
  findApiToken,
  insertApiToken,
  revokeAgentApiTokens,
  revokeApiToken,
  type ApiTokenRow,
} from '../db/queries/api-tokens';
import { recordAudit } from './audit/trail';
import { withTransaction } from '../db/pool';
import { storableText, storableTextOrNull } from '../lib/storable-text';
import { lockUser } from '../db/queries/users';

export const MAX_ACTIVE_TOKENS_PER_USER = 25;
export const DEFAULT_AGENT_KEY_HOURS = 24;

/** The agent an owner-scoped call acts for: the token's agent, or (JWT) the given or only agent. */
export async function resolveActingAgent(
  db: Pool,
  principal: Principal,
  requestedAgentId?: string | null,
): Promise<AgentRow> {
  if (principal.kind === 'apiToken' || principal.kind === 'agentKey') {
    assertActsForAgent(principal, requestedAgentId);
    const agent = await findAgentById(db, principal.agentId);
    if (!agent || agent.deleted_at) throw notFound('agent');
    return agent;
  }
  if (principal.kind !== 'user') throw new ServiceError('UNAUTHORIZED', 'missing or invalid credentials');
  if (requestedAgentId) {
    const agent = await findAgentById(db, requestedAgentId);
    if (!agent || agent.deleted_at || !ownsAgent(principal, agent)) throw notFound('agent');
    return agent;
  }
  const agents = await listAgentsByOwner(db, principal.userId);
  if (agents.length === 1) return agents[0];
  if (agents.length === 0)
    throw validationError('you have no agent yet: create one with POST /api/v1/agents');
  throw validationError('agent_id is required when you own several agents');
}

/** Owner check for agent resources; other users' agents are reported as not found. */
export async function requireOwnedAgent(db: Pool, principal: Principal, agentId: string): Promise<AgentRow> {
  const agent = await findAgentById(db, agentId);
  if (!agent || agent.deleted_at || !ownsAgent(principal, agent)) throw notFound('agent');
  return agent;
}

export interface CreateTokenInput {
  name: string;
  scopes: Scope[];
  expiresInDays: number | null;
  agentId?: string;
  sandbox: boolean;
}

/**
 * Issues an API token; the plaintext leaves this function once and is never stored.
 * The user row is locked so that concurrent creations cannot overshoot the token limit.
 */
export async function createApiToken(
  db: Pool,
  user: { userId: string; name: string | null },
  input: CreateTokenInput,
): Promise<{ row: ApiTokenRow; token: string }> {
  return withTransaction(db, async (tx) => {
    await lockUser(tx, user.userId);
    if ((await countActiveApiTokens(tx, user.userId)) >= MAX_ACTIVE_TOKENS_PER_USER) {
      throw new ServiceError(
        'TOKEN_LIMIT_REACHED',
        `at most ${MAX_ACTIVE_TOKENS_PER_USER} active API tokens per user; revoke one first`,
      );
    }
    let agentId = input.agentId;
    if (agentId) {
      const agent = await findAgentById(tx, agentId);
      if (!agent || agent.deleted_at || !isAgentOfUser(agent, user.userId)) throw notFound('agent');
    } else {
      const agents = await listAgentsByOwner(tx, user.userId);
      if (agents.length > 1) throw validationError('agent_id is required when you own several agents');
      agentId =
        agents[0]?.id ??
        (await insertAgent(
          tx,
          user.userId,
          storableText(user.name ? `${user.name}'s agent` : 'default agent'),
          null,
        ))!.id;
    }
    const token = generateSecret(input.sandbox ? SANDBOX_TOKEN_PREFIX : LIVE_TOKEN_PREFIX);
    const row = await insertApiToken(tx, {
      userId: user.userId,
      agentId,
      name: input.name,
      tokenHash: sha256Hex(token),
      tokenPrefix: displayPrefix(token, input.sandbox ? SANDBOX_TOKEN_PREFIX : LIVE_TOKEN_PREFIX),
      scopes: [...new Set(input.scopes)],
      sandbox: input.sandbox,
      expiresInDays: input.expiresInDays,
    });
    return { row: row!, token };
  });
}

export async function issueAgentKey(
  db: Pool,
  agentId: string,
  expiresInHours: number,
): Promise<{ row: AgentKeyRow; key: string }> {
  const key = generateSecret(AGENT_KEY_PREFIX);
  const row = await insertAgentKey(
    db,
    agentId,
    sha256Hex(key),
    displayPrefix(key, AGENT_KEY_PREFIX),
    expiresInHours,
  );
  return { row: row!, key };
}

/** The caller's agents: an API token sees its own agent, a session JWT its user's (policy). */
export async function listAgentsOf(db: Pool, principal: Principal): Promise<AgentRow[]> {
  const whose = agentsListedFor(principal);
  if ('ownerUserId' in whose) return listAgentsByOwner(db, whose.ownerUserId);
  const agent = await findAgentById(db, whose.agentId);
  return agent ? [agent] : [];
}

/** A new agent of the calling user (session JWT only: tokens act for one existing agent). */
export async function createAgent(
  db: Pool,
  principal: Principal,
  name: string,
  modelName: string | null,
): Promise<AgentRow> {
  assertMayCreateAgent(principal);
  const row = await insertAgent(db, principal.userId, storableText(name), storableTextOrNull(modelName));
  return row!;
}

/** The owner edits the agent's profile. */
export async function editAgentProfile(
  db: Pool,
  principal: Principal,
  agentId: string,
  patch: AgentProfilePatch,
): Promise<AgentRow> {
  await requireOwnedAgent(db, principal, agentId);
  const row = await updateAgentProfile(db, agentId, patch);
  if (!row) throw notFound('agent');
  return row;
}

/** A connector's heartbeat: the agent reports its profile and is seen now. */
export async function recordHeartbeat(
  db: Pool,
  agentId: string,
  profile: AgentProfilePatch,
): Promise<AgentRow> {
  const row = await updateAgentProfile(db, agentId, profile, true);
  if (!row) throw notFound('agent');
  return row;
}

/**
 * Revokes one of the caller's API tokens: a session JWT may revoke any of its tokens, an API token
 * only itself (403); another user's token is not found; a revoked one is 409 TOKEN_ALREADY_REVOKED.
 */
export async function revokeOwnApiToken(
  db: Pool,
  principal: Principal,
  tokenId: string,
): Promise<ApiTokenRow> {
  tokenUserOf(principal); // 403 for a caller that has no tokens, before anything is read
  const token = await findApiToken(db, tokenId);
  const may = mayRevokeToken(principal, token);
  if (may === 'notFound') throw notFound('token');
  if (may === 'onlyItself')
    throw forbidden('an API token can revoke only itself; use a session JWT to revoke other tokens');
  const revoked = await revokeApiToken(db, tokenId);
  if (!revoked) throw new ServiceError('TOKEN_ALREADY_REVOKED', 'token is already revoked');
  return revoked;
}

/** Revokes a connector key of the caller's agent; a revoked one is 409. */
export async function revokeOwnAgentKey(
  db: Pool,
  principal: Principal,
  agentId: string,
  keyId: string,
): Promise<AgentKeyRow> {
  await requireOwnedAgent(db, principal, agentId);
  const key = await findAgentKey(db, agentId, keyId);
  if (!key) throw notFound('key');
  const revoked = await revokeAgentKey(db, key.id);
  if (!revoked) throw conflict('key is already revoked');
  return revoked;
}

/**
 * The owner deletes an agent (DESIGN): it leaves its owner's listings and pages, its connector
 * keys and API tokens are revoked (401 from then on: the credential caches hear it by NOTIFY),
 * and one `agent.delete` audit record is written, all in one transaction. Its results, board
 * rows, ratings and matches stay, under its name. Deleting it again is 404.
 */
export async function deleteOwnAgent(
  db: Pool,
  principal: Principal,
  agentId: string,
): Promise<{ agent: AgentRow; revokedKeys: number; revokedTokens: number }> {
  const agent = await requireOwnedAgent(db, principal, agentId);
  assertMayDeleteAgent(principal);
  return withTransaction(db, async (tx) => {
    const deleted = await markAgentDeleted(tx, agent.id);
    if (!deleted) throw notFound('agent');
    const revokedKeys = await revokeAllAgentKeys(tx, agent.id);
    const revokedTokens = await revokeAgentApiTokens(tx, agent.id);
    await recordAudit(
      tx,
      { userId: principal.userId },
      'agent.delete',
      { type: 'agent', id: agent.id },
      { name: agent.name, revoked_keys: revokedKeys, revoked_tokens: revokedTokens },
    );
    return { agent: deleted, revokedKeys, revokedTokens };
  });
}
