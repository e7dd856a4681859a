import { processTree, runQueueWaits, starvedMsSince, wallDeadline } from '../../../src/judging/wall-deadline';

/** Resolves when the deadline expires; counts the readings it took. */
function watch(wallMs: number, maxExtraMs: number, readings: Array<Map<number, number>>) {
  let reads = 0;
  const expired = new Promise<number>((resolve) => {
    wallDeadline({
      wallMs,
      maxExtraMs,
      readWaits: async () => readings[Math.min(reads++, readings.length - 1)],
      onExpire: () => resolve(reads),
    });
  });
  return expired;
}

describe('wall deadlines that stop hangs, not slow machines', () => {
  it('the longest wait of one thread counts, threads born later from zero', () => {
    const before = new Map([
      [1, 100],
      [2, 50],
    ]);
    const now = new Map([
      [1, 130],
      [2, 90],
      [3, 25],
    ]);
    expect(starvedMsSince(before, now)).toBe(40);
  });

  it('a process that never waited for a CPU (a sleeper) expires at the first check', async () => {
    const idle = new Map([[1, 5]]);
    // baseline + one check
    await expect(watch(30, 1_000, [idle, idle])).resolves.toBe(2);
  });

  it('a starved process is given the time it waited, then expires at a later check', async () => {
    // At the first check its thread had waited 300 ms: it gets them, and nothing more later.
    const readings = [new Map([[1, 0]]), new Map([[1, 300]]), new Map([[1, 300]])];
    await expect(watch(30, 1_000, readings)).resolves.toBe(3);
  });

  it('the extra time is bounded however long the process waited', async () => {
    const readings = [new Map([[1, 0]]), new Map([[1, 1e9]])];
    // baseline, the first check (starved: +300 ms, the bound), then the bound reached: it expires
    // although the thread keeps "waiting" more than any deadline.
    await expect(watch(30, 300, readings)).resolves.toBe(3);
  });

  it('reads this very process: its threads, their run-queue waits, its descendants', async () => {
    const tree = await processTree(process.pid);
    expect(tree[0]).toBe(process.pid);
    const waits = await runQueueWaits([process.pid]);
    expect(waits.has(process.pid)).toBe(true);
    for (const waited of waits.values()) expect(waited).toBeGreaterThanOrEqual(0);
  });
});
