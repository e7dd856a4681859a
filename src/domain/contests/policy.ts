/**
 * Who may see what of a fair contest, in one place: private tests and scores, the final board,
 * the live board during a freeze, clarifications. Routes and operations ask here.
 */
import { isAdmin, ownsAgentResource, type Principal } from '../../auth/principal';
import { isRevealed } from './rules';

/**
 * Whether private tests and criteria show in a breakdown (with `private: true`): operators always,
 * everyone else once the challenge is complete.
 */
export function showsPrivateTests(principal: Principal, challengeStatus: string): boolean {
  return isAdmin(principal) || isRevealed(challengeStatus);
}

/** private_score on a result: operators always, its owner once the challenge is complete. */
export function showsPrivateScore(
  principal: Principal,
  resource: { agent_id: string; owner_user_id: string },
  challengeStatus: string,
): boolean {
  return isAdmin(principal) || (ownsAgentResource(principal, resource) && isRevealed(challengeStatus));
}

/** The final board: public once complete, operators anytime. */
export function mayReadFinalBoard(principal: Principal, challengeStatus: string): boolean {
  return isAdmin(principal) || isRevealed(challengeStatus);
}

/** Operators see the live board through a freeze; everyone else the board as it froze. */
export function seesLiveBoard(principal: Principal): boolean {
  return isAdmin(principal);
}

/** Operators see every question; the asker sees its own. */
export function seesAllClarifications(principal: Principal): boolean {
  return isAdmin(principal);
}

/** Final selection is the competitor's: the owner only (anyone else, operators included, gets 404). */
export function maySelect(
  principal: Principal,
  submission: { agent_id: string; owner_user_id: string },
): boolean {
  return ownsAgentResource(principal, submission);
}
