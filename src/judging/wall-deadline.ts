/**
 * Wall-clock deadlines that stop hangs, not slow machines. A process that waits runnable for a
 * CPU (the machine is busy: other judgings, other work) is not at fault, so at its deadline it is
 * given the time its threads waited (the kernel's schedstat run_delay, read from outside), up to
 * a bound; a sleeper or a program blocked on input waits off the run queue and gets nothing.
 */
import { readdir, readFile } from 'node:fs/promises';

/** Less than this left after a check: the deadline has come. */
const RECHECK_MIN_MS = 20;

/** Per thread (tid) of these processes, the time it has waited runnable for a CPU (ms). */
export async function runQueueWaits(pids: readonly number[]): Promise<Map<number, number>> {
  const waits = new Map<number, number>();
  for (const pid of pids) {
    const tids = await readdir(`/proc/${pid}/task`).catch(() => [] as string[]);
    for (const tid of tids) {
      const stat = await readFile(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').catch(() => '');
      const delayNs = Number(stat.split(' ')[1]);
      if (stat !== '' && Number.isFinite(delayNs)) waits.set(Number(tid), delayNs / 1e6);
    }
  }
  return waits;
}

/** A process and its descendants (pids), read from /proc; gone processes are left out. */
export async function processTree(root: number): Promise<number[]> {
  const found: number[] = [];
  const queue = [root];
  while (queue.length > 0 && found.length < 256) {
    const pid = queue.shift()!;
    found.push(pid);
    const tids = await readdir(`/proc/${pid}/task`).catch(() => [] as string[]);
    for (const tid of tids) {
      const text = await readFile(`/proc/${pid}/task/${tid}/children`, 'utf8').catch(() => '');
      for (const child of text.split(' ')) if (child.trim() !== '') queue.push(Number(child));
    }
  }
  return found;
}

/** The longest wait of any one thread since the baseline (threads born since count from 0). */
export function starvedMsSince(
  before: ReadonlyMap<number, number>,
  now: ReadonlyMap<number, number>,
): number {
  let starved = 0;
  for (const [tid, waited] of now) starved = Math.max(starved, waited - (before.get(tid) ?? 0));
  return starved;
}

export interface WallDeadline {
  cancel(): void;
}

/**
 * Calls `onExpire` once `wallMs` have passed beyond the time the watched threads waited for a CPU
 * (at most `maxExtraMs` more). `readWaits` is taken as the baseline now.
 */
export function wallDeadline(input: {
  wallMs: number;
  maxExtraMs: number;
  readWaits: () => Promise<Map<number, number>>;
  onExpire: () => void;
}): WallDeadline {
  const startedAt = performance.now();
  const read = () => input.readWaits().catch(() => new Map<number, number>());
  const baseline = read();
  let timer: NodeJS.Timeout | undefined;
  let cancelled = false;
  const check = async () => {
    const [before, now] = await Promise.all([baseline, read()]);
    if (cancelled) return;
    const extraMs = Math.min(starvedMsSince(before, now), input.maxExtraMs);
    const leftMs = input.wallMs + extraMs - (performance.now() - startedAt);
    if (leftMs < RECHECK_MIN_MS) {
      cancelled = true;
      input.onExpire();
    } else timer = setTimeout(() => void check(), leftMs);
  };
  timer = setTimeout(() => void check(), input.wallMs);
  return {
    cancel() {
      cancelled = true;
      clearTimeout(timer);
    },
  };
}
