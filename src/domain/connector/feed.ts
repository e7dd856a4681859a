import type { Pool } from 'pg';
import type { Config } from '../../config';
import { notFound } from '../../errors';
import type { FeedItem } from '../../wire/connector';
import type { Principal } from '../../auth/principal';
import { canSeeChallenge } from '../challenges/policy';
import { findChallengeForSpectators, type SpectatorChallengeRow } from '../../db/queries/challenges';
import {
  latestArrivalId,
  listArrivedEvents,
  listReleasedEvents,
  type FeedRow,
} from '../../db/queries/live-events';
import { latestFeedSeq } from '../../db/queries/live-relay-state';
import { assertMayWatch } from './policy';
import { redactRunningBouts } from '../matches/redaction';

/** Spectators see active, complete and archived challenges; drafts only operators (DESIGN.md). */
async function requireWatchableChallenge(
  db: Pool,
  principal: Principal,
  challengeId: string,
): Promise<SpectatorChallengeRow> {
  const challenge = await findChallengeForSpectators(db, challengeId);
  if (!challenge || !canSeeChallenge(principal, challenge)) throw notFound('challenge');
  return challenge;
}

function toFeedItem(row: FeedRow): FeedItem {
  return {
    feed_seq: row.feed_seq === null ? null : Number(row.feed_seq),
    id: row.id,
    seq_num: row.seq_num,
    challenge_id: row.challenge_id,
    agent_id: row.agent_id,
    agent_name: row.agent_name,
    received_at: row.received_at.toISOString(),
    released_at: row.released_at ? row.released_at.toISOString() : null,
    event: row.event as unknown as FeedItem['event'],
  };
}

/** One event of a feed and its cursor: the feed position (feed_seq), or the arrival id in the live view. */
export interface FeedEntry {
  cursor: number;
  item: FeedItem;
}

/**
 * A challenge's feed as one reader may see it: spectators the released feed, nothing younger than
 * `delayMs` (SPECTATOR_DELAY_MS, applied here and nowhere else on the read path); operators who
 * asked for `live` every arrival, undelayed (`delayMs` 0). Cursors are feed positions, or arrival
 * ids in the live view.
 */
export interface FeedReader {
  challenge: SpectatorChallengeRow;
  live: boolean;
  /** The delay this reader watches with (0 in the live view). */
  delayMs: number;
  /** The newest cursor of the feed (0 when it is empty). */
  head(): Promise<number>;
  /** Up to `limit` events after the cursor `after`, oldest first; only `agentId`'s when given. */
  read(after: number, limit: number, agentId?: string): Promise<FeedEntry[]>;
}

/**
 * The one way to read the spectator feed (JSON, SSE, the watch page): checks that the principal
 * may watch the challenge (404 otherwise) and may have the view it asked for (403 for `live`
 * unless an operator), then returns a reader bound to that view and its delay.
 */
export async function openFeed(
  deps: { db: Pool; config: Pick<Config, 'SPECTATOR_DELAY_MS'> },
  principal: Principal,
  challengeId: string,
  view: { live?: boolean },
): Promise<FeedReader> {
  const challenge = await requireWatchableChallenge(deps.db, principal, challengeId);
  assertMayWatch(principal, view);
  const { db } = deps;
  if (view.live) {
    return {
      challenge,
      live: true,
      delayMs: 0,
      head: () => latestArrivalId(db, challengeId),
      read: async (after, limit, agentId) =>
        (await listArrivedEvents(db, { challengeId, afterId: after, agentId, limit })).map((row) => ({
          cursor: Number(row.id),
          item: toFeedItem(row),
        })),
    };
  }
  const delayMs = deps.config.SPECTATOR_DELAY_MS;
  return {
    challenge,
    live: false,
    delayMs,
    head: () => latestFeedSeq(db, challengeId),
    // A running bout's code and commands stay out of the public feed (DESIGN, "Matches between agents").
    read: async (after, limit, agentId) =>
      redactRunningBouts(
        db,
        challengeId,
        (await listReleasedEvents(db, { challengeId, afterSeq: after, agentId, limit, delayMs })).map(
          (row) => ({
            cursor: Number(row.feed_seq),
            item: toFeedItem(row),
          }),
        ),
      ),
  };
}
