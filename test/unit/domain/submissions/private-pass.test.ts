/**
 * A private pass that cannot finish is stored as 0 with its reason and `done`, never left pending
 * (DESIGN, "Fifth-round extensions"; issue 38, finding 1): the step the workflow calls when the
 * pass's retries are spent (src/domain/submissions/judging.ts, recordPrivatePassFailure).
 */
import type { Pool } from 'pg';
import { recordPrivatePassFailure } from '../../../../src/domain/submissions/judging';
import { RecordingDb } from '../../../fakes/deps';

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
};

function pendingResult(state: 'pending' | 'done') {
  return {
    id: 'r1',
    submission_id: 's1',
    challenge_id: 'c1',
    agent_id: 'a1',
    run: 0,
    final_score: '100',
    private_score: null,
    private_state: state,
    breakdown: PUBLIC_OUTCOME,
  };
}

test('a failed private pass stores private_score 0, its reason, done, and the private items as not judged', async () => {
  const db = new RecordingDb()
    .answer(/^UPDATE results SET private_score/, [
      { id: 'r1', challenge_id: 'c1', agent_id: 'a1', superseded: false },
    ])
    .answer(/FROM results r JOIN agents/, [pendingResult('pending')])
    .answer(/judge/, [{ judge: JUDGE }]);
  const stored = await recordPrivatePassFailure(
    db as unknown as Pool,
    { submissionId: 's1', run: 0 },
    'judging failed after 5 attempts: sandbox unavailable',
  );
  expect(stored).toEqual({ stored: true });
  const update = db.queries.find((q) => /^UPDATE results SET private_score/.test(q.text.trim()));
  expect(update).toBeDefined();
  expect(update!.text).toMatch(/private_state = 'done'/);
  const [submissionId, run, score, reason, breakdown] = update!.values as [
    string,
    number,
    number,
    string,
    string,
  ];
  expect([submissionId, run, score, reason]).toEqual([
    's1',
    0,
    0,
    'judging failed after 5 attempts: sandbox unavailable',
  ]);
  const merged = JSON.parse(breakdown);
  expect(merged.score).toBe(100);
  expect(merged.privateScore).toBe(0);
  expect(merged.criteria.map((c: { name: string; score: number }) => [c.name, c.score])).toEqual([
    ['answer', 100],
    ['held', 0],
  ]);
  expect(merged.criteria[1].feedback).toBe(
    'not judged: judging failed after 5 attempts: sandbox unavailable',
  );
});

test('a pass already stored is left alone (a retried step)', async () => {
  const db = new RecordingDb().answer(/FROM results r JOIN agents/, [pendingResult('done')]);
  expect(await recordPrivatePassFailure(db as unknown as Pool, { submissionId: 's1', run: 0 }, 'x')).toEqual({
    stored: false,
  });
  expect(db.queries.some((q) => /^UPDATE results/.test(q.text.trim()))).toBe(false);
});
