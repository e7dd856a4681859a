/**
 * The process-wide judging capacity: which launcher starts sandboxed processes, and how many may
 * run at once (judging slots). The worker configures it at start from its settings
 * (`configureSandboxRuntime`); code that judges without configuring (unit tests, benchmarks)
 * gets the bwrap launcher with default slots.
 */
import os from 'node:os';
import { JUDGE_CONFIG_LIMITS } from '../config';
import { SandboxUnavailableError } from '../errors';
import {
  OS_SANDBOX_DEFAULTS,
  type OsSandboxOptions,
  type SandboxLauncher,
  type SandboxReport,
  createBwrapLauncher,
  createUnsafeProcessLauncher,
} from './os-sandbox';

export type SandboxMode = 'bwrap' | 'unsafe-process';

export interface SandboxRuntimeSettings extends OsSandboxOptions {
  mode: SandboxMode;
  /** Sandboxed processes allowed at once in this process. */
  slots?: number;
  /** Sandboxes launched ahead of their runs (default: one per slot; 0 launches every run cold). */
  warmSandboxes?: number;
  /** Called for every judging that runs without the OS sandbox (development only). */
  onUnsafeRun?: () => void;
}

/** Worst case of one slot: the largest heap a judge may ask for plus the runtime, as the cgroup bounds it. */
export const SLOT_WORST_CASE_MB = JUDGE_CONFIG_LIMITS.maxMemoryMb + OS_SANDBOX_DEFAULTS.runtimeOverheadMb;

/** One slot per core, as long as half the machine's memory covers every slot's worst case. */
export function defaultJudgeSlots(): number {
  const byMemory = Math.floor(os.totalmem() / (1024 * 1024) / 2 / SLOT_WORST_CASE_MB);
  return Math.max(1, Math.min(os.availableParallelism(), byMemory));
}

/** A FIFO counting semaphore whose permits carry an index (the slot's own uid). */
export class JudgingSlots {
  private readonly free: number[];
  private readonly waiting: {
    resolve: (index: number) => void;
    signal?: AbortSignal;
    onAbort: () => void;
  }[] = [];

  constructor(readonly size: number) {
    this.free = Array.from({ length: size }, (_, index) => size - 1 - index);
  }

  get inUse(): number {
    return this.size - this.free.length;
  }

  async acquire(signal?: AbortSignal): Promise<{ index: number; release: () => void }> {
    signal?.throwIfAborted();
    const index =
      this.free.pop() ??
      (await new Promise<number>((resolve, reject) => {
        const entry = {
          resolve,
          signal,
          onAbort: () => {
            this.waiting.splice(this.waiting.indexOf(entry), 1);
            reject(signal?.reason);
          },
        };
        signal?.addEventListener('abort', entry.onAbort, { once: true });
        this.waiting.push(entry);
      }));
    let released = false;
    return {
      index,
      release: () => {
        if (released) return;
        released = true;
        const next = this.waiting.shift();
        if (next === undefined) {
          this.free.push(index);
          return;
        }
        next.signal?.removeEventListener('abort', next.onAbort);
        next.resolve(index);
      },
    };
  }
}

export interface SandboxRuntime {
  launcher: SandboxLauncher;
  slots: JudgingSlots;
  onUnsafeRun?: () => void;
}

let current: Promise<SandboxRuntime> | undefined;
/** The bwrap launcher is kept across reconfigurations with the same options (it holds a uid block). */
let bwrapLauncher: { options: string; launcher: Promise<SandboxLauncher> } | undefined;

function bwrapLauncherFor(settings: SandboxRuntimeSettings): Promise<SandboxLauncher> {
  const options: OsSandboxOptions = {
    bwrapPath: settings.bwrapPath,
    uidBase: settings.uidBase,
    uidLockDir: settings.uidLockDir,
    cgroupParent: settings.cgroupParent,
  };
  const key = JSON.stringify(options);
  if (bwrapLauncher?.options !== key) {
    const previous = bwrapLauncher?.launcher;
    void previous?.then((launcher) => launcher.close()).catch(() => {});
    const launcher = createBwrapLauncher(options);
    bwrapLauncher = { options: key, launcher };
    launcher.catch(() => {
      if (bwrapLauncher?.launcher === launcher) bwrapLauncher = undefined;
    });
  }
  return bwrapLauncher.launcher;
}

/** Every sandbox alive at once needs a uid of its own: the running ones and as many warm ones. */
export const MAX_JUDGE_SLOTS = OS_SANDBOX_DEFAULTS.uidsPerProcess / 2;

async function build(settings: SandboxRuntimeSettings): Promise<SandboxRuntime> {
  const slots = settings.slots ?? defaultJudgeSlots();
  if (slots > MAX_JUDGE_SLOTS) {
    throw new SandboxUnavailableError(
      `at most ${MAX_JUDGE_SLOTS} judging slots per worker (asked: ${slots})`,
    );
  }
  const launcher =
    settings.mode === 'unsafe-process' ? createUnsafeProcessLauncher() : await bwrapLauncherFor(settings);
  // One warm sandbox per slot: a run never waits for a launch while the pool keeps up.
  launcher.setWarmCapacity(settings.warmSandboxes ?? slots);
  return {
    launcher,
    slots: new JudgingSlots(slots),
    onUnsafeRun: settings.onUnsafeRun,
  };
}

/** Sets up (and proves) the sandbox; rejects with SandboxUnavailableError saying what is missing. */
export async function configureSandboxRuntime(
  settings: SandboxRuntimeSettings,
): Promise<SandboxReport & { slots: number }> {
  const runtime = build(settings);
  current = runtime;
  runtime.catch(() => {
    if (current === runtime) current = undefined;
  });
  const { launcher, slots } = await runtime;
  return { ...launcher.report, slots: slots.size };
}

export function sandboxRuntime(): Promise<SandboxRuntime> {
  if (current === undefined) {
    const runtime = build({ mode: 'bwrap' });
    current = runtime;
    // A machine that gains bwrap later is tried again on the next judging.
    runtime.catch(() => {
      if (current === runtime) current = undefined;
    });
  }
  return current.catch((error: unknown) => {
    throw error instanceof SandboxUnavailableError
      ? error
      : new SandboxUnavailableError(`the sandbox could not be set up: ${(error as Error).message}`);
  });
}
