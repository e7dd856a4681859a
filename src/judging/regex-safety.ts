import vm from 'node:vm';

/**
 * Regex checks run admin-written patterns over competitor-written content, so a pattern with
 * catastrophic backtracking would let a submission stall the worker. Two layers:
 *  1. config validation rejects the classic shape (a repeated group that itself contains a
 *     repetition, e.g. `(a+)+`, `(\w*\s?)*`, `(?:x{2,})+`);
 *  2. matching runs in a vm context with a timeout (V8 interrupts a running regex), over input
 *     bounded to MAX_REGEX_INPUT_CHARS.
 */
export const MAX_REGEX_PATTERN_LENGTH = 500;
export const MAX_REGEX_INPUT_CHARS = 100_000;
export const REGEX_TIMEOUT_MS = 100;
export const ALLOWED_REGEX_FLAGS = 'imsu';

interface GroupFrame {
  /** A repeating quantifier (max > 1) occurs somewhere inside this group. */
  containsRepetition: boolean;
}

type Atom = { kind: 'group'; containsRepetition: boolean } | { kind: 'simple' } | null;

/** Parses `{n}`, `{n,}`, `{n,m}` at `index`; returns its end and whether it repeats (max > 1). */
function readBraceQuantifier(pattern: string, index: number): { end: number; repeats: boolean } | null {
  const match = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(index, index + 24));
  if (!match) return null;
  const min = Number(match[1]);
  const max = match[2] === undefined ? min : match[3] === '' ? Infinity : Number(match[3]);
  return { end: index + match[0].length, repeats: max > 1 };
}

/**
 * Returns a reason when the pattern repeats a group that already contains a repetition
 * (the shape behind exponential backtracking), null otherwise. Conservative on purpose:
 * alternation overlaps such as `(a|a)+` are left to the runtime timeout.
 */
export function findNestedQuantifier(pattern: string): string | null {
  const frames: GroupFrame[] = [{ containsRepetition: false }];
  let lastAtom: Atom = null;
  let index = 0;
  while (index < pattern.length) {
    const char = pattern[index];
    if (char === '\\') {
      index += 2;
      lastAtom = { kind: 'simple' };
      continue;
    }
    if (char === '[') {
      index += 1;
      while (index < pattern.length && pattern[index] !== ']') index += pattern[index] === '\\' ? 2 : 1;
      index += 1;
      lastAtom = { kind: 'simple' };
      continue;
    }
    if (char === '(') {
      frames.push({ containsRepetition: false });
      index += 1;
      // Skip the group prefix (?:, ?=, ?!, ?<=, ?<!, ?<name>).
      if (pattern[index] === '?') {
        const named = /^\?<[A-Za-z_$][\w$]*>/.exec(pattern.slice(index, index + 64));
        index += named ? named[0].length : pattern[index + 1] === '<' ? 3 : 2;
      }
      lastAtom = null;
      continue;
    }
    if (char === ')') {
      const frame = frames.length > 1 ? frames.pop()! : frames[0];
      // A repetition inside a group is also inside every enclosing group.
      if (frame.containsRepetition) frames[frames.length - 1].containsRepetition = true;
      lastAtom = { kind: 'group', containsRepetition: frame.containsRepetition };
      index += 1;
      continue;
    }
    let quantifier: { end: number; repeats: boolean } | null = null;
    if (char === '*' || char === '+') quantifier = { end: index + 1, repeats: true };
    else if (char === '?') quantifier = { end: index + 1, repeats: false };
    else if (char === '{') quantifier = readBraceQuantifier(pattern, index);
    if (quantifier && lastAtom) {
      if (quantifier.repeats && lastAtom.kind === 'group' && lastAtom.containsRepetition) {
        return `nested quantifier near position ${index}: a repeated group must not contain a repetition`;
      }
      if (quantifier.repeats) frames[frames.length - 1].containsRepetition = true;
      index = quantifier.end;
      if (pattern[index] === '?') index += 1; // lazy modifier
      lastAtom = null;
      continue;
    }
    lastAtom = char === '|' ? null : { kind: 'simple' };
    index += 1;
  }
  return null;
}

export function regexSyntaxError(pattern: string, flags: string): string | null {
  try {
    new RegExp(pattern, flags);
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : 'invalid regular expression';
  }
}

let regexContext: vm.Context | undefined;
const regexScript = new vm.Script('new RegExp(pattern, flags).test(input)', { filename: 'rubric-regex.js' });

export type RegexTestResult = { matched: boolean } | { timedOut: true };

/**
 * Evaluations before a pattern counts as timed out. The vm's timeout is wall clock: on a busy
 * machine a trivial pattern can be descheduled past it (CI saw `^The` time out at load 10 and
 * a correct answer score 80). A pattern that really backtracks times out every time, at a cost of
 * attempts × the timeout; one that was only descheduled passes on a later attempt.
 */
export const REGEX_TIMEOUT_ATTEMPTS = 3;

/** Runs `attempt` until it does not time out, at most `attempts` times; the last outcome counts. */
export function unlessEveryAttemptTimesOut(
  attempt: () => RegexTestResult,
  attempts = REGEX_TIMEOUT_ATTEMPTS,
): RegexTestResult {
  let result = attempt();
  for (let tried = 1; tried < attempts && 'timedOut' in result; tried++) result = attempt();
  return result;
}

/** Tests the pattern with a hard time limit (confirmed over a few attempts); never throws for slow patterns. */
export function testRegexWithTimeout(
  pattern: string,
  flags: string,
  input: string,
  timeoutMs = REGEX_TIMEOUT_MS,
): RegexTestResult {
  return unlessEveryAttemptTimesOut(() => testRegexOnce(pattern, flags, input, timeoutMs));
}

function testRegexOnce(pattern: string, flags: string, input: string, timeoutMs: number): RegexTestResult {
  regexContext ??= vm.createContext(Object.create(null), { codeGeneration: { strings: false, wasm: false } });
  const sandbox = regexContext as Record<string, unknown>;
  sandbox.pattern = pattern;
  sandbox.flags = flags;
  sandbox.input = input.length > MAX_REGEX_INPUT_CHARS ? input.slice(0, MAX_REGEX_INPUT_CHARS) : input;
  try {
    return { matched: regexScript.runInContext(regexContext, { timeout: timeoutMs }) === true };
  } catch (error) {
    if ((error as { code?: unknown } | null)?.code === 'ERR_SCRIPT_EXECUTION_TIMEOUT')
      return { timedOut: true };
    throw error;
  } finally {
    sandbox.input = undefined;
  }
}
