/**
 * The warm pool's bookkeeping (warm-pool.ts), with launches the test controls: which sandbox a run
 * gets (parked, still launching, or cold), what is launched ahead, and what is discarded. The
 * sandboxes themselves are proven in test/system/sandbox and tests-judge/program-judge.
 */
import { WarmPool } from '../../../src/judging/sandbox/warm-pool';

interface Sandbox {
  id: number;
  spec: string;
  alive: boolean;
  discarded: boolean;
  referenced: boolean;
}

/** A pool whose launches resolve when the test says so (`land`), or at once with `instant`. */
function harness(options: { instant?: boolean } = {}) {
  let next = 0;
  const launched: Sandbox[] = [];
  const waiting: { sandbox: Sandbox; resolve: (s: Sandbox) => void; reject: (e: Error) => void }[] = [];
  const pool = new WarmPool<Sandbox, string>({
    launch: (spec) => {
      const sandbox: Sandbox = { id: ++next, spec, alive: true, discarded: false, referenced: true };
      launched.push(sandbox);
      if (options.instant) return Promise.resolve(sandbox);
      return new Promise((resolve, reject) => waiting.push({ sandbox, resolve, reject }));
    },
    discard: (sandbox) => {
      sandbox.discarded = true;
      sandbox.alive = false;
    },
    isAlive: (sandbox) => sandbox.alive,
    park: (sandbox) => (sandbox.referenced = false),
    unpark: (sandbox) => (sandbox.referenced = true),
  });
  /** Lets every launch under way finish (or fail), then the pool's callbacks run. */
  const land = async (fail = false) => {
    for (const { sandbox, resolve, reject } of waiting.splice(0)) {
      if (fail) reject(new Error('bwrap failed'));
      else resolve(sandbox);
    }
    await pool.idle();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { pool, launched, land };
}

test('capacity 0 keeps nothing: every run is launched cold for itself', async () => {
  const { pool, launched } = harness({ instant: true });
  const a = await pool.take('k', 'spec');
  const b = await pool.take('k', 'spec');
  expect([a.id, b.id]).toEqual([1, 2]);
  expect(launched).toHaveLength(2);
  expect(pool.parkedCount('k')).toBe(0);
});

test('a run is launched cold once; the next run of its key takes the sandbox launched ahead', async () => {
  const { pool, launched, land } = harness();
  pool.setCapacity(2);
  const first = pool.take('k', 'spec');
  await land();
  expect((await first).id).toBe(1);
  // The replacement (2) is parked, unreferenced (it does not keep the process alive).
  expect(pool.parkedCount('k')).toBe(1);
  expect(launched[1].referenced).toBe(false);
  const second = pool.take('k', 'spec');
  await land();
  expect((await second).id).toBe(2);
  expect(launched[1].referenced).toBe(true);
  expect(launched).toHaveLength(3); // 1 cold, 2 and 3 launched ahead
});

test('a run whose sandbox is still launching waits for it instead of launching another', async () => {
  const { pool, launched, land } = harness();
  pool.setCapacity(2);
  const first = pool.take('k', 'spec'); // cold 1, ahead 2
  const second = pool.take('k', 'spec'); // claims 2 while it launches; ahead 3
  expect(launched.map((s) => s.id)).toEqual([1, 2, 3]);
  await land();
  expect([(await first).id, (await second).id]).toEqual([1, 2]);
  // 2 was handed to the run that claimed it, not parked; 3 is parked for the next run.
  expect(launched[1].referenced).toBe(true);
  expect(pool.parkedCount('k')).toBe(1);
});

test('the last run of a key launches nothing ahead; with two lanes, nothing is left over', async () => {
  const { pool, launched, land } = harness();
  pool.setCapacity(2);
  // Three tests on two lanes: the first two start together, the third when one ends.
  const lane1 = pool.take('k', 'spec'); // cold 1, ahead 2
  const lane2 = pool.take('k', 'spec'); // claims 2 while it launches, ahead 3
  await land();
  expect([(await lane1).id, (await lane2).id]).toEqual([1, 2]);
  const last = pool.take('k', 'spec', { refill: false }); // takes 3, launches nothing
  await land();
  expect((await last).id).toBe(3);
  expect(launched).toHaveLength(3);
  expect(pool.parkedCount('k')).toBe(0);
});

test("a full pool makes room with another key's oldest sandbox; dead or failed ones are never handed out", async () => {
  const { pool, launched, land } = harness();
  pool.setCapacity(1);
  const a = pool.take('a', 'A'); // cold 1, ahead 2 (a)
  await land();
  await a;
  expect(pool.parkedCount('a')).toBe(1);
  const b = pool.take('b', 'B'); // cold 3; 2 is evicted for b's 4
  await land();
  await b;
  expect(launched[1].discarded).toBe(true);
  expect(pool.parkedCount('b')).toBe(1);

  // The parked sandbox died while waiting: discarded, and the run is launched cold.
  launched[3].alive = false;
  const c = pool.take('b', 'B');
  await land();
  expect((await c).id).toBe(5);
  expect(launched[3].discarded).toBe(true);

  // The sandbox launched ahead failed to launch: the run that claimed it launches its own.
  const d = pool.take('b', 'B'); // takes 6, launches 7 ahead
  await land();
  expect((await d).id).toBe(6);
  const e = pool.take('b', 'B'); // takes 7 (parked), launches 8 ahead
  await land();
  expect((await e).id).toBe(7);
  const f = pool.take('b', 'B', { refill: false }); // takes 8
  await land();
  expect((await f).id).toBe(8);
  const g = pool.take('x', 'X'); // cold 9, ahead 10
  const h = pool.take('x', 'X', { refill: false }); // claims 10, which fails: 11 is launched for it
  const gFails = expect(g).rejects.toThrow('bwrap failed');
  await land(true);
  await gFails;
  await land();
  expect((await h).id).toBe(11);
});

test('close discards the parked sandboxes and those that land afterwards', async () => {
  const { pool, launched, land } = harness();
  pool.setCapacity(2);
  const first = pool.take('k', 'spec');
  await land();
  await first;
  pool.take('k', 'spec'); // takes 2, launches 3
  pool.close();
  await land();
  expect(launched.map((s) => s.discarded)).toEqual([false, false, true]);
  expect(pool.parkedCount('k')).toBe(0);
});
