/**
 * One long-running native program behind the OS wall that the host talks to while it runs: a
 * game's player (src/judging/games/wall-player.ts). The same wall as every native run
 * (os-sandbox.ts: bwrap, seccomp, its own uid and cgroup) and the same supervisor
 * (native-supervisor.c, the sandbox's PID 1): the supervisor waits for its go byte, then the rest
 * of its stdin is the program's (lines written by the host as turns come), and the program's
 * stdout and stderr come back as frames only the supervisor can write. The host freezes the whole
 * cgroup between turns and reads its CPU time, so a turn's CPU is measured outside the program's
 * reach; kills and wall time are the host's.
 */
import { SandboxUnavailableError } from '../errors';
import {
  GO_BYTE,
  type NativeBind,
  NATIVE_RUN_DEFAULTS,
  type SupervisorReport,
  nativeCommand,
  nativeSupervisor,
  parseReport,
  readFrames,
} from './native-run';
import { type LaunchedProcess, OS_SANDBOX_DEFAULTS } from './os-sandbox';
import { sandboxRuntime } from './sandbox-runtime';

export interface InteractiveRunRequest {
  argv: readonly string[];
  env?: Readonly<Record<string, string>>;
  binds?: readonly NativeBind[];
  /** CPU of the whole run (the supervisor's and the kernel's backstop; turns are the caller's). */
  cpuMs: number;
  /** Wall clock of the whole run, frozen time included (the backstop). */
  wallMs: number;
  memoryMb: number;
  /** stdout of the whole run beyond this ends it. */
  outputBytes: number;
  /** stderr kept. */
  stderrBytes: number;
  /** Another run of the same command follows: taken from the warm pool, the next launched ahead. */
  followed?: boolean;
}

export interface InteractiveEnd {
  /** The supervisor's report (how the program ended), when one came. */
  report: SupervisorReport | undefined;
  /** The frame channel broke its rules (the host killed the run). */
  tampered: boolean;
  oomKilled: boolean;
}

export interface InteractiveRun {
  /** Writes to the program's stdin (the first write sends the go byte first: the program starts). */
  write(text: string): void;
  endInput(): void;
  freeze(frozen: boolean): Promise<void>;
  /** The run's cgroup CPU time so far (every process of the run), ms. */
  cpuTimeMs(): Promise<number>;
  kill(): void;
  /** Resolves once the sandbox is gone (its cgroup emptied). */
  readonly ended: Promise<InteractiveEnd>;
  /** Whether the sandbox is gone. */
  isEnded(): boolean;
}

export interface InteractiveHandlers {
  stdout(chunk: Buffer): void;
  stderr(chunk: Buffer): void;
}

/**
 * Launches the program's sandbox (it waits for its go byte). Rejects with
 * SandboxUnavailableError when the wall cannot run it (no cgroup to freeze, a launch failure).
 * The caller holds a judging slot for it.
 */
export async function startInteractiveNative(
  request: InteractiveRunRequest,
  handlers: InteractiveHandlers,
  slot: number,
): Promise<InteractiveRun> {
  const [supervisor, runtime] = await Promise.all([nativeSupervisor(), sandboxRuntime()]);
  if (runtime.launcher.isolation !== 'bwrap') {
    throw new SandboxUnavailableError('game players run only inside the bwrap sandbox');
  }
  const launched: LaunchedProcess = await runtime.launcher.launch({
    scriptSource: '',
    hostScriptPath: '',
    nodeFlags: () => [],
    slot,
    limits: {
      memoryMb: request.memoryMb,
      cpuSeconds: Math.ceil(request.cpuMs / 1000) + 2,
      maxProcesses: OS_SANDBOX_DEFAULTS.maxProcesses,
      maxOpenFiles: OS_SANDBOX_DEFAULTS.maxOpenFiles,
      maxFileBytes: NATIVE_RUN_DEFAULTS.maxFileBytes,
      workDirBytes: NATIVE_RUN_DEFAULTS.workDirBytes,
    },
    command: nativeCommand(
      {
        argv: request.argv,
        env: request.env,
        binds: request.binds,
        cpuMs: request.cpuMs,
        wallMs: request.wallMs,
        memoryMb: request.memoryMb,
        programAddressSpaceMb: 0,
        outputBytes: request.outputBytes,
        stderrBytes: request.stderrBytes,
      },
      supervisor,
    ),
    ...(request.followed === undefined ? {} : { followed: request.followed }),
  });
  const { child } = launched;
  const freeze = launched.freeze;
  const readCpu = launched.cpuTimeMs;
  if (freeze === undefined || readCpu === undefined) {
    child.kill('SIGKILL');
    await launched.finish();
    throw new SandboxUnavailableError('game players need a cgroup (freezer and CPU accounting)');
  }
  let report: SupervisorReport | undefined;
  let tampered = false;
  let pending: Buffer = Buffer.alloc(0);
  let received = 0;
  let gone = false;
  let goSent = false;
  const frameBudget = request.outputBytes + request.stderrBytes + 64 * 1024;
  const kill = () => {
    if (!gone) child.kill('SIGKILL');
  };
  const breach = () => {
    tampered = true;
    kill();
  };
  let onWaiting: () => void = () => {};
  const waiting = new Promise<void>((resolve) => (onWaiting = resolve));
  child.stdout.on('data', (chunk: Buffer) => {
    received += chunk.length;
    if (received > frameBudget) return breach();
    pending = readFrames(Buffer.concat([pending, chunk]), (kind, data) => {
      if (report !== undefined) return breach(); // exactly one final report
      if (kind === 'W') onWaiting();
      else if (kind === 'S') return;
      else if (kind === 'O') handlers.stdout(Buffer.from(data));
      else if (kind === 'E') handlers.stderr(Buffer.from(data));
      else if (kind === 'R') {
        report = parseReport(data.toString('utf8'));
        if (report === undefined) breach();
      } else breach();
    });
  });
  child.stderr.on('data', () => {}); // bwrap's own messages
  child.stdin.on('error', () => {}); // a program that stopped reading
  const closed = new Promise<{ error?: Error }>((resolve) => {
    child.once('error', (error) => resolve({ error }));
    child.once('close', () => resolve({}));
  });
  const ended = closed.then(async () => {
    gone = true;
    onWaiting();
    const kernel = await launched.finish();
    return { report, tampered, oomKilled: kernel.oomKilled };
  });
  // Ready when the supervisor waits for its go byte (nothing of the program has run yet).
  await waiting;
  if (gone) {
    await ended;
    throw new SandboxUnavailableError('the game player’s sandbox ended before its program started');
  }
  return {
    write(text) {
      if (gone) return;
      if (!goSent) {
        goSent = true;
        child.stdin.write(GO_BYTE);
      }
      child.stdin.write(text);
    },
    endInput() {
      if (!gone) child.stdin.end();
    },
    async freeze(frozen) {
      if (gone) return;
      await freeze(frozen).catch((error: Error) => {
        if (!gone) throw error;
      });
    },
    async cpuTimeMs() {
      return (await readCpu()) ?? 0;
    },
    kill,
    ended,
    isEnded: () => gone,
  };
}
