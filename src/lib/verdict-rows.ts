/**
 * A result as a judge shows it (DOMjudge's team view), from the owner's breakdown (the
 * competitor audience) and the challenge's `judge_public`: one row per test (test, verdict, time,
 * memory), the excerpts of visible tests, the compiler's message, and which row is the first
 * failing visible test. Pure and dependency-free: the result page and the CLI both read it.
 */

export interface VerdictRow {
  name: string;
  hidden: boolean;
  /**
   * A private (held-out) test or criterion. A competitor's breakdown carries none before the
   * challenge is complete, so such rows only come from an operator's view or a revealed one.
   */
  private: boolean;
  /** `accepted`, `wrong answer`, … (program); `passed` / `failed` (tests); the criterion's outcome (rubric). */
  verdict: string;
  passed: boolean;
  /** null where the judge measured none (hidden program tests, rubric criteria). */
  time_ms: number | null;
  memory_kb: number | null;
  /** The judge's words for this row (tests, rubric), when they add to the verdict. */
  feedback: string | null;
  /** Excerpts of a visible test: what it gave, what it expected, what came out. */
  input: string | null;
  expected: string | null;
  output: string | null;
  stderr: string | null;
}

export interface VerdictView {
  rows: VerdictRow[];
  /** Index in `rows` of the first failing visible test (-1: none). */
  firstFailing: number;
  /** The compiler's (or the toolchain's) message, when it said something. */
  compileMessage: string | null;
  /** Why a submission was judged 0 without running (program judge), when so. */
  reason: string | null;
  /**
   * The program did not compile: shown once (the compiler's message), with no row per test
   * (DESIGN "Multi-file programs and the competitor's second pass"; the API keeps its rows).
   */
  compileError: boolean;
  /** The compile error counts against no submission limit (the compiler's verdict within its limits). */
  givenBack: boolean;
  /** Hidden tests shown only as a count (tests judge, rubric). */
  hiddenCounted: { passed: number; total: number } | null;
  language: string | null;
  entry: string | null;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const json = (v: unknown): string => {
  try {
    return JSON.stringify(v) ?? 'undefined';
  } catch {
    return String(v);
  }
};

const VERDICT_WORDS: Record<string, string> = {
  accepted: 'accepted',
  wrong_answer: 'wrong answer',
  time_limit_exceeded: 'time limit exceeded',
  memory_limit_exceeded: 'memory limit exceeded',
  output_limit_exceeded: 'output limit exceeded',
  runtime_error: 'runtime error',
  compile_error: 'compile error',
};

/** Public tests by name (judge_public.tests). */
function publicTests(judgePublic: unknown): Map<string, Json> {
  const tests = isObject(judgePublic) && Array.isArray(judgePublic.tests) ? judgePublic.tests : [];
  return new Map(tests.filter(isObject).map((t) => [String(t.name), t]));
}

export function verdictView(breakdown: unknown, judgePublic?: unknown): VerdictView {
  const b: Json = isObject(breakdown) ? breakdown : {};
  const details: Json = isObject(b.details) ? b.details : {};
  const known = publicTests(judgePublic);
  const criteria = Array.isArray(b.criteria) ? b.criteria.filter(isObject) : [];
  const feedbackOf = new Map(criteria.map((c) => [String(c.name), str(c.feedback)]));
  const rows: VerdictRow[] = [];
  const tests = Array.isArray(details.tests) ? details.tests.filter(isObject) : [];
  for (const test of tests) {
    const name = String(test.name ?? '');
    const hidden = test.hidden === true;
    const held = test.private === true;
    const pub = hidden ? undefined : known.get(name);
    if (typeof test.verdict === 'string') {
      // program judge
      rows.push({
        name,
        hidden,
        private: held,
        verdict: VERDICT_WORDS[test.verdict] ?? test.verdict,
        passed: test.verdict === 'accepted',
        time_ms: hidden ? null : num(test.time_ms),
        memory_kb: hidden ? null : num(test.memory_kb),
        feedback: hidden ? null : (feedbackOf.get(name) ?? null),
        input: pub ? str(pub.stdin) : null,
        expected: pub ? str(pub.expected_stdout) : null,
        output: hidden ? null : str(test.stdout_excerpt),
        stderr: hidden ? null : str(test.stderr_excerpt) || null,
      });
    } else {
      // tests judge: visible tests only (hidden ones are counted)
      const passed = test.passed === true;
      rows.push({
        name,
        hidden,
        private: held,
        verdict: passed ? 'passed' : 'failed',
        passed,
        time_ms: num(test.duration_ms),
        memory_kb: null,
        feedback: str(test.feedback),
        input:
          pub && pub.args !== undefined && pub.args !== null
            ? `${String(pub.export ?? 'default')}(${(pub.args as unknown[]).map(json).join(', ')})`
            : null,
        expected: pub && pub.expected !== undefined ? json(pub.expected) : null,
        output: passed ? null : str(test.feedback),
        stderr: str(test.logs) || null,
      });
    }
  }
  if (tests.length === 0) {
    // rubric (and any judge without per-test details): one row per visible criterion
    for (const c of criteria) {
      const passed = c.passed === true;
      rows.push({
        name: String(c.name ?? ''),
        hidden: c.hidden === true,
        private: c.private === true,
        verdict: passed ? 'passed' : 'not passed',
        passed,
        time_ms: null,
        memory_kb: null,
        feedback: str(c.feedback),
        input: null,
        expected: null,
        output: null,
        stderr: null,
      });
    }
  }
  const hiddenSummary = isObject(b.hidden_summary) ? b.hidden_summary : {};
  const hiddenTotal = num(hiddenSummary.hidden_total) ?? 0;
  const hiddenInRows = rows.filter((r) => r.hidden).length;
  const compile = str(details.compile_error) ?? str(details.compile_output);
  const compileError =
    details.verdict === 'compile_error' ||
    (tests.length > 0 && tests.every((test) => test.verdict === 'compile_error'));
  if (compileError) rows.length = 0;
  return {
    compileError,
    givenBack: compileError && details.counts_against_limits === false,
    rows,
    firstFailing: rows.findIndex((r) => !r.hidden && !r.private && !r.passed),
    compileMessage: compile && compile.trim() !== '' ? compile : null,
    reason: str(details.reason),
    hiddenCounted:
      hiddenTotal > 0 && hiddenInRows === 0
        ? { passed: num(hiddenSummary.hidden_passed) ?? 0, total: hiddenTotal }
        : null,
    language: str(details.language),
    entry: str(details.entry),
  };
}

/** `12 ms`, `3.4 MB`, `—`. */
export const formatMs = (ms: number | null): string => (ms === null ? '—' : `${Math.round(ms)} ms`);
export const formatKb = (kb: number | null): string =>
  kb === null ? '—' : kb >= 1024 ? `${(kb / 1024).toFixed(1)} MB` : `${kb} KB`;

/**
 * One word for a result, as DOMjudge's submission lists show it: `correct`, `compile error`, or the
 * first failing test's verdict (`wrong answer`, `time limit exceeded`, …), from the breakdown the
 * competitor is served (no private test before completion). A judge without per-test verdicts
 * (rubric, HTTP) says its summary; a failed or disqualified result says so.
 */
export function verdictWord(view: VerdictView, result: { result_state: string; summary: string }): string {
  if (result.result_state === 'failed') return 'judging failed';
  if (result.result_state === 'disqualified') return 'disqualified';
  if (view.compileError) return 'compile error';
  const failing = view.rows.find((r) => !r.private && !r.passed);
  const hiddenFailed = view.hiddenCounted !== null && view.hiddenCounted.passed < view.hiddenCounted.total;
  if (failing) return failing.verdict === 'failed' ? 'wrong answer' : failing.verdict;
  if (hiddenFailed) return 'wrong answer';
  if (view.rows.length > 0 || view.hiddenCounted !== null) return 'correct';
  return view.reason ?? (result.summary.trim() || '—');
}
