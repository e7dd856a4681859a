/**
 * esbuild's transform of competitor files, in a process that may die (issue 27, item 3; DESIGN.md
 * "Verdicts come from the host"). The worker never loads esbuild's service itself: one nested
 * file could kill that shared service (every later JS/TS submission then failed to compile) and
 * its synchronous API blocked the worker's event loop while it parsed.
 *
 * - Each job (one submission's files) runs in a fresh `node esbuild-child.cjs` (its own esbuild
 *   service), never reused; one spare is started ahead so a job does not wait for node to boot.
 *   The process group is killed at the deadline, on abort, and after the answer.
 * - Each file first passes `sourceBoundsProblem` (a linear scan): too deep or too large is that
 *   file's compile error, and nothing is parsed.
 * - A crash (the process or its esbuild died, was killed, or passed the deadline) is retried once
 *   in another fresh process; a second crash on the same input is that input's `crashed` outcome,
 *   which the judges score as a compile error naming the failure, provided a trivial file still
 *   transforms in a third process (else the toolchain itself is broken: SandboxUnavailableError,
 *   retried by the workflow, never a competitor's 0). Other jobs are untouched: they run in
 *   processes of their own.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import type { TransformOptions } from 'esbuild';
import { SandboxUnavailableError } from '../errors';
import { SOURCE_BOUNDS, sourceBoundsProblem } from './source-bounds';
import { processTree, runQueueWaits, wallDeadline } from '../wall-deadline';

/** A starved attempt gets at most this many times its deadline more (wall-deadline.ts). */
const STARVED_WALL_FACTOR = 2;

export const TOOLCHAIN_LIMITS = {
  /** Wall time of one attempt (a 2 MB file takes about a second on an idle core). */
  wallMs: 20_000,
  /** The child's JavaScript heap (it holds the sources and esbuild's answers). */
  heapMb: 512,
  /**
   * Address space of the child and of its esbuild, each (RLIMIT_AS, set by `ulimit -v`): some
   * inputs make esbuild's parser grow without end (a statement nest took 2.6 GB in 4 s; a
   * recursion grows Go's stack up to 1 GB); at the limit esbuild dies, which is a crash.
   */
  addressSpaceMb: 2048,
  /** esbuild's stderr kept to explain a crash (a Go crash prints every goroutine's stack). */
  stderrBytes: 16 * 1024,
  attempts: 2,
} as const;

export interface ToolchainFile {
  /** The submission's path: named in messages and in a crash. */
  path: string;
  source: string;
  /** Passed to esbuild as is (must survive JSON). */
  options: TransformOptions;
}

export interface ToolchainMessage {
  text: string;
  file?: string;
  /** 1-based line, 0-based column (esbuild's convention). */
  line?: number;
  column?: number;
}

export type ToolchainFileResult =
  { ok: true; code: string; warnings: ToolchainMessage[] } | { ok: false; errors: ToolchainMessage[] };

export type ToolchainOutcome =
  | { kind: 'transformed'; files: ToolchainFileResult[]; attempts: number }
  /** The toolchain died on this input in every attempt: judged as the input's compile error. */
  | { kind: 'crashed'; reason: string; attempts: number };

export interface ToolchainRunOptions {
  signal?: AbortSignal;
  wallMs?: number;
  /** Tests: told of each attempt's process as it starts. */
  onAttempt?: (attempt: number, child: ChildProcess) => void;
  /** Tests: another child script (a toolchain that cannot work at all). */
  childScript?: string;
}

const CHILD_SCRIPT = path.join(__dirname, 'esbuild-child.cjs');
let esbuildMain: string | undefined;

function spawnChild(script = CHILD_SCRIPT): ChildProcess {
  esbuildMain ??= require.resolve('esbuild');
  // `sh -c 'ulimit -v …; exec node …'`: node has no setrlimit; the limit passes to esbuild.
  const child = spawn(
    '/bin/sh',
    [
      '-c',
      'ulimit -v "$0" && exec "$@"',
      String(TOOLCHAIN_LIMITS.addressSpaceMb * 1024),
      process.execPath,
      `--max-old-space-size=${TOOLCHAIN_LIMITS.heapMb}`,
      script,
      esbuildMain,
    ],
    {
      // Its own process group: the deadline kills esbuild's service with it.
      detached: true,
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      serialization: 'json',
    },
  );
  return child;
}

function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

let spare: ChildProcess | undefined;

function setIdle(child: ChildProcess, idle: boolean): void {
  const handles = [child, child.channel, child.stderr] as (
    { ref(): void; unref(): void } | null | undefined
  )[];
  for (const handle of handles) {
    if (idle) handle?.unref();
    else handle?.ref();
  }
}

/** A process that has never run a job: the spare when it is alive, else a new one. */
function freshChild(script?: string): ChildProcess {
  if (script !== undefined) return spawnChild(script);
  const taken = spare;
  spare = undefined;
  const child =
    taken !== undefined && taken.exitCode === null && taken.signalCode === null ? taken : undefined;
  if (taken !== undefined && child === undefined) killGroup(taken);
  setImmediate(() => {
    if (spare !== undefined) return;
    const next = spawnChild();
    setIdle(next, true);
    next.once('exit', () => {
      if (spare === next) spare = undefined;
    });
    spare = next;
  });
  if (child === undefined) return spawnChild();
  setIdle(child, false);
  return child;
}

/** Stops the spare process (worker shutdown, tests). */
export function stopToolchainSpare(): void {
  if (spare !== undefined) killGroup(spare);
  spare = undefined;
}

/** What esbuild-child.cjs sends, once. */
interface ChildAnswer {
  results?: ToolchainFileResult[];
  crash?: string;
}

/** What esbuild-child.cjs is asked, once: transform each file, or bundle a program from its entry. */
type ChildRequest =
  | { files: { path: string; source: string; options: TransformOptions }[] }
  | { bundle: { entry: string; files: { path: string; source: string }[] } };

type Attempt = { kind: 'answered'; results: ToolchainFileResult[] } | { kind: 'crashed'; reason: string };

/** Why esbuild died, from its stderr: Go's `fatal error: …` and the line before it. */
function crashWords(stderr: string): string {
  const lines = stderr.split('\n').map((line) => line.trim());
  const fatal = lines.findIndex((line) => /^fatal error:/.test(line));
  const picked =
    fatal === -1
      ? lines.filter((line) => line !== '').slice(0, 2)
      : lines.slice(Math.max(0, fatal - 2), fatal + 1);
  return picked
    .filter((line) => line !== '' && !/^runtime: sp=/.test(line))
    .join('; ')
    .slice(0, 300);
}

function attemptOnce(
  request: ChildRequest,
  wallMs: number,
  signal: AbortSignal | undefined,
  onStart: (child: ChildProcess) => void,
  script?: string,
): Promise<Attempt> {
  return new Promise<Attempt>((resolve, reject) => {
    const child = freshChild(script);
    let settled = false;
    const settle = (attempt: Attempt) => {
      if (settled) return;
      settled = true;
      deadline.cancel();
      signal?.removeEventListener('abort', onAbort);
      resolve(attempt);
    };
    // A process that could not even start (no /bin/sh, no node): a crash, never an unhandled error.
    child.on('error', (error) => {
      killGroup(child);
      settle({ kind: 'crashed', reason: `could not run: ${error.message}` });
    });
    let stderr = '';
    let answer: ChildAnswer | undefined;
    let timedOut = false;
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      if (stderr.length < TOOLCHAIN_LIMITS.stderrBytes)
        stderr += chunk.slice(0, TOOLCHAIN_LIMITS.stderrBytes);
    });
    child.on('message', (message) => {
      answer ??= message as ChildAnswer;
      killGroup(child);
    });
    // A busy machine is not the input's fault: the deadline adds the time the child's threads
    // (node and its esbuild service) waited for a CPU.
    const deadline = wallDeadline({
      wallMs,
      maxExtraMs: wallMs * STARVED_WALL_FACTOR,
      readWaits: async () =>
        child.pid === undefined ? new Map() : runQueueWaits(await processTree(child.pid)),
      onExpire: () => {
        timedOut = true;
        killGroup(child);
      },
    });
    const onAbort = () => {
      killGroup(child);
      if (settled) return;
      settled = true;
      deadline.cancel();
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    child.once('close', (code, childSignal) => {
      const why = crashWords(stderr);
      if (answer?.results !== undefined) settle({ kind: 'answered', results: answer.results });
      else if (timedOut) settle({ kind: 'crashed', reason: `no answer within ${wallMs / 1000} s, killed` });
      else if (answer?.crash !== undefined)
        settle({ kind: 'crashed', reason: why === '' ? answer.crash : `${answer.crash}: ${why}` });
      else {
        const how = childSignal !== null ? `killed by ${childSignal}` : `exited with code ${code}`;
        settle({ kind: 'crashed', reason: why === '' ? how : `${how}: ${why}` });
      }
    });
    onStart(child);
    if (signal?.aborted) {
      onAbort();
      return;
    }
    if (!child.connected) return; // could not start: 'error' settles
    child.send(request, (error) => {
      if (error !== null) killGroup(child);
    });
  });
}

/** Transformed after an input crashed the toolchain twice: is it the input, or the toolchain? */
const CANARY: ToolchainFile = { path: 'canary.js', source: '0;\n', options: { loader: 'js' } };

/**
 * Transforms the files (in one fresh process per attempt; see the module comment). Resolves with
 * every file's code or errors, or `crashed` when the toolchain died on this input twice while a
 * trivial input still transforms (the input's fault, judged); rejects with
 * SandboxUnavailableError when that trivial input crashes too (the toolchain's fault: retried by
 * the workflow, never a competitor's compile error), or with the abort reason.
 */
export async function transformInChild(
  files: readonly ToolchainFile[],
  options: ToolchainRunOptions = {},
): Promise<ToolchainOutcome> {
  const results: (ToolchainFileResult | undefined)[] = files.map((file) => {
    const problem = sourceBoundsProblem(file.source, SOURCE_BOUNDS);
    return problem === null ? undefined : { ok: false, errors: [{ ...problem, file: file.path }] };
  });
  const toParse = files.filter((_, index) => results[index] === undefined);
  if (toParse.length === 0)
    return { kind: 'transformed', files: results as ToolchainFileResult[], attempts: 0 };

  const reasons: string[] = [];
  for (let attempt = 1; attempt <= TOOLCHAIN_LIMITS.attempts; attempt++) {
    options.signal?.throwIfAborted();
    const outcome = await attemptOnce(
      { files: toParse.map((file) => ({ path: file.path, source: file.source, options: file.options })) },
      options.wallMs ?? TOOLCHAIN_LIMITS.wallMs,
      options.signal,
      (child) => options.onAttempt?.(attempt, child),
      options.childScript,
    );
    if (outcome.kind === 'answered') {
      let next = 0;
      return {
        kind: 'transformed',
        files: results.map((result) => result ?? outcome.results[next++]),
        attempts: attempt,
      };
    }
    reasons.push(outcome.reason);
  }
  await canaryOrUnavailable(options);
  return {
    kind: 'crashed',
    reason: `the JavaScript/TypeScript toolchain (esbuild) crashed twice on this input, each time in a fresh process: ${reasons[reasons.length - 1]}`,
    attempts: TOOLCHAIN_LIMITS.attempts,
  };
}

/** After two crashes: a trivial file must still transform, else the toolchain itself is broken. */
async function canaryOrUnavailable(options: ToolchainRunOptions): Promise<void> {
  const canary = await attemptOnce(
    { files: [CANARY] },
    TOOLCHAIN_LIMITS.wallMs,
    options.signal,
    () => undefined,
    options.childScript,
  );
  if (canary.kind !== 'answered' || !canary.results[0]?.ok) {
    throw new SandboxUnavailableError(
      `the JavaScript/TypeScript toolchain (esbuild) does not work on this worker: ${canary.kind === 'crashed' ? canary.reason : 'a trivial file did not transform'}`,
    );
  }
}

export type BundleOutcome =
  | { kind: 'bundled'; result: ToolchainFileResult; attempts: number }
  | { kind: 'crashed'; reason: string; attempts: number };

/**
 * Bundles a JavaScript/TypeScript program from its entry into one CommonJS file for Node, in a
 * fresh process per attempt as transformInChild does (same retry, canary and abort rules).
 * Imports resolve among the submitted files only (esbuild-child.cjs): Node's built-in modules
 * stay imports; a package (node_modules), an absolute path or a path leaving the submission is
 * the program's compile error, as is a file past the source bounds.
 */
export async function bundleInChild(
  program: { entry: string; files: readonly { path: string; content: string }[] },
  options: ToolchainRunOptions = {},
): Promise<BundleOutcome> {
  const errors: ToolchainMessage[] = [];
  for (const file of program.files) {
    const problem = sourceBoundsProblem(file.content, SOURCE_BOUNDS);
    if (problem !== null) errors.push({ ...problem, file: file.path });
  }
  if (errors.length > 0) return { kind: 'bundled', result: { ok: false, errors }, attempts: 0 };
  const request: ChildRequest = {
    bundle: {
      entry: program.entry,
      files: program.files.map((file) => ({ path: file.path, source: file.content })),
    },
  };
  const reasons: string[] = [];
  for (let attempt = 1; attempt <= TOOLCHAIN_LIMITS.attempts; attempt++) {
    options.signal?.throwIfAborted();
    const outcome = await attemptOnce(
      request,
      options.wallMs ?? TOOLCHAIN_LIMITS.wallMs,
      options.signal,
      (child) => options.onAttempt?.(attempt, child),
      options.childScript,
    );
    if (outcome.kind === 'answered' && outcome.results.length === 1)
      return { kind: 'bundled', result: outcome.results[0], attempts: attempt };
    reasons.push(outcome.kind === 'crashed' ? outcome.reason : 'no bundle in the answer');
  }
  await canaryOrUnavailable(options);
  return {
    kind: 'crashed',
    reason: `the JavaScript/TypeScript toolchain (esbuild) crashed twice on this input, each time in a fresh process: ${reasons[reasons.length - 1]}`,
    attempts: TOOLCHAIN_LIMITS.attempts,
  };
}

/** `file:line:column: text` (column 1-based), or the text alone. */
export function formatToolchainMessage(message: ToolchainMessage, file = message.file): string {
  return message.line === undefined || file === undefined
    ? message.text
    : `${file}:${message.line}:${(message.column ?? 0) + 1}: ${message.text}`;
}
