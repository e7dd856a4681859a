import { z } from 'zod';
import { listUnrevokedApiTokens } from '../../db/queries/api-tokens';
import { createApiToken, revokeOwnApiToken } from '../../domain/identity';
import { defineRoute, uuidParam } from '../route';
import { envelope } from '../schemas/common';
import { apiTokenSchema, createdTokenSchema, createTokenBody, toApiToken } from '../schemas/identity';

export const tokenRoutes = [
  defineRoute({
    operationId: 'createApiToken',
    method: 'post',
    path: '/api/v1/auth/tokens',
    summary: 'Create an API token (session JWT only); the plaintext is returned once',
    tags: ['tokens'],
    auth: 'jwt',
    rateLimit: 'tokenCreation',
    body: createTokenBody,
    responses: { 201: { description: 'created', schema: envelope(createdTokenSchema) } },
    async handler({ body, principal, deps }) {
      const { row, token } = await createApiToken(deps.db, principal, {
        name: body.name,
        scopes: body.scopes,
        expiresInDays: body.expires_in_days ?? null,
        agentId: body.agent_id,
        sandbox: body.sandbox ?? false,
      });
      return { status: 201, data: { ...toApiToken(row), token } };
    },
  }),
  defineRoute({
    operationId: 'listApiTokens',
    method: 'get',
    path: '/api/v1/auth/tokens',
    summary: "List the caller's non-revoked API tokens (never the plaintext)",
    tags: ['tokens'],
    auth: 'bearer',
    rateLimit: 'default',
    responses: { 200: { description: 'tokens', schema: envelope(z.array(apiTokenSchema)) } },
    async handler({ principal, deps }) {
      const rows = await listUnrevokedApiTokens(deps.db, principal.userId);
      return { data: rows.map(toApiToken) };
    },
  }),
  defineRoute({
    operationId: 'revokeApiToken',
    method: 'delete',
    path: '/api/v1/auth/tokens/:id',
    summary: 'Revoke an API token (a JWT for any of your tokens; an API token only for itself)',
    tags: ['tokens'],
    auth: 'bearer',
    rateLimit: 'default',
    params: uuidParam,
    responses: {
      200: { description: 'revoked', schema: envelope(apiTokenSchema.extend({ revoked_at: z.string() })) },
    },
    async handler({ params, principal, deps }) {
      const revoked = await revokeOwnApiToken(deps.db, principal, params.id);
      // Other processes hear of it by NOTIFY; this one forgets at once, so its next request sees it.
      deps.credentialCache.invalidate('*');
      return { data: { ...toApiToken(revoked), revoked_at: revoked.revoked_at!.toISOString() } };
    },
  }),
];
