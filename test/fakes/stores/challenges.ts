/**
 * The challenges' store in memory (ChallengeStore, src/db/queries/challenge-transitions.ts), for
 * the unit tier: an operator's transitions and the console's challenge pages run on it.
 * test/contracts/challenge-store.cases.ts holds it and the SQL store to the same cases.
 */
import { randomUUID } from 'node:crypto';
import type { AuditRecordRow, NewAuditRecord } from '../../../src/db/queries/audit-records';
import type { ChallengeStore } from '../../../src/db/queries/challenge-transitions';
import type { ChallengeRow, ChallengeUpdate } from '../../../src/db/queries/challenges';
import type { NewOutboxEvent } from '../../../src/db/queries/outbox-events';

export interface FakeChallengeStore extends ChallengeStore {
  /** The rows, by id (read them to assert what was stored). */
  readonly challenges: Map<string, ChallengeRow>;
  readonly audits: NewAuditRecord[];
  readonly events: (NewOutboxEvent & { id: string })[];
  /** Users the audit trail knows (an audit record names its actor's user, as the SQL one does). */
  readonly users: Set<string>;
  /** The database clock (the system clock unless a test sets it). */
  clock: () => Date;
}

/** Lifecycle bookkeeping alone is not an edit (as updateChallenge: updated_at and version stay). */
const BOOKKEEPING = new Set(['started_event_at', 'ended_event_at']);
const copy = (row: ChallengeRow): ChallengeRow => ({ ...row });

export function createFakeChallengeStore(
  seed: { challenges?: ChallengeRow[]; users?: string[] } = {},
): FakeChallengeStore {
  const challenges = new Map((seed.challenges ?? []).map((c) => [c.id, copy(c)]));
  const audits: NewAuditRecord[] = [];
  const events: FakeChallengeStore['events'] = [];
  const users = new Set(seed.users ?? []);

  const store: FakeChallengeStore = {
    challenges,
    audits,
    events,
    users,
    clock: () => new Date(),
    async findChallengeById(id) {
      const row = challenges.get(id);
      return row ? copy(row) : null;
    },
    async lockChallengeById(id) {
      const row = challenges.get(id);
      return row ? copy(row) : null;
    },
    async updateChallenge(id, update: ChallengeUpdate) {
      const row = challenges.get(id);
      if (!row) return null;
      const given = Object.entries(update).filter(([, v]) => v !== undefined);
      if (given.length === 0) return copy(row);
      for (const [k, v] of given) (row as unknown as Record<string, unknown>)[k] = v;
      // The trigger's version and the edit's updated_at: only for a change that is not bookkeeping.
      if (given.some(([k]) => !BOOKKEEPING.has(k))) row.updated_at = store.clock();
      row.version += 1;
      return copy(row);
    },
    async databaseNow() {
      return store.clock();
    },
    async insertAuditRecord(r) {
      if (!users.has(r.actorUserId)) throw new Error(`audit: no user ${r.actorUserId}`);
      audits.push(structuredClone(r));
      const at = store.clock();
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
    async insertOutboxEvents(rows) {
      return rows.map((r) => {
        const id = randomUUID();
        events.push({ ...structuredClone(r), id });
        return id;
      });
    },
    async transaction(fn) {
      // All or nothing: what the function wrote is undone when it throws.
      const saved = new Map([...challenges].map(([id, row]) => [id, copy(row)]));
      const counts = { audits: audits.length, events: events.length };
      try {
        return await fn(store);
      } catch (err) {
        challenges.clear();
        for (const [id, row] of saved) challenges.set(id, row);
        audits.length = counts.audits;
        events.length = counts.events;
        throw err;
      }
    },
  };
  return store;
}
