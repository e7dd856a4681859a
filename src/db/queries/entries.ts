import type { Queryable } from '../pool';
import { queryOne } from '../pool';

export const ENTRY_STATUSES = [
  // A ladder entry on a match challenge (DESIGN: Matches between agents): entered, waiting for bouts.
  'waiting',
  'assigned',
  'active',
  'submitted',
  'judged',
  'timed_out',
  'withdrawn',
] as const;
export type EntryStatus = (typeof ENTRY_STATUSES)[number];

export interface EntryRow {
  id: string;
  challenge_id: string;
  agent_id: string;
  status: EntryStatus;
  sandbox: boolean;
  /** Set on a bout entry (one per participant per match); null on the ladder (or only) entry. */
  match_id: string | null;
  assigned_at: Date;
  updated_at: Date;
}

/**
 * Creates the (challenge, agent) entry if missing, else returns the existing one; safe under
 * concurrency (the UNIQUE constraint decides). A live (non-sandbox) caller turns an existing
 * sandbox entry into a live one, so that real participation is counted in entry_count; the
 * reverse never happens. New entries start as `assigned`. Call it inside your transaction
 * (opening a session creates the entry if missing).
 */
export async function upsertEntry(
  tx: Queryable,
  input: { challengeId: string; agentId: string; sandbox: boolean; status?: 'assigned' | 'waiting' },
): Promise<{ entry: EntryRow; created: boolean }> {
  const written = await queryOne<EntryRow & { created: boolean }>(
    tx,
    `INSERT INTO entries (challenge_id, agent_id, sandbox, status) VALUES ($1, $2, $3, $4)
     ON CONFLICT (challenge_id, agent_id) WHERE match_id IS NULL DO UPDATE SET sandbox = false, updated_at = now()
       WHERE entries.sandbox AND NOT EXCLUDED.sandbox
     RETURNING *, (xmax = 0) AS created`,
    [input.challengeId, input.agentId, input.sandbox, input.status ?? 'assigned'],
  );
  if (written) {
    const { created, ...entry } = written;
    return { entry, created };
  }
  const existing = await findEntry(tx, input.challengeId, input.agentId);
  if (!existing) throw new Error('entry vanished during upsert');
  return { entry: existing, created: false };
}

export function findEntry(db: Queryable, challengeId: string, agentId: string): Promise<EntryRow | null> {
  return queryOne<EntryRow>(
    db,
    'SELECT * FROM entries WHERE challenge_id = $1 AND agent_id = $2 AND match_id IS NULL',
    [challengeId, agentId],
  );
}

export function findEntryById(db: Queryable, id: string): Promise<EntryRow | null> {
  return queryOne<EntryRow>(db, 'SELECT * FROM entries WHERE id = $1', [id]);
}

/** A challenge's entries in assignment order; `ownerUserId` narrows to that user's agents. */
export async function listEntries(
  db: Queryable,
  filter: { challengeId: string; ownerUserId?: string | null },
  page: { limit: number; offset: number },
): Promise<{ rows: EntryRow[]; total: number }> {
  const values: unknown[] = [filter.challengeId];
  let where = 'WHERE e.challenge_id = $1';
  if (filter.ownerUserId) {
    values.push(filter.ownerUserId);
    where += ` AND e.agent_id IN (SELECT a.id FROM agents a WHERE a.owner_user_id = $${values.length})`;
  }
  const n = values.length;
  const [rows, count] = await Promise.all([
    db.query<EntryRow>(
      `SELECT e.* FROM entries e ${where} ORDER BY e.assigned_at, e.id LIMIT $${n + 1} OFFSET $${n + 2}`,
      [...values, page.limit, page.offset],
    ),
    db.query<{ total: number }>(`SELECT count(*)::int AS total FROM entries e ${where}`, values),
  ]);
  return { rows: rows.rows, total: count.rows[0].total };
}

/** Locks the (challenge, agent) entry: serialises quota checks and leaderboard refreshes of that pair. */
export function lockEntry(db: Queryable, challengeId: string, agentId: string): Promise<EntryRow | null> {
  return queryOne<EntryRow>(
    db,
    'SELECT * FROM entries WHERE challenge_id = $1 AND agent_id = $2 FOR UPDATE',
    [challengeId, agentId],
  );
}

/** A session opened by the API is active participation: a freshly created entry skips `assigned`. */
export async function markEntryActive(db: Queryable, entryId: string): Promise<void> {
  await db.query(
    "UPDATE entries SET status = 'active', updated_at = now() WHERE id = $1 AND status = 'assigned'",
    [entryId],
  );
}

/**
 * The entry a session belongs to (the ladder-less solo entry, or a bout entry) moves forward:
 * assigned → active → submitted → judged.
 */
export async function advanceSessionEntryStatus(
  db: Queryable,
  sessionId: string,
  to: 'submitted' | 'judged',
): Promise<void> {
  const from = to === 'submitted' ? ['assigned', 'active'] : ['assigned', 'active', 'submitted'];
  await db.query(
    `UPDATE entries SET status = $2, updated_at = now()
      WHERE id = (SELECT s.entry_id FROM sessions s WHERE s.id = $1) AND status = ANY($3::text[])`,
    [sessionId, to, from],
  );
}

export interface AssignmentRow {
  entry_id: string;
  assigned_at: Date;
  challenge_id: string;
  title: string;
  description: string;
  category: string;
  format: string;
  time_limit_minutes: number | null;
  starts_at: Date | null;
  ends_at: Date | null;
  /** A bout entry's match (null for solo entries). */
  match_id: string | null;
  match_ends_at: Date | null;
}

/** The agent's entries still waiting to be picked up (status assigned) in active challenges. */
export async function listAssignedEntries(db: Queryable, agentId: string): Promise<AssignmentRow[]> {
  const res = await db.query<AssignmentRow>(
    `SELECT e.id AS entry_id, e.assigned_at, c.id AS challenge_id, c.title, c.description, c.category, c.format,
            c.time_limit_minutes, c.starts_at, c.ends_at, e.match_id, m.ends_at AS match_ends_at
       FROM entries e JOIN challenges c ON c.id = e.challenge_id
       LEFT JOIN matches m ON m.id = e.match_id
      WHERE e.agent_id = $1 AND e.status = 'assigned' AND c.status = 'active'
        AND (e.match_id IS NULL OR m.status = 'running')
      ORDER BY e.assigned_at, e.id
      LIMIT 100`,
    [agentId],
  );
  return res.rows;
}

export interface IdleEntryRow {
  entry_id: string;
  challenge_id: string;
  title: string;
  entry_status: EntryStatus;
  challenge_status: string;
}

/** The agent's entries that are not assignments now (the connector says why), latest first. */
export async function listIdleEntries(
  db: Queryable,
  agentId: string,
  limit: number,
): Promise<IdleEntryRow[]> {
  const res = await db.query<IdleEntryRow>(
    `SELECT e.id AS entry_id, c.id AS challenge_id, c.title, e.status AS entry_status, c.status AS challenge_status
       FROM entries e JOIN challenges c ON c.id = e.challenge_id
       LEFT JOIN matches m ON m.id = e.match_id
      WHERE e.agent_id = $1
        AND NOT (e.status = 'assigned' AND c.status = 'active' AND (e.match_id IS NULL OR m.status = 'running'))
      ORDER BY e.updated_at DESC, e.id
      LIMIT $2`,
    [agentId, limit],
  );
  return res.rows;
}

/** The agents entered in a challenge (id and name), by name: the console's agent filter. */
export async function listEntrantAgents(
  db: Queryable,
  challengeId: string,
  limit: number,
): Promise<{ id: string; name: string }[]> {
  const res = await db.query<{ id: string; name: string }>(
    `SELECT a.id, a.name FROM entries e JOIN agents a ON a.id = e.agent_id
     WHERE e.challenge_id = $1 AND e.match_id IS NULL ORDER BY a.name, a.id LIMIT $2`,
    [challengeId, limit],
  );
  return res.rows;
}

// ---- match challenges (src/domain/matches) -----------------------------------------------------

/** One bout entry per participant (status assigned, match_id set); a repeat inserts nothing. */
export async function insertBoutEntries(
  tx: Queryable,
  m: { matchId: string; challengeId: string; agentIds: string[] },
): Promise<void> {
  await tx.query(
    `INSERT INTO entries (challenge_id, agent_id, sandbox, status, match_id)
     SELECT $1, t.agent_id, false, 'assigned', $2 FROM unnest($3::uuid[]) AS t(agent_id)
     ON CONFLICT (match_id, agent_id) WHERE match_id IS NOT NULL DO NOTHING`,
    [m.challengeId, m.matchId, m.agentIds],
  );
}

/** At the end of a bout, its entries nobody finished (assigned, active) are timed out. */
export async function timeOutBoutEntries(tx: Queryable, matchId: string): Promise<void> {
  await tx.query(
    `UPDATE entries SET status = 'timed_out', updated_at = now()
      WHERE match_id = $1 AND status IN ('assigned', 'active')`,
    [matchId],
  );
}

/** The agent's bout entry in a running match of this challenge, with the match's end. */
export function findRunningBoutEntry(
  db: Queryable,
  challengeId: string,
  agentId: string,
): Promise<(EntryRow & { match_ends_at: Date | null }) | null> {
  return queryOne<EntryRow & { match_ends_at: Date | null }>(
    db,
    `SELECT e.*, m.ends_at AS match_ends_at FROM entries e JOIN matches m ON m.id = e.match_id
      WHERE e.challenge_id = $1 AND e.agent_id = $2 AND m.status = 'running' AND m.bout_ended_at IS NULL
        AND (m.ends_at IS NULL OR m.ends_at > now())
      ORDER BY m.started_at DESC LIMIT 1`,
    [challengeId, agentId],
  );
}

export interface MatchCandidateRow {
  agent_id: string;
  owner_user_id: string;
  ordinal: number | null;
  rated_matches: number;
  matches_last_hour: number;
}

/**
 * The matchmaker's eligible agents of a challenge: entered (a live, non-sandbox ladder entry), not
 * deleted, online (seen within `onlineMs`), not in a scheduled or running match; with their rating in the weight class
 * and how many matches they were scheduled in within the last hour.
 */
export async function listMatchCandidates(
  db: Queryable,
  c: { challengeId: string; weightClassId: string; onlineMs: number },
): Promise<MatchCandidateRow[]> {
  const res = await db.query<MatchCandidateRow>(
    `SELECT e.agent_id, a.owner_user_id, r.ordinal, COALESCE(r.matches, 0)::int AS rated_matches,
            (SELECT count(*) FROM match_participants p JOIN matches m ON m.id = p.match_id
              WHERE p.agent_id = e.agent_id AND m.scheduled_at > now() - interval '1 hour')::int AS matches_last_hour
       FROM entries e
       JOIN agents a ON a.id = e.agent_id
       LEFT JOIN ratings r ON r.agent_id = e.agent_id AND r.weight_class_id = $2
      WHERE e.challenge_id = $1 AND e.match_id IS NULL AND NOT e.sandbox AND e.status = 'waiting'
        AND a.deleted_at IS NULL
        AND a.last_seen_at > now() - make_interval(secs => $3::double precision / 1000)
        AND NOT EXISTS (SELECT 1 FROM match_participants p JOIN matches m ON m.id = p.match_id
                         WHERE p.agent_id = e.agent_id AND m.status IN ('scheduled', 'running'))
      ORDER BY e.agent_id`,
    [c.challengeId, c.weightClassId, c.onlineMs],
  );
  return res.rows;
}

/**
 * A `game` challenge's matchmaking candidates (DESIGN "Games"): entered (a live ladder entry, any
 * status but withdrawn: opening a session enters the agent), not deleted, with a validated program
 * (a current scored result of 100 in this challenge), not in a scheduled or running match.
 */
export async function listGameMatchCandidates(
  db: Queryable,
  c: { challengeId: string; weightClassId: string },
): Promise<MatchCandidateRow[]> {
  const res = await db.query<MatchCandidateRow>(
    `SELECT e.agent_id, a.owner_user_id, r.ordinal, COALESCE(r.matches, 0)::int AS rated_matches,
            (SELECT count(*) FROM match_participants p JOIN matches m ON m.id = p.match_id
              WHERE p.agent_id = e.agent_id AND m.scheduled_at > now() - interval '1 hour')::int AS matches_last_hour
       FROM entries e
       JOIN agents a ON a.id = e.agent_id
       LEFT JOIN ratings r ON r.agent_id = e.agent_id AND r.weight_class_id = $2
      WHERE e.challenge_id = $1 AND e.match_id IS NULL AND NOT e.sandbox AND e.status <> 'withdrawn'
        AND a.deleted_at IS NULL
        AND EXISTS (SELECT 1 FROM results res
                     WHERE res.challenge_id = $1 AND res.agent_id = e.agent_id AND res.superseded_at IS NULL
                       AND res.result_state = 'scored' AND res.final_score = 100 AND NOT res.sandbox)
        AND NOT EXISTS (SELECT 1 FROM match_participants p JOIN matches m ON m.id = p.match_id
                         WHERE p.agent_id = e.agent_id AND m.status IN ('scheduled', 'running'))
      ORDER BY e.agent_id`,
    [c.challengeId, c.weightClassId],
  );
  return res.rows;
}

/**
 * The agents' ladder entries in a challenge (the exhibition check: every agent must be entered).
 * A deleted agent has none here: it is never matched.
 */
export async function findLadderEntries(
  db: Queryable,
  challengeId: string,
  agentIds: string[],
): Promise<Map<string, EntryRow>> {
  const res = await db.query<EntryRow>(
    `SELECT e.* FROM entries e JOIN agents a ON a.id = e.agent_id
      WHERE e.challenge_id = $1 AND e.agent_id = ANY($2::uuid[]) AND e.match_id IS NULL
        AND a.deleted_at IS NULL`,
    [challengeId, agentIds],
  );
  return new Map(res.rows.map((r) => [r.agent_id, r]));
}

export interface MatchBoardRow {
  agent_id: string;
  agent_name: string;
  mu: number | null;
  sigma: number | null;
  ordinal: number | null;
  class_matches: number | null;
  best_score: string | null;
  best_submission_id: string | null;
  submission_count: number | null;
  last_submitted_at: Date | null;
}

/**
 * A match challenge's board: its entrants (live ladder entries) by their rating's ordinal in the
 * weight class (unrated: 0), then agent id; limit + 1 rows after the cursor.
 */
export async function listMatchBoard(
  db: Queryable,
  c: {
    challengeId: string;
    weightClassId: string;
    limit: number;
    after?: { ordinal: number; agentId: string };
    /** Only these agents' rows (the page count stays the whole board's). */
    agentIds?: string[];
  },
): Promise<{ rows: MatchBoardRow[]; before: number; total: number }> {
  const base = `FROM entries e JOIN agents a ON a.id = e.agent_id
       LEFT JOIN ratings r ON r.agent_id = e.agent_id AND r.weight_class_id = $2
       LEFT JOIN leaderboard_entries l ON l.challenge_id = e.challenge_id AND l.agent_id = e.agent_id
      WHERE e.challenge_id = $1 AND e.match_id IS NULL AND NOT e.sandbox`;
  const values: unknown[] = [c.challengeId, c.weightClassId];
  let cursor = '';
  let atOrAbove = 'false';
  if (c.after) {
    values.push(c.after.ordinal, c.after.agentId);
    cursor = ' AND (COALESCE(r.ordinal, 0) < $3 OR (COALESCE(r.ordinal, 0) = $3 AND e.agent_id > $4::uuid))';
    atOrAbove = '(COALESCE(r.ordinal, 0) > $3 OR (COALESCE(r.ordinal, 0) = $3 AND e.agent_id <= $4::uuid))';
  }
  const pageValues = [...values];
  if (c.agentIds) {
    pageValues.push(c.agentIds);
    cursor += ` AND e.agent_id = ANY($${pageValues.length}::uuid[])`;
  }
  const [page, counts] = await Promise.all([
    db.query<MatchBoardRow>(
      `SELECT e.agent_id, a.name AS agent_name, r.mu, r.sigma, r.ordinal, r.matches AS class_matches,
              l.best_score, l.best_submission_id, l.submission_count, l.last_submitted_at
         ${base}${cursor}
        ORDER BY COALESCE(r.ordinal, 0) DESC, e.agent_id LIMIT $${pageValues.length + 1}`,
      [...pageValues, c.limit + 1],
    ),
    db.query<{ total: number; before: number }>(
      `SELECT count(*)::int AS total, count(*) FILTER (WHERE ${atOrAbove})::int AS before ${base}`,
      values,
    ),
  ]);
  return { rows: page.rows, before: counts.rows[0].before, total: counts.rows[0].total };
}

/**
 * Live (non-sandbox) ladder entries of each challenge that were live before its moment (a frozen
 * board's moment): challenge id → count. Each challenge is one count over its live entries.
 */
export async function countLiveEntriesBefore(
  db: Queryable,
  items: { challengeId: string; before: Date }[],
): Promise<Map<string, number>> {
  if (items.length === 0) return new Map();
  const res = await db.query<{ challenge_id: string; n: number }>(
    `SELECT x.challenge_id,
            (SELECT count(*) FROM entries e
              WHERE e.challenge_id = x.challenge_id AND NOT e.sandbox AND e.match_id IS NULL
                AND e.live_since < x.before)::int AS n
       FROM unnest($1::uuid[], $2::timestamptz[]) AS x(challenge_id, before)`,
    [items.map((i) => i.challengeId), items.map((i) => i.before)],
  );
  return new Map(res.rows.map((r) => [r.challenge_id, r.n]));
}

/** The agents an exhibition may pick (the console's form): live ladder entries, by name. */
export async function listExhibitionCandidates(
  db: Queryable,
  challengeId: string,
  limit: number,
): Promise<{ agent_id: string; agent_name: string }[]> {
  const res = await db.query<{ agent_id: string; agent_name: string }>(
    `SELECT e.agent_id, a.name AS agent_name FROM entries e JOIN agents a ON a.id = e.agent_id
      WHERE e.challenge_id = $1 AND e.match_id IS NULL AND NOT e.sandbox AND a.deleted_at IS NULL
      ORDER BY a.name, e.agent_id LIMIT $2`,
    [challengeId, limit],
  );
  return res.rows;
}

/**
 * The running bout whose end is recorded that a submission was made in (null: none, or the bout
 * still runs): its settlement may be waiting for this submission's judging.
 */
export async function findEndedBoutOfSubmission(db: Queryable, submissionId: string): Promise<string | null> {
  const row = await queryOne<{ match_id: string }>(
    db,
    `SELECT m.id AS match_id
       FROM submissions sub
       JOIN sessions s ON s.id = sub.session_id
       JOIN entries e ON e.id = s.entry_id
       JOIN matches m ON m.id = e.match_id
      WHERE sub.id = $1 AND m.status = 'running' AND m.bout_ended_at IS NOT NULL`,
    [submissionId],
  );
  return row?.match_id ?? null;
}

/** The bout an entry belongs to (null: a ladder or solo entry). */
export async function findEntryMatchId(db: Queryable, entryId: string): Promise<string | null> {
  const row = await queryOne<{ match_id: string | null }>(db, 'SELECT match_id FROM entries WHERE id = $1', [
    entryId,
  ]);
  return row?.match_id ?? null;
}
