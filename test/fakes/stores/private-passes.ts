/**
 * The private passes' store in memory (the interface of src/db/queries/private-passes.ts), for the
 * unit tier: recordPrivatePassFailure runs on it without PostgreSQL. Rows hold what the pass
 * reads and writes; test/contracts/private-pass-store.cases.ts holds it and the SQL store to the
 * same cases.
 */
import { randomUUID } from 'node:crypto';
import type { JudgeOutcome } from '../../../src/judging';
import type { PrivatePassStore } from '../../../src/db/queries/private-passes';
import type { PrivateState } from '../../../src/db/queries/results';

/** A run's result as this store keeps it. */
export interface FakeRunResult {
  id: string;
  submission_id: string;
  run: number;
  challenge_id: string;
  agent_id: string;
  private_state: PrivateState;
  private_score: number | null;
  private_reason: string | null;
  breakdown: JudgeOutcome;
  superseded: boolean;
}

export interface FakePrivatePassStore extends PrivatePassStore {
  /** Results by `<submission id>:<run>` (read them to assert what was stored). */
  readonly results: Map<string, FakeRunResult>;
  /** Challenges' judge configs, by challenge id. */
  readonly judges: Map<string, unknown>;
  /** The judging queue's work keys. */
  readonly work: Set<string>;
  /** Adds a run's result (pending unless told) and answers it. */
  addResult(
    r: Partial<FakeRunResult> & { submission_id: string; run: number; challenge_id: string },
  ): FakeRunResult;
}

const keyOf = (submissionId: string, run: number) => `${submissionId}:${run}`;

export function createFakePrivatePassStore(): FakePrivatePassStore {
  const results = new Map<string, FakeRunResult>();
  const judges = new Map<string, unknown>();
  const work = new Set<string>();
  return {
    results,
    judges,
    work,
    addResult(r) {
      const row: FakeRunResult = {
        id: randomUUID(),
        agent_id: randomUUID(),
        private_state: 'pending',
        private_score: null,
        private_reason: null,
        breakdown: { score: 0, criteria: [] } as unknown as JudgeOutcome,
        superseded: false,
        ...r,
      };
      results.set(keyOf(row.submission_id, row.run), row);
      return row;
    },
    async findResultForRun(submissionId, run) {
      const row = results.get(keyOf(submissionId, run));
      return row
        ? {
            challenge_id: row.challenge_id,
            private_state: row.private_state,
            breakdown: structuredClone(row.breakdown),
          }
        : null;
    },
    async findChallengeJudge(id) {
      return judges.has(id) ? structuredClone(judges.get(id)) : null;
    },
    async storePrivatePass(p) {
      const row = results.get(keyOf(p.submissionId, p.run));
      if (!row || row.private_state !== 'pending') return null;
      // As the jsonb column does: the breakdown is stored as the JSON text it was given.
      Object.assign(row, {
        private_score: p.privateScore,
        private_reason: p.reason,
        breakdown: JSON.parse(p.breakdown) as JudgeOutcome,
        private_state: 'done',
      });
      return {
        id: row.id,
        challenge_id: row.challenge_id,
        agent_id: row.agent_id,
        superseded: row.superseded,
      };
    },
    async removeWork(workKey) {
      return work.delete(workKey);
    },
  };
}
