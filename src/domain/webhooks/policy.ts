/**
 * Who may do what with a webhook subscription and its deliveries (owner, operator), in one place:
 * routes, pages and the domain ask here and decide nothing themselves. The owner is the user of the
 * session JWT or API token; an operator is a session JWT with role admin (support).
 */
import { actsForUser, isAdmin, type Principal } from '../../auth/principal';

interface Subscription {
  owner_user_id: string;
}

/** Managing a subscription (read, edit, delete, test): its owner only; anyone else gets 404. */
export function mayManageSubscription(principal: Principal, subscription: Subscription): boolean {
  return actsForUser(principal, subscription.owner_user_id);
}

/** A subscription's deliveries (read, replay): its owner, or an operator (support tooling). */
export function mayHandleDeliveries(principal: Principal, subscription: Subscription): boolean {
  return mayManageSubscription(principal, subscription) || isAdmin(principal);
}
