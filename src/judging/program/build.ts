/**
 * Turning a detected program into something the wall can run: a build folder holding every
 * submitted file under `src/` at its own path (and, once compiled, the binary, classes or
 * bundle), compiled inside the wall with the compile limits. Every file is part of the program
 * (DESIGN "Multi-file programs"). Shared by the judges, `cli play` and the worker's language probe.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { type NativeBind, type NativeRunResult, runNativeInSandbox } from '../sandbox/native-run';
import { bundleInChild, formatToolchainMessage } from '../toolchain/run-esbuild';
import {
  BUILD_DIR,
  GO_PREBUILT_CACHE_DIR,
  type LanguageSpec,
  type ProgramLayout,
  debianGoRoot,
  goEnv,
  goModFile,
} from './languages';

export const COMPILE_LIMITS = {
  cpuMs: 30_000,
  wallMs: 60_000,
  memoryMb: 1024,
  outputBytes: 64 * 1024,
  /** What the owner sees of the compiler's messages. */
  shownOutputBytes: 8 * 1024,
} as const;

/** A compile's limits (COMPILE_LIMITS; tests shrink them). */
export type CompileLimits = { readonly [K in keyof typeof COMPILE_LIMITS]: number };

const execFileAsync = promisify(execFile);
const BUILDS_ROOT = path.join(os.tmpdir(), 'challenge-judge-builds');

export interface BuildFolder {
  dir: string;
  /** The entry's path under `src/`, set by buildProgram (the run command of Python needs it). */
  entry?: string;
  remove(): Promise<void>;
}

/** A program as submitted: its files (normalized relative paths, detect.ts) and which one is the entry. */
export interface ProgramSource {
  entry: string;
  files: readonly { path: string; content: string }[];
}

/** One source text as the language's usual entry (`main.py`, `Main.java`): the probe, tests. */
export function singleFileProgram(spec: LanguageSpec, source: string): ProgramSource {
  return { entry: spec.entryFile, files: [{ path: spec.entryFile, content: source }] };
}

/** `package a.b;` of a Java file (comments skipped), or undefined for the default package. */
export function javaPackage(source: string): string | undefined {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, ' ').replace(/\/\/[^\n]*/g, '');
  return /^\s*package\s+([\w.]+)\s*;/.exec(code)?.[1];
}

/** Java's main class: the entry's package plus its file name (`app/Main.java` with `package app;` → app.Main). */
export function javaMainClass(program: ProgramSource): string {
  const entry = program.files.find((file) => file.path === program.entry);
  const name = path.posix.basename(program.entry).replace(/\.java$/i, '');
  const pkg = entry === undefined ? undefined : javaPackage(entry.content);
  return pkg === undefined ? name : `${pkg}.${name}`;
}

/**
 * Writes every file under `src/` (folders the sandbox may write while compiling: Python's
 * __pycache__, Go's and javac's outputs), and what the language's build needs beside them.
 */
export async function writeProgramSources(
  spec: LanguageSpec,
  program: ProgramSource,
  folder: BuildFolder,
): Promise<void> {
  const root = path.join(folder.dir, 'src');
  const made = new Set<string>();
  const folderFor = async (dir: string) => {
    if (made.has(dir)) return;
    await mkdir(dir, { recursive: true, mode: 0o777 });
    // mkdir's mode passes through the umask; every level gets its 0777.
    for (let at = dir; at.startsWith(root) && !made.has(at); at = path.dirname(at)) {
      await chmod(at, 0o777);
      made.add(at);
    }
  };
  await folderFor(root);
  for (const file of program.files) {
    const target = path.join(root, file.path);
    if (!target.startsWith(`${root}/`)) throw new Error(`a path outside the submission: ${file.path}`);
    await folderFor(path.dirname(target));
    await writeFile(target, file.content, { mode: 0o644 });
  }
  if (spec.id === 'go') await writeFile(path.join(root, 'go.mod'), goModFile(), { mode: 0o644 });
  if (spec.id === 'java') {
    await writeFile(path.join(folder.dir, 'main-class'), `${javaMainClass(program)}\n`, { mode: 0o644 });
    await mkdir(path.join(folder.dir, 'classes'), { mode: 0o777 });
    await chmod(path.join(folder.dir, 'classes'), 0o777);
  }
}

/** A fresh host folder the sandbox's uid may write while compiling (and only read afterwards). */
export async function newBuildFolder(): Promise<BuildFolder> {
  await mkdir(BUILDS_ROOT, { recursive: true, mode: 0o711 });
  await chmod(BUILDS_ROOT, 0o711);
  const dir = await mkdtemp(path.join(BUILDS_ROOT, 'b-'));
  await chmod(dir, 0o777);
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

export type BuildResult =
  | { kind: 'built'; compileOutput: string }
  /** `reason`: why, when it is more than "compilation failed" (the toolchain died on the input). */
  | { kind: 'compile_error'; compileOutput: string; reason?: string };

function truncate(text: string, bytes: number): string {
  const buffer = Buffer.from(text, 'utf8');
  return buffer.length <= bytes ? text : `${buffer.subarray(0, bytes).toString('utf8')}\n… (truncated)`;
}

/** What contest programs import; anything else still builds, just slower. */
const GO_PREBUILT_PACKAGES = [
  'bufio',
  'bytes',
  'container/heap',
  'container/list',
  'errors',
  'fmt',
  'io',
  'math',
  'math/big',
  'math/bits',
  'math/rand',
  'os',
  'regexp',
  'sort',
  'strconv',
  'strings',
  'sync',
  'time',
  'unicode',
];

let goCache: Promise<string | undefined> | undefined;

/**
 * Go's common standard packages, compiled once into a build cache inside the wall (the same
 * paths as every later build), then bound read-only into every Go build (see languages.ts): a
 * build compiles only the submission.
 */
export function preparedGoCache(): Promise<string | undefined> {
  goCache ??= (async () => {
    const root = debianGoRoot();
    if (root === undefined) return undefined;
    const dir = path.join(os.tmpdir(), 'challenge-judge-native', `gocache-${path.basename(root)}`);
    const ready = path.join(dir, '.prepared');
    if (existsSync(ready)) return dir;
    await mkdir(dir, { recursive: true, mode: 0o777 });
    await chmod(dir, 0o777);
    const run = await runNativeInSandbox({
      argv: [`${root}/bin/go`, 'build', ...GO_PREBUILT_PACKAGES],
      env: goEnv(GO_PREBUILT_CACHE_DIR, false),
      binds: [{ host: dir, path: GO_PREBUILT_CACHE_DIR, writable: true }],
      cpuMs: 600_000,
      wallMs: 900_000,
      memoryMb: 2048,
      programAddressSpaceMb: 0,
      outputBytes: 64 * 1024,
      stderrBytes: 64 * 1024,
      maxFileBytes: 256 * 1024 * 1024,
      workDirBytes: 512 * 1024 * 1024,
    });
    if (run.exit.kind !== 'exited' || run.exit.code !== 0) {
      throw new Error(`preparing Go's build cache failed: ${run.stderr.slice(0, 500)}`);
    }
    await writeFile(ready, new Date().toISOString());
    await execFileAsync('chmod', ['-R', 'a+rX,go-w', dir]);
    return dir;
  })();
  goCache.catch(() => {
    goCache = undefined;
  });
  return goCache;
}

/** Binds of the language's compile and run steps besides the build folder. */
export async function languageBinds(spec: LanguageSpec): Promise<NativeBind[]> {
  if (spec.id !== 'go') return [];
  const cache = await preparedGoCache();
  return cache === undefined ? [] : [{ host: cache, path: GO_PREBUILT_CACHE_DIR }];
}

/**
 * Writes the program's files and compiles them: inside the wall, or for JavaScript and
 * TypeScript by esbuild's bundle from the entry in a toolchain process of its own
 * (toolchain/run-esbuild.ts: never the worker's, retried once when it dies, a second death being
 * this input's compile error). `source` alone is a program of one file, the language's entry.
 */
export async function buildProgram(
  spec: LanguageSpec,
  source: ProgramSource | string,
  folder: BuildFolder,
  signal?: AbortSignal,
  limits: CompileLimits = COMPILE_LIMITS,
): Promise<BuildResult> {
  const program = typeof source === 'string' ? singleFileProgram(spec, source) : source;
  folder.entry = program.entry;
  if (spec.id === 'typescript' || spec.id === 'javascript') {
    const outcome = await bundleInChild(program, { signal });
    if (outcome.kind === 'crashed') {
      return {
        kind: 'compile_error',
        compileOutput: truncate(outcome.reason, COMPILE_LIMITS.shownOutputBytes),
        reason: outcome.reason,
      };
    }
    const { result } = outcome;
    if (!result.ok) {
      const text = result.errors.map((message) => formatToolchainMessage(message)).join('\n');
      return { kind: 'compile_error', compileOutput: truncate(text, COMPILE_LIMITS.shownOutputBytes) };
    }
    await writeFile(path.join(folder.dir, 'main.js'), result.code, { mode: 0o644 });
    return {
      kind: 'built',
      compileOutput: truncate(
        result.warnings.map((message) => formatToolchainMessage(message)).join('\n'),
        COMPILE_LIMITS.shownOutputBytes,
      ),
    };
  }
  await writeProgramSources(spec, program, folder);
  if (spec.compileCommand === undefined) return { kind: 'built', compileOutput: '' };
  const layout = { entry: program.entry, files: program.files.map((file) => file.path) };
  // A compiler the host stopped at its own limits, or that died of a signal, is a toolchain
  // crash: retried once in a fresh sandbox (a busy moment is not the input's fault); the same
  // input crashing it again is that input's compile error (DESIGN, "Verdicts come from the host").
  const { run, crash } = await retriedOnceOnCrash(() => compileInWall(spec, layout, folder, limits, signal));
  const output = truncate(`${run.stdout}${run.stderr}`.trim(), limits.shownOutputBytes);
  if (crash !== undefined) {
    const reason = `the ${spec.name} compiler ${crash} twice, each time in a fresh sandbox`;
    return { kind: 'compile_error', compileOutput: `${reason}\n${output}`.trim(), reason };
  }
  if (run.exit.kind !== 'exited' || run.exit.code !== 0)
    return { kind: 'compile_error', compileOutput: output };
  return { kind: 'built', compileOutput: output };
}

/** Runs a toolchain step, and once more in a fresh process when it crashed; the last outcome counts. */
export async function retriedOnceOnCrash<T extends { crash?: string }>(
  attempt: () => Promise<T>,
): Promise<T> {
  const first = await attempt();
  return first.crash === undefined ? first : attempt();
}

/** One compile inside the wall, and how it crashed if it did (words for the competitor). */
async function compileInWall(
  spec: LanguageSpec,
  layout: ProgramLayout,
  folder: BuildFolder,
  limits: CompileLimits,
  signal: AbortSignal | undefined,
): Promise<{ run: NativeRunResult; crash?: string }> {
  const command = spec.compileCommand!(layout);
  const run = await runNativeInSandbox({
    argv: command.argv,
    env: command.env,
    binds: [{ host: folder.dir, path: BUILD_DIR, writable: true }, ...(await languageBinds(spec))],
    cpuMs: limits.cpuMs,
    wallMs: limits.wallMs,
    memoryMb: limits.memoryMb,
    programAddressSpaceMb: 0,
    outputBytes: limits.outputBytes,
    stderrBytes: limits.outputBytes,
    signal,
  });
  if (run.limit === 'cpu' || run.limit === 'wall') return { run, crash: 'exceeded its time limit' };
  if (run.oomKilled) return { run, crash: 'exceeded its memory limit' };
  if (run.exit.kind === 'signaled') return { run, crash: `was killed by signal ${run.exit.signal}` };
  return { run };
}

/**
 * Runs the built program on one input with the judge's limits, in a fresh sandbox. `followed`:
 * another test of this program comes after this one, so the warm pool launches its sandbox now.
 */
export async function runProgram(
  spec: LanguageSpec,
  folder: BuildFolder,
  limits: { timeLimitMs: number; memoryMb: number; outputBytes: number; stderrBytes: number },
  stdin: string,
  options: { followed: boolean; signal?: AbortSignal },
): Promise<NativeRunResult> {
  const command = spec.runCommand({ memoryMb: limits.memoryMb, entry: folder.entry ?? spec.entryFile });
  return runNativeInSandbox({
    argv: command.argv,
    env: command.env,
    binds: [{ host: folder.dir, path: BUILD_DIR }, ...(await languageBinds(spec))],
    stdin,
    cpuMs: limits.timeLimitMs,
    // Time limits count CPU time; the wall clock only stops sleepers.
    wallMs: 2 * limits.timeLimitMs + 1_000,
    memoryMb: limits.memoryMb + spec.runtimeOverheadMb,
    // The cgroup bounds memory (an OOM kill is a clear verdict; a failed malloc often is a crash).
    programAddressSpaceMb: 0,
    outputBytes: limits.outputBytes,
    stderrBytes: limits.stderrBytes,
    followed: options.followed,
    signal: options.signal,
  });
}
