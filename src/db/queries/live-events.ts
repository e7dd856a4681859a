import type { Pool } from 'pg';
import type { StorableJson } from '../../lib/storable-text';
import type { Queryable } from '../pool';
import { queryOne, withTransaction } from '../pool';

/** pg_notify channel: payload is the challenge id; sent (at commit) when a release made events visible. */
export const LIVE_EVENTS_CHANNEL = 'live_events';

/** Largest batch one release transaction hands out (a backlog is drained over several iterations). */
export const RELEASE_BATCH_MAX = 5000;

/** The transition rule's outcome for one event type, per entry status (see 4001_connector_ingest_function.sql). */
export type IngestPlans = Record<
  string,
  { ok: true; next: string | null } | { ok: false; status: number; message: string }
>;

export type IngestOutcome =
  /** `replayed`: an event of this agent was already stored under the idempotency key; its seq_num is answered. */
  | { ok: true; seqNum: number; sandbox: boolean; entryStatus: string; replayed: boolean }
  | { ok: false; status: number; message: string };

/** The partial unique index on (agent_id, idempotency_key) (4002_live_event_idempotency_key.sql). */
const IDEMPOTENCY_KEY_INDEX = 'live_events_agent_idempotency_key_idx';

/**
 * Stores one event in one round trip (the live_event_ingest function): locks the agent's entry,
 * checks the challenge, applies the planned entry transition and inserts the event with the
 * agent's next seq_num, gap-free under concurrent posts. With an idempotency key, an event the
 * agent already stored under that key is answered instead (same challenge and event), or refused
 * with 409 (anything else).
 */
export async function ingestLiveEvent(
  db: Queryable,
  input: {
    challengeId: string;
    agentId: string;
    type: string;
    occurredAt: string;
    /** The connector's event (outside text): storable JSON only. */
    event: StorableJson;
    plans: IngestPlans;
    idempotencyKey?: string | null;
  },
): Promise<IngestOutcome> {
  let row;
  try {
    row = await queryOne<{
      r_ok: boolean;
      r_status: number;
      r_message: string | null;
      r_seq: number | null;
      r_sandbox: boolean | null;
      r_entry_status: string | null;
      r_replayed: boolean | null;
    }>(db, 'SELECT * FROM live_event_ingest($1, $2, $3, $4, $5, $6, $7)', [
      input.challengeId,
      input.agentId,
      input.type,
      input.occurredAt,
      input.event,
      JSON.stringify(input.plans),
      input.idempotencyKey ?? null,
    ]);
  } catch (err) {
    // Same challenge: serialised by the entry lock, so the lookup sees the earlier row. A unique
    // violation therefore means the key was used at the same moment for another challenge.
    const e = err as { code?: string; constraint?: string };
    if (input.idempotencyKey && e?.code === '23505' && e.constraint === IDEMPOTENCY_KEY_INDEX) {
      return {
        ok: false,
        status: 409,
        message: 'this Idempotency-Key was already used for a different event',
      };
    }
    throw err;
  }
  if (!row) throw new Error('live_event_ingest returned no row');
  if (!row.r_ok) return { ok: false, status: row.r_status, message: row.r_message ?? 'event refused' };
  return {
    ok: true,
    seqNum: row.r_seq!,
    sandbox: row.r_sandbox ?? false,
    entryStatus: row.r_entry_status ?? '',
    replayed: row.r_replayed ?? false,
  };
}

/**
 * Challenges whose oldest unreleased public event is `graceMs` past its release time: their relay
 * is not running (lost with its Temporal state, terminated, or never told because the signal
 * failed and no later event came). Served by live_events_pending_idx; normally few rows qualify.
 */
export async function findChallengesWithOverdueEvents(
  db: Queryable,
  delayMs: number,
  graceMs: number,
  limit: number,
): Promise<string[]> {
  const res = await db.query<{ challenge_id: string }>(
    `SELECT DISTINCT challenge_id FROM live_events
      WHERE feed_seq IS NULL AND sandbox = false
        AND received_at < clock_timestamp() - make_interval(secs => ($1::double precision + $2::double precision) / 1000)
      LIMIT $3`,
    [delayMs, graceMs, limit],
  );
  return res.rows.map((r) => r.challenge_id);
}

export interface ReleaseOutcome {
  released: number;
  lastFeedSeq: number;
  /** Milliseconds until the oldest unreleased event is due (0 when due now); null when none is pending. */
  nextDueInMs: number | null;
  challengeStatus: string | null;
}

/** Milliseconds until the oldest pending (unreleased, public) event is due; null when none is pending. */
async function nextDueInMs(db: Queryable, challengeId: string, delayMs: number): Promise<number | null> {
  // MIN over no rows is NULL (nothing pending); clamp in JS so NULL is not turned into 0.
  const row = await queryOne<{ due_in_ms: number | null }>(
    db,
    `SELECT (EXTRACT(EPOCH FROM (MIN(received_at) + make_interval(secs => $2::double precision / 1000) - clock_timestamp())) * 1000)::double precision AS due_in_ms
       FROM live_events WHERE challenge_id = $1 AND feed_seq IS NULL AND sandbox = false`,
    [challengeId, delayMs],
  );
  return row?.due_in_ms === null || row?.due_in_ms === undefined
    ? null
    : Math.max(0, Math.ceil(Number(row.due_in_ms)));
}

/**
 * One relay step: in one transaction (serialised per challenge by the relay-state row lock),
 * give every due event (received_at <= now - delay) a feed position in received order, mark it
 * released, and notify listening spectator streams at commit. Then report when the next pending
 * event is due. With none pending the relay commits idle = true BEFORE looking once more (the
 * handshake described at markRelayBusy), so an event committed meanwhile is never stranded.
 * Idempotent: a retried step releases only what is still unreleased.
 */
export async function releaseDueEvents(
  pool: Pool,
  challengeId: string,
  delayMs: number,
): Promise<ReleaseOutcome> {
  const step = await withTransaction(pool, async (tx) => {
    await tx.query(
      'INSERT INTO live_relay_state (challenge_id) VALUES ($1) ON CONFLICT (challenge_id) DO NOTHING',
      [challengeId],
    );
    const state = await queryOne<{ last_feed_seq: string; cutoff: Date; challenge_status: string | null }>(
      tx,
      `SELECT s.last_feed_seq, clock_timestamp() - make_interval(secs => $2::double precision / 1000) AS cutoff,
              (SELECT status FROM challenges WHERE id = $1) AS challenge_status
         FROM live_relay_state s WHERE s.challenge_id = $1 FOR UPDATE`,
      [challengeId, delayMs],
    );
    const last = Number(state!.last_feed_seq);
    const released = await tx.query(
      `WITH due AS (
         SELECT id, ROW_NUMBER() OVER (ORDER BY received_at, id) AS rn
           FROM live_events
          WHERE challenge_id = $1 AND feed_seq IS NULL AND sandbox = false AND received_at <= $2
          ORDER BY received_at, id
          LIMIT ${RELEASE_BATCH_MAX}
       )
       UPDATE live_events le SET feed_seq = $3 + due.rn, released_at = clock_timestamp()
         FROM due WHERE le.id = due.id`,
      [challengeId, state!.cutoff, last],
    );
    const count = released.rowCount ?? 0;
    const next = await nextDueInMs(tx, challengeId, delayMs);
    await tx.query(
      'UPDATE live_relay_state SET last_feed_seq = $2, idle = $3, updated_at = now() WHERE challenge_id = $1',
      [challengeId, last + count, next === null],
    );
    if (count > 0) await tx.query('SELECT pg_notify($1, $2)', [LIVE_EVENTS_CHANNEL, challengeId]);
    return {
      released: count,
      lastFeedSeq: last + count,
      nextDueInMs: next,
      challengeStatus: state!.challenge_status,
    };
  });
  if (step.nextDueInMs === null) {
    // idle = true is committed: look once more with a fresh snapshot.
    const late = await nextDueInMs(pool, challengeId, delayMs);
    if (late !== null) {
      await pool.query(
        'UPDATE live_relay_state SET idle = false, updated_at = now() WHERE challenge_id = $1',
        [challengeId],
      );
      return { ...step, nextDueInMs: late };
    }
  }
  return step;
}

export interface FeedRow {
  id: string;
  feed_seq: string | null;
  seq_num: number;
  challenge_id: string;
  agent_id: string;
  agent_name: string;
  received_at: Date;
  released_at: Date | null;
  event: Record<string, unknown>;
}

const FEED_COLUMNS = `le.id::text AS id, le.feed_seq, le.seq_num, le.challenge_id, le.agent_id, a.name AS agent_name,
                      le.received_at, le.released_at, le.event`;

/**
 * The public, delayed feed after a feed position. Two conditions make an event visible: the
 * relay released it (feed_seq set), and it is older than the delay by the reader's own clock.
 * Should the relay ever run ahead, the reader stops at the first released-but-too-young event,
 * so what it returns is always a prefix of the feed (a cursor never skips an event).
 */
export async function listReleasedEvents(
  db: Queryable,
  input: { challengeId: string; afterSeq: number; agentId?: string; limit: number; delayMs: number },
): Promise<FeedRow[]> {
  const res = await db.query<FeedRow>(
    `WITH horizon AS (
       SELECT MIN(feed_seq) AS first_hidden FROM live_events
        WHERE challenge_id = $1 AND feed_seq IS NOT NULL
          AND received_at > now() - make_interval(secs => $5::double precision / 1000)
     )
     SELECT ${FEED_COLUMNS}
       FROM live_events le JOIN agents a ON a.id = le.agent_id, horizon
      WHERE le.challenge_id = $1 AND le.feed_seq IS NOT NULL AND le.feed_seq > $2
        AND ($3::uuid IS NULL OR le.agent_id = $3)
        AND (horizon.first_hidden IS NULL OR le.feed_seq < horizon.first_hidden)
      ORDER BY le.feed_seq
      LIMIT $4`,
    [input.challengeId, input.afterSeq, input.agentId ?? null, input.limit, input.delayMs],
  );
  return res.rows;
}

/** Operators' undelayed view: every stored event (sandbox included) by arrival id. */
export async function listArrivedEvents(
  db: Queryable,
  input: { challengeId: string; afterId: number; agentId?: string; limit: number },
): Promise<FeedRow[]> {
  const res = await db.query<FeedRow>(
    `SELECT ${FEED_COLUMNS}
       FROM live_events le JOIN agents a ON a.id = le.agent_id
      WHERE le.challenge_id = $1 AND le.id > $2 AND ($3::uuid IS NULL OR le.agent_id = $3)
      ORDER BY le.id
      LIMIT $4`,
    [input.challengeId, input.afterId, input.agentId ?? null, input.limit],
  );
  return res.rows;
}

/** The newest arrival id of a challenge (operators' live view starting point). */
export async function latestArrivalId(db: Queryable, challengeId: string): Promise<number> {
  const row = await queryOne<{ id: string | null }>(
    db,
    'SELECT MAX(id)::text AS id FROM live_events WHERE challenge_id = $1',
    [challengeId],
  );
  return row?.id ? Number(row.id) : 0;
}
