import type { Queryable } from '../pool';

export interface RatingRow {
  weight_class_id: string;
  agent_id: string;
  mu: number;
  sigma: number;
  ordinal: number;
  matches: number;
  wins: number;
  draws: number;
  losses: number;
  last_match_at: Date | null;
  updated_at: Date;
}

/**
 * The single writer of a weight class's ratings: a transaction-scoped advisory lock, held by the
 * step that completes a rated match (so completion order is the order of `completed_seq`) and by
 * the step that applies it.
 */
export async function lockWeightClassRatings(tx: Queryable, weightClassId: string): Promise<void> {
  await tx.query("SELECT pg_advisory_xact_lock(hashtext('ratings:' || $1))", [weightClassId]);
}

export async function findRatings(
  db: Queryable,
  weightClassId: string,
  agentIds: string[],
): Promise<Map<string, RatingRow>> {
  const res = await db.query<RatingRow>(
    'SELECT * FROM ratings WHERE weight_class_id = $1 AND agent_id = ANY($2::uuid[])',
    [weightClassId, agentIds],
  );
  return new Map(res.rows.map((r) => [r.agent_id, r]));
}

/**
 * Each agent's rating after a batch of matches, and the batch's counts added to its own (one
 * statement for the batch; an agent appears once).
 */
export async function saveRatings(
  tx: Queryable,
  weightClassId: string,
  rows: {
    agentId: string;
    mu: number;
    sigma: number;
    ordinal: number;
    matches: number;
    wins: number;
    draws: number;
    losses: number;
    lastMatchAt: Date;
  }[],
): Promise<void> {
  if (rows.length === 0) return;
  await tx.query(
    `INSERT INTO ratings (weight_class_id, agent_id, mu, sigma, ordinal, matches, wins, draws, losses, last_match_at)
     SELECT $1, t.* FROM unnest($2::uuid[], $3::float8[], $4::float8[], $5::float8[], $6::int[], $7::int[],
                                 $8::int[], $9::int[], $10::timestamptz[])
                         AS t(agent_id, mu, sigma, ordinal, matches, wins, draws, losses, last_match_at)
     ON CONFLICT (weight_class_id, agent_id) DO UPDATE SET
       mu = EXCLUDED.mu, sigma = EXCLUDED.sigma, ordinal = EXCLUDED.ordinal,
       matches = ratings.matches + EXCLUDED.matches, wins = ratings.wins + EXCLUDED.wins,
       draws = ratings.draws + EXCLUDED.draws, losses = ratings.losses + EXCLUDED.losses,
       last_match_at = EXCLUDED.last_match_at, updated_at = now()`,
    [
      weightClassId,
      rows.map((r) => r.agentId),
      rows.map((r) => r.mu),
      rows.map((r) => r.sigma),
      rows.map((r) => r.ordinal),
      rows.map((r) => r.matches),
      rows.map((r) => r.wins),
      rows.map((r) => r.draws),
      rows.map((r) => r.losses),
      rows.map((r) => r.lastMatchAt),
    ],
  );
}

export interface RatingListRow extends RatingRow {
  agent_name: string;
}

/** A weight class's ratings by ordinal (highest first, agent id breaking ties), limit + 1 rows; only `agentIds`' when given. */
export async function listRatings(
  db: Queryable,
  weightClassId: string,
  page: { limit: number; after?: { ordinal: number; agentId: string }; agentIds?: string[] },
): Promise<RatingListRow[]> {
  const values: unknown[] = [weightClassId];
  let where = 'r.weight_class_id = $1';
  if (page.after) {
    values.push(page.after.ordinal, page.after.agentId);
    where += ' AND (r.ordinal < $2 OR (r.ordinal = $2 AND r.agent_id > $3::uuid))';
  }
  if (page.agentIds) {
    values.push(page.agentIds);
    where += ` AND r.agent_id = ANY($${values.length}::uuid[])`;
  }
  values.push(page.limit + 1);
  const res = await db.query<RatingListRow>(
    `SELECT r.*, a.name AS agent_name FROM ratings r JOIN agents a ON a.id = r.agent_id
      WHERE ${where} ORDER BY r.ordinal DESC, r.agent_id LIMIT $${values.length}`,
    values,
  );
  return res.rows;
}

/** 1-based position of an ordinal in its class (the first row of a page after a cursor). */
export async function countRatingsAbove(
  db: Queryable,
  weightClassId: string,
  after: { ordinal: number; agentId: string },
): Promise<number> {
  const res = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM ratings
      WHERE weight_class_id = $1 AND (ordinal > $2 OR (ordinal = $2 AND agent_id <= $3::uuid))`,
    [weightClassId, after.ordinal, after.agentId],
  );
  return res.rows[0].n;
}
