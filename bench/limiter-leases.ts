/**
 * The leasing limiter's store traffic per 1,000 requests, independent of the machine's load
 * (issue 42): the real createLeasingRateLimiter over an in-memory store with the table's grant
 * rule and a fixed round-trip delay, driven by an open loop of evenly spaced requests over K keys
 * in turn (the read bench's pattern: `tokensFor` gives each token about its budget) or, for
 * callers as the spec sizes them, each key at its own steady rate. Counts: takes (round trips),
 * keys they carried, give-backs, requests that waited on the store, and admitted requests.
 *
 *   npx tsx bench/limiter-leases.ts            # both timings, the patterns below
 *   LEASES_HORIZON_MS=2000 LEASES_IDLE_MS=1000 npx tsx bench/limiter-leases.ts
 */
import {
  createLeasingRateLimiter,
  LEASE_POLICY,
  type LeaseTiming,
  type RateLimitStore,
} from '../src/api/rate-limits';
import type { RateLimitGrant, RateLimitTake } from '../src/db/queries/rate-limits';

const STORE_DELAY_MS = Number(process.env.LEASES_STORE_DELAY_MS ?? 1);
const DURATION_MS = Number(process.env.LEASES_DURATION_MS ?? 6000);

interface Counts {
  requests: number;
  admitted: number;
  takes: number;
  takeKeys: number;
  giveBacks: number;
  waits: number;
}

function countingStore(counts: Counts): RateLimitStore {
  const rows = new Map<string, { points: number; expire: number }>();
  const later = <T>(f: () => T) =>
    new Promise<T>((resolve) => setTimeout(() => resolve(f()), STORE_DELAY_MS));
  return {
    take: (steps: RateLimitTake[]) => {
      counts.takes += 1;
      counts.takeKeys += steps.length;
      return later(() => {
        const now = Date.now();
        const out = new Map<string, RateLimitGrant>();
        for (const s of steps) {
          let row = rows.get(s.key);
          if (!row || row.expire <= now) row = { points: 0, expire: now + s.durationMs };
          const a = Math.max(0, s.limit - row.points);
          const d = Math.min(s.demand, a);
          const g =
            d +
            Math.min(
              s.extra,
              Math.max(0, Math.floor((a - d - LEASE_POLICY.nearLimit) / LEASE_POLICY.spread)),
            );
          row = { points: row.points + g, expire: row.expire };
          rows.set(s.key, row);
          out.set(s.key, { ...row, granted: g });
        }
        return out;
      });
    },
    giveBack: (tails) => {
      counts.giveBacks += 1;
      return later(() => {
        const taken = new Set<string>();
        for (const t of tails) {
          const row = rows.get(t.key);
          if (!row || row.points !== t.end || row.expire !== t.expire) continue;
          row.points -= t.count;
          taken.add(t.key);
        }
        return taken;
      });
    },
    read: async (key) => rows.get(key) ?? null,
  };
}

/** `rate` requests/s spread evenly over `keys` keys taken in turn, for DURATION_MS. */
async function run(timing: LeaseTiming, keys: number, rate: number): Promise<Counts> {
  const counts: Counts = { requests: 0, admitted: 0, takes: 0, takeKeys: 0, giveBacks: 0, waits: 0 };
  const limiter = createLeasingRateLimiter(countingStore(counts), { timing });
  const subject = `run-${Math.random()}`;
  const started = performance.now();
  const inFlight: Promise<void>[] = [];
  let sent = 0;
  while (performance.now() - started < DURATION_MS) {
    const due = Math.floor(((performance.now() - started) / 1000) * rate);
    for (; sent < due; sent++) {
      counts.requests += 1;
      let settled = false;
      const p = limiter.consume('reads', `${subject}-${sent % keys}`).then((d) => {
        settled = true;
        if (d.allowed) counts.admitted += 1;
      });
      // A request answered from the lease settles in this turn's microtasks; one that did not waited.
      inFlight.push(
        Promise.resolve()
          .then(() => undefined)
          .then(() => {
            if (!settled) counts.waits += 1;
          }),
        p,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  await Promise.all(inFlight);
  return counts;
}

const per1000 = (c: Counts, n: number) => ((1000 * n) / c.requests).toFixed(0);

async function main(): Promise<void> {
  const timings: [string, LeaseTiming][] = process.env.LEASES_HORIZON_MS
    ? [
        [
          'env',
          {
            horizonMs: Number(process.env.LEASES_HORIZON_MS),
            idleGiveBackMs: Number(process.env.LEASES_IDLE_MS ?? 100),
          },
        ],
      ]
    : [
        ['500/100 (before)', { horizonMs: 500, idleGiveBackMs: 100 }],
        ['2000/1000', { horizonMs: 2000, idleGiveBackMs: 1000 }],
      ];
  // [label, keys, total req/s]: the quiet run's list (1,248 req/s over 125 tokens) and leaderboard
  // (4,141 over 432), each token at ~10 req/s; callers at the spec's pace (200/min = 3.3 req/s).
  const patterns: [string, number, number][] = [
    ['bench list: 125 keys, 1,250/s', 125, 1250],
    ['bench board: 432 keys, 4,100/s', 432, 4100],
    ['callers at 3.3/s: 600 keys, 2,000/s', 600, 2000],
    ['callers at 1/s: 2,000 keys, 2,000/s', 2000, 2000],
  ];
  for (const [label, keys, rate] of patterns)
    for (const [name, timing] of timings) {
      const c = await run(timing, keys, rate);
      console.log(
        `${label} | ${name}: per 1,000 requests ${per1000(c, c.takes)} takes (${per1000(c, c.takeKeys)} keys), ${per1000(c, c.giveBacks)} give-backs, ${per1000(c, c.waits)} waited; admitted ${c.admitted}/${c.requests}`,
      );
    }
}

void main();
