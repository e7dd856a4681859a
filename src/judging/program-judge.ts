import os from 'node:os';
import type { ProgramJudgeConfig } from './config';
import { SandboxUnavailableError } from './errors';
import { type BuildFolder, buildProgram, newBuildFolder, runProgram } from './program/build';
import { detectProgram } from './program/detect';
import { LANGUAGES, LANGUAGE_IDS, type LanguageId } from './program/languages';
import { VERDICT_WORDS, type Verdict, exitDescription, limitVerdict, outputMatches } from './program/rules';
import { storableExcerpt } from '../lib/storable-text';
import { splitScores } from './scoring';
import { runPool } from './tests-judge';
import {
  COUNTS_AGAINST_LIMITS,
  type CriterionResult,
  type JudgeOutcome,
  type JudgeRunOptions,
  type SubmissionForJudging,
} from './types';

export const PROGRAM_JUDGE_LIMITS = {
  /** stdout of one test beyond this: output_limit_exceeded (DOMjudge's default output limit). */
  outputBytes: 8 * 1024 * 1024,
  stderrBytes: 64 * 1024,
  /** Excerpts of a visible test's output in the breakdown. */
  excerptChars: 1_024,
} as const;

/** Per-test entry of `details.tests` (snake_case: served as-is in breakdowns). */
export interface ProgramTestDetail {
  name: string;
  hidden: boolean;
  /** Counted in private_score only; left out of every competitor view until the challenge is complete. */
  private: boolean;
  verdict: Verdict;
  time_ms: number;
  memory_kb: number;
  /**
   * Every test's, so that an operator can see why a hidden one failed; the competitor view keeps
   * only a hidden test's name and verdict (breakdown.ts).
   */
  stdout_excerpt?: string;
  stderr_excerpt?: string;
}

interface TestRun {
  verdict: Verdict;
  feedback: string;
  detail: ProgramTestDetail;
}

/** What the breakdown keeps of an output: storable text, saying when bytes were replaced. */
function excerpt(bytes: Uint8Array): string {
  return storableExcerpt(bytes, PROGRAM_JUDGE_LIMITS.excerptChars).value;
}

export function allowedLanguages(config: Pick<ProgramJudgeConfig, 'languages'>): readonly LanguageId[] {
  return config.languages ?? LANGUAGE_IDS;
}

/** A judged 0 (the competitor's problem, not ours): every test carries the reason. */
function zeroOutcome(
  config: ProgramJudgeConfig,
  verdict: Verdict,
  summary: string,
  details: Record<string, unknown>,
): JudgeOutcome {
  const criteria: CriterionResult[] = config.tests.map((test) => ({
    name: test.name,
    weight: test.weight,
    score: 0,
    passed: false,
    feedback: `${VERDICT_WORDS[verdict]}: ${summary}`.slice(0, 500),
    hidden: test.hidden,
    private: test.private,
  }));
  const hasPrivate = config.tests.some((test) => test.private);
  return {
    score: 0,
    privateScore: hasPrivate ? 0 : null,
    resultState: 'scored',
    summary,
    criteria,
    details: {
      ...details,
      reason: summary,
      tests: config.tests.map((test) => ({
        name: test.name,
        hidden: test.hidden,
        private: test.private,
        verdict,
        time_ms: 0,
        memory_kb: 0,
      })),
    },
  };
}

/**
 * Detects the language, compiles inside the wall, then runs every test in a fresh sandbox with
 * the challenge's limits. Anything the submission does is a scored outcome (a compile error or
 * an undetectable language scores 0 with the reason); throws only SandboxUnavailableError (this
 * worker cannot run the language, or the wall failed) or the abort reason.
 */
export async function runProgramJudge(
  config: ProgramJudgeConfig,
  submission: SubmissionForJudging,
  options: JudgeRunOptions = {},
): Promise<JudgeOutcome> {
  const detection = detectProgram(submission);
  if (detection.kind === 'undetectable') {
    return zeroOutcome(config, 'compile_error', detection.reason, { language: null });
  }
  const allowed = allowedLanguages(config);
  if (!allowed.includes(detection.language)) {
    return zeroOutcome(
      config,
      'compile_error',
      `${detection.language} is not allowed here (allowed: ${allowed.join(', ')})`,
      { language: detection.language },
    );
  }
  const spec = LANGUAGES[detection.language];
  if (spec.runtimeBinary() === undefined) {
    throw new SandboxUnavailableError(`this worker has no ${spec.name} runtime`);
  }
  const folder: BuildFolder = await newBuildFolder();
  try {
    const built = await buildProgram(spec, detection.program, folder, options.signal);
    if (built.kind === 'compile_error') {
      return zeroOutcome(config, 'compile_error', built.reason ?? 'compilation failed', {
        language: spec.id,
        entry: detection.entry,
        compile_output: built.compileOutput,
        // The compiler's own verdict within its limits is given back to the submission limits;
        // a toolchain that crashed or was stopped at its limits (`reason`) stays charged (DESIGN).
        [COUNTS_AGAINST_LIMITS]: built.reason !== undefined,
      });
    }
    const limits = {
      timeLimitMs: config.time_limit_ms,
      memoryMb: config.memory_mb,
      outputBytes: PROGRAM_JUDGE_LIMITS.outputBytes,
      stderrBytes: PROGRAM_JUDGE_LIMITS.stderrBytes,
    };
    let completed = 0;
    const concurrency = options.testConcurrency ?? Math.max(1, Math.min(4, os.availableParallelism()));
    const runs = await runPool(
      config.tests,
      concurrency,
      options.signal,
      async (test, signal, index): Promise<TestRun> => {
        const run = await runProgram(spec, folder, limits, test.stdin, {
          followed: index < config.tests.length - 1,
          signal,
        });
        const stopped = limitVerdict({
          run,
          memoryMb: config.memory_mb + spec.runtimeOverheadMb,
          outOfMemory: spec.outOfMemory,
        });
        const verdict: Verdict =
          stopped ??
          (outputMatches(run.stdoutBytes, test.expected_stdout, config.compare, config.float_tolerance)
            ? 'accepted'
            : 'wrong_answer');
        completed += 1;
        options.onProgress?.({ completed, total: config.tests.length });
        const detail: ProgramTestDetail = {
          name: test.name,
          hidden: test.hidden,
          private: test.private,
          verdict,
          time_ms: run.cpuMs,
          memory_kb: run.memoryKb,
          stdout_excerpt: excerpt(run.stdoutBytes),
          stderr_excerpt: excerpt(run.stderrBytes),
        };
        const feedback =
          verdict === 'runtime_error'
            ? `${VERDICT_WORDS[verdict]} (${exitDescription(run)})`
            : verdict === 'time_limit_exceeded'
              ? `${VERDICT_WORDS[verdict]} (${config.time_limit_ms} ms of CPU time)`
              : verdict === 'memory_limit_exceeded'
                ? `${VERDICT_WORDS[verdict]} (${config.memory_mb} MB)`
                : VERDICT_WORDS[verdict];
        return { verdict, feedback, detail };
      },
    );
    const criteria: CriterionResult[] = config.tests.map((test, index) => ({
      name: test.name,
      weight: test.weight,
      score: runs[index].verdict === 'accepted' ? 100 : 0,
      passed: runs[index].verdict === 'accepted',
      feedback: runs[index].feedback,
      hidden: test.hidden,
      private: test.private,
    }));
    const { score, privateScore } = splitScores(criteria);
    // The summary reaches competitors: it counts the tests that are not private only.
    const open = runs.filter((_, index) => !config.tests[index].private);
    const accepted = open.filter((run) => run.verdict === 'accepted').length;
    return {
      score,
      privateScore,
      resultState: 'scored',
      summary: `${spec.name}: ${accepted} of ${open.length} tests accepted (score ${score})`,
      criteria,
      details: {
        language: spec.id,
        entry: detection.entry,
        compile_output: built.compileOutput,
        tests: runs.map((run) => run.detail),
      },
    };
  } finally {
    await folder.remove();
  }
}
