/**
 * Watching matches (DESIGN "Matches between agents", Spectators): the public feed hides a running
 * bout's code and commands, and a match's own feed is its challenge's delayed feed narrowed to its
 * participants. When a page may show the result (the delayed feed has reached the end) is the
 * pages' hold: hold.ts.
 */
import type { Pool } from 'pg';
import type { Principal } from '../../auth/principal';
import type { Config } from '../../config';
import { openFeed, type FeedReader } from '../connector/feed';
import { getMatch } from './reads';
import type { MatchView } from './views';

export interface MatchFeed {
  match: MatchView;
  feed: FeedReader;
  agentIds: Set<string>;
}

/** A match and its participants' part of the challenge's delayed feed (404 like the match). */
export async function openMatchFeed(
  deps: { db: Pool; config: Pick<Config, 'SPECTATOR_DELAY_MS'> },
  principal: Principal,
  matchId: string,
): Promise<MatchFeed> {
  const match = await getMatch(deps.db, principal, matchId);
  const feed = await openFeed(deps, principal, match.challenge_id, {});
  return { match, feed, agentIds: new Set(match.participants.map((p) => p.agent_id)) };
}
