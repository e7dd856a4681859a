import type { RubricCheck, RubricCriterionConfig, RubricJudgeConfig } from './config';
import { MAX_REGEX_INPUT_CHARS, REGEX_TIMEOUT_MS, testRegexWithTimeout } from './regex-safety';
import { splitScores } from './scoring';
import type { CriterionResult, JudgeOutcome, SubmissionForJudging } from './types';

interface CheckResult {
  met: boolean;
  /** Says what was observed, never the expected answer (non-hidden feedback reaches competitors). */
  feedback: string;
}

/** A whole-content number literal, or the first number appearing in the text. */
const WHOLE_NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
const FIRST_NUMBER = /[+-]?(?:\d+(?:\.\d+)?|\.\d+)(?:[eE][+-]?\d+)?/;

export function extractNumber(content: string): number | null {
  const trimmed = content.trim();
  if (WHOLE_NUMBER.test(trimmed)) {
    const whole = Number(trimmed);
    if (Number.isFinite(whole)) return whole;
  }
  const match = FIRST_NUMBER.exec(content);
  if (!match) return null;
  const first = Number(match[0]);
  return Number.isFinite(first) ? first : null;
}

/** Length in characters (Unicode code points), so an emoji counts once. */
export function characterCount(text: string): number {
  let count = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code >= 0xd800 && code <= 0xdbff && index + 1 < text.length) {
      const next = text.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) index++;
    }
    count++;
  }
  return count;
}

function fold(text: string, caseSensitive: boolean): string {
  const normalized = text.normalize('NFC');
  return caseSensitive ? normalized : normalized.toLowerCase();
}

function describeRange(min: number | undefined, max: number | undefined): string {
  if (min !== undefined && max !== undefined) return `${min}–${max}`;
  if (min !== undefined) return `at least ${min}`;
  return `at most ${max}`;
}

export function evaluateCheck(check: RubricCheck, content: string): CheckResult {
  switch (check.type) {
    case 'exact': {
      const actual = check.trim ? content.trim() : content;
      const expected = check.trim ? check.value.trim() : check.value;
      const met = fold(actual, check.case_sensitive) === fold(expected, check.case_sensitive);
      return { met, feedback: met ? 'matches the expected answer' : 'does not match the expected answer' };
    }
    case 'contains': {
      const met = fold(content, check.case_sensitive).includes(fold(check.value, check.case_sensitive));
      return { met, feedback: met ? 'contains the expected text' : 'does not contain the expected text' };
    }
    case 'regex': {
      const result = testRegexWithTimeout(check.pattern, check.flags, content);
      if ('timedOut' in result) {
        return {
          met: false,
          feedback: `pattern evaluation exceeded ${REGEX_TIMEOUT_MS} ms; counted as not met`,
        };
      }
      const note =
        content.length > MAX_REGEX_INPUT_CHARS ? ` (first ${MAX_REGEX_INPUT_CHARS} characters checked)` : '';
      return {
        met: result.matched,
        feedback:
          (result.matched ? 'matches the required pattern' : 'does not match the required pattern') + note,
      };
    }
    case 'numeric': {
      const found = extractNumber(content);
      if (found === null) return { met: false, feedback: 'no number found in the content' };
      // A relative epsilon absorbs binary floating-point noise (0.1 + 0.2 vs 0.3).
      const slack = check.tolerance + 1e-9 * Math.max(1, Math.abs(check.value));
      const met = Math.abs(found - check.value) <= slack;
      return { met, feedback: `found ${found}, ${met ? 'within' : 'outside'} the accepted range` };
    }
    case 'length': {
      const length = characterCount(content);
      const met =
        (check.min === undefined || length >= check.min) && (check.max === undefined || length <= check.max);
      return {
        met,
        feedback: `${length} characters (${met ? 'within' : 'outside'} the allowed ${describeRange(check.min, check.max)})`,
      };
    }
  }
}

function evaluateCriterion(criterion: RubricCriterionConfig, content: string): CriterionResult {
  const result = evaluateCheck(criterion.check, content);
  return {
    name: criterion.name,
    weight: criterion.weight,
    score: result.met ? 100 : 0,
    passed: result.met,
    feedback: result.feedback,
    hidden: criterion.hidden,
    private: criterion.private,
  };
}

/** Score = weighted share of the criteria met. Rubric checks read `content` only. */
export function runRubricJudge(config: RubricJudgeConfig, submission: SubmissionForJudging): JudgeOutcome {
  const criteria = config.criteria.map((criterion) => evaluateCriterion(criterion, submission.content));
  const { score, privateScore } = splitScores(criteria);
  // The summary reaches competitors: it counts the criteria that are not private only.
  const open = criteria.filter((criterion) => !criterion.private);
  const met = open.filter((criterion) => criterion.passed).length;
  return {
    score,
    privateScore,
    resultState: 'scored',
    summary: `Met ${met} of ${open.length} criteria (score ${score})`,
    criteria,
  };
}
