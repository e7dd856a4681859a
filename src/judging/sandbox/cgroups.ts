/**
 * One control group per sandbox (never reused): memory and pids limits the kernel enforces on the
 * whole process tree, a CPU quota and weight so that one sandbox's hog cannot slow its
 * neighbours, CPU-time accounting, and a freezer to kill every process of the run at once,
 * whatever it did (detached, setsid, ignoring signals, tampering with bwrap's init).
 *
 * cgroup v2 is used where the machine delegates it to us (memory, pids, cpu; `cgroup.kill`); a
 * cgroup v1 hybrid (memory, pids, cpu, cpuacct and freezer hierarchies writable by this process)
 * otherwise. Without either, runs rely on rlimits alone and the reason is reported at start.
 */
import {
  closeSync,
  constants,
  existsSync,
  openSync,
  readFileSync,
  readSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { mkdir, readFile, readdir, realpath, rmdir, writeFile } from 'node:fs/promises';
import { runQueueWaits } from '../wall-deadline';
import os from 'node:os';
import path from 'node:path';

const CGROUP_ROOT = '/sys/fs/cgroup';

export type CgroupSupport =
  | { version: 'v2'; parent: string }
  | {
      version: 'v1';
      memoryParent: string;
      pidsParent: string;
      cpuParent: string;
      cpuacctParent: string;
      freezerParent: string;
    }
  | { version: 'none'; reason: string };

export interface CgroupLimits {
  memoryBytes: number;
  maxProcesses: number;
  /** CPU bandwidth of the whole tree, in cores (CFS quota); every sandbox has the same weight. */
  cpuCores: number;
}

export interface RunCgroup {
  /** Files the launcher writes its own pid into (`cgroup.procs`) before it execs the sandbox. */
  readonly procsFiles: readonly string[];
  /** True when the kernel's OOM killer fired inside this group. */
  oomKilled(): Promise<boolean>;
  /** CPU time (user + system) of every process that ran in the group, in milliseconds. */
  cpuTimeMs(): Promise<number | undefined>;
  /** Peak memory of the group (memory cgroup's high-water mark), in bytes. */
  peakMemoryBytes(): Promise<number | undefined>;
  /** Number of tasks in the group. */
  tasks(): Promise<number>;
  /**
   * Per thread of the group (by tid), the time it has waited runnable for a CPU (schedstat's
   * run_delay): how much a busy machine, not the program, held it back.
   */
  runQueueWaits(): Promise<Map<number, number>>;
  /**
   * Freezes (true) or thaws (false) every process of the group, and waits until the kernel says
   * the group is frozen (a game's player between its turns: it cannot run, so it uses no CPU).
   */
  freeze(frozen: boolean): Promise<void>;
  /**
   * Kills every process in the group (frozen first, so none can fork or escape while it is
   * emptied), waits until the kernel reports it empty and removes it. Rejects when the group
   * could not be emptied: the caller must then not reuse what the run used (its uid).
   */
  destroy(): Promise<void>;
}

/** This process's path in a hierarchy, from /proc/self/cgroup (`0::/x` for v2, `4:memory:/x` for v1). */
function ownPath(controller: string | null): string | undefined {
  try {
    for (const line of readFileSync('/proc/self/cgroup', 'utf8').split('\n')) {
      const [, controllers, where] = line.split(':');
      if (where === undefined) continue;
      if (controller === null ? controllers === '' : controllers.split(',').includes(controller))
        return where;
    }
  } catch {
    // not Linux
  }
  return undefined;
}

/** Creates a scratch group under `parent`, checks that limits can be written, removes it. */
async function probe(parents: readonly string[], write: (dir: string) => Promise<void>): Promise<void> {
  const name = `judge-probe-${process.pid}-${Date.now()}`;
  const dirs = parents.map((parent) => path.join(parent, name));
  try {
    for (const dir of dirs) await mkdir(dir);
    for (const dir of dirs) await write(dir);
  } finally {
    for (const dir of dirs) await rmdir(dir).catch(() => {});
  }
}

const V1_CONTROLLERS = ['memory', 'pids', 'cpu', 'cpuacct', 'freezer'] as const;

/**
 * The parent group of all sandboxes competes for CPU as ONE entity against every other task of
 * its level: with the default weight, a busy machine would give all sandboxes together the share
 * of a single process. They weigh as much as one busy task per core; each sandbox has the default
 * weight inside it and a quota of its own (createRunCgroup).
 */
const SANDBOXES_WEIGHT_V1 = 1024 * os.availableParallelism();

/** Finds out once what this machine allows; `explicitParent` overrides where v2 groups are made. */
export async function detectCgroupSupport(explicitParent?: string): Promise<CgroupSupport> {
  if (process.platform !== 'linux') return { version: 'none', reason: 'not Linux' };
  const v2Controllers = path.join(CGROUP_ROOT, 'cgroup.controllers');
  if (existsSync(v2Controllers)) {
    const own = ownPath(null) ?? '/';
    const parent = explicitParent ?? path.join(CGROUP_ROOT, own, 'judge-sandbox');
    try {
      await mkdir(parent, { recursive: true });
      const available = (await readFile(path.join(parent, 'cgroup.controllers'), 'utf8')).split(/\s+/);
      const missing = ['memory', 'pids', 'cpu'].filter((name) => !available.includes(name));
      if (missing.length > 0) {
        return {
          version: 'none',
          reason: `cgroup v2 at ${parent} does not offer the ${missing.join(', ')} controller(s)`,
        };
      }
      await writeFile(path.join(parent, 'cgroup.subtree_control'), '+memory +pids +cpu');
      await writeFile(
        path.join(parent, 'cpu.weight'),
        String(Math.min(10_000, 100 * os.availableParallelism())),
      );
      await probe([parent], async (dir) => {
        await writeFile(path.join(dir, 'memory.max'), String(64 * 1024 * 1024));
        await writeFile(path.join(dir, 'pids.max'), '16');
        await writeFile(path.join(dir, 'cpu.max'), '100000 100000');
        if (!existsSync(path.join(dir, 'cgroup.kill')) && !existsSync(path.join(dir, 'cgroup.freeze')))
          throw new Error('neither cgroup.kill nor cgroup.freeze');
      });
      const support = { version: 'v2' as const, parent };
      await removeStaleGroups(support);
      return support;
    } catch (error) {
      return { version: 'none', reason: `cgroup v2 not delegated here (${(error as Error).message})` };
    }
  }
  const parents: Record<string, string> = {};
  for (const controller of V1_CONTROLLERS) {
    const own = ownPath(controller);
    if (own === undefined) {
      return { version: 'none', reason: `no cgroup v2 and no cgroup v1 ${controller} hierarchy` };
    }
    parents[controller] = path.join(CGROUP_ROOT, controller, own, 'judge-sandbox');
  }
  try {
    for (const parent of Object.values(parents)) await mkdir(parent, { recursive: true });
    await writeFile(path.join(parents.cpu, 'cpu.shares'), String(SANDBOXES_WEIGHT_V1));
    await probe(Object.values(parents), async (dir) => {
      if (dir.startsWith(parents.memory))
        await writeFile(path.join(dir, 'memory.limit_in_bytes'), String(64 * 1024 * 1024));
      else if (dir.startsWith(parents.pids)) await writeFile(path.join(dir, 'pids.max'), '16');
      else if (dir.startsWith(parents.cpuacct)) await readFile(path.join(dir, 'cpuacct.usage'));
      else if (dir.startsWith(parents.cpu)) await writeFile(path.join(dir, 'cpu.cfs_quota_us'), '100000');
      else await writeFile(path.join(dir, 'freezer.state'), 'THAWED');
    });
    const support = {
      version: 'v1' as const,
      memoryParent: parents.memory,
      pidsParent: parents.pids,
      cpuParent: parents.cpu,
      cpuacctParent: parents.cpuacct,
      freezerParent: parents.freezer,
    };
    await removeStaleGroups(support);
    return support;
  } catch (error) {
    return {
      version: 'none',
      reason: `cgroup v1 memory/pids/cpu/cpuacct/freezer not writable (${(error as Error).message})`,
    };
  }
}

interface GroupFiles {
  dirs: string[];
  procsFiles: string[];
  oomFile: string;
  pidsCurrent: string;
}

let sequence = 0;

function groupFiles(support: Exclude<CgroupSupport, { version: 'none' }>, name: string): GroupFiles {
  if (support.version === 'v2') {
    const dir = path.join(support.parent, name);
    return {
      dirs: [dir],
      procsFiles: [path.join(dir, 'cgroup.procs')],
      oomFile: path.join(dir, 'memory.events'),
      pidsCurrent: path.join(dir, 'pids.current'),
    };
  }
  // The freezer first: a launcher that joins it first is frozen with everything it starts.
  const dirs = [
    support.freezerParent,
    support.memoryParent,
    support.pidsParent,
    support.cpuParent,
    support.cpuacctParent,
  ].map((parent) => path.join(parent, name));
  return {
    dirs,
    procsFiles: dirs.map((dir) => path.join(dir, 'cgroup.procs')),
    oomFile: path.join(dirs[1], 'memory.oom_control'),
    pidsCurrent: path.join(dirs[2], 'pids.current'),
  };
}

async function oomKills(file: string): Promise<number> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return Number(/^oom_kill (\d+)/m.exec(text)?.[1] ?? 0);
}

const CFS_PERIOD_US = 100_000;
const NAME_ATTEMPTS = 1_000;

/**
 * Makes the directories of a group that did not exist. Never `recursive` on the group itself:
 * the counter starts again wherever the module is loaded again in the same process (jest loads it
 * once per test file) while an earlier copy's groups may still be there, and reusing one kept its
 * limits; on cgroup v1 its memsw limit below a larger new memory limit made that write fail with
 * EINVAL. A name taken in any hierarchy moves on to the next number.
 */
async function makeNewGroup(support: Exclude<CgroupSupport, { version: 'none' }>): Promise<GroupFiles> {
  for (let attempt = 0; attempt < NAME_ATTEMPTS; attempt++) {
    sequence += 1;
    const files = groupFiles(support, `run-${process.pid}-${sequence}`);
    const made: string[] = [];
    try {
      for (const dir of files.dirs) {
        try {
          await mkdir(dir);
        } catch (error) {
          // Co-mounted controllers (cpu,cpuacct) reach one directory through two paths.
          if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || !(await sameAsOneOf(dir, made)))
            throw error;
        }
        made.push(dir);
      }
      return files;
    } catch (error) {
      for (const dir of [...made].reverse()) await rmdir(dir).catch(() => {});
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  throw new Error(`no free name for a sandbox cgroup after ${NAME_ATTEMPTS} tries`);
}

async function sameAsOneOf(dir: string, others: readonly string[]): Promise<boolean> {
  const real = await realpath(dir).catch(() => dir);
  for (const other of others) if ((await realpath(other).catch(() => other)) === real) return true;
  return false;
}

/** Creates the group of one sandbox; undefined when the machine allows none (rlimits still apply). */
export async function createRunCgroup(
  support: CgroupSupport,
  limits: CgroupLimits,
): Promise<RunCgroup | undefined> {
  if (support.version === 'none') return undefined;
  const files = await makeNewGroup(support);
  const quota = String(Math.max(1_000, Math.round(limits.cpuCores * CFS_PERIOD_US)));
  if (support.version === 'v2') {
    const [dir] = files.dirs;
    await writeFile(path.join(dir, 'memory.max'), String(limits.memoryBytes));
    await writeFile(path.join(dir, 'memory.swap.max'), '0').catch(() => {}); // absent without swap accounting
    await writeFile(path.join(dir, 'pids.max'), String(limits.maxProcesses));
    await writeFile(path.join(dir, 'cpu.max'), `${quota} ${CFS_PERIOD_US}`);
  } else {
    const [, memoryDir, pidsDir, cpuDir] = files.dirs;
    await writeFile(path.join(memoryDir, 'memory.limit_in_bytes'), String(limits.memoryBytes));
    await writeFile(path.join(memoryDir, 'memory.memsw.limit_in_bytes'), String(limits.memoryBytes)).catch(
      () => {}, // absent without swap accounting
    );
    await writeFile(path.join(pidsDir, 'pids.max'), String(limits.maxProcesses));
    await writeFile(path.join(cpuDir, 'cpu.cfs_period_us'), String(CFS_PERIOD_US));
    await writeFile(path.join(cpuDir, 'cpu.cfs_quota_us'), quota);
  }
  let destroyed: Promise<void> | undefined;
  const control = new ControlFiles();
  const cpuFile =
    support.version === 'v2'
      ? path.join(files.dirs[0], 'cpu.stat')
      : path.join(files.dirs[4], 'cpuacct.usage');
  return {
    procsFiles: files.procsFiles,
    oomKilled: async () => (await oomKills(files.oomFile)) > 0,
    // Read synchronously through a descriptor kept open: a game player reads it once a turn, and
    // a cgroup file is in memory (microseconds) while an async readFile is four thread-pool
    // round trips and an open-read-close five syscalls (issue 42).
    cpuTimeMs: async () => {
      const text = control.read(cpuFile);
      if (support.version === 'v2') {
        const usec = /^usage_usec (\d+)/m.exec(text)?.[1];
        return usec === undefined ? undefined : Number(usec) / 1000;
      }
      return text.trim() === '' ? undefined : Number(text) / 1e6;
    },
    peakMemoryBytes: async () => {
      const file =
        support.version === 'v2'
          ? path.join(files.dirs[0], 'memory.peak')
          : path.join(files.dirs[1], 'memory.max_usage_in_bytes');
      const text = await readFile(file, 'utf8').catch(() => '');
      return text.trim() === '' ? undefined : Number(text);
    },
    tasks: () => countTasks(files),
    runQueueWaits: async () => runQueueWaits(await pidsIn(files.procsFiles[0])),
    freeze: (frozen) => setFrozen(support, files, control, frozen),
    destroy: () => {
      control.close();
      return (destroyed ??= emptyAndRemove(support, files));
    },
  };
}

const FREEZE_WITHIN_MS = 2_000;
/** Polls of the freezer's state that only yield to the event loop before they space out to 1 ms. */
const FREEZE_QUICK_POLLS = 50;

/** A cgroup pseudo-file's text ('' when it is gone), opened, read and closed. */
function readSmallFile(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/** Room for the control files read per turn (freezer.state, cpuacct.usage, cgroup.events, cpu.stat). */
const CONTROL_READ_BYTES = 4096;

/**
 * The control files a game player's turn touches, each opened once for the life of the group and
 * then read with pread (offset 0 makes the kernel render the file afresh) and written with
 * pwrite: one syscall per access instead of open, fstat, read(s) and close (issue 42). After
 * close() (the group is being removed) every access falls back to open-read-close.
 */
class ControlFiles {
  private readonly fds = new Map<string, { fd: number; writable: boolean }>();
  private readonly buffer = Buffer.allocUnsafe(CONTROL_READ_BYTES);
  private closed = false;

  /** The file's descriptor (libuv opens it close-on-exec), open for writing too when `writable`. */
  private fd(file: string, writable: boolean): number | undefined {
    if (this.closed) return undefined;
    const open = this.fds.get(file);
    if (open !== undefined && (open.writable || !writable)) return open.fd;
    let fd: number;
    try {
      fd = openSync(file, writable ? constants.O_RDWR : constants.O_RDONLY);
    } catch {
      return undefined;
    }
    if (open !== undefined) closeSync(open.fd);
    this.fds.set(file, { fd, writable });
    return fd;
  }

  /** The file's text ('' when it is gone). */
  read(file: string): string {
    const fd = this.fd(file, false);
    if (fd === undefined) return readSmallFile(file);
    try {
      const length = readSync(fd, this.buffer, 0, CONTROL_READ_BYTES, 0);
      // A file larger than the buffer (a long cpu.stat) is read whole the ordinary way.
      if (length === CONTROL_READ_BYTES) return readSmallFile(file);
      return this.buffer.toString('utf8', 0, length);
    } catch {
      return '';
    }
  }

  /** Writes `text` at offset 0; throws as a write of the file would. */
  write(file: string, text: string): void {
    const fd = this.fd(file, true);
    if (fd === undefined) {
      writeFileSync(file, text);
      return;
    }
    writeSync(fd, text, 0);
  }

  close(): void {
    this.closed = true;
    for (const { fd } of this.fds.values()) {
      try {
        closeSync(fd);
      } catch {
        // already closed
      }
    }
    this.fds.clear();
  }
}

/**
 * Freezes or thaws a run, and on freezing waits until every task is frozen. Synchronous file
 * operations, and a freeze that is usually complete at once checked without a timer: a game
 * player is thawed and frozen once per turn, and async writes plus 1 ms sleeps were most of the
 * wall's cost per turn (issue 42).
 */
async function setFrozen(
  support: Exclude<CgroupSupport, { version: 'none' }>,
  files: GroupFiles,
  control: ControlFiles,
  frozen: boolean,
): Promise<void> {
  const [first] = files.dirs;
  const v2 = support.version === 'v2';
  const freezeFile = path.join(first, v2 ? 'cgroup.freeze' : 'freezer.state');
  control.write(freezeFile, v2 ? (frozen ? '1' : '0') : frozen ? 'FROZEN' : 'THAWED');
  if (!frozen) return;
  const stateFile = v2 ? path.join(first, 'cgroup.events') : freezeFile;
  const deadline = Date.now() + FREEZE_WITHIN_MS;
  for (let poll = 0; Date.now() < deadline; poll++) {
    const state = control.read(stateFile);
    if (v2 ? /^frozen 1/m.test(state) : state.trim() === 'FROZEN') return;
    await (poll < FREEZE_QUICK_POLLS ? new Promise<void>((resolve) => setImmediate(resolve)) : sleep(1));
  }
  throw new Error(`the sandbox's cgroup ${first} did not freeze within ${FREEZE_WITHIN_MS} ms`);
}

async function countTasks(files: GroupFiles): Promise<number> {
  let most = 0;
  for (const procs of files.procsFiles) {
    const text = await readFile(procs, 'utf8').catch(() => '');
    most = Math.max(most, text.split('\n').filter((line) => line.trim() !== '').length);
  }
  return most;
}

async function pidsIn(procsFile: string): Promise<number[]> {
  const text = await readFile(procsFile, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map(Number);
}

const EMPTY_WITHIN_MS = 10_000;

async function emptyAndRemove(
  support: Exclude<CgroupSupport, { version: 'none' }>,
  files: GroupFiles,
): Promise<void> {
  const deadline = Date.now() + EMPTY_WITHIN_MS;
  const [first] = files.dirs;
  if (support.version === 'v2' && existsSync(path.join(first, 'cgroup.kill'))) {
    await writeFile(path.join(first, 'cgroup.kill'), '1').catch(() => {});
  } else {
    const freezeFile = path.join(first, support.version === 'v2' ? 'cgroup.freeze' : 'freezer.state');
    const [frozen, thawed] = support.version === 'v2' ? ['1', '0'] : ['FROZEN', 'THAWED'];
    // Frozen, no process of the run can fork, exit (so no pid is reused) or dodge the kill.
    await writeFile(freezeFile, frozen).catch(() => {});
    while (Date.now() < deadline) {
      const state = await readFile(
        support.version === 'v2' ? path.join(first, 'cgroup.events') : freezeFile,
        'utf8',
      ).catch(() => '');
      if (support.version === 'v2' ? /^frozen 1/m.test(state) : state.trim() === 'FROZEN') break;
      await sleep(1);
    }
    for (const pid of await pidsIn(files.procsFiles[0])) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    await writeFile(freezeFile, thawed).catch(() => {});
  }
  // Every hierarchy must be empty: a process that was never in the first would still be counted.
  for (;;) {
    if ((await countTasks(files)) === 0) break;
    if (Date.now() > deadline) {
      throw new Error(`the sandbox's cgroup ${first} still has tasks after ${EMPTY_WITHIN_MS} ms`);
    }
    for (const procs of files.procsFiles.slice(1)) {
      for (const pid of await pidsIn(procs)) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    }
    await sleep(2);
  }
  await removeWithRetry(files.dirs);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Empties and removes the groups that processes no longer running left behind (called once at
 * start): a worker that was killed cannot have destroyed its sandboxes' groups.
 */
async function removeStaleGroups(support: Exclude<CgroupSupport, { version: 'none' }>): Promise<void> {
  const parents =
    support.version === 'v2'
      ? [support.parent]
      : [support.freezerParent, support.memoryParent, support.pidsParent, support.cpuParent];
  const entries = new Set<string>();
  for (const parent of parents) for (const entry of await readdir(parent).catch(() => [])) entries.add(entry);
  for (const entry of entries) {
    const pid = /^(?:run|slot)-(\d+)-\d+$/.exec(entry)?.[1];
    if (pid === undefined || Number(pid) === process.pid || existsSync(`/proc/${pid}`)) continue;
    const files = groupFiles(support, entry);
    await emptyAndRemove(support, files).catch(() => {});
  }
}

/** A group can be removed only once the kernel has reaped its last task: retry briefly. */
async function removeWithRetry(dirs: readonly string[]): Promise<void> {
  for (const dir of dirs) {
    for (let attempt = 0; attempt < 40; attempt++) {
      try {
        await rmdir(dir);
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') break;
        await sleep(25);
      }
    }
  }
}
