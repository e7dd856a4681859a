import { createHash } from 'node:crypto';
import type { Queryable } from '../pool';
import { queryOne } from '../pool';

export const CHALLENGE_STATUSES = ['draft', 'active', 'complete', 'archived'] as const;
export type ChallengeStatus = (typeof CHALLENGE_STATUSES)[number];
/** What anonymous callers, API tokens and non-admin users may see. */
export const PUBLIC_STATUSES: readonly ChallengeStatus[] = ['active', 'complete', 'archived'];

export interface ChallengeRow {
  id: string;
  title: string;
  description: string;
  category: string;
  format: string;
  weight_class_id: string;
  status: ChallengeStatus;
  time_limit_minutes: number | null;
  entry_fee_cents: number | null;
  /** numeric: pg returns it as a string. */
  prize_pool: string | null;
  starts_at: Date | null;
  ends_at: Date | null;
  is_featured: boolean;
  is_daily: boolean;
  /** Admin-only: never serialised in public views. */
  judge: Record<string, unknown>;
  max_submissions_per_session: number;
  max_submissions_per_day: number | null;
  /** Fair contests: submissions an agent may select for the final board. */
  final_submissions: number;
  /** Fair contests: the public board stops changing this many minutes before ends_at (0: never). */
  freeze_minutes: number;
  /** Match settings of head_to_head / game challenges (src/domain/matches/rules.ts); null when solo. */
  match?: Record<string, unknown> | null;
  quarantine_reason: string | null;
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
  started_event_at: Date | null;
  ended_event_at: Date | null;
  published_at: Date | null;
  quarantined_at: Date | null;
  retired_at: Date | null;
  /** +1 with every change of the row (a trigger keeps it, migration 5250): the operators' ETag. */
  version: number;
  /** Non-sandbox entries (challenge_entry_counts, kept by triggers on entries). */
  entry_count: number;
}

/**
 * Every challenge read selects this: the row plus its live (non-sandbox) entry count, one primary-key
 * lookup in `challenge_entry_counts`, which triggers on `entries` keep in step (migration 2001). It
 * runs once per returned row only (PostgreSQL evaluates target-list sub-selects after ORDER BY/LIMIT).
 */
const ENTRY_COUNT =
  'COALESCE((SELECT k.live_entries FROM challenge_entry_counts k WHERE k.challenge_id = c.id), 0) AS entry_count';
/** The columns an operator writes (create and edit). */
export const CHALLENGE_FIELD_NAMES = [
  'title',
  'description',
  'category',
  'format',
  'weight_class_id',
  'time_limit_minutes',
  'entry_fee_cents',
  'prize_pool',
  'starts_at',
  'ends_at',
  'is_featured',
  'is_daily',
  'judge',
  'max_submissions_per_session',
  'max_submissions_per_day',
  'final_submissions',
  'freeze_minutes',
  'match',
] as const satisfies readonly (keyof ChallengeFields)[];

/**
 * Named columns, not `c.*`: the hot reads below are prepared statements, whose cached plan would
 * fail ("cached plan must not change result type") once a migration adds a column.
 */
const CHALLENGE_COLUMN_NAMES = [
  'id',
  ...CHALLENGE_FIELD_NAMES,
  'status',
  'quarantine_reason',
  'created_by',
  'created_at',
  'updated_at',
  'started_event_at',
  'ended_event_at',
  'published_at',
  'quarantined_at',
  'retired_at',
  'version',
] as const satisfies readonly Exclude<keyof ChallengeRow, 'entry_count'>[];
const CHALLENGE_COLUMNS = CHALLENGE_COLUMN_NAMES.map((column) => `c.${column}`).join(', ');
/**
 * A listing without the judge config: it can hold megabytes of program tests, and the public
 * list never shows it (the operators' list asks for it).
 */
const CHALLENGE_SUMMARY_COLUMNS = CHALLENGE_COLUMN_NAMES.filter((column) => column !== 'judge')
  .map((column) => `c.${column}`)
  .join(', ');
const SELECT_CHALLENGE = `SELECT ${CHALLENGE_COLUMNS}, ${ENTRY_COUNT} FROM challenges c`;
const RETURNING_CHALLENGE = `RETURNING ${CHALLENGE_COLUMNS}, ${ENTRY_COUNT}`;

/**
 * Statement name for a hot read whose text varies with the filters present (not their values):
 * prepared once per connection and text, so PostgreSQL skips parsing and planning on every call
 * (planning was ~1 ms of the list's ~2.3 ms; see docs/benchmarks.md).
 */
function statementName(prefix: string, text: string): string {
  return `${prefix}_${createHash('sha1').update(text).digest('hex').slice(0, 12)}`;
}

export function findChallengeById(db: Queryable, id: string): Promise<ChallengeRow | null> {
  return queryOne<ChallengeRow>(db, `${SELECT_CHALLENGE} WHERE c.id = $1`, [id], 'ch_by_id');
}

/**
 * Reads and row-locks a challenge inside a transaction: 'update' for state changes (operator
 * transitions, lifecycle activities), 'share' to keep its state stable while acting on it
 * (entering).
 */
export function lockChallengeById(
  tx: Queryable,
  id: string,
  mode: 'update' | 'share' = 'update',
): Promise<ChallengeRow | null> {
  return queryOne<ChallengeRow>(
    tx,
    `${SELECT_CHALLENGE} WHERE c.id = $1 FOR ${mode === 'update' ? 'UPDATE' : 'SHARE'} OF c`,
    [id],
  );
}

export interface ChallengeListFilter {
  /** Statuses the caller may see (already narrowed by any `status` filter); empty → no rows. */
  statuses: readonly ChallengeStatus[];
  category?: string;
  weightClassId?: string;
  format?: string;
}

/** Pure: the WHERE clause and its parameters for a listing (unit-tested). */
export function buildChallengeListWhere(filter: ChallengeListFilter): { where: string; values: unknown[] } {
  const values: unknown[] = [[...filter.statuses]];
  const clauses = ['c.status = ANY($1::text[])'];
  const add = (column: string, value: string | undefined, caseInsensitive = false) => {
    if (value === undefined) return;
    values.push(value);
    // Category and format are words people type (`Coding`, `CODE`): compared without case.
    clauses.push(
      caseInsensitive ? `lower(c.${column}) = lower($${values.length})` : `c.${column} = $${values.length}`,
    );
  };
  add('category', filter.category, true);
  add('weight_class_id', filter.weightClassId);
  add('format', filter.format, true);
  return { where: `WHERE ${clauses.join(' AND ')}`, values };
}

/** Featured first, then newest first; id keeps pages stable (index challenges_listing_idx). */
export const CHALLENGE_LIST_ORDER = 'ORDER BY c.is_featured DESC, c.created_at DESC, c.id DESC';

/** A challenge without its judge config (listings that do not show it). */
export type ChallengeSummaryRow = Omit<ChallengeRow, 'judge'>;

export async function listChallenges(
  db: Queryable,
  filter: ChallengeListFilter,
  page: { limit: number; offset: number },
): Promise<{ rows: ChallengeSummaryRow[]; total: number }>;
export async function listChallenges(
  db: Queryable,
  filter: ChallengeListFilter,
  page: { limit: number; offset: number },
  options: { withJudge: true },
): Promise<{ rows: ChallengeRow[]; total: number }>;
export async function listChallenges(
  db: Queryable,
  filter: ChallengeListFilter,
  page: { limit: number; offset: number },
  options: { withJudge?: boolean } = {},
): Promise<{ rows: ChallengeSummaryRow[]; total: number }> {
  if (filter.statuses.length === 0) return { rows: [], total: 0 };
  const { where, values } = buildChallengeListWhere(filter);
  const n = values.length;
  const columns = options.withJudge ? CHALLENGE_COLUMNS : CHALLENGE_SUMMARY_COLUMNS;
  const listText = `SELECT ${columns}, ${ENTRY_COUNT} FROM challenges c ${where} ${CHALLENGE_LIST_ORDER} LIMIT $${n + 1} OFFSET $${n + 2}`;
  const countText = `SELECT count(*)::int AS total FROM challenges c ${where}`;
  const [rows, count] = await Promise.all([
    db.query<ChallengeSummaryRow>({
      name: statementName('ch_list', listText),
      text: listText,
      values: [...values, page.limit, page.offset],
    }),
    db.query<{ total: number }>({ name: statementName('ch_count', countText), text: countText, values }),
  ]);
  return { rows: rows.rows, total: count.rows[0].total };
}

export interface ChallengeFields {
  title: string;
  description: string;
  category: string;
  format: string;
  weight_class_id: string;
  time_limit_minutes: number | null;
  entry_fee_cents: number | null;
  prize_pool: number | null;
  starts_at: Date | null;
  ends_at: Date | null;
  is_featured: boolean;
  is_daily: boolean;
  judge: Record<string, unknown>;
  max_submissions_per_session: number;
  max_submissions_per_day: number | null;
  final_submissions: number;
  freeze_minutes: number;
  match?: Record<string, unknown> | null;
}

function columnValue(field: string, value: unknown): unknown {
  if (field === 'match') return value === null || value === undefined ? null : JSON.stringify(value);
  return field === 'judge' ? JSON.stringify(value) : value;
}

/** Inserts a challenge (a draft unless told). `id` may be given (seed data uses fixed ids); an existing row is left alone (null). */
export async function insertChallenge(
  db: Queryable,
  fields: ChallengeFields,
  options: { createdBy?: string | null; id?: string; status?: ChallengeStatus } = {},
): Promise<ChallengeRow | null> {
  const columns: string[] = [...CHALLENGE_FIELD_NAMES, 'created_by', 'status'];
  const values: unknown[] = [
    ...CHALLENGE_FIELD_NAMES.map((f) => columnValue(f, fields[f])),
    options.createdBy ?? null,
    options.status ?? 'draft',
  ];
  if (options.id) {
    columns.push('id');
    values.push(options.id);
  }
  const placeholders = values.map((_, i) => `$${i + 1}`).join(', ');
  return queryOne<ChallengeRow>(
    db,
    `INSERT INTO challenges AS c (${columns.join(', ')}) VALUES (${placeholders}) ON CONFLICT (id) DO NOTHING ${RETURNING_CHALLENGE}`,
    values,
  );
}

export interface ChallengeUpdate extends Partial<ChallengeFields> {
  status?: ChallengeStatus;
  quarantine_reason?: string | null;
  started_event_at?: Date | null;
  ended_event_at?: Date | null;
  published_at?: Date | null;
  quarantined_at?: Date | null;
  retired_at?: Date | null;
}

const UPDATABLE = [
  ...CHALLENGE_FIELD_NAMES,
  'status',
  'quarantine_reason',
  'started_event_at',
  'ended_event_at',
  'published_at',
  'quarantined_at',
  'retired_at',
] as const satisfies readonly (keyof ChallengeUpdate)[];

const BOOKKEEPING = new Set<string>(['started_event_at', 'ended_event_at']);

/** Updates the given columns (undefined = untouched) and returns the fresh row with its entry count. */
export async function updateChallenge(
  db: Queryable,
  id: string,
  update: ChallengeUpdate,
): Promise<ChallengeRow | null> {
  const sets: string[] = [];
  const values: unknown[] = [id];
  for (const field of UPDATABLE) {
    const value = update[field];
    if (value === undefined) continue;
    values.push(columnValue(field, value));
    sets.push(`${field} = $${values.length}`);
  }
  // Lifecycle bookkeeping alone is not an edit: updated_at is the challenge's version (sessions snapshot it).
  if (
    Object.keys(update).some((k) => update[k as keyof ChallengeUpdate] !== undefined && !BOOKKEEPING.has(k))
  )
    sets.push('updated_at = now()');
  if (sets.length === 0) return findChallengeById(db, id);
  return queryOne<ChallengeRow>(
    db,
    `UPDATE challenges c SET ${sets.join(', ')} WHERE c.id = $1 ${RETURNING_CHALLENGE}`,
    values,
  );
}

/** The database clock, so that time decisions made in SQL and in code agree. */
export async function databaseNow(db: Queryable): Promise<Date> {
  const row = await queryOne<{ now: Date }>(db, 'SELECT now() AS now');
  return row!.now;
}

/** What submitting needs of a challenge (hot path: no judge config, no entry count). */
export interface ChallengeRules {
  id: string;
  status: string;
  starts_at: Date | null;
  ends_at: Date | null;
  max_submissions_per_session: number;
  max_submissions_per_day: number | null;
  /** The judge's kind and a program judge's allowed languages (two small paths, not the config). */
  judge_kind: string | null;
  judge_languages: unknown;
  /** A `tests` judge's configured entry file (null when none). */
  judge_entry: string | null;
}

export function findChallengeRules(db: Queryable, id: string): Promise<ChallengeRules | null> {
  return queryOne<ChallengeRules>(
    db,
    "SELECT id, status, starts_at, ends_at, max_submissions_per_session, max_submissions_per_day, judge->>'kind' AS judge_kind, judge->'languages' AS judge_languages, judge->>'entry' AS judge_entry FROM challenges WHERE id = $1",
    [id],
  );
}

/** The judge config a submission is judged with (the challenge's current one). */
export async function findChallengeJudge(db: Queryable, id: string): Promise<unknown | null> {
  const row = await queryOne<{ judge: unknown }>(db, 'SELECT judge FROM challenges WHERE id = $1', [id]);
  return row ? row.judge : null;
}

export interface SpectatorChallengeRow {
  id: string;
  title: string;
  description: string;
  status: string;
  starts_at: Date | null;
  ends_at: Date | null;
}

/** A challenge as the spectator views need it (status decides visibility). */
export function findChallengeForSpectators(
  db: Queryable,
  challengeId: string,
): Promise<SpectatorChallengeRow | null> {
  return queryOne<SpectatorChallengeRow>(
    db,
    'SELECT id, title, description, status, starts_at, ends_at FROM challenges WHERE id = $1',
    [challengeId],
  );
}

/** How many challenges have each status (the console's landing). */
export async function countChallengesByStatus(
  db: Queryable,
): Promise<{ status: ChallengeStatus; count: number }[]> {
  const res = await db.query<{ status: ChallengeStatus; count: number }>(
    'SELECT status, count(*)::int AS count FROM challenges GROUP BY status ORDER BY status',
  );
  return res.rows;
}

/** The kind of each listed challenge's judge, without reading the (possibly large) configs into Node. */
export async function judgeKindsOf(db: Queryable, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const res = await db.query<{ id: string; kind: string | null }>(
    `SELECT id, judge->>'kind' AS kind FROM challenges WHERE id = ANY($1::uuid[])`,
    [ids],
  );
  return new Map(res.rows.map((r) => [r.id, r.kind ?? '—']));
}

/** The titles of the given challenges (the audit trail names what it touched). */
export async function challengeTitlesOf(db: Queryable, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const res = await db.query<{ id: string; title: string }>(
    'SELECT id, title FROM challenges WHERE id = ANY($1::uuid[])',
    [ids],
  );
  return new Map(res.rows.map((r) => [r.id, r.title]));
}

/** The little a leaderboard read needs to choose its kind (match challenges rank by rating). */
export function findChallengeKind(
  db: Queryable,
  id: string,
): Promise<{ status: ChallengeStatus; format: string; weight_class_id: string } | null> {
  return queryOne(
    db,
    'SELECT status, format, weight_class_id FROM challenges WHERE id = $1',
    [id],
    'ch_kind',
  );
}
