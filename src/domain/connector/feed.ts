import type { Pool } from 'pg';
import { notFound } from '../../errors';
import type { FeedItem } from '../../wire/connector';
import type { Principal } from '../../auth/principal';
import { canSeeChallenge } from '../challenges/policy';
import { findChallengeForSpectators, type SpectatorChallengeRow } from '../../db/queries/challenges';
import type { FeedRow } from '../../db/queries/live-events';

/** Spectators see active, complete and archived challenges; drafts only operators (DESIGN.md). */
export async function requireWatchableChallenge(
  db: Pool,
  principal: Principal,
  challengeId: string,
): Promise<SpectatorChallengeRow> {
  const challenge = await findChallengeForSpectators(db, challengeId);
  if (!challenge || !canSeeChallenge(principal, challenge)) throw notFound('challenge');
  return challenge;
}

export function toFeedItem(row: FeedRow): FeedItem {
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
