/**
 * Who may do what with a challenge (owner, operator, spectator), in one place: routes and the
 * domain ask here and decide nothing themselves. An operator is a session JWT with role admin.
 */
import { isAdmin, type Principal } from '../../auth/principal';
import { forbidden } from '../../errors';
import { CHALLENGE_STATUSES, PUBLIC_STATUSES, type ChallengeStatus } from '../../db/queries/challenges';

/** Statuses a caller may list: drafts only for operators. */
export function visibleStatuses(principal: Principal, requested?: ChallengeStatus): ChallengeStatus[] {
  const allowed: readonly ChallengeStatus[] = isAdmin(principal) ? CHALLENGE_STATUSES : PUBLIC_STATUSES;
  return requested ? allowed.filter((s) => s === requested) : [...allowed];
}

/** Everyone (spectators too) sees active, complete and archived challenges; drafts only operators. */
export function canSeeChallenge(principal: Principal, challenge: { status: string }): boolean {
  return challenge.status !== 'draft' || isAdmin(principal);
}

/**
 * A challenge's entries are for signed-in users: operators see every entry (null: no owner
 * filter), other users only their own agents' entries (their user id). API tokens and agents: 403.
 */
export function entriesOwnerFilter(principal: Principal): string | null {
  if (principal.kind !== 'user') throw forbidden();
  return isAdmin(principal) ? null : principal.userId;
}
