/**
 * Runs one native command (a compiler, or a submitted program on one test's input) behind the OS
 * wall of os-sandbox.ts, for the `program` judge. This is the judge's only way into the wall.
 *
 * The command runs under native-supervisor.c, the sandbox's PID 1, which starts it, caps its
 * output and reports how it ended through frames only the supervisor can write. What decides a
 * verdict is measured here, outside the program's reach (decideRun): CPU time and peak memory
 * from the run's cgroup, wall time and kills on the host's clock. Each call is a fresh sandbox
 * with a fresh tmpfs work folder, so nothing one test writes is seen by the next; a program's
 * tests take sandboxes the
 * warm pool launched ahead (`followed`), which wait for their input before anything starts. The root holds /usr (the Debian
 * runtimes: /usr/bin/python3, gcc, /usr/lib/go-*, /usr/lib/jvm, node), the loader cache, the
 * JDK's configuration and what the caller binds (the build folder, read-only except while
 * compiling).
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, rename } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { SandboxUnavailableError } from '../errors';
import {
  type FinishedProcess,
  type LaunchedProcess,
  type NativeCommand,
  OS_SANDBOX_DEFAULTS,
} from './os-sandbox';
import { sandboxRuntime } from './sandbox-runtime';
import { wallDeadline, type WallDeadline } from '../wall-deadline';

const execFileAsync = promisify(execFile);

/** The byte the supervisor waits for before it starts the program (native-supervisor.c). */
export const GO_BYTE = Buffer.from('g');

/** Where the supervisor appears inside the sandbox. */
export const SUPERVISOR_PATH = '/sandbox/supervisor';

export interface NativeBind {
  /** Host path. */
  host: string;
  /** Path inside the sandbox. */
  path: string;
  /** Writable (the build folder while compiling); read-only otherwise. */
  writable?: boolean;
}

export interface NativeRunRequest {
  /** argv[0] is an absolute path inside the sandbox. */
  argv: readonly string[];
  env?: Readonly<Record<string, string>>;
  binds?: readonly NativeBind[];
  stdin?: string;
  /** CPU time of the program (all its threads): the time limit. */
  cpuMs: number;
  /** Wall-clock cap (stops sleepers). */
  wallMs: number;
  /** The run's cgroup memory limit (the program's limit plus its runtime's overhead). */
  memoryMb: number;
  /** RLIMIT_AS of the program; 0 = none (runtimes that reserve huge address space). */
  programAddressSpaceMb: number;
  /** stdout beyond this ends the run (limit 'output'). */
  outputBytes: number;
  /** stderr kept (the rest is dropped, the run goes on). */
  stderrBytes: number;
  /** Largest file the run may write, and the size of its tmpfs work folder. */
  maxFileBytes?: number;
  workDirBytes?: number;
  /**
   * Whether another run of the same command, binds and limits follows (the program judge's
   * tests): with true the warm pool launches that run's sandbox now, with false it drops what it
   * kept for them; unset (compiles, probes), the run is launched cold and nothing is kept.
   */
  followed?: boolean;
  signal?: AbortSignal;
}

export interface NativeRunResult {
  exit: { kind: 'exited'; code: number } | { kind: 'signaled'; signal: number };
  /** Which limit ended the run, if any. */
  limit: 'none' | 'cpu' | 'wall' | 'output';
  cpuMs: number;
  wallMs: number;
  /** Peak resident memory of the program (its largest process), KB. */
  memoryKb: number;
  /** The kernel's OOM killer fired in the run's cgroup. */
  oomKilled: boolean;
  /** Decoded for messages (invalid UTF-8 shown as U+FFFD); verdicts and stored excerpts use the bytes. */
  stdout: string;
  stderr: string;
  /** The bytes the program wrote: compared before any decoding (DESIGN, "Whatever a program writes is data"). */
  stdoutBytes: Buffer;
  stderrBytes: Buffer;
}

export const NATIVE_RUN_DEFAULTS = {
  /** Allowance for bwrap and the supervisor to start, over the request's wall cap. */
  launchGraceMs: 3_000,
  /**
   * A run starved of CPU by a busy machine (its threads waiting runnable) gets that much more wall
   * time, up to this many times its wall cap: the wall clock stops sleepers, not slow machines.
   */
  starvedWallFactor: 4,
  maxFileBytes: 64 * 1024 * 1024,
  workDirBytes: 64 * 1024 * 1024,
  /** RLIMIT_AS/DATA of the whole chain (the JVM and Go reserve far more than they use). */
  chainAddressSpaceMb: 16 * 1024,
} as const;

let supervisorPath: Promise<string> | undefined;

/**
 * Compiles the supervisor once per source version into a cache folder (gcc is needed anyway for
 * C and C++; without it no native language is offered).
 */
export function nativeSupervisor(): Promise<string> {
  supervisorPath ??= (async () => {
    const source = path.join(__dirname, 'native-supervisor.c');
    const text = await readFile(source, 'utf8');
    const digest = createHash('sha256').update(text).digest('hex').slice(0, 16);
    const dir = path.join(os.tmpdir(), 'challenge-judge-native', digest);
    const binary = path.join(dir, 'native-supervisor');
    if (existsSync(binary)) return binary;
    await mkdir(dir, { recursive: true, mode: 0o755 });
    await chmod(path.dirname(dir), 0o755);
    await chmod(dir, 0o755);
    const temporary = `${binary}.${process.pid}`;
    try {
      await execFileAsync('/usr/bin/gcc', ['-O2', '-Wall', '-o', temporary, source], { timeout: 60_000 });
    } catch (error) {
      throw new SandboxUnavailableError(
        `cannot build the native supervisor (needs /usr/bin/gcc): ${(error as Error).message.split('\n')[0]}`,
      );
    }
    await chmod(temporary, 0o755);
    await rename(temporary, binary);
    return binary;
  })();
  supervisorPath.catch(() => {
    supervisorPath = undefined;
  });
  return supervisorPath;
}

/** Host paths every native sandbox sees read-only at the same place (when they exist). */
const RUNTIME_PATHS = ['/usr', '/etc/ld.so.cache', '/etc/alternatives', '/etc/java-17-openjdk'];
/** Debian's merged /usr: the usual paths (the ELF interpreter /lib64/ld-linux…, /bin/sh) inside it. */
const MERGED_USR_BINDS = [
  { source: '/usr/bin', target: '/bin' },
  { source: '/usr/lib', target: '/lib' },
  { source: '/usr/lib64', target: '/lib64' },
];

/** The run's command for the wall (os-sandbox.ts builds the rest: /dev, /proc, /work, seccomp). */
export function nativeCommand(request: NativeRunRequest, supervisor: string): NativeCommand {
  const binds = request.binds ?? [];
  return {
    argv: [
      SUPERVISOR_PATH,
      String(request.cpuMs),
      String(request.wallMs),
      String(request.outputBytes),
      String(request.stderrBytes),
      String(request.programAddressSpaceMb * 1024 * 1024),
      '--',
      ...request.argv,
    ],
    readOnlyPaths: RUNTIME_PATHS.filter((hostPath) => existsSync(hostPath)),
    readOnlyBinds: [
      ...MERGED_USR_BINDS.filter((bind) => existsSync(bind.source)),
      { source: supervisor, target: SUPERVISOR_PATH },
      ...binds.filter((bind) => !bind.writable).map((bind) => ({ source: bind.host, target: bind.path })),
    ],
    writableBinds: binds
      .filter((bind) => bind.writable)
      .map((bind) => ({ source: bind.host, target: bind.path })),
    env: request.env ?? {},
    memoryMb: request.memoryMb,
    addressSpaceMb: NATIVE_RUN_DEFAULTS.chainAddressSpaceMb,
  };
}

const REPORT =
  /^status (exited|signaled) code (-?\d+) signal (\d+) cpu_ms (\d+) wall_ms (\d+) maxrss_kb (\d+) limit (none|cpu|wall|output)$/;

/** What the supervisor's one report says (native-supervisor.c); its figures are only a fallback. */
export interface SupervisorReport {
  exit: NativeRunResult['exit'];
  limit: NativeRunResult['limit'];
  cpuMs: number;
  maxrssKb: number;
}

export function parseReport(text: string): SupervisorReport | undefined {
  const parsed = REPORT.exec(text);
  if (parsed === null) return undefined;
  const [, kind, code, signalNumber, cpuMs, , maxrssKb, limit] = parsed;
  return {
    exit:
      kind === 'exited'
        ? { kind: 'exited', code: Number(code) }
        : { kind: 'signaled', signal: Number(signalNumber) },
    limit: limit as NativeRunResult['limit'],
    cpuMs: Number(cpuMs),
    maxrssKb: Number(maxrssKb),
  };
}

/** Splits the supervisor's frames; returns the unconsumed tail. */
export function readFrames(buffer: Buffer, onFrame: (kind: string, data: Buffer) => void): Buffer {
  let offset = 0;
  while (buffer.length - offset >= 5) {
    const length = buffer.readUInt32BE(offset + 1);
    if (buffer.length - offset - 5 < length) break;
    onFrame(String.fromCharCode(buffer[offset]), buffer.subarray(offset + 5, offset + 5 + length));
    offset += 5 + length;
  }
  return buffer.subarray(offset);
}

/** Why the host ended a run itself. */
export type HostKill = 'wall' | 'cpu' | 'abort' | 'protocol';

/** What the host saw of one run, before the kernel's figures are read. */
export interface ObservedRun {
  /** The supervisor started the program ('S' frame): a run that ends after this is judged. */
  started: boolean;
  /** The first report; the only one accepted. */
  report: SupervisorReport | undefined;
  /** Frames after the report, unknown frames, a report that does not parse, or a frame flood. */
  tampered: boolean;
  hostKilled: HostKill | undefined;
  /** From the go byte to the sandbox's end, on the host's clock. */
  wallMs: number;
  /** The run's cgroup CPU time when the go byte was sent (undefined without a cgroup). */
  cpuBaselineMs: number | undefined;
  stdout: string;
  stderr: string;
  /** The bytes behind stdout and stderr (absent: their UTF-8). */
  stdoutBytes?: Buffer;
  stderrBytes?: Buffer;
  /** The sandbox could not be started at all. */
  launchError?: Error;
  /** What bwrap and the launch chain printed (for an infrastructure failure's message). */
  launchErrors: string;
}

/**
 * The verdict figures of a run, decided on the host: CPU time and peak memory from the run's
 * cgroup (every process of the run, reaped or not), wall time and kills from the host. The
 * supervisor's report explains how the program ended and may add a limit; it never lowers a
 * figure or removes a limit the host saw. Throws SandboxUnavailableError when the program never
 * started (nothing was judged).
 */
export function decideRun(
  request: Pick<NativeRunRequest, 'cpuMs'>,
  observed: ObservedRun,
  kernel: FinishedProcess,
): NativeRunResult {
  const { report } = observed;
  if (observed.launchError !== undefined) {
    throw new SandboxUnavailableError(`could not start the native sandbox: ${observed.launchError.message}`);
  }
  if (!observed.started) {
    throw new SandboxUnavailableError(
      `the native sandbox ended before its program started${observed.hostKilled ? ` (${observed.hostKilled})` : ''}: ${observed.launchErrors.trim().slice(-300)}`,
    );
  }
  const cgroupCpuMs =
    kernel.cpuTimeMs === undefined || observed.cpuBaselineMs === undefined
      ? undefined
      : Math.max(0, kernel.cpuTimeMs - observed.cpuBaselineMs);
  // Without a cgroup (never in production) the supervisor's own measure is all there is.
  const cpuMs = cgroupCpuMs ?? report?.cpuMs ?? 0;
  const memoryKb =
    kernel.peakMemoryBytes === undefined ? (report?.maxrssKb ?? 0) : Math.ceil(kernel.peakMemoryBytes / 1024);
  let limit: NativeRunResult['limit'] = 'none';
  if (observed.hostKilled === 'wall') limit = 'wall';
  else if (observed.hostKilled === 'cpu' || cpuMs > request.cpuMs) limit = 'cpu';
  else if (report !== undefined && report.limit !== 'none') limit = report.limit;
  // No report (the supervisor vanished after the start, or the host or the kernel ended the
  // sandbox) or a tampered channel: the program's run ended by a kill, never a clean exit.
  const exit: NativeRunResult['exit'] =
    report === undefined || observed.tampered ? { kind: 'signaled', signal: 9 } : report.exit;
  return {
    exit,
    limit,
    cpuMs,
    wallMs: observed.wallMs,
    memoryKb,
    oomKilled: kernel.oomKilled,
    stdout: observed.stdout,
    stderr: observed.stderr,
    stdoutBytes: observed.stdoutBytes ?? Buffer.from(observed.stdout, 'utf8'),
    stderrBytes: observed.stderrBytes ?? Buffer.from(observed.stderr, 'utf8'),
  };
}

/** How often the host reads the run's cgroup CPU time while it runs. */
const CPU_POLL_MS = 25;

/**
 * Feeds the run its go byte and input once the supervisor waits for them, reads its frames,
 * and ends it from the host at the wall cap, at the CPU limit (cgroup) and on a broken channel.
 */
async function observeRun(launched: LaunchedProcess, request: NativeRunRequest): Promise<ObservedRun> {
  const { child } = launched;
  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  const observed: ObservedRun = {
    started: false,
    report: undefined,
    tampered: false,
    hostKilled: undefined,
    wallMs: 0,
    cpuBaselineMs: undefined,
    stdout: '',
    stderr: '',
    launchErrors: '',
  };
  let pending: Buffer = Buffer.alloc(0);
  let received = 0;
  let goAt: number | undefined;
  let wall: WallDeadline | undefined;
  let cpuTimer: NodeJS.Timeout | undefined;
  const frameBudget = request.outputBytes + request.stderrBytes + 64 * 1024;
  const kill = (why: HostKill) => {
    observed.hostKilled ??= why;
    child.kill('SIGKILL');
  };
  const onAbort = () => kill('abort');
  request.signal?.addEventListener('abort', onAbort, { once: true });

  const go = async () => {
    observed.cpuBaselineMs = await launched.cpuTimeMs?.();
    if (observed.hostKilled !== undefined) return;
    goAt = performance.now();
    const readWaits = launched.runQueueWaits;
    if (readWaits === undefined) {
      const timer = setTimeout(() => kill('wall'), request.wallMs + NATIVE_RUN_DEFAULTS.launchGraceMs);
      wall = { cancel: () => clearTimeout(timer) };
    } else {
      // At the wall cap, the run gets the time its threads waited for a CPU since the start.
      wall = wallDeadline({
        wallMs: request.wallMs,
        maxExtraMs: request.wallMs * NATIVE_RUN_DEFAULTS.starvedWallFactor,
        readWaits,
        onExpire: () => kill('wall'),
      });
    }
    if (launched.cpuTimeMs !== undefined && observed.cpuBaselineMs !== undefined) {
      const baseline = observed.cpuBaselineMs;
      let reading = false;
      cpuTimer = setInterval(() => {
        if (reading) return;
        reading = true;
        void launched.cpuTimeMs!()
          .then((used) => {
            if (used !== undefined && used - baseline > request.cpuMs) kill('cpu');
          })
          .finally(() => (reading = false));
      }, CPU_POLL_MS);
    }
    // The go byte starts the run, then the input follows.
    child.stdin.end(Buffer.concat([GO_BYTE, Buffer.from(request.stdin ?? '', 'utf8')]));
  };

  child.stderr.on('data', (chunk: Buffer) => {
    observed.launchErrors = (observed.launchErrors + chunk.toString('utf8')).slice(-2_000);
  });
  child.stdout.on('data', (chunk: Buffer) => {
    received += chunk.length;
    if (received > frameBudget) {
      observed.tampered = true;
      return kill('protocol');
    }
    pending = readFrames(Buffer.concat([pending, chunk]), (kind, data) => {
      if (observed.report !== undefined) {
        // Exactly one final report: anything after it did not come from the supervisor.
        observed.tampered = true;
        return kill('protocol');
      }
      if (kind === 'W' && goAt === undefined) void go();
      else if (kind === 'S') observed.started = true;
      else if (kind === 'O') stdout.push(Buffer.from(data));
      else if (kind === 'E') stderr.push(Buffer.from(data));
      else if (kind === 'R') {
        observed.report = parseReport(data.toString('utf8'));
        if (observed.report === undefined) {
          observed.tampered = true;
          kill('protocol');
        }
      } else {
        observed.tampered = true;
        kill('protocol');
      }
    });
  });
  child.stdin.on('error', () => {}); // a program that does not read its input
  const ended = await new Promise<{ error?: Error }>((resolve) => {
    child.once('error', (error) => resolve({ error }));
    child.once('close', () => resolve({}));
  });
  wall?.cancel();
  clearInterval(cpuTimer);
  request.signal?.removeEventListener('abort', onAbort);
  observed.wallMs = goAt === undefined ? 0 : Math.round(performance.now() - goAt);
  if (ended.error !== undefined) observed.launchError = ended.error;
  observed.stdoutBytes = Buffer.concat(stdout);
  observed.stderrBytes = Buffer.concat(stderr);
  observed.stdout = observed.stdoutBytes.toString('utf8');
  observed.stderr = observed.stderrBytes.toString('utf8');
  return observed;
}

/**
 * Runs the command in a fresh sandbox on one judging slot. Resolves for anything the program
 * does; rejects with SandboxUnavailableError when the wall itself failed (nothing was judged) or
 * with the abort signal's reason.
 */
export async function runNativeInSandbox(request: NativeRunRequest): Promise<NativeRunResult> {
  request.signal?.throwIfAborted();
  const [supervisor, runtime] = await Promise.all([nativeSupervisor(), sandboxRuntime()]);
  const slot = await runtime.slots.acquire(request.signal);
  try {
    const launched = await runtime.launcher.launch({
      scriptSource: '',
      hostScriptPath: '',
      nodeFlags: () => [],
      slot: slot.index,
      limits: {
        memoryMb: request.memoryMb,
        cpuSeconds: Math.ceil(request.cpuMs / 1000) + 2,
        maxProcesses: OS_SANDBOX_DEFAULTS.maxProcesses,
        maxOpenFiles: OS_SANDBOX_DEFAULTS.maxOpenFiles,
        maxFileBytes: request.maxFileBytes ?? NATIVE_RUN_DEFAULTS.maxFileBytes,
        workDirBytes: request.workDirBytes ?? NATIVE_RUN_DEFAULTS.workDirBytes,
      },
      // The host decides the wall (observeRun, starvation included); the supervisor's is a backstop.
      command: nativeCommand(
        { ...request, wallMs: request.wallMs * (1 + NATIVE_RUN_DEFAULTS.starvedWallFactor) },
        supervisor,
      ),
      ...(request.followed === undefined ? {} : { followed: request.followed }),
    });
    const observed = await observeRun(launched, request);
    const kernel = await launched.finish();
    if (observed.hostKilled === 'abort') throw request.signal?.reason ?? new Error('aborted');
    return decideRun(request, observed, kernel);
  } finally {
    slot.release();
  }
}
