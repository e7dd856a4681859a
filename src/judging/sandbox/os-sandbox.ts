/**
 * The operating-system wall around every process that runs submitted code.
 *
 * A sandboxed process is started as
 *
 *   [sh: join the sandbox's cgroups] → prlimit (rlimits) → [setpriv: a uid of its own] → bwrap → program
 *
 * bubblewrap unshares every namespace (network: a private loopback only; pid: it sees and can
 * signal only itself; ipc, uts, user, cgroup), drops all capabilities, clears the environment,
 * forbids new user namespaces, installs a seccomp allow-list (seccomp/policy.json: no io_uring,
 * ptrace, inotify, bpf, perf, keyctl, userfaultfd, namespaces, or sockets other than AF_UNIX) and
 * builds a read-only root that holds only the program and what it loads, a private /proc, a
 * fixed-size /dev and /dev/shm, and a small private tmpfs work folder.
 * rlimits bound CPU seconds, data and address space, processes, open files and file size; a
 * cgroup of its own (cgroups.ts) bounds memory (tmpfs pages included), pids and CPU bandwidth
 * for the whole tree, and is frozen, killed and checked empty when the run ends.
 *
 * Every sandbox is single-use: its own cgroup, its own host uid (from a block this process holds
 * a lock on, uid-blocks.ts), never reused before its cgroup was seen empty. A warm pool
 * (warm-pool.ts) launches the next sandboxes ahead of time, so launch is off a run's critical path.
 *
 * `unsafe-process` (development only, explicit `JUDGE_SANDBOX=unsafe-process`) skips all of this
 * and runs plain `node` with the permission flags: the inner layers only.
 */
import { type ChildProcessByStdio, execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { accessSync, constants as fsConstants, existsSync, realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { promisify } from 'node:util';
import { SandboxUnavailableError } from '../errors';
import { type CgroupSupport, type RunCgroup, createRunCgroup, detectCgroupSupport } from './cgroups';
import { type UidBlock, claimUidBlock } from './uid-blocks';
import { WarmPool } from './warm-pool';

const execFileAsync = promisify(execFile);

export type SandboxIsolation = 'bwrap' | 'unsafe-process';

/** Where the harness script appears inside the sandbox. */
export const SANDBOX_SCRIPT_PATH = '/sandbox/runner.cjs';
/** The private, writable work folder (cwd) inside the sandbox. */
export const SANDBOX_WORK_DIR = '/work';

/** Limits of one sandboxed process, all enforced by the kernel. */
export interface ProcessLimits {
  /** The judge's memory_mb: V8's heap limit; the other memory limits are derived from it. */
  memoryMb: number;
  cpuSeconds: number;
  /** Tasks (processes and threads) of the run; Node itself uses about a dozen. */
  maxProcesses: number;
  maxOpenFiles: number;
  maxFileBytes: number;
  workDirBytes: number;
}

export const OS_SANDBOX_DEFAULTS = {
  /** Tasks per run (RLIMIT_NPROC of the sandbox's own uid and its cgroup's pids.max). */
  maxProcesses: 64,
  maxOpenFiles: 64,
  maxFileBytes: 1024 * 1024,
  workDirBytes: 16 * 1024 * 1024,
  /** /dev/shm of a sandbox (a tmpfs charged to the sandbox's memory cgroup). */
  shmBytes: 4 * 1024 * 1024,
  /** /dev itself: device nodes and symlinks only, remounted read-only. */
  devBytes: 64 * 1024,
  /** Memory the Node runtime needs beyond the V8 heap (cgroup limit = heap + this). */
  runtimeOverheadMb: 160,
  /** RLIMIT_DATA above the heap: the runtime's own allocations, ArrayBuffers up to this. */
  dataOverheadMb: 256,
  /** V8 reserves (but does not use) address space; Node 20 boots from about 700 MB. */
  addressSpaceOverheadMb: 1536,
  /** CPU bandwidth of one sandbox (cores): a hog with many threads takes one core, not the machine. */
  cpuCores: 1,
  /** First uid of the sandbox users when the worker runs as root. */
  uidBase: 61_000,
  /** Uids per worker process: every sandbox alive at once (slots + warm ones) needs its own. */
  uidsPerProcess: 64,
  uidBlocks: 1000,
  /** Where the uid block locks live (shared by every worker of a host). */
  uidLockDir: '/run/judge-sandbox',
} as const;

type SandboxChild = ChildProcessByStdio<Writable, Readable, Readable>;

/** A program other than the node harness (the `program` judge's compilers and binaries). */
export interface NativeCommand {
  /** argv inside the sandbox; argv[0] is an absolute path that one of the binds makes visible. */
  argv: readonly string[];
  /** Host paths bound read-only at the same path inside (folders or files). */
  readOnlyPaths: readonly string[];
  /** Host paths bound read-only elsewhere inside. */
  readOnlyBinds?: readonly { source: string; target: string }[];
  /** Environment inside (PATH, HOME and TMPDIR are set unless given). */
  env?: Readonly<Record<string, string>>;
  /** Host folders bound writable elsewhere inside (the build folder while compiling). */
  writableBinds?: readonly { source: string; target: string }[];
  /** The cgroup's memory limit, when not the node harness's heap + runtime overhead. */
  memoryMb?: number;
  /** RLIMIT_AS and RLIMIT_DATA of the chain (the JVM and Go reserve far more than they use). */
  addressSpaceMb?: number;
}

export interface LaunchSpec {
  /** Source of the script node runs (read-only at SANDBOX_SCRIPT_PATH inside bwrap). */
  scriptSource: string;
  /** The same script on the host (used by `unsafe-process` only). */
  hostScriptPath: string;
  /** Node flags, given the path at which node will find the script. */
  nodeFlags: (scriptPath: string) => readonly string[];
  limits: ProcessLimits;
  /** Judging slot of the run (kept for callers; every sandbox now has a uid of its own). */
  slot: number;
  /** Runs this instead of node and the script. */
  command?: NativeCommand;
  /**
   * A native command is pooled only when its caller says whether another run with the same spec
   * follows (true: launch its sandbox now; false: drop what was kept for it). The node harness is
   * always pooled.
   */
  followed?: boolean;
}

export interface FinishedProcess {
  /** Whether the cgroup's OOM killer fired. */
  oomKilled: boolean;
  /** CPU time of the whole process tree, from the cgroup (undefined without one). */
  cpuTimeMs?: number;
  /** Peak memory of the whole process tree, from the cgroup (undefined without one). */
  peakMemoryBytes?: number;
}

export interface LaunchedProcess {
  child: SandboxChild;
  isolation: SandboxIsolation;
  /** True when a cgroup bounds the whole tree's memory (no need to watch its RSS from outside). */
  memoryBoundedByKernel: boolean;
  /**
   * CPU time the run's processes have used so far (its cgroup), for limits that must not depend
   * on how busy the machine is; absent without a cgroup.
   */
  cpuTimeMs?: () => Promise<number | undefined>;
  /**
   * After the child closed: what the kernel measured. Every process the run left is killed
   * (cgroup frozen, then SIGKILL); the cgroup is checked empty and removed, and the uid freed,
   * in the background (`SandboxLauncher.settled()` waits for that).
   */
  finish(): Promise<FinishedProcess>;
}

export interface SandboxLauncher {
  readonly isolation: SandboxIsolation;
  /** What this launcher enforces on this machine (logged at worker start, shown in the notes). */
  readonly report: SandboxReport;
  launch(spec: LaunchSpec): Promise<LaunchedProcess>;
  /** Sandboxes to keep launched ahead (the worker sets it to its judging slots). */
  setWarmCapacity(count: number): void;
  /** Resolves once every finished sandbox's cgroup was emptied and removed. */
  settled(): Promise<void>;
  /** Resolves once the warm pool has no launch under way (benchmarks pace their runs with it). */
  warmed(): Promise<void>;
  /** Sandboxes the warm pool holds ready now. */
  warmCount(): number;
  /** Kills the warm sandboxes and waits for every cgroup to be gone. */
  close(): Promise<void>;
}

export interface SandboxReport {
  isolation: SandboxIsolation;
  bwrap?: string;
  /** A dedicated uid per sandbox (worker is root): RLIMIT_NPROC then counts only the run's tasks. */
  uidSwitch: boolean;
  /** The uids this process's sandboxes run under (first, last), when uidSwitch. */
  uids?: [number, number];
  /** The lock file this process holds for its uid block. */
  uidLock?: string;
  cgroup: 'v2' | 'v1' | 'none';
  cgroupNote?: string;
  /** Which limits hold without a cgroup (said at start; production refuses to run that way). */
  limitsWithoutCgroup?: string;
  seccomp: 'allow-list' | 'none';
  libraries: 'ldd' | 'system library folders';
}

export function findOnPath(command: string): string | undefined {
  for (const dir of (process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin').split(':')) {
    if (dir === '') continue;
    const candidate = path.join(dir, command);
    try {
      accessSync(candidate, fsConstants.X_OK);
      return candidate;
    } catch {
      // keep looking
    }
  }
  return undefined;
}

/** Absolute paths of the shared objects the node binary loads, as ldd prints them. */
async function nodeLibraries(nodePath: string): Promise<string[] | undefined> {
  const ldd = findOnPath('ldd');
  if (ldd === undefined) return undefined;
  try {
    const { stdout } = await execFileAsync(ldd, [nodePath], { env: {}, timeout: 10_000 });
    const paths = new Set<string>();
    for (const match of stdout.matchAll(/(\/[^\s()]+)/g)) paths.add(match[1]);
    return [...paths];
  } catch {
    return undefined;
  }
}

const SECCOMP_COMPILER = path.join(__dirname, 'seccomp', 'compile-policy.py');
/** Debian's interpreter at a fixed path: python3-seccomp is installed for it, never for a PATH shim. */
const SYSTEM_PYTHON = '/usr/bin/python3';

/** Compiles the checked-in syscall policy into the BPF program bwrap installs. */
async function compileSeccompPolicy(): Promise<Buffer> {
  try {
    const { stdout } = await execFileAsync(SYSTEM_PYTHON, [SECCOMP_COMPILER], {
      env: {},
      encoding: 'buffer',
      timeout: 20_000,
      maxBuffer: 1024 * 1024,
    });
    // A BPF program is a sequence of 8-byte instructions.
    if (stdout.length === 0 || stdout.length % 8 !== 0) throw new Error(`${stdout.length} bytes`);
    return stdout;
  } catch (error) {
    const detail = (error as { stderr?: Buffer }).stderr?.toString().trim().split('\n').pop();
    throw new SandboxUnavailableError(
      `the seccomp policy could not be compiled (${detail || (error as Error).message}): install the Debian packages python3 and python3-seccomp`,
    );
  }
}

/** File descriptors handed to bwrap: 3 the harness script (node only), 4 the seccomp program. */
const SCRIPT_FD = 3;
const SECCOMP_FD = 4;

/**
 * The bwrap arguments that build the sandbox's filesystem, devices and namespaces (no command yet).
 * `harness`: node and the harness script; `native`: the native supervisor, which runs as the pid
 * namespace's init (`--as-pid-1`) so that no bwrap init, of the program's uid and holding the
 * frame channel, is inside with the program (native-supervisor.c says why).
 */
function bwrapProfile(
  binds: readonly { source: string; target: string; writable?: boolean }[],
  limits: ProcessLimits,
  env: Readonly<Record<string, string>>,
  kind: 'harness' | 'native',
): string[] {
  const args = [
    '--unshare-all',
    ...(kind === 'native' ? ['--as-pid-1'] : []),
    '--unshare-user',
    '--disable-userns',
    '--die-with-parent',
    '--new-session',
    '--cap-drop',
    'ALL',
    '--uid',
    '65534',
    '--gid',
    '65534',
    '--hostname',
    'sandbox',
    '--clearenv',
  ];
  for (const [name, value] of Object.entries(env)) args.push('--setenv', name, value);
  for (const { source, target, writable } of binds)
    args.push(writable ? '--bind' : '--ro-bind', source, target);
  args.push(
    '--proc',
    '/proc',
    // A fixed-size /dev holding only the harmless devices (not bwrap's --dev: an unbounded tmpfs),
    // read-only once populated; /dev/shm is a bounded tmpfs charged to the run's memory cgroup.
    '--perms',
    '0755',
    '--size',
    String(OS_SANDBOX_DEFAULTS.devBytes),
    '--tmpfs',
    '/dev',
  );
  for (const device of ['null', 'zero', 'full', 'random', 'urandom']) {
    args.push('--dev-bind', `/dev/${device}`, `/dev/${device}`);
  }
  args.push(
    '--symlink',
    '/proc/self/fd',
    '/dev/fd',
    '--symlink',
    '/proc/self/fd/0',
    '/dev/stdin',
    '--symlink',
    '/proc/self/fd/1',
    '/dev/stdout',
    '--symlink',
    '/proc/self/fd/2',
    '/dev/stderr',
    '--perms',
    '1777',
    '--size',
    String(OS_SANDBOX_DEFAULTS.shmBytes),
    '--tmpfs',
    '/dev/shm',
    '--remount-ro',
    '/dev',
    '--size',
    String(limits.workDirBytes),
    '--tmpfs',
    SANDBOX_WORK_DIR,
    '--chdir',
    SANDBOX_WORK_DIR,
  );
  if (kind === 'harness') {
    // The harness script, copied into a read-only file inside the sandbox from a pipe.
    args.push('--perms', '0444', '--ro-bind-data', String(SCRIPT_FD), SANDBOX_SCRIPT_PATH);
  }
  args.push('--remount-ro', '/', '--seccomp', String(SECCOMP_FD));
  return args;
}

function mb(value: number): number {
  return Math.ceil(value) * 1024 * 1024;
}

function prlimitArgs(limits: ProcessLimits, applyNproc: boolean, native?: NativeCommand): string[] {
  const args = [
    `--cpu=${limits.cpuSeconds}:${limits.cpuSeconds + 1}`,
    `--data=${mb(native?.addressSpaceMb ?? limits.memoryMb + OS_SANDBOX_DEFAULTS.dataOverheadMb)}`,
    `--as=${mb(native?.addressSpaceMb ?? limits.memoryMb + OS_SANDBOX_DEFAULTS.addressSpaceOverheadMb)}`,
    `--nofile=${limits.maxOpenFiles}`,
    `--fsize=${limits.maxFileBytes}`,
    '--core=0',
  ];
  if (applyNproc) args.push(`--nproc=${limits.maxProcesses}`);
  return args;
}

/** Joins the cgroups listed before `--` (by writing its own pid), then execs the rest. */
const JOIN_CGROUPS = 'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift; exec "$@"';

interface BwrapTools {
  bwrap: string;
  prlimit: string;
  setpriv: string | undefined;
  sh: string;
  nodePath: string;
  libraries: string[] | undefined;
  cgroups: CgroupSupport;
  seccomp: Buffer;
  uidBlock: UidBlock | undefined;
}

const DEFAULT_ENV = { PATH: '/usr/bin', HOME: SANDBOX_WORK_DIR, TMPDIR: SANDBOX_WORK_DIR } as const;

/** The uids of this process's block: a uid goes back only once its last sandbox's cgroup was empty. */
class UidPool {
  private readonly free: number[];

  constructor(block: UidBlock) {
    this.free = Array.from({ length: block.size }, (_, i) => block.first + block.size - 1 - i);
  }

  take(): number {
    const uid = this.free.pop();
    if (uid === undefined) {
      throw new SandboxUnavailableError('no free sandbox uid in this worker (all busy or quarantined)');
    }
    return uid;
  }

  give(uid: number): void {
    this.free.unshift(uid);
  }
}

class BwrapLauncher implements SandboxLauncher {
  readonly isolation = 'bwrap' as const;
  readonly report: SandboxReport;
  private readonly uids: UidPool | undefined;
  private readonly cleanups = new Set<Promise<void>>();
  private readonly pool: WarmPool<LaunchedProcess, LaunchSpec>;

  constructor(private readonly tools: BwrapTools) {
    const { uidBlock } = tools;
    this.uids = uidBlock === undefined ? undefined : new UidPool(uidBlock);
    this.report = {
      isolation: 'bwrap',
      bwrap: tools.bwrap,
      uidSwitch: uidBlock !== undefined,
      ...(uidBlock !== undefined
        ? {
            uids: [uidBlock.first, uidBlock.first + uidBlock.size - 1] as [number, number],
            uidLock: uidBlock.lockFile,
          }
        : {}),
      cgroup: tools.cgroups.version,
      ...(tools.cgroups.version === 'none'
        ? {
            cgroupNote: tools.cgroups.reason,
            limitsWithoutCgroup:
              'rlimits per process only (CPU seconds, data, address space, files, file size' +
              (uidBlock !== undefined ? ', tasks per uid' : '') +
              '); no bound on the tree’s memory, no CPU share, leftovers killed only with the pid namespace',
          }
        : {}),
      seccomp: 'allow-list',
      libraries: tools.libraries === undefined ? 'system library folders' : 'ldd',
    };
    this.pool = new WarmPool<LaunchedProcess, LaunchSpec>({
      launch: (spec) => this.launchCold(spec),
      discard: (launched) => {
        launched.child.kill('SIGKILL');
        void launched.finish();
      },
      isAlive: (launched) => launched.child.exitCode === null && launched.child.signalCode === null,
      park: (launched) => setReferenced(launched.child, false),
      unpark: (launched) => setReferenced(launched.child, true),
    });
  }

  setWarmCapacity(count: number): void {
    this.pool.setCapacity(count);
  }

  /** The full argv of one sandboxed process. */
  private command(spec: LaunchSpec, cgroup: RunCgroup | undefined, uid: number | undefined) {
    const { tools } = this;
    const native = spec.command;
    const binds: { source: string; target: string; writable?: boolean }[] = [];
    let program: string[];
    if (native === undefined) {
      binds.push({ source: tools.nodePath, target: tools.nodePath });
      if (tools.libraries !== undefined) {
        for (const library of tools.libraries) binds.push({ source: realpathSync(library), target: library });
      } else {
        for (const dir of ['/lib', '/lib64', '/usr/lib', '/usr/lib64']) {
          if (existsSync(dir)) binds.push({ source: dir, target: dir });
        }
      }
      program = [tools.nodePath, ...spec.nodeFlags(SANDBOX_SCRIPT_PATH), SANDBOX_SCRIPT_PATH];
    } else {
      for (const hostPath of native.readOnlyPaths) binds.push({ source: hostPath, target: hostPath });
      binds.push(...(native.readOnlyBinds ?? []));
      for (const bind of native.writableBinds ?? []) binds.push({ ...bind, writable: true });
      program = [...native.argv];
    }
    const env = { ...DEFAULT_ENV, ...(native?.env ?? {}) };
    const inner = [
      tools.bwrap,
      ...bwrapProfile(binds, spec.limits, env, native === undefined ? 'harness' : 'native'),
      '--',
      ...program,
    ];
    const asUser =
      uid === undefined || tools.setpriv === undefined
        ? inner
        : [
            tools.setpriv,
            `--reuid=${uid}`,
            `--regid=${uid}`,
            '--clear-groups',
            '--inh-caps=-all',
            '--no-new-privs',
            '--',
            ...inner,
          ];
    const limited = [tools.prlimit, ...prlimitArgs(spec.limits, uid !== undefined, native), '--', ...asUser];
    if (cgroup === undefined) return { file: limited[0], args: limited.slice(1) };
    return { file: tools.sh, args: ['-c', JOIN_CGROUPS, 'sh', ...cgroup.procsFiles, '--', ...limited] };
  }

  async launch(spec: LaunchSpec): Promise<LaunchedProcess> {
    // Pooled by everything that shapes the process (script or command, binds, flags, limits).
    if (spec.command !== undefined && spec.followed === undefined) return this.launchCold(spec);
    return this.pool.take(poolKey(spec), spec, { refill: spec.followed ?? true });
  }

  private async launchCold(spec: LaunchSpec): Promise<LaunchedProcess> {
    const uid = this.uids?.take();
    let cgroup: RunCgroup | undefined;
    try {
      cgroup = await createRunCgroup(this.tools.cgroups, {
        memoryBytes: mb(
          spec.command?.memoryMb ?? spec.limits.memoryMb + OS_SANDBOX_DEFAULTS.runtimeOverheadMb,
        ),
        maxProcesses: spec.limits.maxProcesses,
        cpuCores: OS_SANDBOX_DEFAULTS.cpuCores,
      });
    } catch (error) {
      if (uid !== undefined) this.uids?.give(uid);
      throw new SandboxUnavailableError(`could not create the sandbox's cgroup: ${(error as Error).message}`);
    }
    const { file, args } = this.command(spec, cgroup, uid);
    const child = spawn(file, args, {
      // Nothing of the worker's environment (database URL, secrets) reaches even bwrap itself.
      env: {},
      cwd: '/',
      stdio: ['pipe', 'pipe', 'pipe', 'pipe', 'pipe'],
      windowsHide: true,
    }) as unknown as SandboxChild;
    const extra = (child as unknown as { stdio: (Writable | null)[] }).stdio;
    for (const [fd, data] of [
      [SCRIPT_FD, spec.command === undefined ? spec.scriptSource : ''],
      [SECCOMP_FD, this.tools.seccomp],
    ] as const) {
      extra[fd]?.on('error', () => {}); // bwrap gone before reading: reported through 'close'
      extra[fd]?.end(data);
    }
    let finished: Promise<FinishedProcess> | undefined;
    const finish = async (): Promise<FinishedProcess> => {
      if (cgroup === undefined) return { oomKilled: false };
      const [oomKilled, cpuTimeMs, peakMemoryBytes] = await Promise.all([
        cgroup.oomKilled(),
        cgroup.cpuTimeMs(),
        cgroup.peakMemoryBytes(),
      ]);
      this.track(
        cgroup.destroy().then(
          () => {
            if (uid !== undefined) this.uids?.give(uid);
          },
          () => {
            // Not seen empty: the uid stays out of use for the life of this process.
          },
        ),
      );
      return { oomKilled, cpuTimeMs, peakMemoryBytes };
    };
    if (cgroup === undefined && uid !== undefined) {
      // Without a cgroup the pid namespace's teardown is the only cleanup; the uid returns when
      // bwrap (the namespace's parent) is gone.
      child.once('close', () => this.uids?.give(uid));
    }
    return {
      child,
      isolation: 'bwrap',
      memoryBoundedByKernel: cgroup !== undefined,
      ...(cgroup === undefined ? {} : { cpuTimeMs: () => cgroup.cpuTimeMs() }),
      finish: () => (finished ??= finish()),
    };
  }

  private track(cleanup: Promise<void>): void {
    this.cleanups.add(cleanup);
    void cleanup.finally(() => this.cleanups.delete(cleanup));
  }

  warmed(): Promise<void> {
    return this.pool.idle();
  }

  warmCount(): number {
    return this.pool.parkedCount();
  }

  async settled(): Promise<void> {
    while (this.cleanups.size > 0) await Promise.all([...this.cleanups]);
  }

  async close(): Promise<void> {
    this.pool.close();
    await this.settled();
  }
}

/** Parked (warm) sandboxes must not keep the process alive; a taken one must. */
function setReferenced(child: SandboxChild, referenced: boolean): void {
  const handles = [child, ...(child as unknown as { stdio: unknown[] }).stdio] as {
    ref?: () => void;
    unref?: () => void;
  }[];
  for (const handle of handles) {
    if (handle === null || handle === undefined) continue;
    if (referenced) handle.ref?.();
    else handle.unref?.();
  }
}

const scriptDigests = new Map<string, string>();

function poolKey(spec: LaunchSpec): string {
  if (spec.command !== undefined) return JSON.stringify(['native', spec.command, spec.limits]);
  let digest = scriptDigests.get(spec.scriptSource);
  if (digest === undefined) {
    digest = createHash('sha256').update(spec.scriptSource).digest('hex');
    if (scriptDigests.size > 16) scriptDigests.clear();
    scriptDigests.set(spec.scriptSource, digest);
  }
  return JSON.stringify([digest, spec.nodeFlags(SANDBOX_SCRIPT_PATH), spec.limits]);
}

class UnsafeProcessLauncher implements SandboxLauncher {
  readonly isolation = 'unsafe-process' as const;
  readonly report: SandboxReport = {
    isolation: 'unsafe-process',
    uidSwitch: false,
    cgroup: 'none',
    cgroupNote: 'JUDGE_SANDBOX=unsafe-process: no OS sandbox',
    seccomp: 'none',
    libraries: 'system library folders',
  };

  async launch(spec: LaunchSpec): Promise<LaunchedProcess> {
    if (spec.command !== undefined) {
      throw new SandboxUnavailableError('native programs run only inside the bwrap sandbox');
    }
    const child = spawn(process.execPath, [...spec.nodeFlags(spec.hostScriptPath), spec.hostScriptPath], {
      env: {},
      cwd: os.tmpdir(),
      stdio: ['pipe', 'pipe', 'pipe'],
      windowsHide: true,
    });
    return {
      child,
      isolation: 'unsafe-process',
      memoryBoundedByKernel: false,
      finish: async () => ({ oomKilled: false }),
    };
  }

  setWarmCapacity(): void {}

  async settled(): Promise<void> {}

  async warmed(): Promise<void> {}

  warmCount(): number {
    return 0;
  }

  async close(): Promise<void> {}
}

export interface OsSandboxOptions {
  /** bwrap binary; found on PATH when not given. */
  bwrapPath?: string;
  uidBase?: number;
  /** Folder of the uid block locks, shared by every worker on the host. */
  uidLockDir?: string;
  /** Parent cgroup for v2 run groups (default: a `judge-sandbox` child of this process's group). */
  cgroupParent?: string;
}

const INSTALL_HINT =
  'install the Debian package bubblewrap (apt-get install bubblewrap) or set JUDGE_BWRAP_PATH';

/**
 * Resolves the tools of the bwrap launcher and proves on this machine that a process inside
 * really is walled off (private network, unprivileged uid, minimal root, seccomp). Throws
 * SandboxUnavailableError with a one-line reason when anything is missing.
 */
export async function createBwrapLauncher(options: OsSandboxOptions = {}): Promise<SandboxLauncher> {
  if (process.platform !== 'linux') throw new SandboxUnavailableError('the OS sandbox needs Linux');
  const bwrap = options.bwrapPath ?? findOnPath('bwrap');
  if (bwrap === undefined || !existsSync(bwrap)) {
    throw new SandboxUnavailableError(
      `bwrap not found${options.bwrapPath ? ` at ${options.bwrapPath}` : ' on PATH'}: ${INSTALL_HINT}`,
    );
  }
  const prlimit = findOnPath('prlimit');
  if (prlimit === undefined) throw new SandboxUnavailableError('prlimit not found: install util-linux');
  const sh = findOnPath('sh') ?? '/bin/sh';
  const isRoot = process.getuid?.() === 0;
  const setpriv = isRoot ? findOnPath('setpriv') : undefined;
  const flock = isRoot ? findOnPath('flock') : undefined;
  if (isRoot && (setpriv === undefined || flock === undefined)) {
    throw new SandboxUnavailableError(
      'setpriv or flock not found (needed to run sandboxes under uids of their own): install util-linux',
    );
  }
  const nodePath = realpathSync(process.execPath);
  const [libraries, cgroups, seccomp, uidBlock] = await Promise.all([
    nodeLibraries(nodePath),
    detectCgroupSupport(options.cgroupParent),
    compileSeccompPolicy(),
    isRoot && flock !== undefined
      ? claimUidBlock({
          flock,
          lockDir: options.uidLockDir ?? OS_SANDBOX_DEFAULTS.uidLockDir,
          uidBase: options.uidBase ?? OS_SANDBOX_DEFAULTS.uidBase,
          blockSize: OS_SANDBOX_DEFAULTS.uidsPerProcess,
          blocks: OS_SANDBOX_DEFAULTS.uidBlocks,
        })
      : undefined,
  ]);
  const launcher = new BwrapLauncher({
    bwrap,
    prlimit,
    setpriv,
    sh,
    nodePath,
    libraries,
    cgroups,
    seccomp,
    uidBlock,
  });
  await selfCheck(launcher);
  return launcher;
}

export function createUnsafeProcessLauncher(): SandboxLauncher {
  return new UnsafeProcessLauncher();
}

/** Runs a probe inside the sandbox and checks the walls it must see. */
async function selfCheck(launcher: SandboxLauncher): Promise<void> {
  const probe = `
    const fs = require('fs');
    const status = fs.readFileSync('/proc/self/status', 'utf8');
    const interfaces = fs.readFileSync('/proc/self/net/dev', 'utf8').split('\\n').slice(2)
      .map((line) => line.split(':')[0].trim()).filter(Boolean);
    let socket = 'allowed';
    try { require('net').createServer().listen(0, '127.0.0.1').on('error', (e) => { socket = e.code; }); } catch (e) { socket = e.code; }
    setTimeout(() => {
      const report = { uid: process.getuid(), interfaces, root: fs.readdirSync('/').sort(),
        seccomp: /^Seccomp:\\s+(\\d)/m.exec(status)[1], socket };
      process.stdout.write(JSON.stringify(report) + '\\n');
    }, 20);`;
  const launched = await launcher.launch({
    scriptSource: probe,
    hostScriptPath: '',
    nodeFlags: () => [],
    limits: { ...defaultLimits(64), cpuSeconds: 5 },
    slot: 0,
  });
  const { child } = launched;
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdin.end();
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  const exit = await new Promise<number | string | null>((resolve) => {
    child.on('error', (error) => resolve(error.message));
    child.on('close', (code, signal) => resolve(code ?? signal));
  });
  clearTimeout(timer);
  await launched.finish();
  const why = (text: string) =>
    new SandboxUnavailableError(
      `the bwrap sandbox does not work here: ${text.replace(/\s+/g, ' ').trim().slice(0, 300)}`,
    );
  if (exit !== 0) throw why(`probe exited with ${exit}: ${stderr || stdout}`);
  let report: { uid: number; interfaces: string[]; root: string[]; seccomp: string; socket: string };
  try {
    report = JSON.parse(stdout);
  } catch {
    throw why(`probe printed ${stdout}`);
  }
  if (report.uid === 0) throw why('the probe ran as root');
  if (report.interfaces.some((name) => name !== 'lo'))
    throw why(`network interfaces visible: ${report.interfaces.join(', ')}`);
  if (report.seccomp !== '2') throw why('no seccomp filter on the probe');
  if (report.socket !== 'EPERM') throw why(`an AF_INET socket was not refused (${report.socket})`);
  const unexpected = report.root.filter(
    (entry) => !['dev', 'lib', 'lib64', 'proc', 'sandbox', 'usr', 'work'].includes(entry),
  );
  if (unexpected.length > 0) throw why(`unexpected entries in the sandbox root: ${unexpected.join(', ')}`);
}

/** OS limits of one test-case process with the judge's memory and time limits. */
export function defaultLimits(memoryMb: number, timeoutMs = 2_000): ProcessLimits {
  return {
    memoryMb,
    // CPU time across all threads: the wall-clock limit plus Node's boot, rounded up.
    cpuSeconds: Math.ceil(timeoutMs / 1000) + 2,
    maxProcesses: OS_SANDBOX_DEFAULTS.maxProcesses,
    maxOpenFiles: OS_SANDBOX_DEFAULTS.maxOpenFiles,
    maxFileBytes: OS_SANDBOX_DEFAULTS.maxFileBytes,
    workDirBytes: OS_SANDBOX_DEFAULTS.workDirBytes,
  };
}
