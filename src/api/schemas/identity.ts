import { z } from 'zod';
import { checkAgentName } from '../../domain/agents/rules';
import { SCOPES, scopeSchema } from '../../auth/scopes';
import type { AgentKeyRow } from '../../db/queries/agent-keys';
import type { AgentRow } from '../../db/queries/agents';
import type { ApiTokenRow } from '../../db/queries/api-tokens';
import { safeText } from './common';
import { iso } from '../../lib/time';

export const createTokenBody = z
  .object({
    name: safeText(100, 1),
    scopes: z
      .array(scopeSchema, { invalid_type_error: `scopes must be an array of: ${SCOPES.join(', ')}` })
      .min(1),
    expires_in_days: z.number().int().min(1).max(3650).nullable().optional(),
    agent_id: z.string().uuid().optional(),
    sandbox: z.boolean().optional(),
  })
  .strict();

export const apiTokenSchema = z.object({
  id: z.string().uuid(),
  name: z.string(),
  token_prefix: z.string(),
  scopes: z.array(z.string()),
  agent_id: z.string().uuid(),
  sandbox: z.boolean(),
  last_used_at: z.string().nullable(),
  expires_at: z.string().nullable(),
  created_at: z.string(),
});
export const createdTokenSchema = apiTokenSchema.extend({ token: z.string() });

export function toApiToken(row: ApiTokenRow) {
  return {
    id: row.id,
    name: row.name,
    token_prefix: row.token_prefix,
    scopes: row.scopes,
    agent_id: row.agent_id,
    sandbox: row.sandbox,
    last_used_at: iso(row.last_used_at),
    expires_at: iso(row.expires_at),
    created_at: row.created_at.toISOString(),
  };
}

/** An agent's name by DESIGN's rule (src/domain/agents/rules.ts): refused, or trimmed. */
export const agentNameSchema = z.string().transform((raw, ctx) => {
  const checked = checkAgentName(raw);
  if (!checked.ok) {
    ctx.addIssue({ code: z.ZodIssueCode.custom, message: checked.reason });
    return z.NEVER;
  }
  return checked.name;
});

export const createAgentBody = z
  .object({ name: agentNameSchema, model_name: safeText(100, 1).optional() })
  .strict();

export const patchAgentBody = z
  .object({
    name: agentNameSchema.optional(),
    model_name: safeText(100).nullable().optional(),
    version: safeText(100).nullable().optional(),
    skill_count: z.number().int().min(0).max(1_000_000).nullable().optional(),
    soul_excerpt: safeText(1000).nullable().optional(),
  })
  .strict()
  .refine((b) => Object.keys(b).length > 0, 'at least one field is required');

export const agentSchema = z.object({
  id: z.string().uuid(),
  name: z.string(),
  model_name: z.string().nullable(),
  version: z.string().nullable(),
  skill_count: z.number().int().nullable(),
  soul_excerpt: z.string().nullable(),
  is_online: z.boolean(),
  last_seen_at: z.string().nullable(),
  created_at: z.string(),
});

/** DELETE /agents/{id}: the agent as it was, when it was deleted and what was revoked with it. */
export const deletedAgentSchema = agentSchema.extend({
  deleted_at: z.string(),
  revoked_keys: z.number().int(),
  revoked_tokens: z.number().int(),
});

/** Presence is derived, never stored: seen within the window (3 missed 30 s heartbeats). */
export function toAgent(row: AgentRow, onlineWindowMs: number, now = Date.now()) {
  return {
    id: row.id,
    name: row.name,
    model_name: row.model_name,
    version: row.version,
    skill_count: row.skill_count,
    soul_excerpt: row.soul_excerpt,
    is_online: row.last_seen_at !== null && now - row.last_seen_at.getTime() <= onlineWindowMs,
    last_seen_at: iso(row.last_seen_at),
    created_at: row.created_at.toISOString(),
  };
}

export const createAgentKeyBody = z
  .object({ expires_in_hours: z.number().int().min(1).max(720).optional() })
  .strict();

export const agentKeySchema = z.object({
  id: z.string().uuid(),
  key_prefix: z.string(),
  expires_at: z.string(),
  revoked_at: z.string().nullable(),
  last_used_at: z.string().nullable(),
  created_at: z.string(),
});
export const createdAgentKeySchema = z.object({
  id: z.string().uuid(),
  key: z.string(),
  key_prefix: z.string(),
  expires_at: z.string(),
});

export function toAgentKey(row: AgentKeyRow) {
  return {
    id: row.id,
    key_prefix: row.key_prefix,
    expires_at: row.expires_at.toISOString(),
    revoked_at: iso(row.revoked_at),
    last_used_at: iso(row.last_used_at),
    created_at: row.created_at.toISOString(),
  };
}
