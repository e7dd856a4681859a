import type { Pool } from 'pg';
import type { StorableText } from '../../lib/storable-text';
import type { Queryable } from '../pool';
import { queryOne, withTransaction } from '../pool';
import { insertAuditRecord } from './audit-records';
import type { Bound } from './bound';
import { findChallengeById } from './challenges';

export interface ClarificationRow {
  id: string;
  challenge_id: string;
  kind: 'question' | 'announcement';
  question: string | null;
  answer: string | null;
  public: boolean;
  asked_by: string | null;
  answered_by: string | null;
  asked_at: Date;
  answered_at: Date | null;
}

export function insertQuestion(
  db: Queryable,
  q: { challengeId: string; question: StorableText; askedBy: string },
): Promise<ClarificationRow | null> {
  return queryOne<ClarificationRow>(
    db,
    `INSERT INTO clarifications (challenge_id, kind, question, asked_by) VALUES ($1, 'question', $2, $3) RETURNING *`,
    [q.challengeId, q.question, q.askedBy],
  );
}

export function insertAnnouncement(
  db: Queryable,
  a: { challengeId: string; text: StorableText; by: string },
): Promise<ClarificationRow | null> {
  return queryOne<ClarificationRow>(
    db,
    `INSERT INTO clarifications (challenge_id, kind, question, answer, public, answered_by, answered_at)
     VALUES ($1, 'announcement', NULL, $2, true, $3, now()) RETURNING *`,
    [a.challengeId, a.text, a.by],
  );
}

export function findClarification(
  db: Queryable,
  id: string,
  forUpdate = false,
): Promise<ClarificationRow | null> {
  return queryOne<ClarificationRow>(
    db,
    `SELECT * FROM clarifications WHERE id = $1${forUpdate ? ' FOR UPDATE' : ''}`,
    [id],
  );
}

export function answerClarification(
  db: Queryable,
  a: { id: string; answer: StorableText; public: boolean; by: string },
): Promise<ClarificationRow | null> {
  return queryOne<ClarificationRow>(
    db,
    `UPDATE clarifications SET answer = $2, public = $3, answered_by = $4, answered_at = now()
      WHERE id = $1 AND kind = 'question' RETURNING *`,
    [a.id, a.answer, a.public, a.by],
  );
}

/**
 * A challenge's clarifications, oldest first: the public ones and announcements, plus the questions
 * asked by `askedBy` (null: nobody's) or every one (`all`, operators).
 */
export async function listClarifications(
  db: Queryable,
  challengeId: string,
  who: { all: boolean; askedBy: string | null },
): Promise<ClarificationRow[]> {
  const res = await db.query<ClarificationRow>(
    `SELECT * FROM clarifications
      WHERE challenge_id = $1 AND ($2::boolean OR public OR asked_by = $3::uuid)
      ORDER BY asked_at, id`,
    [challengeId, who.all, who.askedBy],
  );
  return res.rows;
}

/** Questions waiting for an operator's answer, oldest first (the console). */
export async function listUnansweredQuestions(
  db: Queryable,
  limit: number,
): Promise<(ClarificationRow & { challenge_title: string })[]> {
  const res = await db.query<ClarificationRow & { challenge_title: string }>(
    `SELECT q.*, c.title AS challenge_title FROM clarifications q JOIN challenges c ON c.id = q.challenge_id
      WHERE q.kind = 'question' AND q.answered_at IS NULL ORDER BY q.asked_at, q.id LIMIT $1`,
    [limit],
  );
  return res.rows;
}

export async function countUnansweredQuestions(db: Queryable): Promise<number> {
  const row = await queryOne<{ n: number }>(
    db,
    `SELECT count(*)::int AS n FROM clarifications WHERE kind = 'question' AND answered_at IS NULL`,
  );
  return row?.n ?? 0;
}

// ---- the feature's store ----------------------------------------------------------------------------

/**
 * What the clarifications feature (src/domain/contests/clarifications.ts) reads and writes: this
 * file's functions bound to a connection, the challenge it hangs on and its audit records, and a
 * transaction. The domain takes it through its deps (`stores.clarifications`; this SQL one unless a
 * test hands it test/fakes/stores/clarifications.ts, the in-memory one the unit tier runs on).
 * test/contracts/clarification-store.cases.ts holds both to the same cases.
 */
export interface ClarificationStore {
  insertQuestion: Bound<typeof insertQuestion>;
  insertAnnouncement: Bound<typeof insertAnnouncement>;
  findClarification: Bound<typeof findClarification>;
  answerClarification: Bound<typeof answerClarification>;
  listClarifications: Bound<typeof listClarifications>;
  listUnansweredQuestions: Bound<typeof listUnansweredQuestions>;
  countUnansweredQuestions: Bound<typeof countUnansweredQuestions>;
  /** The challenge a clarification hangs on (what visibility needs of it). */
  findChallenge(id: string): Promise<{ id: string; status: string } | null>;
  insertAuditRecord: Bound<typeof insertAuditRecord>;
  /** Runs `fn` with a store whose writes commit together, or not at all when it throws. */
  transaction<T>(fn: (store: ClarificationStore) => Promise<T>): Promise<T>;
}

function boundStore(db: Queryable, transaction: ClarificationStore['transaction']): ClarificationStore {
  return {
    insertQuestion: (q) => insertQuestion(db, q),
    insertAnnouncement: (a) => insertAnnouncement(db, a),
    findClarification: (id, forUpdate) => findClarification(db, id, forUpdate),
    answerClarification: (a) => answerClarification(db, a),
    listClarifications: (challengeId, who) => listClarifications(db, challengeId, who),
    listUnansweredQuestions: (limit) => listUnansweredQuestions(db, limit),
    countUnansweredQuestions: () => countUnansweredQuestions(db),
    findChallenge: async (id) => {
      const row = await findChallengeById(db, id);
      return row && { id: row.id, status: row.status };
    },
    insertAuditRecord: (r) => insertAuditRecord(db, r),
    transaction,
  };
}

/** The clarifications' store on PostgreSQL: statements on the pool, a transaction on one of its clients. */
export function sqlClarificationStore(pool: Pool): ClarificationStore {
  return boundStore(pool, (fn) =>
    withTransaction(pool, (tx) => {
      // Inside, a nested transaction is the same one.
      const inTx: ClarificationStore = boundStore(tx, (inner) => inner(inTx));
      return fn(inTx);
    }),
  );
}
