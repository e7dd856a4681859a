/**
 * An operator's exhibition: POST /api/v1/admin/challenges/{id}/matches {agent_ids, rated?}. It
 * starts at once, beside the matchmaker, unrated unless `rated: true`. Every agent must be
 * entered (a live ladder entry: sandbox agents are never matched) and not in a scheduled or
 * running match, else 400 VALIDATION_ERROR naming the agent; a rated one never names two agents of
 * one owner (policy.ts), an unrated one may. Audited (`match.create`) in the
 * match's transaction.
 */
import { withTransaction } from '../../db/pool';
import { lockChallengeById } from '../../db/queries/challenges';
import { findLadderEntries } from '../../db/queries/entries';
import { agentOwnersOf } from '../../db/queries/agents';
import { agentsInOpenMatches } from '../../db/queries/match-participants';
import { latestValidatedSubmissions } from '../../db/queries/results';
import type { MatchRow } from '../../db/queries/matches';
import { notFound, validationError } from '../../errors';
import type { ServiceDeps } from '../../service-deps';
import { recordAudit, type Actor } from '../audit/trail';
import { mayMeetInRatedMatch } from './policy';
import { isMatchFormat, matchSettingsOf } from './rules';
import { scheduleMatch, startScheduledMatches } from './schedule';

export async function createExhibition(
  deps: Pick<ServiceDeps, 'db' | 'logger' | 'config' | 'temporal'>,
  actor: Actor,
  challengeId: string,
  body: { agent_ids: string[]; rated: boolean },
): Promise<MatchRow> {
  const agentIds = body.agent_ids;
  const duplicate = agentIds.find((id, i) => agentIds.indexOf(id) !== i);
  if (duplicate) throw validationError(`body.agent_ids: agent ${duplicate} is listed twice`);
  const match = await withTransaction(deps.db, async (tx) => {
    const challenge = await lockChallengeById(tx, challengeId, 'share');
    if (!challenge) throw notFound('challenge');
    if (!isMatchFormat(challenge.format))
      throw validationError(
        `challenge ${challengeId} is ${challenge.format}: matches need head_to_head or game`,
      );
    if (challenge.status !== 'active')
      throw validationError(
        `challenge ${challengeId} is ${challenge.status}: matches run in active challenges`,
      );
    const settings = matchSettingsOf(challenge);
    if (agentIds.length !== settings.players)
      throw validationError(`body.agent_ids: this challenge's matches have ${settings.players} players`);
    const entries = await findLadderEntries(tx, challengeId, agentIds);
    for (const id of agentIds) {
      const entry = entries.get(id);
      if (!entry || entry.sandbox)
        throw validationError(`body.agent_ids: agent ${id} is not entered in this challenge`);
    }
    if (body.rated) {
      const owners = await agentOwnersOf(tx, agentIds);
      const ownerOf = (id: string) => ({ owner_user_id: owners.get(id) ?? '' });
      for (const [i, a] of agentIds.entries()) {
        const twin = agentIds.slice(i + 1).find((b) => !mayMeetInRatedMatch(ownerOf(a), ownerOf(b)));
        if (twin)
          throw validationError(
            `body.agent_ids: agents ${a} and ${twin} have one owner: they may meet only in an unrated match`,
          );
      }
    }
    if (challenge.format === 'game') {
      // A game is played by the agents' latest validated programs (DESIGN "Games").
      const programs = await latestValidatedSubmissions(tx, challengeId, agentIds);
      const missing = agentIds.find((id) => !programs.has(id));
      if (missing) throw validationError(`body.agent_ids: agent ${missing} has no validated program`);
    }
    const busy = await agentsInOpenMatches(tx, agentIds);
    const firstBusy = agentIds.find((id) => busy.has(id));
    if (firstBusy) throw validationError(`body.agent_ids: agent ${firstBusy} is already in a running match`);
    const created = await scheduleMatch(tx, challenge, agentIds, {
      rated: body.rated,
      origin: 'exhibition',
      createdBy: actor.userId,
    });
    await recordAudit(
      tx,
      actor,
      'match.create',
      { type: 'match', id: created.id },
      {
        challenge_id: challengeId,
        agent_ids: agentIds,
        rated: body.rated,
      },
    );
    return created;
  });
  try {
    await startScheduledMatches(deps, [{ id: match.id, challengeId, agentIds }]);
  } catch (err) {
    // The match stays scheduled; the challenge's next matchmaking round starts its workflow.
    deps.logger.warn({ err, matchId: match.id }, 'exhibition workflow not started yet');
  }
  return match;
}
