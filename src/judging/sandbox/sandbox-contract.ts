/**
 * What the OS wall promises its callers (os-sandbox.ts builds it): the shapes of a launch, a
 * launched process and a launcher, and the limits every sandbox gets. No behaviour here.
 */
import type { ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';

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

export type SandboxChild = ChildProcessByStdio<Writable, Readable, Readable>;

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
   * Per thread of the run (by tid), how long it has waited runnable for a CPU (ms): the host gives
   * a starved run that much more wall time. Absent without a cgroup.
   */
  runQueueWaits?: () => Promise<Map<number, number>>;
  /**
   * Freezes (true) or thaws (false) every process of the run (its cgroup's freezer): a game's
   * player between its turns. Absent without a cgroup.
   */
  freeze?: (frozen: boolean) => Promise<void>;
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
