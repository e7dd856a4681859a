import type { TestCaseConfig, TestsJudgeConfig } from './config';
import { splitScores } from './scoring';
import { encodedEqualsJson, previewEncoded, previewJson } from './sandbox/encoded-value';
import { judgedZero } from './judged-zero';
import { type PreparedSubmission, prepareSubmission } from './sandbox/prepare-submission';
import { type SandboxModule, type SandboxResult, runCallsInSandbox } from './sandbox/run-in-sandbox';
import { sandboxRuntime } from './sandbox/sandbox-runtime';
import type { CriterionResult, JudgeOutcome, JudgeRunOptions, SubmissionForJudging } from './types';

/** Per-test entry of `details.tests` (snake_case: it is served as-is in breakdowns). */
export interface TestRunDetail {
  name: string;
  hidden: boolean;
  /** Counted in private_score only; left out of every competitor view until the challenge is complete. */
  private: boolean;
  passed: boolean;
  weight: number;
  feedback: string;
  duration_ms: number;
  logs: string;
  logs_truncated: boolean;
}

interface TestVerdict {
  passed: boolean;
  feedback: string;
  run?: SandboxResult;
}

/**
 * A judging occupies one sandbox slot at a time: the fair-share caps (judgings in flight per
 * agent and per owner, admission.ts) are then caps in slots, and a worker that takes as many
 * judgings as it has slots never queues a judging's tests behind another's.
 */
const DEFAULT_TEST_CONCURRENCY = 1;

export function verdictFor(
  result: SandboxResult,
  testCase: TestCaseConfig,
  config: TestsJudgeConfig,
): TestVerdict {
  switch (result.status) {
    case 'returned': {
      if (encodedEqualsJson(result.value, testCase.expected)) {
        return { passed: true, feedback: 'returned the expected value', run: result };
      }
      return {
        passed: false,
        feedback: `expected ${previewJson(testCase.expected)}, got ${previewEncoded(result.value)}`,
        run: result,
      };
    }
    case 'threw':
      return { passed: false, feedback: `error: ${result.message}`, run: result };
    case 'missing_export':
    case 'unserializable':
      return { passed: false, feedback: result.message, run: result };
    case 'timeout':
      return {
        passed: false,
        feedback: `exceeded the time limit of ${config.timeout_ms_per_test} ms`,
        run: result,
      };
    case 'memory_limit':
      return { passed: false, feedback: `exceeded the memory limit of ${config.memory_mb} MB`, run: result };
    case 'crashed':
      return { passed: false, feedback: `the test process ${result.reason}`, run: result };
  }
}

/** Runs `worker` over the items with at most `limit` in flight; the first rejection aborts the rest. */
export async function runPool<T, R>(
  items: readonly T[],
  limit: number,
  signal: AbortSignal | undefined,
  worker: (item: T, signal: AbortSignal, index: number) => Promise<R>,
): Promise<R[]> {
  const controller = new AbortController();
  const onAbort = () => controller.abort(signal?.reason);
  signal?.addEventListener('abort', onAbort, { once: true });
  // Aborted while the sandbox runtime was being set up: the listener above will never fire.
  if (signal?.aborted) onAbort();
  const results: R[] = new Array(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      controller.signal.throwIfAborted();
      const index = next++;
      results[index] = await worker(items[index], controller.signal, index);
    }
  };
  try {
    await Promise.all(
      Array.from({ length: Math.min(limit, items.length) }, () =>
        lane().catch((error: unknown) => {
          controller.abort(error);
          throw error;
        }),
      ),
    );
    return results;
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
}

/**
 * Test indexes grouped into sandbox batches: hidden and visible tests never share a process (code
 * that escaped the vm could otherwise carry hidden inputs into visible feedback), and each kind is
 * split into at most `concurrency` batches so a submission's tests still run side by side.
 */
export function batchesOf(tests: readonly TestCaseConfig[], concurrency: number): number[][] {
  const batches: number[][] = [];
  for (const hidden of [false, true]) {
    // A private test is never shown while the contest runs: it runs with the hidden ones.
    const indexes = tests.flatMap((test, index) => ((test.hidden || test.private) === hidden ? [index] : []));
    const count = Math.min(indexes.length, Math.max(1, concurrency));
    const size = Math.ceil(indexes.length / Math.max(1, count));
    for (let start = 0; start < indexes.length; start += size)
      batches.push(indexes.slice(start, start + size));
  }
  return batches;
}

function buildOutcome(
  config: TestsJudgeConfig,
  verdicts: readonly TestVerdict[],
  extra: {
    resultState: JudgeOutcome['resultState'];
    summary?: string;
    entry: string | null;
    compileError?: string;
  },
): JudgeOutcome {
  const criteria: CriterionResult[] = config.tests.map((testCase, index) => ({
    name: testCase.name,
    weight: testCase.weight,
    score: verdicts[index].passed ? 100 : 0,
    passed: verdicts[index].passed,
    feedback: verdicts[index].feedback,
    hidden: testCase.hidden,
    private: testCase.private,
  }));
  const tests: TestRunDetail[] = config.tests.map((testCase, index) => {
    const run = verdicts[index].run;
    return {
      name: testCase.name,
      hidden: testCase.hidden,
      private: testCase.private,
      passed: verdicts[index].passed,
      weight: testCase.weight,
      feedback: verdicts[index].feedback,
      duration_ms: run?.durationMs ?? 0,
      logs: run?.logs ?? '',
      logs_truncated: run?.logsTruncated ?? false,
    };
  });
  const split = splitScores(criteria);
  const scored = extra.resultState === 'scored';
  const score = scored ? split.score : 0;
  const privateScore = split.privateScore === null ? null : scored ? split.privateScore : 0;
  // The summary reaches competitors: it counts the tests that are not private only.
  const open = criteria.filter((criterion) => !criterion.private);
  const passedCount = open.filter((criterion) => criterion.passed).length;
  return {
    score,
    privateScore,
    resultState: extra.resultState,
    summary: extra.summary ?? `Passed ${passedCount} of ${open.length} tests (score ${score})`,
    criteria,
    details: {
      entry: extra.entry,
      ...(extra.compileError === undefined ? {} : { compile_error: extra.compileError }),
      tests,
    },
  };
}

function oneLine(text: string, maxChars = 300): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > maxChars ? `${line.slice(0, maxChars)}…` : line;
}

/**
 * Runs the test cases in sandboxed processes, each case in a fresh vm context under its own time
 * limit, hidden and visible cases in separate processes (see batchesOf). Problems of the
 * submission become failed tests; throws only SandboxUnavailableError or the abort reason.
 */
export async function runTestsJudge(
  config: TestsJudgeConfig,
  submission: SubmissionForJudging,
  options: JudgeRunOptions = {},
): Promise<JudgeOutcome> {
  const prepared: PreparedSubmission = await prepareSubmission(submission, config.entry, {
    signal: options.signal,
  });
  if (prepared.kind === 'unrunnable') {
    // The submission's fault (no entry file, no code it could run): a judged 0, not a failure of ours.
    const verdicts = config.tests.map(() => ({ passed: false, feedback: `not run: ${prepared.reason}` }));
    return judgedZero(
      prepared.reason,
      buildOutcome(config, verdicts, { resultState: 'scored', entry: null }),
    );
  }
  if (prepared.kind === 'compile_error') {
    const verdicts = config.tests.map(() => ({
      passed: false,
      feedback: `compile error: ${prepared.message}`,
    }));
    return buildOutcome(config, verdicts, {
      resultState: 'scored',
      summary: oneLine(`Compilation failed: ${prepared.message}`),
      entry: prepared.entry,
      compileError: prepared.message,
    });
  }

  const modules: readonly SandboxModule[] = prepared.modules;
  const { launcher, onUnsafeRun } = await sandboxRuntime();
  if (launcher.isolation === 'unsafe-process') onUnsafeRun?.();
  const concurrency = options.testConcurrency ?? DEFAULT_TEST_CONCURRENCY;
  const verdicts: TestVerdict[] = new Array(config.tests.length);
  let completed = 0;
  await runPool(batchesOf(config.tests, concurrency), concurrency, options.signal, async (batch, signal) => {
    await runCallsInSandbox({
      modules,
      entry: prepared.entry,
      calls: batch.map((index) => ({
        exportName: config.tests[index].export,
        args: config.tests[index].args,
      })),
      timeoutMs: config.timeout_ms_per_test,
      memoryMb: config.memory_mb,
      signal,
      onResult: (position, result) => {
        const index = batch[position];
        verdicts[index] = verdictFor(result, config.tests[index], config);
        completed += 1;
        options.onProgress?.({ completed, total: config.tests.length });
      },
    });
  });
  const outcome = buildOutcome(config, verdicts, { resultState: 'scored', entry: prepared.entry });
  // Operators (admin breakdown) see which wall the code ran behind; competitors do not.
  return { ...outcome, details: { ...outcome.details, sandbox: launcher.isolation } };
}
