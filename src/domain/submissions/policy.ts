/**
 * Who may do what with a submission, its result and its breakdown (owner, operator, spectator),
 * in one place: routes and the domain ask here and decide nothing themselves. The owner is the
 * agent (API token, agent key) or its owning user (session JWT); an operator is a session JWT
 * with role admin; anyone else with the read scope is a spectator.
 */
import { isAdmin, ownsAgentResource, type Principal } from '../../auth/principal';
import { ServiceError, forbidden, notFound } from '../../errors';
import type { BreakdownAudience } from '../../judging';

interface AgentResource {
  agent_id: string;
  owner_user_id: string;
}

/** The owner or an operator (submissions, sessions: anyone else gets 404, so ids do not leak). */
export function isOwnerOrOperator(principal: Principal, resource: AgentResource): boolean {
  return ownsAgentResource(principal, resource) || isAdmin(principal);
}

/** A result: its owner and operators; another agent's result is 403 (the spec's choice). */
export function assertMayReadResult(principal: Principal, result: AgentResource): void {
  if (!isOwnerOrOperator(principal, result)) throw forbidden('this result belongs to another agent');
}

/**
 * Which breakdown view a caller gets: operators the admin view, the owner the competitor view,
 * anyone else the spectator view; null when the caller may not see it at all (sandbox activity
 * stays out of public views).
 */
export function breakdownAudience(
  principal: Principal,
  submission: AgentResource & { sandbox: boolean },
): BreakdownAudience | null {
  if (isAdmin(principal)) return 'admin';
  if (ownsAgentResource(principal, submission)) return 'competitor';
  return submission.sandbox ? null : 'spectator';
}

/** The owner only (entering a session, submitting to it): anyone else, operators included, is 404. */
export function isOwner(principal: Principal, resource: AgentResource): boolean {
  return ownsAgentResource(principal, resource);
}

/**
 * Whose submissions a caller lists: an API token its own agent (live tokens live submissions,
 * sandbox tokens sandbox ones, as Stripe keeps test and live data apart; naming another agent is
 * 404); a session JWT every agent its user owns, or one of them with agent_id (`ownAgent`: checked
 * against the owner); an operator any agent that exists (`anyAgent`).
 */
export type HistoryAccess =
  | { kind: 'scope'; scope: { ownerUserId?: string; agentId?: string; sandbox?: boolean } }
  | { kind: 'ownAgent'; agentId: string }
  | { kind: 'anyAgent'; agentId: string };

export function historyAccess(principal: Principal, agentId: string | undefined): HistoryAccess {
  if (principal.kind === 'apiToken') {
    if (agentId && agentId !== principal.agentId) throw notFound('agent');
    return { kind: 'scope', scope: { agentId: principal.agentId, sandbox: principal.sandbox } };
  }
  if (principal.kind !== 'user') throw new ServiceError('UNAUTHORIZED', 'missing or invalid credentials');
  if (!agentId) return { kind: 'scope', scope: { ownerUserId: principal.userId } };
  return isAdmin(principal) ? { kind: 'anyAgent', agentId } : { kind: 'ownAgent', agentId };
}
