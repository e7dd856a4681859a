/**
 * The match voids' store in memory (MatchVoidStore, src/db/queries/match-finish.ts), for the unit
 * tier. test/contracts/match-void-store.cases.ts holds it and the SQL store to the same cases.
 */
import { randomUUID } from 'node:crypto';
import type { AuditRecordRow } from '../../../src/db/queries/audit-records';
import type { MatchVoidStore } from '../../../src/db/queries/match-finish';
import type { ParticipantRow } from '../../../src/db/queries/match-participants';
import type { MatchRow } from '../../../src/db/queries/matches';
import type { NewOutboxEvent } from '../../../src/db/queries/outbox-events';

export interface FakeAudit {
  actor: string;
  action: string;
  targetType: string;
  targetId: string;
  detail: Record<string, unknown>;
}

export interface FakeMatchVoidStore extends MatchVoidStore {
  readonly matches: Map<string, MatchRow>;
  readonly participants: ParticipantRow[];
  /** Bout entries and their sessions by match (what the finish times out and closes). */
  readonly boutEntries: { matchId: string; status: string; session: 'open' | 'closed' }[];
  readonly audits: FakeAudit[];
  readonly events: (NewOutboxEvent & { id: string })[];
  /** Adds a match (defaults: a running unrated game) with one participant per owner; answers it. */
  addMatch(match: Partial<MatchRow>, owners?: string[]): MatchRow;
}

const copy = <T>(row: T): T => ({ ...row });

export function createFakeMatchVoidStore(): FakeMatchVoidStore {
  const matches = new Map<string, MatchRow>();
  const participants: ParticipantRow[] = [];
  const boutEntries: FakeMatchVoidStore['boutEntries'] = [];
  const audits: FakeAudit[] = [];
  const events: FakeMatchVoidStore['events'] = [];
  let seq = 0;

  const store: FakeMatchVoidStore = {
    matches,
    participants,
    boutEntries,
    audits,
    events,
    addMatch(match, owners = []) {
      const row: MatchRow = {
        id: randomUUID(),
        challenge_id: randomUUID(),
        weight_class_id: 'open',
        kind: 'game',
        status: 'running',
        rated: false,
        origin: 'exhibition',
        round_id: null,
        reason: null,
        created_by: null,
        scheduled_at: new Date(),
        started_at: null,
        ends_at: null,
        bout_ended_at: null,
        completed_at: null,
        deadline_at: null,
        result_id: null,
        completed_seq: null,
        created_at: new Date(),
        ...match,
      };
      matches.set(row.id, row);
      owners.forEach((owner, i) =>
        participants.push({
          match_id: row.id,
          agent_id: randomUUID(),
          agent_name: `agent ${i + 1}`,
          agent_deleted: false,
          seat: i + 1,
          owner_user_id: owner,
          submission_id: null,
          score: null,
          rank: null,
          outcome: null,
          rating_before: null,
          rating_after: null,
        }),
      );
      return copy(row);
    },
    async lockWeightClassRatings() {},
    async finishMatch(id, status, reason) {
      const row = matches.get(id);
      // As the UPDATE's WHERE: only a scheduled or running match finishes, once.
      if (!row || (row.status !== 'scheduled' && row.status !== 'running')) return null;
      const now = new Date();
      Object.assign(row, {
        status,
        reason: reason ?? row.reason,
        completed_at: now,
        bout_ended_at: row.bout_ended_at ?? now,
        result_id: randomUUID(),
        completed_seq: String(++seq),
      });
      return copy(row);
    },
    async recordPlacement(matchId, p) {
      const seat = participants.find((s) => s.match_id === matchId && s.agent_id === p.agentId);
      if (seat)
        Object.assign(seat, {
          rank: p.rank,
          score: p.score === null ? null : p.score.toFixed(2),
          submission_id: p.submissionId,
          outcome: p.outcome,
        });
    },
    async timeOutBoutEntries(matchId) {
      for (const e of boutEntries)
        if (e.matchId === matchId && (e.status === 'assigned' || e.status === 'active'))
          e.status = 'timed_out';
    },
    async closeBoutSessions(matchId) {
      let closed = 0;
      for (const e of boutEntries)
        if (e.matchId === matchId && e.session === 'open') {
          e.session = 'closed';
          closed += 1;
        }
      return closed;
    },
    async listParticipants(matchIds) {
      return participants
        .filter((p) => matchIds.includes(p.match_id))
        .sort((a, b) => (a.match_id < b.match_id ? -1 : a.match_id > b.match_id ? 1 : a.seat - b.seat))
        .map(copy);
    },
    async insertOutboxEvents(rows) {
      return rows.map((r) => {
        const id = randomUUID();
        events.push({ ...r, id });
        return id;
      });
    },
    async lockMatch(id) {
      const row = matches.get(id);
      return row ? copy(row) : null;
    },
    async insertSystemAuditRecord(r) {
      audits.push({ actor: 'system', ...r });
      const at = new Date();
      const record: AuditRecordRow = {
        id: randomUUID(),
        actor: 'system',
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
      const saved = {
        matches: new Map([...matches].map(([id, row]) => [id, copy(row)])),
        participants: participants.map(copy),
        boutEntries: boutEntries.map(copy),
        audits: audits.length,
        events: events.length,
      };
      try {
        return await fn(store);
      } catch (err) {
        matches.clear();
        for (const [id, row] of saved.matches) matches.set(id, row);
        participants.splice(0, participants.length, ...saved.participants);
        boutEntries.splice(0, boutEntries.length, ...saved.boutEntries);
        audits.length = saved.audits;
        events.length = saved.events;
        throw err;
      }
    },
  };
  return store;
}
