import type { Queryable } from '../pool';
import { queryOne } from '../pool';

/** One row per challenge with live events: its relay's feed position and whether it sleeps (idle). */

/**
 * After an event was committed: flips the challenge's relay from idle to busy. Only the request
 * that performs the flip gets `flipped` (and signals the workflow), so a busy relay is not sent
 * one signal per event, and a busy relay costs this statement no lock at all (the UPDATE matches
 * nothing). Correctness is a store-then-check handshake with the relay: it commits idle = true
 * first and only then looks for pending events (releaseDueEvents), while this runs after the
 * event's commit; so either the relay's look sees the event, or this statement sees idle = true
 * and signals. `overdue`: the oldest unreleased event is `graceMs` past its release time (a relay
 * that died or was never told); the caller then signals anyway.
 */
export async function markRelayBusy(
  db: Queryable,
  challengeId: string,
  delayMs: number,
  graceMs: number,
): Promise<{ flipped: boolean; overdue: boolean }> {
  const row = await queryOne<{ flipped: boolean; overdue: boolean | null }>(
    db,
    `WITH created AS (
       INSERT INTO live_relay_state (challenge_id, idle) VALUES ($1, false)
       ON CONFLICT (challenge_id) DO NOTHING
       RETURNING 1
     ), woken AS (
       UPDATE live_relay_state SET idle = false, updated_at = now()
        WHERE challenge_id = $1 AND idle AND NOT EXISTS (SELECT 1 FROM created)
       RETURNING 1
     )
     SELECT EXISTS (SELECT 1 FROM created) OR EXISTS (SELECT 1 FROM woken) AS flipped,
            (SELECT MIN(received_at) FROM live_events
              WHERE challenge_id = $1 AND feed_seq IS NULL AND sandbox = false)
              < clock_timestamp() - make_interval(secs => ($2::double precision + $3::double precision) / 1000) AS overdue`,
    [challengeId, delayMs, graceMs],
  );
  return { flipped: row?.flipped ?? false, overdue: row?.overdue ?? false };
}

/** The challenge's current feed position (0 when nothing was released yet). */
export async function latestFeedSeq(db: Queryable, challengeId: string): Promise<number> {
  const row = await queryOne<{ last_feed_seq: string }>(
    db,
    'SELECT last_feed_seq FROM live_relay_state WHERE challenge_id = $1',
    [challengeId],
  );
  return row ? Number(row.last_feed_seq) : 0;
}

/** A relay signal failed for good: the next stored event must signal again. */
export async function markRelayIdle(db: Queryable, challengeId: string): Promise<void> {
  await db.query('UPDATE live_relay_state SET idle = true WHERE challenge_id = $1', [challengeId]);
}
