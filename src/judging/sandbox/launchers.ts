/**
 * The two launchers of the wall: bwrap (a fresh cgroup and uid per sandbox, a warm pool of
 * sandboxes launched ahead) and the development-only `unsafe-process`.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import os from 'node:os';
import type { Writable } from 'node:stream';
import { SandboxUnavailableError } from '../errors';
import { type BwrapTools, SCRIPT_FD, SECCOMP_FD, mb, sandboxArgv } from './bwrap-profile';
import { type RunCgroup, createRunCgroup } from './cgroups';
import {
  type FinishedProcess,
  type LaunchSpec,
  type LaunchedProcess,
  OS_SANDBOX_DEFAULTS,
  SANDBOX_SCRIPT_PATH,
  type SandboxChild,
  type SandboxLauncher,
  type SandboxReport,
} from './sandbox-contract';
import type { UidBlock } from './uid-blocks';
import { WarmPool } from './warm-pool';

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

export class BwrapLauncher implements SandboxLauncher {
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
    const { file, args } = sandboxArgv(this.tools, spec, cgroup, uid);
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
      ...(cgroup === undefined
        ? {}
        : {
            cpuTimeMs: () => cgroup.cpuTimeMs(),
            runQueueWaits: () => cgroup.runQueueWaits(),
            freeze: (frozen: boolean) => cgroup.freeze(frozen),
          }),
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

export class UnsafeProcessLauncher implements SandboxLauncher {
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
