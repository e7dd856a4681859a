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
 *
 * Here: resolving the tools and building a launcher. The shapes and limits are in
 * sandbox-contract.ts, the command line in bwrap-profile.ts, the launchers in launchers.ts and the
 * start-up proof in self-check.ts.
 */
import { execFile } from 'node:child_process';
import { accessSync, constants as fsConstants, existsSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { SandboxUnavailableError } from '../errors';
import { detectCgroupSupport } from './cgroups';
import { BwrapLauncher, UnsafeProcessLauncher } from './launchers';
import { OS_SANDBOX_DEFAULTS, type SandboxLauncher } from './sandbox-contract';
import { selfCheck } from './self-check';
import { claimUidBlock } from './uid-blocks';

export {
  type FinishedProcess,
  type LaunchSpec,
  type LaunchedProcess,
  type NativeCommand,
  OS_SANDBOX_DEFAULTS,
  type ProcessLimits,
  SANDBOX_SCRIPT_PATH,
  SANDBOX_WORK_DIR,
  type SandboxIsolation,
  type SandboxLauncher,
  type SandboxReport,
  defaultLimits,
} from './sandbox-contract';

const execFileAsync = promisify(execFile);

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
