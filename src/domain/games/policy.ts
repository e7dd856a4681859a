/**
 * Who may read what of a game match: the replay is public once the match is complete (DESIGN
 * "Games"); a participant's stderr logs only to the owner of that participant's agent and to
 * operators (everyone else: 404, as if there were none).
 */
import { actsForUser, isAdmin, type Principal } from '../../auth/principal';

export function canReadMatchLogs(principal: Principal, participant: { owner_user_id: string }): boolean {
  return isAdmin(principal) || actsForUser(principal, participant.owner_user_id);
}
