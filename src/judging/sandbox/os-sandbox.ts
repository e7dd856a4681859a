/**
 * The operating-system wall around every process that runs submitted code (the `tests` judge).
 *
 * A sandboxed process is started as
 *
 *   [sh: join the run's cgroups] → prlimit (rlimits) → [setpriv: a uid of its own] → bwrap → node
 *
 * bubblewrap unshares every namespace (network: a private loopback only; pid: it sees and can
 * signal only itself; ipc, uts, user, cgroup), drops all capabilities, clears the environment,
 * forbids new user namespaces and builds a root that holds only the node binary, the libraries
 * it loads (from `ldd`), the harness script (copied in from a pipe, so no host path is needed),
 * a private /proc and /dev, and a small private tmpfs work folder; the root is read-only.
 * rlimits bound CPU seconds, data and address space, processes, open files and file size;
 * a per-run cgroup (v2, or a v1 hybrid) bounds memory and pids for the whole tree.
 *
 * `unsafe-process` (development only, explicit `JUDGE_SANDBOX=unsafe-process`) skips all of this
 * and runs plain `node` with the permission flags: the inner layers only.
 */
import { type ChildProcessByStdio, execFile, spawn } from 'node:child_process';
import { accessSync, constants as fsConstants, existsSync, realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { promisify } from 'node:util';
import { SandboxUnavailableError } from '../errors';
import { type CgroupSupport, type RunCgroup, createRunCgroup, detectCgroupSupport } from './cgroups';

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
  /**
   * Tasks per run (RLIMIT_NPROC of the slot's uid and the slot cgroup's pids.max). Node needs about
   * a dozen; tasks of the slot's previous run can take a second or two to leave the kernel's count,
   * and Node 20 hangs at startup (not fails) when it cannot start its platform threads.
   */
  maxProcesses: 64,
  /** A run waits (up to 2 s) until the slot's leftover tasks are down to this, keeping headroom. */
  leftoverTasksBeforeLaunch: 16,
  maxOpenFiles: 64,
  maxFileBytes: 1024 * 1024,
  workDirBytes: 16 * 1024 * 1024,
  /** Memory the Node runtime needs beyond the V8 heap (cgroup limit = heap + this). */
  runtimeOverheadMb: 160,
  /** RLIMIT_DATA above the heap: the runtime's own allocations, ArrayBuffers up to this. */
  dataOverheadMb: 256,
  /** V8 reserves (but does not use) address space; Node 20 boots from about 700 MB. */
  addressSpaceOverheadMb: 1536,
  /** First uid of the per-slot sandbox users when the worker runs as root. */
  uidBase: 61_000,
  /**
   * Each process takes its own block of uids (by pid), so the sandboxes of two workers on one host
   * (or two test processes) never share a uid, and RLIMIT_NPROC never counts another's tasks.
   */
  uidsPerProcess: 64,
  uidBlocks: 1000,
} as const;

type SandboxChild = ChildProcessByStdio<Writable, Readable, Readable>;

export interface LaunchSpec {
  /** Source of the script node runs (read-only at SANDBOX_SCRIPT_PATH inside bwrap). */
  scriptSource: string;
  /** The same script on the host (used by `unsafe-process` only). */
  hostScriptPath: string;
  /** Node flags, given the path at which node will find the script. */
  nodeFlags: (scriptPath: string) => readonly string[];
  limits: ProcessLimits;
  /** Slot index from the worker's judging slots: concurrent runs get distinct uids. */
  slot: number;
}

export interface LaunchedProcess {
  child: SandboxChild;
  isolation: SandboxIsolation;
  /** True when a cgroup bounds the whole tree's memory (no need to watch its RSS from outside). */
  memoryBoundedByKernel: boolean;
  /**
   * After the child closed: whether the cgroup's OOM killer fired. Removes the cgroup in the
   * background (the kernel tears the pid namespace down asynchronously; nobody waits for that).
   */
  finish(): Promise<{ oomKilled: boolean }>;
}

export interface SandboxLauncher {
  readonly isolation: SandboxIsolation;
  /** What this launcher enforces on this machine (logged at worker start, shown in the notes). */
  readonly report: SandboxReport;
  launch(spec: LaunchSpec): Promise<LaunchedProcess>;
}

export interface SandboxReport {
  isolation: SandboxIsolation;
  bwrap?: string;
  /** A dedicated uid per slot (worker is root): RLIMIT_NPROC then counts only the run's tasks. */
  uidSwitch: boolean;
  /** The uids this process's sandboxes run under (first, last), when uidSwitch. */
  uids?: [number, number];
  cgroup: 'v2' | 'v1' | 'none';
  cgroupNote?: string;
  libraries: 'ldd' | 'system library folders';
}

function findOnPath(command: string): string | undefined {
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

/** The bwrap arguments that build the sandbox's filesystem and namespaces (no command yet). */
function bwrapProfile(
  nodePath: string,
  libraries: readonly string[] | undefined,
  limits: ProcessLimits,
): string[] {
  const args = [
    '--unshare-all',
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
    '--setenv',
    'PATH',
    '/usr/bin',
    '--setenv',
    'HOME',
    SANDBOX_WORK_DIR,
    '--setenv',
    'TMPDIR',
    SANDBOX_WORK_DIR,
    '--ro-bind',
    nodePath,
    nodePath,
  ];
  if (libraries !== undefined) {
    for (const library of libraries) args.push('--ro-bind', realpathSync(library), library);
  } else {
    for (const dir of ['/lib', '/lib64', '/usr/lib', '/usr/lib64']) {
      if (existsSync(dir)) args.push('--ro-bind', dir, dir);
    }
  }
  args.push(
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--size',
    String(limits.workDirBytes),
    '--tmpfs',
    SANDBOX_WORK_DIR,
    '--chdir',
    SANDBOX_WORK_DIR,
    // fd 3: the harness script, copied into a read-only file inside the sandbox.
    '--perms',
    '0444',
    '--ro-bind-data',
    '3',
    SANDBOX_SCRIPT_PATH,
    '--remount-ro',
    '/',
  );
  return args;
}

function mb(value: number): number {
  return Math.ceil(value) * 1024 * 1024;
}

function prlimitArgs(limits: ProcessLimits, applyNproc: boolean): string[] {
  const args = [
    `--cpu=${limits.cpuSeconds}:${limits.cpuSeconds + 1}`,
    `--data=${mb(limits.memoryMb + OS_SANDBOX_DEFAULTS.dataOverheadMb)}`,
    `--as=${mb(limits.memoryMb + OS_SANDBOX_DEFAULTS.addressSpaceOverheadMb)}`,
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
  uidBase: number;
}

class BwrapLauncher implements SandboxLauncher {
  readonly isolation = 'bwrap' as const;
  readonly report: SandboxReport;

  constructor(private readonly tools: BwrapTools) {
    this.report = {
      isolation: 'bwrap',
      bwrap: tools.bwrap,
      uidSwitch: tools.setpriv !== undefined,
      ...(tools.setpriv !== undefined
        ? {
            uids: [tools.uidBase, tools.uidBase + OS_SANDBOX_DEFAULTS.uidsPerProcess - 1] as [number, number],
          }
        : {}),
      cgroup: tools.cgroups.version,
      ...(tools.cgroups.version === 'none' ? { cgroupNote: tools.cgroups.reason } : {}),
      libraries: tools.libraries === undefined ? 'system library folders' : 'ldd',
    };
  }

  /** The full argv of one sandboxed node process (exported for the assume-breach suite via launch). */
  command(spec: LaunchSpec, cgroup: RunCgroup | undefined): { file: string; args: string[] } {
    const { tools } = this;
    if (spec.slot < 0 || spec.slot >= OS_SANDBOX_DEFAULTS.uidsPerProcess) {
      throw new SandboxUnavailableError(
        `slot ${spec.slot} is outside 0..${OS_SANDBOX_DEFAULTS.uidsPerProcess - 1}`,
      );
    }
    const inner = [
      tools.bwrap,
      ...bwrapProfile(tools.nodePath, tools.libraries, spec.limits),
      tools.nodePath,
      ...spec.nodeFlags(SANDBOX_SCRIPT_PATH),
      SANDBOX_SCRIPT_PATH,
    ];
    const asUser =
      tools.setpriv === undefined
        ? inner
        : [
            tools.setpriv,
            `--reuid=${tools.uidBase + spec.slot}`,
            `--regid=${tools.uidBase + spec.slot}`,
            '--clear-groups',
            '--inh-caps=-all',
            '--no-new-privs',
            '--',
            ...inner,
          ];
    const limited = [
      tools.prlimit,
      ...prlimitArgs(spec.limits, tools.setpriv !== undefined),
      '--',
      ...asUser,
    ];
    if (cgroup === undefined) return { file: limited[0], args: limited.slice(1) };
    return { file: tools.sh, args: ['-c', JOIN_CGROUPS, 'sh', ...cgroup.procsFiles, '--', ...limited] };
  }

  async launch(spec: LaunchSpec): Promise<LaunchedProcess> {
    const cgroup = await createRunCgroup(this.tools.cgroups, spec.slot, {
      memoryBytes: mb(spec.limits.memoryMb + OS_SANDBOX_DEFAULTS.runtimeOverheadMb),
      maxProcesses: spec.limits.maxProcesses,
    }).catch((error: unknown) => {
      throw new SandboxUnavailableError(`could not create the run's cgroup: ${(error as Error).message}`);
    });
    if (cgroup !== undefined) {
      await waitUntil(async () => (await cgroup.tasks()) <= OS_SANDBOX_DEFAULTS.leftoverTasksBeforeLaunch);
    }
    const { file, args } = this.command(spec, cgroup);
    const child = spawn(file, args, {
      // Nothing of the worker's environment (database URL, secrets) reaches even bwrap itself.
      env: {},
      cwd: '/',
      stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
      windowsHide: true,
    }) as unknown as SandboxChild;
    const scriptPipe = (child as unknown as { stdio: (Writable | null)[] }).stdio[3];
    scriptPipe?.on('error', () => {}); // bwrap gone before reading: reported through 'close'
    scriptPipe?.end(spec.scriptSource);
    return {
      child,
      isolation: 'bwrap',
      memoryBoundedByKernel: cgroup !== undefined,
      finish: async () => {
        const oomKilled = cgroup === undefined ? false : await cgroup.oomKilled();
        void cgroup?.remove();
        return { oomKilled };
      },
    };
  }
}

class UnsafeProcessLauncher implements SandboxLauncher {
  readonly isolation = 'unsafe-process' as const;
  readonly report: SandboxReport = {
    isolation: 'unsafe-process',
    uidSwitch: false,
    cgroup: 'none',
    cgroupNote: 'JUDGE_SANDBOX=unsafe-process: no OS sandbox',
    libraries: 'system library folders',
  };

  async launch(spec: LaunchSpec): Promise<LaunchedProcess> {
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
}

/** Polls `done` every few milliseconds for at most `limitMs` (then gives up: limits still hold). */
async function waitUntil(done: () => Promise<boolean>, limitMs = 2_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!(await done()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 2));
}

export interface OsSandboxOptions {
  /** bwrap binary; found on PATH when not given. */
  bwrapPath?: string;
  uidBase?: number;
  /** Parent cgroup for v2 run groups (default: a `judge-sandbox` child of this process's group). */
  cgroupParent?: string;
}

const INSTALL_HINT =
  'install the Debian package bubblewrap (apt-get install bubblewrap) or set JUDGE_BWRAP_PATH';

/**
 * Resolves the tools of the bwrap launcher and proves on this machine that a process inside
 * really is walled off (private network, unprivileged uid, minimal root). Throws
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
  if (isRoot && setpriv === undefined) {
    throw new SandboxUnavailableError(
      'setpriv not found (needed to run sandboxes under their own uid): install util-linux',
    );
  }
  const nodePath = realpathSync(process.execPath);
  const tools: BwrapTools = {
    bwrap,
    prlimit,
    setpriv,
    sh,
    nodePath,
    libraries: await nodeLibraries(nodePath),
    cgroups: await detectCgroupSupport(options.cgroupParent),
    uidBase:
      (options.uidBase ?? OS_SANDBOX_DEFAULTS.uidBase) +
      (process.pid % OS_SANDBOX_DEFAULTS.uidBlocks) * OS_SANDBOX_DEFAULTS.uidsPerProcess,
  };
  const launcher = new BwrapLauncher(tools);
  await selfCheck(launcher);
  return launcher;
}

export function createUnsafeProcessLauncher(): SandboxLauncher {
  return new UnsafeProcessLauncher();
}

/** Runs a probe inside the sandbox and checks the walls it must see. */
async function selfCheck(launcher: SandboxLauncher): Promise<void> {
  const probe = `
    const os = require('os'), fs = require('fs');
    const report = { uid: process.getuid(), interfaces: Object.keys(os.networkInterfaces()), root: fs.readdirSync('/').sort() };
    process.stdout.write(JSON.stringify(report) + '\\n');`;
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
  let report: { uid: number; interfaces: string[]; root: string[] };
  try {
    report = JSON.parse(stdout);
  } catch {
    throw why(`probe printed ${stdout}`);
  }
  if (report.uid === 0) throw why('the probe ran as root');
  if (report.interfaces.some((name) => name !== 'lo'))
    throw why(`network interfaces visible: ${report.interfaces.join(', ')}`);
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
