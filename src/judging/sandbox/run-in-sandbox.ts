/**
 * Runs one test call of a submission in a throw-away child process.
 *
 * Isolation model, outermost first (one child per test case: no state can leak between tests, in
 * particular not hidden-test inputs into public-test output, and a hung or crashed test is just a
 * dead process):
 *  - the operating-system wall of os-sandbox.ts (bubblewrap namespaces, rlimits, cgroups), which
 *    must hold even if every layer below is broken (test/system/sandbox/ proves it with plain Node);
 *  - a judging slot (sandbox-runtime.ts): at most `slots` sandboxed processes at once;
 *  - `node --experimental-permission` with read access to the runner script only: no file
 *    writes, no other reads, no child processes, no workers, no native addons;
 *  - `--max-old-space-size`, a reduced `--stack-size`, and an RSS watchdog here (memory that
 *    lives outside the V8 heap, such as ArrayBuffers, is not bounded by the heap flag);
 *  - `--disallow-code-generation-from-strings`: even a leaked host `Function` cannot compile code;
 *  - an empty environment (no secrets reachable through `process.env`), cwd in the temp dir;
 *  - inside the child, the code runs in a fresh vm context holding only JavaScript built-ins and a
 *    CommonJS shim over the submission's own files (see sandbox-runner.cjs);
 *  - SIGKILL at the time limit, measured from the moment the child reports it is ready: CPU time
 *    of the run's cgroup (a busy machine does not change the verdict), with a wall-clock cap of
 *    twice the limit plus a second for calls that wait instead of computing; wall clock alone
 *    where there is no cgroup (`unsafe-process`, development only).
 * The permission model does not restrict network or signals: those rely on the vm context having
 * no `process`, `require` of built-ins, sockets or `fetch`.
 */
import { randomBytes } from 'node:crypto';
import { readFile, readdir, realpath } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { SandboxUnavailableError } from '../errors';
import { type EncodedValue, parseEncodedValue } from './encoded-value';
import { type SandboxIsolation, defaultLimits } from './os-sandbox';
import { sandboxRuntime } from './sandbox-runtime';

export interface SandboxModule {
  /** Normalised path inside the submission, e.g. `src/solve.ts`. */
  path: string;
  kind: 'js' | 'json';
  /** CommonJS JavaScript (already transpiled) or JSON text. */
  source: string;
}

export interface SandboxRequest {
  modules: readonly SandboxModule[];
  entry: string;
  exportName: string;
  args: readonly unknown[];
  timeoutMs: number;
  memoryMb: number;
  signal?: AbortSignal;
}

/** Several calls of one submission's module, run one after another in one sandboxed process. */
export interface SandboxBatchRequest extends Omit<SandboxRequest, 'exportName' | 'args'> {
  calls: readonly { exportName: string; args: readonly unknown[] }[];
  /** Called as each call's outcome is known (in call order). */
  onResult?: (index: number, result: SandboxResult) => void;
}

interface RunInfo {
  /** Which wall the process ran behind (`bwrap` everywhere but an explicit development fallback). */
  isolation?: SandboxIsolation;
  durationMs: number;
  logs: string;
  logsTruncated: boolean;
}

export type SandboxResult = RunInfo &
  (
    | { status: 'returned'; value: EncodedValue }
    | { status: 'threw' | 'missing_export' | 'unserializable'; message: string }
    | { status: 'timeout' }
    | { status: 'memory_limit' }
    | { status: 'crashed'; reason: string }
  );

export const SANDBOX_LIMITS = {
  /** Node boot is not charged to the test; a child that is not up by then means an overloaded host. */
  startupTimeoutMs: 10_000,
  /** The in-child vm timeout fires first for synchronous loops; this covers everything else. */
  killGraceMs: 250,
  /** How often a call's CPU time is read from the run's cgroup. */
  cpuPollIntervalMs: 10,
  stackSizeKb: 800,
  /** Allowance above the heap limit for the Node runtime itself, before the RSS watchdog kills. */
  rssOverheadMb: 160,
  rssPollIntervalMs: 20,
  maxStdoutBytes: 2 * 1024 * 1024,
  maxStderrTailChars: 4_096,
  maxResultChars: 100_000,
  maxLogChars: 8_000,
  maxMessageChars: 2_000,
  maxValueDepth: 64,
} as const;

let runnerPath: Promise<string> | undefined;
let runnerSource: Promise<string> | undefined;

function resolveRunnerSource(): Promise<string> {
  runnerSource ??= resolveSandboxRunnerPath().then((file) => readFile(file, 'utf8'));
  runnerSource.catch(() => {
    runnerSource = undefined;
  });
  return runnerSource;
}

/** The runner is a plain .cjs file next to this module (copy it along if you bundle/compile). */
export function resolveSandboxRunnerPath(): Promise<string> {
  runnerPath ??= realpath(path.join(__dirname, 'sandbox-runner.cjs')).then((resolved) => {
    // Node 20 splits --allow-fs-read on commas.
    if (resolved.includes(','))
      throw new SandboxUnavailableError(`sandbox runner path contains a comma: ${resolved}`);
    return resolved;
  });
  runnerPath.catch(() => {
    runnerPath = undefined;
  });
  return runnerPath;
}

function permissionFlag(): string {
  const major = Number(process.versions.node.split('.')[0]);
  return major >= 23 ? '--permission' : '--experimental-permission';
}

/** Node flags of a sandbox process (exported so tests can check what they forbid). */
export function sandboxNodeFlags(runner: string, memoryMb: number): string[] {
  return [
    permissionFlag(),
    `--allow-fs-read=${runner}`,
    '--no-addons',
    // Lets the runner give vm code an import() hook that fails inside the submission's realm.
    '--experimental-vm-modules',
    // Host intrinsics frozen: a host object that reached the submission cannot poison them.
    '--frozen-intrinsics',
    `--max-old-space-size=${memoryMb}`,
    `--stack-size=${SANDBOX_LIMITS.stackSizeKb}`,
    '--disallow-code-generation-from-strings',
    '--no-warnings',
  ];
}

const readyLineSchema = z.object({ type: z.literal('ready') }).strict();
const resultLineSchema = z
  .object({ type: z.literal('result'), nonce: z.string(), index: z.number().int(), payload: z.string() })
  .strict();

const logsShape = {
  logs: z
    .string()
    .max(SANDBOX_LIMITS.maxLogChars * 2)
    .default(''),
  logs_truncated: z.boolean().default(false),
};
const messageSchema = z.string().max(SANDBOX_LIMITS.maxMessageChars * 4);
const reportSchema = z.discriminatedUnion('status', [
  z.object({ status: z.literal('returned'), value: z.unknown(), ...logsShape }),
  z.object({ status: z.literal('threw'), message: messageSchema, ...logsShape }),
  z.object({ status: z.literal('missing_export'), message: messageSchema, ...logsShape }),
  z.object({ status: z.literal('unserializable'), message: messageSchema, ...logsShape }),
  z.object({ status: z.literal('timeout'), ...logsShape }),
  z.object({ status: z.literal('runner_error'), message: messageSchema }),
]);

const OUT_OF_MEMORY = /heap out of memory|Reached heap limit|allocation failed/i;

/** Resident set size of a Linux process in MB, undefined when unknown. */
async function residentMemoryMb(pid: number): Promise<number | undefined> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    return match ? Number(match[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** RSS of a process and all its descendants (bwrap → its init → node → anything node started). */
async function treeResidentMemoryMb(pid: number, depth = 0): Promise<number | undefined> {
  const own = await residentMemoryMb(pid);
  if (own === undefined || depth > 8) return own;
  let total = own;
  const tasks = await readdir(`/proc/${pid}/task`).catch(() => [] as string[]);
  for (const task of tasks) {
    const children = await readFile(`/proc/${pid}/task/${task}/children`, 'utf8').catch(() => '');
    for (const child of children.split(' ')) {
      if (child.trim() === '') continue;
      total += (await treeResidentMemoryMb(Number(child), depth + 1)) ?? 0;
    }
  }
  return total;
}

const SIGXCPU_EXIT = 128 + 24;
const SIGKILL_EXIT = 128 + 9;

/**
 * Resolves with the test's outcome for anything the submission does. Rejects only with
 * SandboxUnavailableError (no submitted code ran) or the abort signal's reason.
 */
export async function runInSandbox(request: SandboxRequest): Promise<SandboxResult> {
  return runScriptInSandbox(request, await resolveRunnerSource());
}

/**
 * Runs the calls in as few sandboxed processes as possible: one, unless a call ends its process
 * (memory limit, a time limit the vm could not enforce, a crash); the calls after it then run in
 * a fresh process. Each call gets its own vm context and its own time limit. One process per
 * batch instead of one per call saves a Node boot per test case (bench/sandbox.ts); the judge
 * never puts hidden and visible tests in one batch (tests-judge.ts).
 */
export async function runCallsInSandbox(request: SandboxBatchRequest): Promise<SandboxResult[]> {
  const scriptSource = await resolveRunnerSource();
  const results: SandboxResult[] = [];
  while (results.length < request.calls.length) {
    const done = results.length;
    const partial = await runBatchInSandbox(
      {
        ...request,
        calls: request.calls.slice(done),
        onResult: (index, result) => request.onResult?.(done + index, result),
      },
      scriptSource,
    );
    results.push(...partial);
  }
  return results;
}

/**
 * The parent side of runInSandbox around any script instead of the real harness. The
 * assume-breach suite (test/system/sandbox/) runs hostile programs with it, as if the harness and the vm
 * were already broken; production code always goes through runInSandbox.
 */
export async function runScriptInSandbox(
  request: SandboxRequest,
  scriptSource: string,
): Promise<SandboxResult> {
  const { exportName, args, ...rest } = request;
  const [result] = await runBatchInSandbox({ ...rest, calls: [{ exportName, args }] }, scriptSource);
  return result;
}

/** One sandboxed process over the calls: their results in order, at least one (the last may be how the process ended). */
async function runBatchInSandbox(
  request: SandboxBatchRequest,
  scriptSource: string,
): Promise<SandboxResult[]> {
  request.signal?.throwIfAborted();
  const [runner, runtime] = await Promise.all([resolveSandboxRunnerPath(), sandboxRuntime()]);
  const slot = await runtime.slots.acquire(request.signal);
  try {
    return await runLaunched(request, runtime.launcher, slot.index, runner, scriptSource);
  } finally {
    slot.release();
  }
}

/** The harness's stdin: the run's nonce, its limits, the submission's modules and the calls. */
function harnessInput(request: SandboxBatchRequest, nonce: string, wallLimitMs: number): string {
  return JSON.stringify({
    nonce,
    // The child's own (wall-clock) limit: the cap, when CPU time is counted here.
    timeout_ms: wallLimitMs,
    limits: {
      maxLogChars: SANDBOX_LIMITS.maxLogChars,
      maxResultChars: SANDBOX_LIMITS.maxResultChars,
      maxMessageChars: SANDBOX_LIMITS.maxMessageChars,
      maxDepth: SANDBOX_LIMITS.maxValueDepth,
    },
    modules: request.modules,
    calls: request.calls.map((call) => ({
      entry: request.entry,
      export_name: call.exportName,
      args: call.args,
    })),
  });
}

/** How a run that closed before reporting its last call ends. */
export type CloseOutcome =
  | { kind: 'settle'; status: 'memory_limit' | 'timeout' }
  | { kind: 'crashed'; reason: string }
  | { kind: 'unavailable'; why: string }
  | { kind: 'aborted' };

/**
 * The verdict of a sandbox that closed while a call was running (or before it started), from
 * what the host saw: its own kills, the kernel's (the cgroup's OOM killer, RLIMIT_CPU's SIGXCPU)
 * and the process's exit. Order matters: an abort is nobody's verdict, the kernel's OOM verdict is
 * certain even when our timer fired while the kill was on its way, and a process that never
 * became ready is the wall's failure, not the submission's.
 */
export function closeOutcome(seen: {
  killedFor: 'timeout' | 'memory_limit' | 'output' | 'startup' | 'abort' | undefined;
  oomKilled: boolean;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  ready: boolean;
  stderrTail: string;
}): CloseOutcome {
  const { killedFor, oomKilled, exitCode, signal, ready, stderrTail } = seen;
  if (killedFor === 'abort') return { kind: 'aborted' };
  if (oomKilled && (signal === 'SIGKILL' || exitCode === SIGKILL_EXIT)) {
    return { kind: 'settle', status: 'memory_limit' };
  }
  if (killedFor === 'timeout' || signal === 'SIGXCPU' || (ready && exitCode === SIGXCPU_EXIT)) {
    return { kind: 'settle', status: 'timeout' };
  }
  if (killedFor === 'memory_limit' || OUT_OF_MEMORY.test(stderrTail)) {
    return { kind: 'settle', status: 'memory_limit' };
  }
  if (!ready) {
    return {
      kind: 'unavailable',
      why:
        killedFor === 'startup' ? 'did not start in time' : `exited during startup (${exitCode ?? signal})`,
    };
  }
  return {
    kind: 'crashed',
    reason: `exited unexpectedly (${signal ? `signal ${signal}` : `exit code ${exitCode}`}) without reporting a result`,
  };
}

/**
 * One call's time limit at a time: the CPU time of the run's cgroup, read every
 * `cpuPollIntervalMs` (a call's CPU clock starts at the first reading after it began: one poll
 * interval of slack in the call's favour), and a wall-clock cap for calls that wait instead of
 * computing. Without a cgroup only the wall clock counts.
 */
class CallClock {
  private startedAt: number | undefined;
  /** Counts calls, so that a CPU reading started during one call is not charged to the next. */
  private callNumber = 0;
  private cpuStartMs: number | undefined;
  private reading = false;
  private stopped = false;
  private wallTimer: NodeJS.Timeout | undefined;
  private readonly cpuTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly cpuClock: (() => Promise<number | undefined>) | undefined,
    private readonly limitMs: number,
    private readonly wallLimitMs: number,
    private readonly onTimeout: () => void,
  ) {
    if (cpuClock !== undefined) {
      this.cpuTimer = setInterval(() => this.readCpu(), SANDBOX_LIMITS.cpuPollIntervalMs);
    }
  }

  /** A call starts: the ready line, then each previous result. */
  start(): void {
    this.startedAt = Date.now();
    this.callNumber += 1;
    this.cpuStartMs = undefined;
    clearTimeout(this.wallTimer);
    this.wallTimer = setTimeout(this.onTimeout, this.wallLimitMs + SANDBOX_LIMITS.killGraceMs);
  }

  elapsed(): number {
    return this.startedAt === undefined ? 0 : Date.now() - this.startedAt;
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.wallTimer);
    clearInterval(this.cpuTimer);
  }

  private readCpu(): void {
    if (this.reading || this.startedAt === undefined || this.cpuClock === undefined) return;
    this.reading = true;
    const call = this.callNumber;
    void this.cpuClock().then(
      (cpuMs) => {
        this.reading = false;
        if (cpuMs === undefined || call !== this.callNumber || this.stopped) return;
        if (this.cpuStartMs === undefined) this.cpuStartMs = cpuMs;
        else if (cpuMs - this.cpuStartMs > this.limitMs) this.onTimeout();
      },
      () => {
        this.reading = false;
      },
    );
  }
}

async function runLaunched(
  request: SandboxBatchRequest,
  launcher: Awaited<ReturnType<typeof sandboxRuntime>>['launcher'],
  slotIndex: number,
  runner: string,
  scriptSource: string,
): Promise<SandboxResult[]> {
  const nonce = randomBytes(16).toString('hex');
  const launched = await launcher.launch({
    scriptSource,
    hostScriptPath: runner,
    nodeFlags: (scriptPath) => sandboxNodeFlags(scriptPath, request.memoryMb),
    // CPU seconds cover every call of the batch (each still has its own limit).
    limits: defaultLimits(request.memoryMb, request.timeoutMs * request.calls.length),
    slot: slotIndex,
  });
  const cpuClock = launched.cpuTimeMs;
  const wallLimitMs = callWallLimitMs(request.timeoutMs, cpuClock !== undefined);
  const input = harnessInput(request, nonce, wallLimitMs);

  const isolation = launched.isolation;
  const { child } = launched;
  // Once bwrap is gone the run is over: its cgroup's verdicts are read and every process left in
  // it is killed. That must not wait for 'close': a leftover holding the pipes open would keep
  // the run (and its slot) forever.
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let finishing: Promise<{ oomKilled: boolean }> | undefined;
  const finished = () => (finishing ??= exited.then(() => launched.finish()));
  void finished();
  try {
    return await new Promise<SandboxResult[]>((resolve, reject) => {
      let settled = false;
      let readyAt: number | undefined;
      const results: SandboxResult[] = [];
      let killedFor: 'timeout' | 'memory_limit' | 'output' | 'startup' | 'abort' | undefined;
      let stdoutBytes = 0;
      let pendingLine = '';
      let stderrTail = '';
      let rssCheckRunning = false;
      const rssLimitMb = request.memoryMb + SANDBOX_LIMITS.rssOverheadMb;

      const elapsed = () => clock.elapsed();
      const noLogs = { isolation, logs: '', logsTruncated: false };

      const kill = (reason: NonNullable<typeof killedFor>) => {
        killedFor ??= reason;
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      };

      const startupTimer = setTimeout(() => kill('startup'), SANDBOX_LIMITS.startupTimeoutMs);
      const clock = new CallClock(cpuClock, request.timeoutMs, wallLimitMs, () => kill('timeout'));
      // Without a memory cgroup, memory outside the V8 heap is watched from here.
      const rssTimer =
        process.platform === 'linux' && !launched.memoryBoundedByKernel
          ? setInterval(() => {
              if (rssCheckRunning || child.pid === undefined) return;
              rssCheckRunning = true;
              void treeResidentMemoryMb(child.pid).then((rss) => {
                rssCheckRunning = false;
                if (rss !== undefined && rss > rssLimitMb) kill('memory_limit');
              });
            }, SANDBOX_LIMITS.rssPollIntervalMs)
          : undefined;

      const onAbort = () => kill('abort');
      request.signal?.addEventListener('abort', onAbort, { once: true });
      // Aborted while the sandbox was being launched: the listener above will never fire.
      if (request.signal?.aborted) onAbort();

      const cleanUp = () => {
        clearTimeout(startupTimer);
        clock.stop();
        clearInterval(rssTimer);
        request.signal?.removeEventListener('abort', onAbort);
      };

      const startCall = () => {
        // The output cap is per call: what is already buffered belongs to the next one.
        stdoutBytes = Buffer.byteLength(pendingLine);
        clock.start();
      };

      const record = (result: SandboxResult) => {
        results.push(result);
        request.onResult?.(results.length - 1, result);
      };

      /** The current call ends with `result`, and so does this process. */
      const settle = (result: SandboxResult) => {
        if (settled) return;
        settled = true;
        cleanUp();
        kill('output'); // no-op when the child already exited; reaps a lingering one
        record(result);
        resolve(results);
      };

      const fail = (error: unknown) => {
        if (settled) return;
        settled = true;
        cleanUp();
        kill('abort');
        reject(error);
      };

      const crashed = (reason: string) =>
        settle({ status: 'crashed', reason, durationMs: elapsed(), ...noLogs });

      const handleLine = (line: string) => {
        let message: unknown;
        try {
          message = JSON.parse(line);
        } catch {
          crashed('wrote output that is not part of the sandbox protocol');
          return;
        }
        if (readyAt === undefined) {
          if (!readyLineSchema.safeParse(message).success) {
            crashed('did not start the sandbox protocol');
            return;
          }
          readyAt = Date.now();
          clearTimeout(startupTimer);
          startCall();
          return;
        }
        const envelope = resultLineSchema.safeParse(message);
        if (!envelope.success || envelope.data.nonce !== nonce || envelope.data.index !== results.length) {
          crashed('reported a result that is not part of the sandbox protocol');
          return;
        }
        const result: SandboxResult = { ...interpretReport(envelope.data.payload, elapsed()), isolation };
        if (results.length + 1 === request.calls.length) {
          settle(result);
          return;
        }
        record(result);
        startCall();
      };

      child.stdout.setEncoding('utf8');
      child.stdout.on('data', (chunk: string) => {
        if (settled) return;
        stdoutBytes += Buffer.byteLength(chunk);
        if (stdoutBytes > SANDBOX_LIMITS.maxStdoutBytes) {
          kill('output');
          crashed(`wrote more than ${SANDBOX_LIMITS.maxStdoutBytes} bytes of output`);
          return;
        }
        pendingLine += chunk;
        let newline = pendingLine.indexOf('\n');
        while (newline >= 0 && !settled) {
          const line = pendingLine.slice(0, newline);
          pendingLine = pendingLine.slice(newline + 1);
          handleLine(line);
          newline = pendingLine.indexOf('\n');
        }
      });

      child.stderr.setEncoding('utf8');
      child.stderr.on('data', (chunk: string) => {
        stderrTail = (stderrTail + chunk).slice(-SANDBOX_LIMITS.maxStderrTailChars);
      });

      // The child may die before reading its input; a broken pipe is reported through 'close'.
      child.stdin.on('error', () => {});
      child.stdin.end(input);

      child.on('error', (error) => {
        fail(
          new SandboxUnavailableError(`could not start the sandbox process: ${error.message}`, {
            cause: error,
          }),
        );
      });

      const onClose = async (exitCode: number | null, signal: NodeJS.Signals | null) => {
        if (settled) return;
        const durationMs = elapsed();
        // The kernel's verdicts: the cgroup's OOM killer, or RLIMIT_CPU (SIGXCPU, then SIGKILL).
        const { oomKilled } = await finished();
        if (settled) return;
        const outcome = closeOutcome({
          killedFor,
          oomKilled,
          exitCode,
          signal,
          ready: readyAt !== undefined,
          stderrTail,
        });
        switch (outcome.kind) {
          case 'aborted':
            return fail(request.signal?.reason ?? new Error('aborted'));
          case 'settle':
            return settle({ status: outcome.status, durationMs, ...noLogs });
          case 'unavailable':
            return fail(
              new SandboxUnavailableError(`sandbox process ${outcome.why}: ${stderrTail.trim().slice(-500)}`),
            );
          case 'crashed':
            return crashed(outcome.reason);
        }
      };
      // 'close' ignores what its listener returns: should reading the cgroup's verdicts fail, the run
      // fails with that error (not an unhandled rejection and a run that never settles).
      child.on('close', (exitCode, signal) => {
        onClose(exitCode, signal).catch(fail);
      });
    });
  } finally {
    await finished();
  }
}

function interpretReport(payload: string, durationMs: number): SandboxResult {
  const crashed = (reason: string): SandboxResult => ({
    status: 'crashed',
    reason,
    durationMs,
    logs: '',
    logsTruncated: false,
  });
  let raw: unknown;
  try {
    raw = JSON.parse(payload);
  } catch {
    return crashed('reported a result that is not JSON');
  }
  const parsed = reportSchema.safeParse(raw);
  if (!parsed.success) return crashed('reported a malformed result');
  const report = parsed.data;
  if (report.status === 'runner_error') return crashed(`failed inside the test harness: ${report.message}`);
  const info = { durationMs, logs: report.logs, logsTruncated: report.logs_truncated };
  switch (report.status) {
    case 'returned': {
      const value = parseEncodedValue(report.value);
      return value === null
        ? crashed('reported a malformed return value')
        : { status: 'returned', value, ...info };
    }
    case 'timeout':
      return { status: 'timeout', ...info };
    default:
      return { status: report.status, message: report.message, ...info };
  }
}

/**
 * A call's wall-clock limit: its time limit where that is wall clock (no cgroup to read CPU time
 * from), else a cap for calls that wait rather than compute (DESIGN.md asks the same of programs).
 */
export function callWallLimitMs(timeoutMs: number, countsCpuTime: boolean): number {
  return countsCpuTime ? 2 * timeoutMs + 1_000 : timeoutMs;
}
