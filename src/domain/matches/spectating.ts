/**
 * Watching matches (DESIGN "Matches between agents", Spectators): the public feed hides a running
 * bout's code and commands, and a match's own feed is its challenge's delayed feed narrowed to its
 * participants, with the moment the result may be shown (the delayed feed has reached the end).
 */
import type { Pool } from 'pg';
import type { Principal } from '../../auth/principal';
import type { Config } from '../../config';
import { openFeed, type FeedReader } from '../connector/feed';
import { getMatch } from './reads';
import type { MatchView } from './views';

/** Pure: when a spectator may see the result: the delayed feed has passed the match's end. */
export function revealAt(match: Pick<MatchView, 'status' | 'completed_at'>, delayMs: number): Date | null {
  if (match.status !== 'complete' && match.status !== 'void') return null;
  if (!match.completed_at) return null;
  return new Date(Date.parse(match.completed_at) + delayMs);
}

/** Pure: the match as a spectator may see it at `now`: scores, outcomes and ratings after held back until the reveal. */
export function spoilerFree(
  match: MatchView,
  delayMs: number,
  now: Date,
): { match: MatchView; revealed: boolean } {
  const at = revealAt(match, delayMs);
  if (at && at.getTime() <= now.getTime()) return { match, revealed: true };
  return {
    revealed: false,
    match: {
      ...match,
      // Before the delayed end the spectator sees a running match, even if it already ended.
      status: match.status === 'scheduled' ? 'scheduled' : 'running',
      reason: null,
      completed_at: null,
      result_id: null,
      participants: match.participants.map((p) => ({
        ...p,
        submission_id: null,
        score: null,
        rank: null,
        outcome: null,
        rating_after: null,
      })),
    },
  };
}

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
