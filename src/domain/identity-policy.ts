/**
 * Who may do what with agents, API tokens and connector keys (identity.ts), in one place: routes,
 * pages and the domain ask here and decide nothing themselves. An agent's owner is its user (session
 * JWT), or a token or connector key of that very agent; another owner's agent or token is 404.
 */
import { ownsAgentResource, type Principal } from '../auth/principal';
import { forbidden } from '../errors';

type UserPrincipal = Extract<Principal, { kind: 'user' }>;
type AgentCredential = Extract<Principal, { kind: 'apiToken' | 'agentKey' }>;

interface Agent {
  id: string;
  owner_user_id: string;
}

/** The caller owns the agent: its user, or a token or key of that agent (and of that user). */
export function ownsAgent(principal: Principal, agent: Agent): boolean {
  if (principal.kind === 'anonymous' || principal.userId !== agent.owner_user_id) return false;
  return ownsAgentResource(principal, { agent_id: agent.id, owner_user_id: agent.owner_user_id });
}

/** The user (by id) owns the agent: what a session JWT may hand a new token. */
export function isAgentOfUser(agent: Agent, userId: string): boolean {
  return agent.owner_user_id === userId;
}

/** A token or connector key acts for its own agent: naming another is 403. */
export function assertActsForAgent(principal: AgentCredential, requestedAgentId?: string | null): void {
  if (requestedAgentId && requestedAgentId !== principal.agentId)
    throw forbidden('this credential acts for another agent');
}

/** New agents: a session JWT only (a token acts for one existing agent). */
export function assertMayCreateAgent(principal: Principal): asserts principal is UserPrincipal {
  if (principal.kind !== 'user') throw forbidden();
}

/** Deleting an agent: its user or a token of it; a connector key (the agent's process) may not. */
export function assertMayDeleteAgent(
  principal: Principal,
): asserts principal is Exclude<Principal, { kind: 'anonymous' | 'agentKey' }> {
  if (principal.kind === 'anonymous' || principal.kind === 'agentKey') throw forbidden();
}

/**
 * Whose agents a caller lists: an API token its own agent, a session JWT its user's agents; anyone
 * else 403.
 */
export function agentsListedFor(principal: Principal): { agentId: string } | { ownerUserId: string } {
  if (principal.kind === 'apiToken') return { agentId: principal.agentId };
  if (principal.kind !== 'user') throw forbidden();
  return { ownerUserId: principal.userId };
}

/** Tokens are managed by their user: a session JWT or an API token of that user (403 for anyone else). */
export function tokenUserOf(principal: Principal): string {
  if (principal.kind !== 'user' && principal.kind !== 'apiToken') throw forbidden();
  return principal.userId;
}

/**
 * Revoking a token: a session JWT any of its user's tokens, an API token only itself (403); another
 * user's token (or none) is 404.
 */
export function mayRevokeToken(
  principal: Principal,
  token: { id: string; user_id: string } | null | undefined,
): 'yes' | 'notFound' | 'onlyItself' {
  const userId = tokenUserOf(principal);
  if (!token || token.user_id !== userId) return 'notFound';
  if (principal.kind === 'apiToken' && principal.tokenId !== token.id) return 'onlyItself';
  return 'yes';
}
