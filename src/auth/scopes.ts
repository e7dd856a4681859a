import { z } from 'zod';

/** The complete set of scopes accepted on token creation (spec section 5). */
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

export const scopeSchema = z.enum(SCOPES);
export type Scope = z.infer<typeof scopeSchema>;
