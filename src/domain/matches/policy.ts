/**
 * Who may do what in the arena. Matches, their results' public view, and ratings are public reads
 * (scores appear once a match is finished: views.ts); operators create exhibitions and void
 * matches (the admin routes admit only them); the match result through /results/{id} needs a
 * bearer credential with `result:read` (the route's scope), whoever's agents played. Agents of one
 * owner never meet in a rated match (Chatbot Arena, Kaggle: no rating farmed by self-play).
 */
import { isAdmin, type Principal } from '../../auth/principal';
import { forbidden } from '../../errors';
import { isOperatorSession } from '../accounts/policy';
import { shownMatch, type PageHold } from './hold';
import type { MatchView } from './views';

/** Exhibitions and voids: operators only. */
export function assertMayManageMatches(principal: Principal): void {
  if (!isAdmin(principal)) throw forbidden();
}

/** A match challenge's matches are public once the challenge is (drafts: operators only). */
/**
 * A match page offers the console's "Void this match" to an operator signed in on the web (pages'
 * principal is not the web session), while the match can still be voided.
 */
export function offersVoid(viewer: { role?: string } | null, match: { status: string }): boolean {
  return (
    viewer !== null &&
    isOperatorSession(viewer) &&
    (match.status === 'scheduled' || match.status === 'running')
  );
}

/**
 * A challenge page's list of matches offers "Void…" per match (DOMjudge: acting on objects where
 * they are shown): to an operator signed in on the web, for each match that can still be voided.
 * Null for anyone else: no column at all.
 */
export function voidableMatchIds(
  viewer: { role?: string } | null,
  matches: readonly { id: string; status: string }[],
): ReadonlySet<string> | null {
  if (viewer === null || !isOperatorSession(viewer)) return null;
  return new Set(matches.filter((m) => offersVoid(viewer, m)).map((m) => m.id));
}

export function canSeeMatchesOf(principal: Principal, challenge: { status: string }): boolean {
  return challenge.status !== 'draft' || isAdmin(principal);
}

/**
 * Pages hold a finished match's outcome until the spectator delay has passed (hold.ts); operators
 * see outcomes at once, as they see the live board through a freeze.
 */
export function seesOutcomesAtOnce(principal: Principal): boolean {
  return isAdmin(principal);
}

/**
 * The matches as a page may show them under its hold (hold.ts `shownMatch`, the one rule): views
 * apply it to every match they render, so no page can show one unheld.
 */
export function shownMatches(matches: readonly MatchView[], hold: PageHold): MatchView[] {
  return matches.map((m) => shownMatch(m, hold.viewer, hold.now, hold.delayMs).match);
}

/** One match under the page's hold, and whether its outcome may be shown (finished and not held). */
export function shownOne(match: MatchView, hold: PageHold): { match: MatchView; revealed: boolean } {
  const shown = shownMatch(match, hold.viewer, hold.now, hold.delayMs);
  return {
    match: shown.match,
    revealed: !shown.held && (match.status === 'complete' || match.status === 'void'),
  };
}

/**
 * Whether two agents may meet in a rated match: never when one user owns both (a win over one's own
 * agent that forfeits would be a free rating). An unrated exhibition may pair them (no rating moves).
 */
export function mayMeetInRatedMatch(a: { owner_user_id: string }, b: { owner_user_id: string }): boolean {
  return a.owner_user_id !== b.owner_user_id;
}

/**
 * The matchmaker never groups agents of one owner, rated challenge or not (docs/decisions/arena.md:
 * a challenge's `rated` can be edited later; a self-play round is never what a ladder is for).
 */
export const mayMeetInMatchmaking = mayMeetInRatedMatch;
