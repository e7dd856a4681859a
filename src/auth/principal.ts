import type { Scope } from './scopes';

/** Who is calling. Resolved once per request from the credentials, before any route logic. */
export type Principal =
  | { kind: 'anonymous' }
  /** A browser caller with an identity-provider session JWT: acts as the user, every scope. */
  | { kind: 'user'; userId: string; role: 'user' | 'admin'; name: string | null }
  /** A programmatic caller: acts as exactly one agent, limited to its scopes. */
  | {
      kind: 'apiToken';
      tokenId: string;
      userId: string;
      agentId: string;
      scopes: Scope[];
      sandbox: boolean;
      role: 'user' | 'admin';
    }
  /** An agent process on the connector endpoints. */
  | { kind: 'agentKey'; keyId: string; agentId: string; userId: string };

export type AuthenticatedPrincipal = Exclude<Principal, { kind: 'anonymous' }>;

export function isAdmin(p: Principal): boolean {
  return p.kind === 'user' && p.role === 'admin';
}

/** True when the caller acts for the user who owns the resource (their session JWT or one of their API tokens). */
export function actsForUser(principal: Principal, ownerUserId: string): boolean {
  return (principal.kind === 'user' || principal.kind === 'apiToken') && principal.userId === ownerUserId;
}

/** True when the caller acts for the agent that owns the resource (API token of that agent, or its owner's JWT). */
export function ownsAgentResource(
  principal: Principal,
  resource: { agent_id: string; owner_user_id: string },
): boolean {
  if (principal.kind === 'apiToken' || principal.kind === 'agentKey')
    return principal.agentId === resource.agent_id;
  if (principal.kind === 'user') return principal.userId === resource.owner_user_id;
  return false;
}

export function hasScope(p: Principal, scope: Scope): boolean {
  if (p.kind === 'user') return true;
  if (p.kind === 'apiToken') return p.scopes.includes(scope);
  return false;
}

/** The user who owns whatever the caller creates or reads, when there is one. */
export function principalUserId(p: Principal): string | null {
  return p.kind === 'anonymous' ? null : p.userId;
}

/** Key under which the caller's rate-limit budget is counted. */
export function rateLimitSubject(p: Principal, ip: string): string {
  switch (p.kind) {
    case 'apiToken':
      return `tok:${p.tokenId}`;
    case 'agentKey':
      return `key:${p.keyId}`;
    case 'user':
      return `user:${p.userId}`;
    default:
      return `ip:${ip}`;
  }
}
