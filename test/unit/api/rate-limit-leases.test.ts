import { createLeasingRateLimiter, LEASE_POLICY, type RateLimitStore } from '../../../src/api/rate-limits';
import type { RateLimitGrant, RateLimitTail, RateLimitTake } from '../../../src/db/queries/rate-limits';

/**
 * The process side of local allocations (src/api/rate-limits.ts) over an in-memory store with the
 * same grant rule as the table and the Redis script (those are tested against the real stores in
 * test/service/rate-limit-leases.test.ts): what happens to an idle tail, requests that arrive
 * while a tail is on its way back, and a store that fails.
 */
function memoryStore() {
  const rows = new Map<string, { points: number; expire: number }>();
  const calls = { takes: 0, giveBacks: [] as RateLimitTail[][] };
  let refuseGiveBacks = false;
  let failing = false;
  let holdGiveBack: Promise<void> | null = null;
  const store: RateLimitStore = {
    async take(steps: RateLimitTake[]) {
      if (failing) throw new Error('store down');
      calls.takes += 1;
      const now = Date.now();
      const out = new Map<string, RateLimitGrant>();
      for (const s of steps) {
        let row = rows.get(s.key);
        if (!row || row.expire <= now) row = { points: 0, expire: now + s.durationMs };
        const a = Math.max(0, s.limit - row.points);
        const d = Math.min(s.demand, a);
        const g =
          d +
          Math.min(s.extra, Math.max(0, Math.floor((a - d - LEASE_POLICY.nearLimit) / LEASE_POLICY.spread)));
        row = { points: row.points + g, expire: row.expire };
        rows.set(s.key, row);
        out.set(s.key, { ...row, granted: g });
      }
      return out;
    },
    async giveBack(tails) {
      calls.giveBacks.push(tails);
      if (holdGiveBack) await holdGiveBack;
      const taken = new Set<string>();
      for (const t of tails) {
        const row = rows.get(t.key);
        if (refuseGiveBacks || !row || row.points !== t.end || row.expire !== t.expire) continue;
        row.points -= t.count;
        taken.add(t.key);
      }
      return taken;
    },
    async read(key) {
      return rows.get(key) ?? null;
    },
  };
  return {
    store,
    rows,
    calls,
    refuseGiveBacks: (v: boolean) => (refuseGiveBacks = v),
    fail: (v: boolean) => (failing = v),
    hold: (p: Promise<void> | null) => (holdGiveBack = p),
  };
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}

/** Spends `n` places one after another, so the key is busy and its takes carry extra slots. */
async function spend(limiter: ReturnType<typeof createLeasingRateLimiter>, subject: string, n: number) {
  const remaining: number[] = [];
  for (let i = 0; i < n; i++) remaining.push((await limiter.consume('reads', subject)).remaining);
  return remaining;
}

/** Spends places one after another until the process holds unspent ones (a lease); how many spent. */
async function spendUntilLeased(
  limiter: ReturnType<typeof createLeasingRateLimiter>,
  mem: ReturnType<typeof memoryStore>,
  subject: string,
): Promise<number> {
  for (let spent = 1; spent < 100; spent++) {
    expect((await limiter.consume('reads', subject)).remaining).toBe(200 - spent);
    if (mem.rows.get(`rl:reads:${subject}`)!.points > spent) return spent;
  }
  throw new Error('never leased');
}

test('an idle tail goes back to the store, and the next request continues the countdown', async () => {
  const mem = memoryStore();
  const limiter = createLeasingRateLimiter(mem.store);
  const spent = await spendUntilLeased(limiter, mem, 's1');
  await until(() => mem.calls.giveBacks.length > 0);
  await until(() => mem.rows.get('rl:reads:s1')!.points === spent);
  expect(await spend(limiter, 's1', 1)).toEqual([199 - spent]);
});

test('a tail the store does not take back stays ours: no place lost, none shown twice', async () => {
  const mem = memoryStore();
  mem.refuseGiveBacks(true);
  const limiter = createLeasingRateLimiter(mem.store);
  const spent = await spendUntilLeased(limiter, mem, 's2');
  const takes = mem.calls.takes;
  await until(() => mem.calls.giveBacks.length > 0);
  // Refused, the tail is spent by the next requests without a take.
  expect(await spend(limiter, 's2', 1)).toEqual([199 - spent]);
  expect(mem.calls.takes).toBe(takes);
});

test('requests arriving while a tail is on its way back wait for it, then get the next places in order', async () => {
  const mem = memoryStore();
  let release!: () => void;
  mem.hold(new Promise<void>((resolve) => (release = resolve)));
  const limiter = createLeasingRateLimiter(mem.store);
  const spent = await spendUntilLeased(limiter, mem, 's3');
  await until(() => mem.calls.giveBacks.length > 0);
  const waiting = Promise.all([limiter.consume('reads', 's3'), limiter.consume('reads', 's3')]);
  release();
  expect((await waiting).map((d) => d.remaining)).toEqual([199 - spent, 198 - spent]);
});

test('near the limit every request takes its own slot, and past it the answer is 429 with the window', async () => {
  const mem = memoryStore();
  const limiter = createLeasingRateLimiter(mem.store);
  const remaining = await spend(limiter, 's4', 200);
  expect(remaining).toEqual(Array.from({ length: 200 }, (_, i) => 199 - i));
  const refused = await limiter.consume('reads', 's4');
  expect(refused).toMatchObject({ allowed: false, remaining: 0 });
  expect(refused.retryAfterSec).toBeGreaterThanOrEqual(1);
  expect(refused.retryAfterSec).toBeLessThanOrEqual(60);
  expect(refused.resetAt).toBe(Math.ceil(mem.rows.get('rl:reads:s4')!.expire / 1000));
  expect(mem.rows.get('rl:reads:s4')!.points).toBe(200);
});

test('a failing store leaves the limit to the per-process insurance limiter, never an error', async () => {
  const mem = memoryStore();
  mem.fail(true);
  const limiter = createLeasingRateLimiter(mem.store);
  const answers = await Promise.all(Array.from({ length: 3 }, () => limiter.consume('submissions', 's5')));
  expect(answers.map((a) => a.remaining).sort()).toEqual([27, 28, 29]);
  expect(answers.every((a) => a.allowed)).toBe(true);
});

/** Whether `answer` settles without a store round trip (within this turn's microtasks). */
async function answeredAtOnce<T>(answer: Promise<T>): Promise<{ value: T; atOnce: boolean }> {
  let settled = false;
  const tracked = answer.then((value) => ((settled = true), value));
  await Promise.resolve();
  await Promise.resolve();
  const atOnce = settled;
  return { value: await tracked, atOnce };
}

test('a busy key takes its next run before the lease is spent: after its first two requests none waits', async () => {
  const mem = memoryStore();
  // Long horizon and idle time: a stalled test process (a loaded machine) neither shrinks the
  // leases to one place nor gives a tail back between two requests.
  const limiter = createLeasingRateLimiter(mem.store, {
    timing: { horizonMs: 60_000, idleGiveBackMs: 60_000 },
  });
  const waited: number[] = [];
  const remaining: number[] = [];
  // 150 requests 5 ms apart (200/s): the first finds no lease, the second finds the first's single
  // slot spent; from then on each lease asks for the next one while half of it is left.
  for (let i = 0; i < 150; i++) {
    const { value, atOnce } = await answeredAtOnce(limiter.consume('reads', 'ahead-1'));
    if (!atOnce) waited.push(i);
    remaining.push(value.remaining);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  expect(waited).toEqual([0, 1]);
  expect(remaining).toEqual(Array.from({ length: 150 }, (_, i) => 199 - i));
  expect(mem.calls.takes).toBeGreaterThan(2);
});

test('two processes spending one budget: each shows its places in order, none twice, exactly the limit admitted', async () => {
  const mem = memoryStore();
  const a = createLeasingRateLimiter(mem.store);
  const b = createLeasingRateLimiter(mem.store);
  const shown = { a: [] as number[], b: [] as number[] };
  let admitted = 0;
  // Interleaved callers on both, so takes ahead land after the other's places (runs not contiguous).
  for (let i = 0; i < 260; i++) {
    const [da, db] = await Promise.all([a.consume('reads', 'shared'), b.consume('reads', 'shared')]);
    for (const [who, d] of [
      ['a', da],
      ['b', db],
    ] as const)
      if (d.allowed) {
        admitted += 1;
        shown[who].push(d.remaining);
      }
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  expect(admitted).toBe(200);
  for (const list of [shown.a, shown.b])
    for (let i = 1; i < list.length; i++) expect(list[i]).toBeLessThan(list[i - 1]);
  const places = [...shown.a, ...shown.b].map((r) => 200 - r);
  expect(new Set(places).size).toBe(200);
  expect(Math.max(...places)).toBe(200);
  expect(mem.rows.get('rl:reads:shared')!.points).toBe(200);
});

test('a run taken ahead after places of another process: the lease is spent first, the newer run goes back when idle', async () => {
  const mem = memoryStore();
  const key = 'rl:reads:ahead-idle';
  const theirs: number[] = [];
  let aheadTakes = 0;
  // Another process takes one place just before each of our takes ahead (demand 0), so the run we
  // take ahead never follows our lease, and stays the window's newest.
  const store: RateLimitStore = {
    ...mem.store,
    async take(steps) {
      if (steps.some((s) => s.key === key && s.demand === 0)) {
        aheadTakes += 1;
        const other = await mem.store.take([{ key, demand: 1, extra: 0, limit: 200, durationMs: 60_000 }]);
        theirs.push(other.get(key)!.points);
      }
      return mem.store.take(steps);
    },
  };
  // As above, robust to a stalled test process; the idle give-back comes 3 s after the last request.
  const limiter = createLeasingRateLimiter(store, { timing: { horizonMs: 60_000, idleGiveBackMs: 3000 } });
  const ours: number[] = [];
  while (aheadTakes < 2 && ours.length < 150) {
    ours.push(200 - (await limiter.consume('reads', 'ahead-idle')).remaining);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  expect(aheadTakes).toBe(2);
  const counted = mem.rows.get(key)!.points;
  await until(() => mem.calls.giveBacks.length > 0);
  await new Promise((resolve) => setTimeout(resolve, 20));
  const [tail] = mem.calls.giveBacks[0];
  expect(tail).toMatchObject({ key, end: counted });
  expect(mem.rows.get(key)!.points).toBe(counted - tail.count);
  // The older run's unspent places stay ours and come next, below the run given back.
  const next = 200 - (await limiter.consume('reads', 'ahead-idle')).remaining;
  expect(next).toBeLessThan(tail.end - tail.count + 1);
  ours.push(next);
  for (let i = 1; i < ours.length; i++) expect(ours[i]).toBeGreaterThan(ours[i - 1]);
  expect(new Set([...ours, ...theirs]).size).toBe(ours.length + theirs.length);
});
