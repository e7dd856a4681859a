/**
 * Pure decisions of the `program` judge: comparing output and naming a test's verdict.
 */
import type { NativeRunResult } from '../sandbox/native-run';

export type CompareMode = 'lines' | 'exact' | 'tokens' | 'float';

export const VERDICTS = [
  'accepted',
  'wrong_answer',
  'time_limit_exceeded',
  'memory_limit_exceeded',
  'output_limit_exceeded',
  'runtime_error',
  'compile_error',
] as const;
export type Verdict = (typeof VERDICTS)[number];

/** Lines without trailing spaces (and `\r`), trailing blank lines dropped. */
function normalizedLines(text: string): string[] {
  const lines = text.split('\n').map((line) => line.replace(/[ \t\r]+$/, ''));
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

function tokens(text: string): string[] {
  return text.split(/\s+/).filter((token) => token !== '');
}

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$|^[+-]?(inf|infinity|nan)$/i;

/** Tokens equal, or both numbers within tol · max(1, |want|). */
function floatTokenMatches(got: string, want: string, tolerance: number): boolean {
  if (got === want) return true;
  if (!NUMBER.test(got) || !NUMBER.test(want)) return false;
  const a = Number(got);
  const b = Number(want);
  if (Number.isNaN(b)) return Number.isNaN(a);
  if (!Number.isFinite(b)) return a === b;
  return Math.abs(a - b) <= tolerance * Math.max(1, Math.abs(b));
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Whether the program's output is the expected one under the mode's whitespace rules. Given
 * bytes, they are compared before any lossy decoding (DESIGN, "Whatever a program writes is
 * data"): the expected output is text, so bytes that are not UTF-8 never equal it (decoding them
 * would turn 0xff into the U+FFFD an answer might hold). Valid UTF-8 decodes one to one, so
 * comparing its text is comparing its bytes.
 */
export function outputMatches(
  actual: string | Uint8Array,
  expected: string,
  mode: CompareMode,
  tolerance: number,
): boolean {
  if (typeof actual !== 'string') {
    let text: string;
    try {
      text = strictUtf8.decode(actual);
    } catch {
      return false;
    }
    return outputMatches(text, expected, mode, tolerance);
  }
  switch (mode) {
    case 'exact':
      return actual === expected;
    case 'lines': {
      const a = normalizedLines(actual);
      const b = normalizedLines(expected);
      return a.length === b.length && a.every((line, index) => line === b[index]);
    }
    case 'tokens': {
      const a = tokens(actual);
      const b = tokens(expected);
      return a.length === b.length && a.every((token, index) => token === b[index]);
    }
    case 'float': {
      const a = tokens(actual);
      const b = tokens(expected);
      return (
        a.length === b.length && a.every((token, index) => floatTokenMatches(token, b[index], tolerance))
      );
    }
  }
}

export interface VerdictInput {
  run: NativeRunResult;
  memoryMb: number;
  /** The language's own words for running out of memory (stderr). */
  outOfMemory?: RegExp;
}

/**
 * The verdict of a finished run before its output is compared (undefined: it ran to completion
 * and its output decides). Order matters: a limit the supervisor enforced explains the kill that
 * follows; memory explains a crash; only then is a failure the program's own.
 */
export function limitVerdict({ run, memoryMb, outOfMemory }: VerdictInput): Verdict | undefined {
  if (run.limit === 'cpu' || run.limit === 'wall') return 'time_limit_exceeded';
  if (run.limit === 'output') return 'output_limit_exceeded';
  const failed = run.exit.kind === 'signaled' || run.exit.code !== 0;
  if (run.oomKilled) return 'memory_limit_exceeded';
  if (run.memoryKb > memoryMb * 1024) return 'memory_limit_exceeded';
  if (failed && outOfMemory?.test(run.stderr)) return 'memory_limit_exceeded';
  if (failed) return 'runtime_error';
  return undefined;
}

export const VERDICT_WORDS: Readonly<Record<Verdict, string>> = {
  accepted: 'accepted',
  wrong_answer: 'wrong answer',
  time_limit_exceeded: 'time limit exceeded',
  memory_limit_exceeded: 'memory limit exceeded',
  output_limit_exceeded: 'output limit exceeded',
  runtime_error: 'runtime error',
  compile_error: 'compile error',
};

/** Signal names for the owner's feedback (`runtime error (SIGSEGV)`). */
const SIGNALS: Readonly<Record<number, string>> = {
  4: 'SIGILL',
  6: 'SIGABRT',
  7: 'SIGBUS',
  8: 'SIGFPE',
  9: 'SIGKILL',
  11: 'SIGSEGV',
  24: 'SIGXCPU',
  25: 'SIGXFSZ',
};

export function exitDescription(run: NativeRunResult): string {
  return run.exit.kind === 'exited'
    ? `exit code ${run.exit.code}`
    : (SIGNALS[run.exit.signal] ?? `signal ${run.exit.signal}`);
}
