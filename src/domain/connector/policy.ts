/**
 * Who may watch what (spectator, operator), in one place: routes and the domain ask here. Everyone
 * may watch a challenge they may see (challenges/policy.ts), delayed; only operators see the
 * undelayed view.
 */
import { isAdmin, type Principal } from '../../auth/principal';
import { forbidden } from '../../errors';

/** The undelayed view (`live=1`) is for operators; everyone else watches with the spectator delay. */
export function assertMayWatch(principal: Principal, view: { live?: boolean }): void {
  if (view.live && !isAdmin(principal)) throw forbidden('the undelayed view (live=1) is for operators');
}

/** A connector key streams for its own agent: a body naming another agent is 403. */
export function assertKeyActsFor(keyAgentId: string, claimedAgentId: string): void {
  if (claimedAgentId !== keyAgentId) throw forbidden('agentId does not match the agent of this key');
}
