import type { Pool } from 'pg';
import { ServiceError, conflict, forbidden, notFound, validationError } from '../errors';
import type { Principal } from '../auth/principal';
import type { Scope } from '../auth/scopes';
import {
  AGENT_KEY_PREFIX,
  displayPrefix,
  generateSecret,
  LIVE_TOKEN_PREFIX,
  SANDBOX_TOKEN_PREFIX,
  sha256Hex,
} from '../auth/secrets';
import { findAgentKey, insertAgentKey, revokeAgentKey, type AgentKeyRow } from '../db/queries/agent-keys';
import {
  findAgentById,
  insertAgent,
  listAgentsByOwner,
  updateAgentProfile,
  type AgentProfilePatch,
  type AgentRow,
} from '../db/queries/agents';
import {
  countActiveApiTokens,
  findApiToken,
  insertApiToken,
  revokeApiToken,
  type ApiTokenRow,
} from '../db/queries/api-tokens';
import { withTransaction } from '../db/pool';
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
    if (requestedAgentId && requestedAgentId !== principal.agentId)
      throw forbidden('this credential acts for another agent');
    const agent = await findAgentById(db, principal.agentId);
    if (!agent) throw notFound('agent');
    return agent;
  }
  if (principal.kind !== 'user') throw new ServiceError('UNAUTHORIZED', 'missing or invalid credentials');
  if (requestedAgentId) {
    const agent = await findAgentById(db, requestedAgentId);
    if (!agent || agent.owner_user_id !== principal.userId) throw notFound('agent');
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
  if (!agent || principal.kind === 'anonymous' || agent.owner_user_id !== principal.userId)
    throw notFound('agent');
  if ((principal.kind === 'apiToken' || principal.kind === 'agentKey') && principal.agentId !== agentId)
    throw notFound('agent');
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
      if (!agent || agent.owner_user_id !== user.userId) throw notFound('agent');
    } else {
      const agents = await listAgentsByOwner(tx, user.userId);
      if (agents.length > 1) throw validationError('agent_id is required when you own several agents');
      agentId =
        agents[0]?.id ??
        (await insertAgent(tx, user.userId, user.name ? `${user.name}'s agent` : 'default agent', null))!.id;
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

/** A new agent of the calling user (session JWT only: tokens act for one existing agent). */
export async function createAgent(
  db: Pool,
  principal: Principal,
  name: string,
  modelName: string | null,
): Promise<AgentRow> {
  if (principal.kind !== 'user') throw forbidden();
  const row = await insertAgent(db, principal.userId, name, modelName);
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
  if (principal.kind !== 'user' && principal.kind !== 'apiToken') throw forbidden();
  const token = await findApiToken(db, tokenId);
  if (!token || token.user_id !== principal.userId) throw notFound('token');
  if (principal.kind === 'apiToken' && principal.tokenId !== token.id) {
    throw forbidden('an API token can revoke only itself; use a session JWT to revoke other tokens');
  }
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
