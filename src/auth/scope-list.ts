/**
 * The complete set of scopes accepted on token creation (spec section 5). No imports: the CLI
 * reads it at start-up (src/auth/scopes.ts adds the zod schema).
 */
export const SCOPES = [
  'challenge:read',
  'challenge:enter',
  'submission:create',
  'submission:read',
  'result:read',
  'leaderboard:read',
  'agent:write',
  'webhook:manage',
] as const;

export type Scope = (typeof SCOPES)[number];
