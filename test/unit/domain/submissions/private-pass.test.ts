/**
 * A private pass that cannot finish is stored as 0 with its reason and `done`, never left pending
 * (DESIGN, "Fifth-round extensions"; issue 38, finding 1): the step the workflow calls when the
 * pass's retries are spent (src/domain/submissions/judging.ts, recordPrivatePassFailure). On the
 * in-memory store (test/fakes/stores/private-passes.ts), held to the SQL one's contract.
 */
import type { Pool } from 'pg';
import { recordPrivatePassFailure } from '../../../../src/domain/submissions/judging';
import type { JudgeOutcome } from '../../../../src/judging';
import { createFakePrivatePassStore } from '../../../fakes/stores/private-passes';

const JUDGE = {
  kind: 'rubric',
  criteria: [
    { name: 'answer', weight: 1, check: { type: 'contains', value: '42' } },
    { name: 'held', weight: 1, private: true, check: { type: 'contains', value: 'seven' } },
  ],
};

const PUBLIC_OUTCOME = {
  score: 100,
  privateScore: null,
  resultState: 'scored',
  summary: 'Met 1 of 1 criteria (score 100)',
  criteria: [
    { name: 'answer', weight: 1, score: 100, passed: true, feedback: 'ok', hidden: false, private: false },
  ],
} as unknown as JudgeOutcome;

/** A run s1/0 of challenge c1 whose result is `state`, its pass queued; deps whose store is that. */
function withRun(state: 'pending' | 'done') {
  const store = createFakePrivatePassStore();
  store.judges.set('c1', JUDGE);
  store.addResult({
    submission_id: 's1',
    run: 0,
    challenge_id: 'c1',
    private_state: state,
    breakdown: PUBLIC_OUTCOME,
  });
  store.work.add('private:s1:0');
  // No database: a statement sent to one would throw.
  const deps = { db: undefined as unknown as Pool, stores: { privatePasses: store } };
  return { store, deps, result: () => store.results.get('s1:0')! };
}

test('a failed private pass stores private_score 0, its reason, done, and the private items as not judged', async () => {
  const { deps, store, result } = withRun('pending');
  const stored = await recordPrivatePassFailure(
    deps,
    { submissionId: 's1', run: 0 },
    'judging failed after 5 attempts: sandbox unavailable',
  );
  expect(stored).toEqual({ stored: true });
  expect(result()).toMatchObject({
    private_state: 'done',
    private_score: 0,
    private_reason: 'judging failed after 5 attempts: sandbox unavailable',
  });
  const merged = result().breakdown as unknown as {
    score: number;
    privateScore: number;
    criteria: { name: string; score: number; feedback: string }[];
  };
  expect(merged.score).toBe(100);
  expect(merged.privateScore).toBe(0);
  expect(merged.criteria.map((c) => [c.name, c.score])).toEqual([
    ['answer', 100],
    ['held', 0],
  ]);
  expect(merged.criteria[1].feedback).toBe(
    'not judged: judging failed after 5 attempts: sandbox unavailable',
  );
  // The pass's place in the judging queue is given up.
  expect(store.work.has('private:s1:0')).toBe(false);
});

test('a pass already stored is left alone (a retried step)', async () => {
  const { deps, store, result } = withRun('done');
  const before = structuredClone(result());
  expect(await recordPrivatePassFailure(deps, { submissionId: 's1', run: 0 }, 'x')).toEqual({
    stored: false,
  });
  expect(result()).toEqual(before);
  expect(store.work.has('private:s1:0')).toBe(true);
});
