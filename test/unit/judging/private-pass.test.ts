/**
 * The two passes of a judging (src/judging/private-pass.ts; issue 38, finding 1): the public pass
 * judges nothing private, the private pass only what is, and the stored breakdown puts the two
 * back together in the config's order.
 */
import { judgeConfigSchema, runJudge, type JudgeConfig } from '../../../src/judging';
import {
  configForPass,
  failedPrivatePass,
  hasPrivatePass,
  mergePrivatePass,
} from '../../../src/judging/private-pass';
import { finalBoardWaits } from '../../../src/domain/contests/rules';

const RUBRIC = judgeConfigSchema.parse({
  kind: 'rubric',
  criteria: [
    { name: 'answer', weight: 1, check: { type: 'contains', value: '42' } },
    { name: 'held-seven', weight: 1, private: true, check: { type: 'contains', value: 'seven' } },
    { name: 'concise', weight: 1, check: { type: 'length', max: 200 } },
    { name: 'held-eight', weight: 1, private: true, check: { type: 'contains', value: 'eight' } },
  ],
});

const TESTS = judgeConfigSchema.parse({
  kind: 'tests',
  tests: [
    { name: 'one', export: 'f', args: [1], expected: 1 },
    { name: 'secret', export: 'f', args: [2], expected: 2, private: true },
  ],
});

const submission = { content: 'seven and 42', files: [] };

describe('which items each pass judges', () => {
  test('a config with a private test or criterion has a private pass; one without has none', () => {
    expect(hasPrivatePass(RUBRIC)).toBe(true);
    expect(hasPrivatePass(TESTS)).toBe(true);
    expect(hasPrivatePass(configForPass(RUBRIC, 'public'))).toBe(false);
    const http = judgeConfigSchema.parse({ kind: 'http', url: 'https://grader.example.com/judge' });
    expect(hasPrivatePass(http)).toBe(false);
    expect(configForPass(http, 'private')).toBe(http);
  });

  test('the public pass holds no private item and the private pass only those', () => {
    const open = configForPass(TESTS, 'public') as Extract<JudgeConfig, { kind: 'tests' }>;
    const held = configForPass(TESTS, 'private') as Extract<JudgeConfig, { kind: 'tests' }>;
    expect(open.tests.map((t) => t.name)).toEqual(['one']);
    expect(held.tests.map((t) => t.name)).toEqual(['secret']);
    const rubricHeld = configForPass(RUBRIC, 'private') as Extract<JudgeConfig, { kind: 'rubric' }>;
    expect(rubricHeld.criteria.map((c) => c.name)).toEqual(['held-seven', 'held-eight']);
  });

  test('runJudge with pass judges one pass: the public outcome has no private score, the private one no public', async () => {
    const open = await runJudge(RUBRIC, submission, { pass: 'public' });
    expect(open.criteria.map((c) => c.name)).toEqual(['answer', 'concise']);
    expect(open.score).toBe(100);
    expect(open.privateScore).toBeNull();
    const held = await runJudge(RUBRIC, submission, { pass: 'private' });
    expect(held.criteria.map((c) => c.name)).toEqual(['held-seven', 'held-eight']);
    expect(held.privateScore).toBe(50);
    // Without a pass both are judged at once, as before (runs of workflows from before the split).
    const both = await runJudge(RUBRIC, submission);
    expect([both.score, both.privateScore]).toEqual([100, 50]);
  });
});

describe('the stored breakdown', () => {
  test('merging puts the private criteria back in config order and keeps the public score and summary', async () => {
    const open = await runJudge(RUBRIC, submission, { pass: 'public' });
    const held = await runJudge(RUBRIC, submission, { pass: 'private' });
    const merged = mergePrivatePass(RUBRIC, open, held);
    const whole = await runJudge(RUBRIC, submission);
    expect(merged.criteria).toEqual(whole.criteria);
    expect(merged.score).toBe(open.score);
    expect(merged.summary).toBe(open.summary);
    expect(merged.privateScore).toBe(50);
  });

  test("merging interleaves the tests judge's test details too", () => {
    const detail = (name: string, isPrivate: boolean) => ({ name, private: isPrivate });
    const criterion = (name: string, isPrivate: boolean) => ({
      name,
      weight: 1,
      score: 100,
      passed: true,
      feedback: 'ok',
      hidden: false,
      private: isPrivate,
    });
    const merged = mergePrivatePass(
      TESTS,
      {
        score: 100,
        privateScore: null,
        resultState: 'scored',
        summary: 'Passed 1 of 1 tests',
        criteria: [criterion('one', false)],
        details: { entry: 'index.ts', tests: [detail('one', false)] },
      },
      {
        criteria: [criterion('secret', true)],
        privateScore: 100,
        details: { tests: [detail('secret', true)] },
      },
    );
    expect(merged.details).toEqual({
      entry: 'index.ts',
      tests: [detail('one', false), detail('secret', true)],
    });
    expect(merged.criteria.map((c) => c.name)).toEqual(['one', 'secret']);
  });

  test('a private pass that cannot finish is 0 with its reason on every private item', () => {
    const failed = failedPrivatePass(RUBRIC, 'judging failed after 5 attempts: sandbox unavailable');
    expect(failed.privateScore).toBe(0);
    expect(failed.criteria.map((c) => [c.name, c.score, c.private])).toEqual([
      ['held-seven', 0, true],
      ['held-eight', 0, true],
    ]);
    expect(failed.criteria[0].feedback).toBe(
      'not judged: judging failed after 5 attempts: sandbox unavailable',
    );
    expect(failed.details).toEqual({ not_judged: 'judging failed after 5 attempts: sandbox unavailable' });
  });
});

describe('the final board waits for private passes at completion', () => {
  test.each([
    ['complete', 1, true],
    ['archived', 2, true],
    ['complete', 0, false],
    ['active', 3, false],
  ])('%s with %i pending → waits: %s', (status, pending, waits) => {
    expect(finalBoardWaits(status, pending)).toBe(waits);
  });
});
