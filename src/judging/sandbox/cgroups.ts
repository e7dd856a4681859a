/**
 * Per-run control groups for sandboxed processes: a memory limit the kernel enforces on the whole
 * process tree (V8 heap, ArrayBuffers, threads and children together) and a pids limit. cgroup v2
 * is used where the machine delegates it to us; a cgroup v1 hybrid (memory and pids hierarchies
 * writable by this process) is used otherwise; without either, runs rely on rlimits alone and the
 * reason is reported once at start.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readFile, readdir, rmdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

const CGROUP_ROOT = '/sys/fs/cgroup';

export type CgroupSupport =
  | { version: 'v2'; parent: string }
  | { version: 'v1'; memoryParent: string; pidsParent: string }
  | { version: 'none'; reason: string };

export interface RunCgroup {
  /** Files the launcher writes its own pid into (`cgroup.procs`) before it execs the sandbox. */
  readonly procsFiles: readonly string[];
  /** True when the kernel's OOM killer fired inside this group. */
  oomKilled(): Promise<boolean>;
  /** Releases the group after the run; never throws. */
  remove(): Promise<void>;
  /** Number of tasks still in the group (the pid namespace is torn down asynchronously). */
  tasks(): Promise<number>;
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
      if (!available.includes('memory') || !available.includes('pids')) {
        return {
          version: 'none',
          reason: `cgroup v2 at ${parent} does not offer the memory and pids controllers`,
        };
      }
      await writeFile(path.join(parent, 'cgroup.subtree_control'), '+memory +pids');
      await probe([parent], async (dir) => {
        await writeFile(path.join(dir, 'memory.max'), String(64 * 1024 * 1024));
        await writeFile(path.join(dir, 'pids.max'), '16');
      });
      await removeStaleSlotGroups([parent]);
      return { version: 'v2', parent };
    } catch (error) {
      return { version: 'none', reason: `cgroup v2 not delegated here (${(error as Error).message})` };
    }
  }
  const memoryOwn = ownPath('memory');
  const pidsOwn = ownPath('pids');
  if (memoryOwn === undefined || pidsOwn === undefined) {
    return { version: 'none', reason: 'no cgroup v2 and no cgroup v1 memory/pids hierarchy' };
  }
  const memoryParent = path.join(CGROUP_ROOT, 'memory', memoryOwn, 'judge-sandbox');
  const pidsParent = path.join(CGROUP_ROOT, 'pids', pidsOwn, 'judge-sandbox');
  try {
    await mkdir(memoryParent, { recursive: true });
    await mkdir(pidsParent, { recursive: true });
    await probe([memoryParent, pidsParent], async (dir) => {
      if (dir.startsWith(memoryParent))
        await writeFile(path.join(dir, 'memory.limit_in_bytes'), String(64 * 1024 * 1024));
      else await writeFile(path.join(dir, 'pids.max'), '16');
    });
    await removeStaleSlotGroups([memoryParent, pidsParent]);
    return { version: 'v1', memoryParent, pidsParent };
  } catch (error) {
    return { version: 'none', reason: `cgroup v1 memory/pids not writable (${(error as Error).message})` };
  }
}

/**
 * Each judging slot keeps one group for the life of the process, reused run after run: making
 * and removing groups per run costs more than the rest of the wall together. A run rewrites the
 * limits and compares the OOM-kill counter before and after.
 */
const slotGroups = new Map<
  number,
  { dirs: string[]; procsFiles: string[]; oomFile: string; pidsCurrent: string }
>();

async function slotGroup(support: Exclude<CgroupSupport, { version: 'none' }>, slot: number) {
  const known = slotGroups.get(slot);
  if (known) return known;
  const name = `slot-${process.pid}-${slot}`;
  let group: { dirs: string[]; procsFiles: string[]; oomFile: string; pidsCurrent: string };
  if (support.version === 'v2') {
    const dir = path.join(support.parent, name);
    await mkdir(dir, { recursive: true });
    group = {
      dirs: [dir],
      procsFiles: [path.join(dir, 'cgroup.procs')],
      oomFile: path.join(dir, 'memory.events'),
      pidsCurrent: path.join(dir, 'pids.current'),
    };
  } else {
    const memoryDir = path.join(support.memoryParent, name);
    const pidsDir = path.join(support.pidsParent, name);
    await mkdir(memoryDir, { recursive: true });
    await mkdir(pidsDir, { recursive: true });
    group = {
      dirs: [memoryDir, pidsDir],
      procsFiles: [path.join(memoryDir, 'cgroup.procs'), path.join(pidsDir, 'cgroup.procs')],
      oomFile: path.join(memoryDir, 'memory.oom_control'),
      pidsCurrent: path.join(pidsDir, 'pids.current'),
    };
  }
  slotGroups.set(slot, group);
  return group;
}

async function oomKills(file: string): Promise<number> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return Number(/^oom_kill (\d+)/m.exec(text)?.[1] ?? 0);
}

/** Sets the slot's group up for one run; undefined when the machine allows none (rlimits still apply). */
export async function createRunCgroup(
  support: CgroupSupport,
  slot: number,
  limits: { memoryBytes: number; maxProcesses: number },
): Promise<RunCgroup | undefined> {
  if (support.version === 'none') return undefined;
  const group = await slotGroup(support, slot);
  if (support.version === 'v2') {
    const [dir] = group.dirs;
    await writeFile(path.join(dir, 'memory.max'), String(limits.memoryBytes));
    await writeFile(path.join(dir, 'memory.swap.max'), '0').catch(() => {}); // absent without swap accounting
    await writeFile(path.join(dir, 'pids.max'), String(limits.maxProcesses));
  } else {
    const [memoryDir, pidsDir] = group.dirs;
    // memsw must stay >= the memory limit: lower it after, raise it before.
    await writeFile(path.join(memoryDir, 'memory.memsw.limit_in_bytes'), '-1').catch(() => {});
    await writeFile(path.join(memoryDir, 'memory.limit_in_bytes'), String(limits.memoryBytes));
    await writeFile(path.join(memoryDir, 'memory.memsw.limit_in_bytes'), String(limits.memoryBytes)).catch(
      () => {},
    );
    await writeFile(path.join(pidsDir, 'pids.max'), String(limits.maxProcesses));
  }
  const before = await oomKills(group.oomFile);
  return {
    procsFiles: group.procsFiles,
    oomKilled: async () => (await oomKills(group.oomFile)) > before,
    remove: async () => {},
    tasks: async () => Number((await readFile(group.pidsCurrent, 'utf8').catch(() => '0')).trim()) || 0,
  };
}

/** Removes the slot groups that processes no longer running left behind (called once at start). */
async function removeStaleSlotGroups(parents: readonly string[]): Promise<void> {
  for (const parent of parents) {
    const entries = await readdir(parent).catch(() => [] as string[]);
    const stale = entries.filter((entry) => {
      const pid = /^slot-(\d+)-\d+$/.exec(entry)?.[1];
      return pid !== undefined && Number(pid) !== process.pid && !existsSync(`/proc/${pid}`);
    });
    await removeWithRetry(stale.map((entry) => path.join(parent, entry)));
  }
}

/** A group can be removed only once the kernel has reaped its last task: retry briefly. */
async function removeWithRetry(dirs: readonly string[]): Promise<void> {
  for (const dir of dirs) {
    for (let attempt = 0; attempt < 20; attempt++) {
      try {
        await rmdir(dir);
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') break;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    }
  }
}
