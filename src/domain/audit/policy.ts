/**
 * Who acts in the audit trail: the user behind the caller's session JWT or API token (admin routes
 * admit only an operator's session JWT; a replay by its owner is audited too). Routes, pages and the
 * domain ask here.
 */
import type { Principal } from '../../auth/principal';
import { forbidden } from '../../errors';

/** Who acted: the user behind the session JWT or API token. */
export interface Actor {
  userId: string;
}

/** The acting user of an authenticated caller; an agent key or anonymous caller acts for nobody (403). */
export function actorOf(principal: Principal): Actor {
  if (principal.kind === 'anonymous' || principal.kind === 'agentKey') throw forbidden();
  return { userId: principal.userId };
}
