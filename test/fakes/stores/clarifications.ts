/**
 * The clarifications' store in memory (the interface of src/db/queries/clarifications.ts), for the
 * unit tier: the domain's operations run on it without PostgreSQL, and a rewritten query cannot
 * break it. test/contracts/clarification-store.cases.ts holds it and the SQL store to the same cases.
 */
import { randomUUID } from 'node:crypto';
import type { AuditRecordRow, NewAuditRecord } from '../../../src/db/queries/audit-records';
import type { ClarificationRow, ClarificationStore } from '../../../src/db/queries/clarifications';

export interface FakeChallenge {
  id: string;
  status: string;
  title: string;
}

export interface FakeClarificationStore extends ClarificationStore {
  /** The rows, by id (read them to assert what was stored). */
  readonly rows: Map<string, ClarificationRow>;
  readonly audits: NewAuditRecord[];
  readonly challenges: Map<string, FakeChallenge>;
  /** Users the audit trail knows (an audit record names its actor's user, as the SQL one does). */
  readonly users: Set<string>;
}

const copy = (row: ClarificationRow): ClarificationRow => ({ ...row });

export function createFakeClarificationStore(
  seed: { challenges?: FakeChallenge[]; users?: string[] } = {},
): FakeClarificationStore {
  const rows = new Map<string, ClarificationRow>();
  const audits: NewAuditRecord[] = [];
  const challenges = new Map((seed.challenges ?? []).map((c) => [c.id, { ...c }]));
  const users = new Set(seed.users ?? []);
  // now(): strictly increasing, as rows written by separate statements are in PostgreSQL.
  let last = 0;
  const now = () => new Date((last = Math.max(Date.now(), last + 1)));
  const byAskedAt = (a: ClarificationRow, b: ClarificationRow) =>
    a.asked_at.getTime() - b.asked_at.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  const requireChallenge = (id: string) => {
    // The foreign key: a clarification hangs on an existing challenge.
    if (!challenges.has(id)) throw new Error(`insert violates foreign key: no challenge ${id}`);
  };

  const store: FakeClarificationStore = {
    rows,
    audits,
    challenges,
    users,
    async insertQuestion(q) {
      requireChallenge(q.challengeId);
      const row: ClarificationRow = {
        id: randomUUID(),
        challenge_id: q.challengeId,
        kind: 'question',
        question: q.question,
        answer: null,
        public: false,
        asked_by: q.askedBy,
        answered_by: null,
        asked_at: now(),
        answered_at: null,
      };
      rows.set(row.id, row);
      return copy(row);
    },
    async insertAnnouncement(a) {
      requireChallenge(a.challengeId);
      const at = now();
      const row: ClarificationRow = {
        id: randomUUID(),
        challenge_id: a.challengeId,
        kind: 'announcement',
        question: null,
        answer: a.text,
        public: true,
        asked_by: null,
        answered_by: a.by,
        asked_at: at,
        answered_at: at,
      };
      rows.set(row.id, row);
      return copy(row);
    },
    async findClarification(id) {
      const row = rows.get(id);
      return row ? copy(row) : null;
    },
    async answerClarification(a) {
      const row = rows.get(a.id);
      if (!row || row.kind !== 'question') return null;
      Object.assign(row, { answer: a.answer, public: a.public, answered_by: a.by, answered_at: now() });
      return copy(row);
    },
    async listClarifications(challengeId, who) {
      return [...rows.values()]
        .filter((r) => r.challenge_id === challengeId)
        .filter((r) => who.all || r.public || (who.askedBy !== null && r.asked_by === who.askedBy))
        .sort(byAskedAt)
        .map(copy);
    },
    async listUnansweredQuestions(limit) {
      return [...rows.values()]
        .filter((r) => r.kind === 'question' && r.answered_at === null)
        .sort(byAskedAt)
        .slice(0, limit)
        .map((r) => ({ ...r, challenge_title: challenges.get(r.challenge_id)!.title }));
    },
    async countUnansweredQuestions() {
      return [...rows.values()].filter((r) => r.kind === 'question' && r.answered_at === null).length;
    },
    async findChallenge(id) {
      const found = challenges.get(id);
      return found ? { id: found.id, status: found.status } : null;
    },
    async insertAuditRecord(r) {
      if (!users.has(r.actorUserId)) throw new Error(`audit: no user ${r.actorUserId}`);
      audits.push(r);
      const at = now();
      const record: AuditRecordRow = {
        id: randomUUID(),
        actor: r.actorUserId,
        action: r.action,
        target_type: r.targetType,
        target_id: r.targetId,
        at,
        detail: r.detail,
        at_key: at.toISOString(),
      };
      return record;
    },
    async transaction(fn) {
      // All or nothing: what the function wrote is undone when it throws.
      const saved = new Map([...rows].map(([id, row]) => [id, copy(row)]));
      const auditCount = audits.length;
      try {
        return await fn(store);
      } catch (err) {
        rows.clear();
        for (const [id, row] of saved) rows.set(id, row);
        audits.length = auditCount;
        throw err;
      }
    },
  };
  return store;
}
