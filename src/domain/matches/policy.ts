/**
 * Who may do what in the arena. Matches, their results' public view, and ratings are public reads
 * (scores appear once a match is finished: views.ts); operators create exhibitions and void
 * matches (the admin routes admit only them); the match result through /results/{id} needs a
 * bearer credential with `result:read` (the route's scope), whoever's agents played.
 */
import { isAdmin, type Principal } from '../../auth/principal';
import { forbidden } from '../../errors';

/** Exhibitions and voids: operators only. */
export function assertMayManageMatches(principal: Principal): void {
  if (!isAdmin(principal)) throw forbidden();
}

/** A match challenge's matches are public once the challenge is (drafts: operators only). */
export function canSeeMatchesOf(principal: Principal, challenge: { status: string }): boolean {
  return challenge.status !== 'draft' || isAdmin(principal);
}
