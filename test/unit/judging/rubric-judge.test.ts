import { type JudgeConfigInput, runJudge } from '../../../src/judging';
import { REGEX_TIMEOUT_ATTEMPTS, unlessEveryAttemptTimesOut } from '../../../src/judging/regex-safety';
import { characterCount, extractNumber } from '../../../src/judging/rubric-judge';

type CriterionInput = Extract<JudgeConfigInput, { kind: 'rubric' }>['criteria'][number];
type CheckInput = CriterionInput['check'];

/** Judges `content` against a single criterion and returns that criterion's result. */
async function judgeOne(check: CheckInput, content: string) {
  const outcome = await runJudge(
    { kind: 'rubric', criteria: [{ name: 'only', weight: 1, check }] },
    { content, files: [] },
  );
  return outcome.criteria[0];
}

describe('rubric checks', () => {
  describe('exact', () => {
    it('trims by default and is case-sensitive by default', async () => {
      expect((await judgeOne({ type: 'exact', value: 'Paris' }, '  Paris\n')).passed).toBe(true);
      expect((await judgeOne({ type: 'exact', value: 'Paris' }, 'paris')).passed).toBe(false);
    });

    it('honours case_sensitive: false and trim: false', async () => {
      expect((await judgeOne({ type: 'exact', value: 'Paris', case_sensitive: false }, 'PARIS')).passed).toBe(
        true,
      );
      expect((await judgeOne({ type: 'exact', value: 'Paris', trim: false }, ' Paris')).passed).toBe(false);
      expect((await judgeOne({ type: 'exact', value: ' Paris', trim: false }, ' Paris')).passed).toBe(true);
    });

    it('compares Unicode-normalised text and never reveals the expected value', async () => {
      const result = await judgeOne({ type: 'exact', value: 'caf\u00e9' }, 'cafe\u0301');
      expect(result.passed).toBe(true);
      const failed = await judgeOne({ type: 'exact', value: 'secret answer' }, 'guess');
      expect(failed).toMatchObject({
        passed: false,
        score: 0,
        feedback: 'does not match the expected answer',
      });
      expect(failed.feedback).not.toContain('secret');
    });
  });

  describe('contains', () => {
    it('finds a substring, case-sensitively unless told otherwise', async () => {
      expect(
        (await judgeOne({ type: 'contains', value: 'O(n log n)' }, 'runs in O(n log n) time')).passed,
      ).toBe(true);
      expect((await judgeOne({ type: 'contains', value: 'Hello' }, 'hello world')).passed).toBe(false);
      expect(
        (await judgeOne({ type: 'contains', value: 'Hello', case_sensitive: false }, 'hello world')).passed,
      ).toBe(true);
    });
  });

  describe('regex', () => {
    it('matches with flags', async () => {
      expect(
        (await judgeOne({ type: 'regex', pattern: '^answer: \\d+$', flags: 'm' }, 'x\nanswer: 42\ny')).passed,
      ).toBe(true);
      expect((await judgeOne({ type: 'regex', pattern: '^answer: \\d+$' }, 'x\nanswer: 42\ny')).passed).toBe(
        false,
      );
      expect((await judgeOne({ type: 'regex', pattern: 'HELLO', flags: 'i' }, 'hello')).feedback).toBe(
        'matches the required pattern',
      );
    });

    it('stops a slow pattern at the time limit instead of hanging', async () => {
      // Overlapping alternation slips past the static check; the runtime limit catches it (the
      // feedback names the limit that fired; a hang would end in jest's timeout instead).
      const result = await judgeOne({ type: 'regex', pattern: '^(a|a)*$' }, `${'a'.repeat(40)}!`);
      expect(result).toMatchObject({
        passed: false,
        feedback: 'pattern evaluation exceeded 100 ms; counted as not met',
      });
    });

    it('counts a time-out only when every attempt times out (the vm limit is wall clock: a busy machine can deschedule a trivial pattern past it)', () => {
      const outcomes = [{ timedOut: true as const }, { matched: true }];
      let calls = 0;
      expect(unlessEveryAttemptTimesOut(() => outcomes[calls++])).toEqual({ matched: true });
      expect(calls).toBe(2);
      calls = 0;
      expect(unlessEveryAttemptTimesOut(() => (calls++, { timedOut: true as const }))).toEqual({
        timedOut: true,
      });
      expect(calls).toBe(REGEX_TIMEOUT_ATTEMPTS);
      calls = 0;
      expect(unlessEveryAttemptTimesOut(() => (calls++, { matched: false }))).toEqual({ matched: false });
      expect(calls).toBe(1);
    });
  });

  describe('numeric', () => {
    it('uses the whole trimmed content when it is a number', async () => {
      expect((await judgeOne({ type: 'numeric', value: 1000 }, ' 1e3 ')).passed).toBe(true);
      expect((await judgeOne({ type: 'numeric', value: -0.5 }, '-.5')).passed).toBe(true);
    });

    it('otherwise uses the first number in the text, within the tolerance', async () => {
      const near = await judgeOne(
        { type: 'numeric', value: 3.14159, tolerance: 0.01 },
        'pi is about 3.14, not 22/7',
      );
      expect(near).toMatchObject({ passed: true, feedback: 'found 3.14, within the accepted range' });
      const far = await judgeOne({ type: 'numeric', value: 3.14159, tolerance: 0.001 }, 'pi is about 3.14');
      expect(far).toMatchObject({ passed: false, feedback: 'found 3.14, outside the accepted range' });
    });

    it('absorbs floating-point noise with zero tolerance', async () => {
      expect((await judgeOne({ type: 'numeric', value: 0.3 }, String(0.1 + 0.2))).passed).toBe(true);
    });

    it('fails when there is no number', async () => {
      expect(await judgeOne({ type: 'numeric', value: 1 }, 'no digits here')).toMatchObject({
        passed: false,
        feedback: 'no number found in the content',
      });
    });

    it('extracts numbers as documented', () => {
      expect(extractNumber('42')).toBe(42);
      expect(extractNumber('answer: -17.5 apples and 3 pears')).toBe(-17.5);
      expect(extractNumber('2.5e-3')).toBe(0.0025);
      expect(extractNumber('none')).toBeNull();
    });
  });

  describe('length', () => {
    it('counts characters (code points), inclusive bounds', async () => {
      expect(characterCount('héllo 👋')).toBe(7);
      expect((await judgeOne({ type: 'length', min: 7, max: 7 }, 'héllo 👋')).passed).toBe(true);
      expect(await judgeOne({ type: 'length', max: 3 }, 'four')).toMatchObject({
        passed: false,
        feedback: '4 characters (outside the allowed at most 3)',
      });
      expect(await judgeOne({ type: 'length', min: 2 }, 'ok')).toMatchObject({
        passed: true,
        feedback: '2 characters (within the allowed at least 2)',
      });
      expect((await judgeOne({ type: 'length', min: 1, max: 10 }, '')).feedback).toBe(
        '0 characters (outside the allowed 1–10)',
      );
    });
  });
});

describe('rubric scoring', () => {
  const criteria: CriterionInput[] = [
    { name: 'mentions complexity', weight: 3, check: { type: 'contains', value: 'O(n)' } },
    { name: 'gives the answer', weight: 1, check: { type: 'numeric', value: 42, tolerance: 0 } },
    { name: 'is short', weight: 2, check: { type: 'length', max: 40 } },
    {
      name: 'secret keyword',
      weight: 1,
      hidden: true,
      check: { type: 'regex', pattern: '\\bbanana\\b', flags: 'i' },
    },
  ];

  it('is the weighted share of criteria met, rounded to 2 decimals', async () => {
    const outcome = await runJudge(
      { kind: 'rubric', criteria },
      { content: 'Answer 41, runs in O(n). Banana!', files: [] },
    );
    // met: complexity (3) + short (2) + secret (1) = 6 of 7 → 85.714… → 85.71
    expect(outcome.score).toBe(85.71);
    expect(outcome.resultState).toBe('scored');
    expect(outcome.summary).toBe('Met 3 of 4 criteria (score 85.71)');
    expect(outcome.criteria.map((c) => [c.name, c.weight, c.score, c.passed, c.hidden])).toEqual([
      ['mentions complexity', 3, 100, true, false],
      ['gives the answer', 1, 0, false, false],
      ['is short', 2, 100, true, false],
      ['secret keyword', 1, 100, true, true],
    ]);
  });

  it('scores 100 when everything is met and 0 when nothing is', async () => {
    const all = await runJudge({ kind: 'rubric', criteria }, { content: '42 O(n) banana', files: [] });
    expect(all.score).toBe(100);
    const none = await runJudge({ kind: 'rubric', criteria }, { content: 'x'.repeat(50), files: [] });
    expect(none.score).toBe(0);
  });

  it('defaults weights to 1', async () => {
    const outcome = await runJudge(
      {
        kind: 'rubric',
        criteria: [
          { name: 'a', check: { type: 'contains', value: 'a' } },
          { name: 'b', check: { type: 'contains', value: 'b' } },
          { name: 'c', check: { type: 'contains', value: 'c' } },
        ],
      },
      { content: 'a', files: [] },
    );
    expect(outcome.score).toBe(33.33);
  });
});
