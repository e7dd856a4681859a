import { type JudgeOutcome, breakdownView } from '../../../src/judging';

const outcome: JudgeOutcome = {
  score: 62.5,
  resultState: 'scored',
  summary: 'Passed 2 of 4 tests (score 62.5)',
  criteria: [
    {
      name: 'adds',
      weight: 2,
      score: 100,
      passed: true,
      feedback: 'returned the expected value',
      hidden: false,
    },
    { name: 'subtracts', weight: 1, score: 0, passed: false, feedback: 'expected 1, got 2', hidden: false },
    {
      name: 'secret big input',
      weight: 1,
      score: 100,
      passed: true,
      feedback: 'returned the expected value',
      hidden: true,
    },
    {
      name: 'secret edge',
      weight: 4,
      score: 0,
      passed: false,
      feedback: 'expected [9,9], got []',
      hidden: true,
    },
  ],
  details: {
    entry: 'index.ts',
    internal_note: 'admin only',
    tests: [
      { name: 'adds', hidden: false, passed: true, logs: 'public log', feedback: 'ok' },
      { name: 'subtracts', hidden: false, passed: false, logs: '', feedback: 'expected 1, got 2' },
      { name: 'secret big input', hidden: true, passed: true, logs: 'args were [123456]', feedback: 'ok' },
      { name: 'secret edge', hidden: true, passed: false, logs: 'args were [9]', feedback: 'expected [9,9]' },
      { name: 'malformed entry without hidden flag' },
    ],
  },
};

describe('breakdownView', () => {
  it('competitor: totals, visible criteria with feedback, hidden ones only counted, public test details', () => {
    expect(breakdownView(outcome, 'competitor')).toEqual({
      audience: 'competitor',
      final_score: 62.5,
      result_state: 'scored',
      summary: 'Passed 2 of 4 tests (score 62.5)',
      hidden_summary: { hidden_passed: 1, hidden_total: 2 },
      criteria: [
        { name: 'adds', weight: 2, score: 100, passed: true, feedback: 'returned the expected value' },
        { name: 'subtracts', weight: 1, score: 0, passed: false, feedback: 'expected 1, got 2' },
      ],
      details: {
        entry: 'index.ts',
        tests: [
          { name: 'adds', hidden: false, passed: true, logs: 'public log', feedback: 'ok' },
          { name: 'subtracts', hidden: false, passed: false, logs: '', feedback: 'expected 1, got 2' },
        ],
      },
    });
    expect(JSON.stringify(breakdownView(outcome, 'competitor'))).not.toMatch(/secret|123456|admin only/);
  });

  it('spectator: totals and visible criterion names and scores only', () => {
    const view = breakdownView(outcome, 'spectator');
    expect(view).toEqual({
      audience: 'spectator',
      final_score: 62.5,
      result_state: 'scored',
      hidden_summary: { hidden_passed: 1, hidden_total: 2 },
      criteria: [
        { name: 'adds', score: 100 },
        { name: 'subtracts', score: 0 },
      ],
    });
    expect(JSON.stringify(view)).not.toMatch(/secret|expected|feedback|details|"summary"/);
  });

  it('admin: everything, hidden criteria flagged, details untouched', () => {
    const view = breakdownView(outcome, 'admin');
    expect(view).toEqual({
      audience: 'admin',
      final_score: 62.5,
      result_state: 'scored',
      summary: outcome.summary,
      hidden_summary: { hidden_passed: 1, hidden_total: 2 },
      criteria: outcome.criteria.map((criterion) => ({ ...criterion, private: false })),
      details: outcome.details,
      private_score: null,
    });
  });

  describe('private tests (fair contests)', () => {
    const contest: JudgeOutcome = {
      score: 100,
      privateScore: 0,
      resultState: 'scored',
      summary: 'Passed 1 of 1 tests (score 100)',
      criteria: [
        { name: 'open', weight: 1, score: 100, passed: true, feedback: 'ok', hidden: false },
        {
          name: 'held-out',
          weight: 1,
          score: 0,
          passed: false,
          feedback: 'expected 7',
          hidden: false,
          private: true,
        },
      ],
      details: {
        entry: 'main.js',
        tests: [
          { name: 'open', hidden: false, private: false, passed: true },
          { name: 'held-out', hidden: false, private: true, verdict: 'wrong_answer' },
        ],
      },
    };

    it('leaves no trace of them in the competitor and spectator views before completion', () => {
      for (const audience of ['competitor', 'spectator'] as const) {
        const view = breakdownView(contest, audience);
        expect(JSON.stringify(view)).not.toMatch(/held-out|private|wrong_answer|expected 7/);
        expect(view.hidden_summary).toEqual({ hidden_passed: 0, hidden_total: 0 });
      }
    });

    it('shows them with private: true, and private_score to the owner, after completion', () => {
      const competitor = breakdownView(contest, 'competitor', { revealPrivate: true });
      expect(competitor.private_score).toBe(0);
      expect(competitor.criteria).toContainEqual(
        expect.objectContaining({ name: 'held-out', private: true }),
      );
      expect(competitor.details?.tests).toContainEqual(
        expect.objectContaining({ name: 'held-out', private: true }),
      );
      const spectator = breakdownView(contest, 'spectator', { revealPrivate: true });
      expect(spectator).not.toHaveProperty('private_score');
      expect(spectator.criteria).toContainEqual({ name: 'held-out', score: 0, private: true });
    });

    it('operators always see them and private_score', () => {
      const admin = breakdownView(contest, 'admin');
      expect(admin.private_score).toBe(0);
      expect(admin.criteria).toContainEqual(expect.objectContaining({ name: 'held-out', private: true }));
    });
  });

  it('handles outcomes without details or hidden criteria', () => {
    const plain: JudgeOutcome = {
      score: 100,
      resultState: 'scored',
      summary: 'Met 1 of 1 criteria (score 100)',
      criteria: [{ name: 'a', weight: 1, score: 100, passed: true, feedback: 'ok', hidden: false }],
    };
    const competitor = breakdownView(plain, 'competitor');
    expect(competitor).not.toHaveProperty('details');
    expect(competitor.hidden_summary).toEqual({ hidden_passed: 0, hidden_total: 0 });
    expect(breakdownView(plain, 'admin').details).toBeNull();
  });

  it('gives the competitor none of the http grader details', () => {
    const graded: JudgeOutcome = { ...outcome, details: { grader_status: 200, grader_feedback: 'internal' } };
    expect(breakdownView(graded, 'competitor')).not.toHaveProperty('details');
  });
});
