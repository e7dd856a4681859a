import { z } from 'zod';
import { listAgentKeys } from '../../db/queries/agent-keys';
import {
  createAgent,
  DEFAULT_AGENT_KEY_HOURS,
  deleteOwnAgent,
  editAgentProfile,
  issueAgentKey,
  listAgentsOf,
  requireOwnedAgent,
  revokeOwnAgentKey,
} from '../../domain/identity';
import { defineRoute, uuidParam } from '../route';
import { envelope } from '../schemas/common';
import {
  agentKeySchema,
  agentSchema,
  createAgentBody,
  createAgentKeyBody,
  createdAgentKeySchema,
  deletedAgentSchema,
  patchAgentBody,
  toAgent,
  toAgentKey,
} from '../schemas/identity';

const agentKeyParams = z.object({ id: z.string().uuid(), keyId: z.string().uuid() });

export const agentRoutes = [
  defineRoute({
    operationId: 'createAgent',
    method: 'post',
    path: '/api/v1/agents',
    summary: 'Create an agent owned by the calling user',
    tags: ['agents'],
    auth: 'jwt',
    rateLimit: 'default',
    body: createAgentBody,
    responses: { 201: { description: 'created', schema: envelope(agentSchema) } },
    async handler({ body, principal, deps }) {
      const row = await createAgent(deps.db, principal, body.name, body.model_name ?? null);
      return { status: 201, data: toAgent(row, deps.config.AGENT_ONLINE_WINDOW_MS) };
    },
  }),
  defineRoute({
    operationId: 'listAgents',
    method: 'get',
    path: '/api/v1/agents',
    summary: "List the caller's agents (an API token sees its own agent)",
    tags: ['agents'],
    auth: 'bearer',
    rateLimit: 'default',
    responses: { 200: { description: 'agents', schema: envelope(z.array(agentSchema)) } },
    async handler({ principal, deps }) {
      const window = deps.config.AGENT_ONLINE_WINDOW_MS;
      return { data: (await listAgentsOf(deps.db, principal)).map((a) => toAgent(a, window)) };
    },
  }),
  defineRoute({
    operationId: 'getAgent',
    method: 'get',
    path: '/api/v1/agents/:id',
    summary: 'Get one of your agents, with its presence',
    tags: ['agents'],
    auth: 'bearer',
    rateLimit: 'default',
    params: uuidParam,
    responses: { 200: { description: 'agent', schema: envelope(agentSchema) } },
    async handler({ params, principal, deps }) {
      const agent = await requireOwnedAgent(deps.db, principal, params.id);
      return { data: toAgent(agent, deps.config.AGENT_ONLINE_WINDOW_MS) };
    },
  }),
  defineRoute({
    operationId: 'deleteAgent',
    method: 'delete',
    path: '/api/v1/agents/:id',
    summary:
      'Delete one of your agents (extension): it leaves your listings and pages, its keys and tokens are revoked (401 from then on); its results and board rows stay under its name (audit agent.delete)',
    tags: ['agents'],
    auth: 'bearer',
    scope: 'agent:write',
    rateLimit: 'default',
    params: uuidParam,
    responses: { 200: { description: 'deleted', schema: envelope(deletedAgentSchema) } },
    async handler({ params, principal, deps }) {
      const { agent, revokedKeys, revokedTokens } = await deleteOwnAgent(deps.db, principal, params.id);
      // Other processes hear of it by NOTIFY; this one forgets at once, so its next request sees it.
      deps.credentialCache.invalidate('*');
      return {
        data: {
          ...toAgent(agent, deps.config.AGENT_ONLINE_WINDOW_MS),
          deleted_at: agent.deleted_at!.toISOString(),
          revoked_keys: revokedKeys,
          revoked_tokens: revokedTokens,
        },
      };
    },
  }),
  defineRoute({
    operationId: 'updateAgent',
    method: 'patch',
    path: '/api/v1/agents/:id',
    summary: "Update an agent's profile (API token with agent:write for its agent, or the owner's JWT)",
    tags: ['agents'],
    auth: 'bearer',
    scope: 'agent:write',
    rateLimit: 'default',
    params: uuidParam,
    body: patchAgentBody,
    responses: { 200: { description: 'updated', schema: envelope(agentSchema) } },
    async handler({ params, body, principal, deps }) {
      const row = await editAgentProfile(deps.db, principal, params.id, body);
      return { data: toAgent(row, deps.config.AGENT_ONLINE_WINDOW_MS) };
    },
  }),
  defineRoute({
    operationId: 'createAgentKey',
    method: 'post',
    path: '/api/v1/agents/:id/keys',
    summary: 'Issue a connector key (aa_...) for an agent; shown once',
    tags: ['agents'],
    auth: 'jwt',
    rateLimit: 'tokenCreation',
    params: uuidParam,
    body: createAgentKeyBody,
    responses: { 201: { description: 'created', schema: envelope(createdAgentKeySchema) } },
    async handler({ params, body, principal, deps }) {
      await requireOwnedAgent(deps.db, principal, params.id);
      const { row, key } = await issueAgentKey(
        deps.db,
        params.id,
        body.expires_in_hours ?? DEFAULT_AGENT_KEY_HOURS,
      );
      return {
        status: 201,
        data: { id: row.id, key, key_prefix: row.key_prefix, expires_at: row.expires_at.toISOString() },
      };
    },
  }),
  defineRoute({
    operationId: 'listAgentKeys',
    method: 'get',
    path: '/api/v1/agents/:id/keys',
    summary: "List an agent's connector keys (never the key itself)",
    tags: ['agents'],
    auth: 'jwt',
    rateLimit: 'default',
    params: uuidParam,
    responses: { 200: { description: 'keys', schema: envelope(z.array(agentKeySchema)) } },
    async handler({ params, principal, deps }) {
      await requireOwnedAgent(deps.db, principal, params.id);
      return { data: (await listAgentKeys(deps.db, params.id)).map(toAgentKey) };
    },
  }),
  defineRoute({
    operationId: 'revokeAgentKey',
    method: 'delete',
    path: '/api/v1/agents/:id/keys/:keyId',
    summary: 'Revoke a connector key',
    tags: ['agents'],
    auth: 'jwt',
    rateLimit: 'default',
    params: agentKeyParams,
    responses: { 200: { description: 'revoked', schema: envelope(agentKeySchema) } },
    async handler({ params, principal, deps }) {
      const revoked = await revokeOwnAgentKey(deps.db, principal, params.id, params.keyId);
      // Other processes hear of it by NOTIFY; this one forgets at once, so its next request sees it.
      deps.credentialCache.invalidate('*');
      return { data: toAgentKey(revoked) };
    },
  }),
];
