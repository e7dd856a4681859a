import type { Pool } from 'pg';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import {
  deleteExpiredRateLimits,
  giveBackRateLimitSlots,
  readRateLimit,
  takeRateLimitSlots,
  type RateLimitGrant,
  type RateLimitTail,
  type RateLimitTake,
} from '../db/queries/rate-limits';
import { rateLimitStoreCalls, rateLimitStoreKeys, rateLimitWaits } from '../lib/metrics';

const takeCalls = rateLimitStoreCalls.labels('take');
const takeKeys = rateLimitStoreKeys.labels('take');
const giveBackCalls = rateLimitStoreCalls.labels('give_back');
const giveBackKeys = rateLimitStoreKeys.labels('give_back');

/** The spec's limits table (section 8) plus DESIGN.md's numbers for what it leaves open. */
export const RATE_LIMIT_CATEGORIES = {
  reads: { points: 200, durationSec: 60 },
  submissions: { points: 30, durationSec: 60 },
  sessions: { points: 60, durationSec: 60 },
  webhooks: { points: 20, durationSec: 3600 },
  tokenCreation: { points: 10, durationSec: 3600 },
  heartbeat: { points: 120, durationSec: 60 },
  stream: { points: 30, durationSec: 60 },
  /** The assigned-challenges poll; 429 carries Retry-After: 60. */
  assigned: { points: 30, durationSec: 60, retryAfterSec: 60 },
  /** Anonymous callers on public routes, per IP. */
  anonymous: { points: 60, durationSec: 60 },
  /** Web pages (HTML), per IP: apart from the API's budgets, so API calls never lock a person out of the site. */
  pages: { points: 300, durationSec: 60 },
  /** Everything else an authenticated caller does (agents, keys, admin, unknown routes). */
  default: { points: 200, durationSec: 60 },
} as const satisfies Record<string, { points: number; durationSec: number; retryAfterSec?: number }>;

export type RateLimitCategory = keyof typeof RATE_LIMIT_CATEGORIES;

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds when the window resets. */
  resetAt: number;
  retryAfterSec: number;
}

export interface RateLimiter {
  consume(category: RateLimitCategory, subject: string): Promise<RateLimitDecision>;
  /**
   * The budget as it stands, counting nothing (health and readiness probes report it, never spend
   * it). Never rejects: a store that does not answer within PEEK_WAIT_MS is reported as unknown
   * (the full budget), so a probe does not wait on it.
   */
  peek(category: RateLimitCategory, subject: string): Promise<RateLimitDecision>;
  /** Resolves once the shared store is connected (until then, per-process insurance limits apply). */
  whenReady?: () => Promise<void>;
}

/** The answer for a window in which `consumed` points are used (the current request included). */
function decide(category: RateLimitCategory, consumed: number, windowEndsAt: number): RateLimitDecision {
  const spec = RATE_LIMIT_CATEGORIES[category];
  const retryAfterFixed = 'retryAfterSec' in spec ? spec.retryAfterSec : undefined;
  const msBeforeNext = Math.max(0, windowEndsAt - Date.now());
  return {
    allowed: consumed <= spec.points,
    limit: spec.points,
    remaining: Math.max(0, spec.points - consumed),
    resetAt: Math.ceil(windowEndsAt / 1000),
    retryAfterSec: retryAfterFixed ?? Math.max(1, Math.ceil(msBeforeNext / 1000)),
  };
}

function unlimited(category: RateLimitCategory): RateLimitDecision {
  const spec = RATE_LIMIT_CATEGORIES[category];
  return {
    allowed: true,
    limit: spec.points,
    remaining: spec.points,
    resetAt: Math.ceil(Date.now() / 1000) + spec.durationSec,
    retryAfterSec: 0,
  };
}

type CategorySpec = (typeof RATE_LIMIT_CATEGORIES)[RateLimitCategory];

/** One limiter per rate-limit category, built from its spec. */
function perCategory<L>(
  make: (category: RateLimitCategory, spec: CategorySpec) => L,
): Map<RateLimitCategory, L> {
  const entries = Object.entries(RATE_LIMIT_CATEGORIES) as [RateLimitCategory, CategorySpec][];
  return new Map(entries.map(([category, spec]) => [category, make(category, spec)]));
}

function insuranceLimiters(): Map<RateLimitCategory, RateLimiterMemory> {
  return perCategory(
    (category, spec) =>
      new RateLimiterMemory({
        keyPrefix: `rlmem:${category}`,
        points: spec.points,
        duration: spec.durationSec,
      }),
  );
}

/** How long a probe waits for the budget store before reporting the budget as unknown. */
const PEEK_WAIT_MS = 500;

/** `read` (counted points and window end, null: no open window) as a decision, bounded and never rejecting. */
async function peekDecision(
  category: RateLimitCategory,
  read: () => Promise<{ consumed: number; windowEndsAt: number } | null>,
): Promise<RateLimitDecision> {
  let timer: NodeJS.Timeout | undefined;
  const state = await Promise.race([
    read().catch(() => null),
    new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), PEEK_WAIT_MS))),
  ]);
  clearTimeout(timer);
  if (!state || state.windowEndsAt <= Date.now()) return unlimited(category);
  // What the caller's next counted request would see; a probe itself is always allowed.
  return { ...decide(category, state.consumed, state.windowEndsAt), allowed: true };
}

/** Exhausted keys are refused from memory only in windows this short (seconds). */
const MAX_MEMORY_BLOCK_SEC = 60;
/** How often one process sweeps windows that ended over an hour ago from the shared table. */
const SWEEP_EVERY_MS = 5 * 60_000;

/**
 * The lease policy (docs/decisions/platform.md, "Local allocations"). A take asks for the slots of
 * the requests waiting now plus, for a busy key, what its recent rate would use in LEASE_TIMING.horizonMs
 * (at most MAX_EXTRA). The store grants extra slots only while more than NEAR_LIMIT stay free after
 * the take, and at most 1/SPREAD of what lies above them (room for the other processes): the last
 * NEAR_LIMIT slots of a window are taken one request at a time.
 */
export const LEASE_POLICY = { nearLimit: 32, spread: 4 } as const;
const MAX_EXTRA = 64;
/**
 * horizonMs: a busy key's take asks for what its recent rate would use in this long.
 * idleGiveBackMs: an unspent tail unused this long is given back (when still the newest lease of its window).
 */
export interface LeaseTiming {
  horizonMs: number;
  idleGiveBackMs: number;
}
// 2 s / 1 s rather than 500 / 100 ms: a caller at 10 req/s waited on the store in 183 of 1,000
// requests, one at the spec's 3.3 req/s in all of them; now 58 and 175 (bench/limiter-leases.ts).
// Leases stay bounded by LEASE_POLICY, so only how long unspent slots stay local changes.
export const LEASE_TIMING: LeaseTiming = { horizonMs: 2000, idleGiveBackMs: 1000 };
/**
 * A lease of more than one slot asks for the next run once this share of it is left, so a steady
 * caller's requests find slots while the take is in flight (session 23: the leaderboard's 72 waits
 * per 1,000 requests were one per lease, each a store round trip on the request's path).
 */
const AHEAD_AT = 0.5;

/** Where the windows live: PostgreSQL's `rate_limits` or Redis hashes, same semantics. */
export interface RateLimitStore {
  take(steps: RateLimitTake[]): Promise<Map<string, RateLimitGrant>>;
  /** Gives tails back; answers the keys whose tails the store took back. */
  giveBack(tails: RateLimitTail[]): Promise<Set<string>>;
  read(key: string): Promise<{ points: number; expire: number } | null>;
  sweep?(): Promise<void>;
  whenReady?: () => Promise<void>;
}

type Settle = (decision: RateLimitDecision) => void;

/** A process's own run of consecutive places in a window's countdown: slots next..end. */
interface Lease {
  expire: number;
  next: number;
  end: number;
  lastUsedAt: number;
  /** Its slots at grant time (sizes the take-ahead's low-water mark). */
  size: number;
  /** A take ahead was asked while spending this lease (at most one per lease). */
  aheadAsked: boolean;
}

interface KeyState {
  key: string;
  category: RateLimitCategory;
  subject: string;
  lease: Lease | null;
  /**
   * A later run taken ahead while `lease` still had slots, not contiguous with it (another process
   * took places in between): spent once `lease` is, so slots still go out in order.
   */
  ahead: Lease | null;
  /** Requests waiting for the store, in arrival order. */
  waiting: Settle[];
  /** A take for this key is queued or in flight (one at a time per key and process). */
  asking: boolean;
  /** For the rate estimate: when the last take was answered and slots used since. */
  takenAt: number;
  usedSinceTake: number;
}

/**
 * One budget per subject across processes, spent from local allocations (Envoy's and Stripe's
 * limiters): a request takes the next slot of its process's lease without a round trip; a
 * request finding none waits for one take, which the requests of one event-loop turn share (one
 * statement for every key). Each admitted request is shown its own place in the shared countdown
 * (its slot; no two requests anywhere get the same one, none beyond the limit), and a process
 * hands its slots out in order, so Remaining never rises on one process. A take answers with
 * the window's end, so Reset and Retry-After are the store's. Should the store fail, an in-memory
 * insurance limiter keeps limits per process rather than failing requests.
 */
export function createLeasingRateLimiter(
  store: RateLimitStore,
  options: { disabled?: boolean; keyPrefix?: string; timing?: Partial<LeaseTiming> } = {},
): RateLimiter {
  const prefix = options.keyPrefix ?? 'rl';
  const { horizonMs, idleGiveBackMs } = { ...LEASE_TIMING, ...options.timing };
  const insurance = insuranceLimiters();
  const states = new Map<string, KeyState>();
  /** Exhausted keys → when their window ends (epoch ms). */
  const exhausted = new Map<string, number>();
  let pending: { key: string; st: KeyState }[] = [];
  let giveBackTimer: NodeJS.Timeout | null = null;

  if (!options.disabled) {
    const sweep = setInterval(() => {
      void store.sweep?.().catch(() => undefined);
      const now = Date.now();
      for (const [key, until] of exhausted) if (until <= now) exhausted.delete(key);
      for (const [key, st] of states)
        if (
          !st.asking &&
          st.waiting.length === 0 &&
          (!st.lease || st.lease.expire <= now) &&
          (!st.ahead || st.ahead.expire <= now)
        )
          states.delete(key);
    }, SWEEP_EVERY_MS);
    sweep.unref();
  }

  const slotOf = (st: KeyState, lease: Lease, now: number): RateLimitDecision => {
    lease.lastUsedAt = now;
    st.usedSinceTake += 1;
    const slot = lease.next++;
    if (lease.next <= lease.end) scheduleGiveBack();
    // A busy key asks for its next run before this one is spent, so its requests do not wait on
    // the store (Envoy's and Stripe's refill ahead); the grant rule still bounds what it gets.
    if (
      !lease.aheadAsked &&
      !st.asking &&
      st.ahead === null &&
      lease.size > 1 &&
      lease.end - lease.next + 1 <= Math.max(1, Math.floor(lease.size * AHEAD_AT))
    ) {
      lease.aheadAsked = true;
      ask(st.key, st);
    }
    return decide(st.category, slot, lease.expire);
  };

  /** The run to spend now: the lease while it has slots in an open window, then the one taken ahead. */
  function usable(st: KeyState, now: number): Lease | null {
    if (st.lease && st.lease.expire > now && st.lease.next <= st.lease.end) return st.lease;
    if (st.ahead && st.ahead.expire > now && st.ahead.next <= st.ahead.end) {
      st.lease = st.ahead;
      st.ahead = null;
      return st.lease;
    }
    st.ahead = null;
    if (st.lease && st.lease.expire <= now) st.lease = null;
    return null;
  }

  function scheduleGiveBack(): void {
    if (giveBackTimer) return;
    giveBackTimer = setTimeout(giveBackIdle, idleGiveBackMs);
    giveBackTimer.unref();
  }

  /**
   * Unspent tails idle for idleGiveBackMs go back to the store, so other processes may use
   * them. While one is on its way the key's requests wait as for a take; a tail the store does not
   * take back (a newer lease exists) stays ours, and one whose fate is unknown (the store failed) is
   * dropped: fewer admitted, never more.
   */
  function giveBackIdle(): void {
    giveBackTimer = null;
    const now = Date.now();
    const tails: RateLimitTail[] = [];
    const owners: { st: KeyState; lease: Lease }[] = [];
    let holding = false;
    for (const [key, st] of states) {
      if (st.asking) continue;
      if (st.ahead && (st.ahead.expire <= now || st.ahead.next > st.ahead.end)) st.ahead = null;
      // Only the newest run can go back (the count must still end where it ends): the one taken
      // ahead when there is one; the older run's unspent slots then stay this process's.
      const lease = st.ahead ?? st.lease;
      if (!lease || lease.next > lease.end) continue;
      if (lease.expire <= now) {
        st.lease = null;
        continue;
      }
      if (now - Math.max(lease.lastUsedAt, st.lease?.lastUsedAt ?? 0) < idleGiveBackMs) {
        holding = true;
        continue;
      }
      tails.push({ key, end: lease.end, expire: lease.expire, count: lease.end - lease.next + 1 });
      owners.push({ st, lease });
      lease.end = lease.next - 1;
      st.asking = true;
    }
    if (holding) scheduleGiveBack();
    if (tails.length === 0) return;
    const settled = (takenBack: Set<string> | null) => {
      tails.forEach((tail, n) => {
        const { st, lease } = owners[n];
        st.asking = false;
        if (takenBack && !takenBack.has(tail.key)) lease.end = tail.end;
        serveWaiting(st);
      });
    };
    giveBackCalls.inc();
    giveBackKeys.inc(tails.length);
    store.giveBack(tails).then(settled, () => settled(null));
  }

  function ask(key: string, st: KeyState): void {
    st.asking = true;
    if (pending.length === 0) setImmediate(flush);
    pending.push({ key, st });
  }

  function flush(): void {
    const keys = pending;
    pending = [];
    const now = Date.now();
    const steps: RateLimitTake[] = [];
    const asked = new Map<string, { st: KeyState; demand: number }>();
    for (const { key, st } of keys) {
      const spec = RATE_LIMIT_CATEGORIES[st.category];
      // A busy key asks for what its recent rate would use soon; a first request asks for itself.
      const rate = st.takenAt > 0 ? st.usedSinceTake / Math.max(1, now - st.takenAt) : 0;
      const extra = Math.min(MAX_EXTRA, Math.floor(rate * horizonMs));
      const demand = st.waiting.length;
      steps.push({ key, demand, extra, limit: spec.points, durationMs: spec.durationSec * 1000 });
      asked.set(key, { st, demand });
    }
    takeCalls.inc();
    takeKeys.inc(steps.length);
    store.take(steps).then(
      (grants) => {
        for (const [key, { st, demand }] of asked) settle(key, st, grants.get(key)!, demand);
      },
      () => {
        for (const { st } of asked.values()) insure(st);
      },
    );
  }

  /** Serves waiting requests from the runs held, in order; takes again for the rest. */
  function serveWaiting(st: KeyState): void {
    const waiting = st.waiting;
    st.waiting = [];
    let i = 0;
    for (; i < waiting.length; i++) {
      const now = Date.now();
      const lease = usable(st, now);
      if (!lease) break;
      waiting[i](slotOf(st, lease, now));
    }
    if (i === waiting.length) return;
    st.waiting = waiting.slice(i);
    // A take asked ahead by the slots just handed out serves the rest too (its demand is counted
    // when the batch goes out).
    if (!st.asking) ask(st.key, st);
  }

  function settle(key: string, st: KeyState, grant: RateLimitGrant, demand: number): void {
    st.asking = false;
    const now = Date.now();
    st.takenAt = now;
    st.usedSinceTake = 0;
    const run: Lease = {
      expire: grant.expire,
      next: grant.points - grant.granted + 1,
      end: grant.points,
      lastUsedAt: now,
      size: grant.granted,
      aheadAsked: false,
    };
    const current = st.lease;
    if (current && current.expire === run.expire && current.next <= current.end) {
      // A take ahead answered while the current run still has slots: the new run follows it.
      if (run.next === current.end + 1) {
        current.end = run.end;
        current.size = current.end - current.next + 1;
        current.aheadAsked = false;
      } else if (grant.granted > 0) st.ahead = run;
    } else {
      st.lease = run;
      st.ahead = null;
    }
    const spec = RATE_LIMIT_CATEGORIES[st.category];
    const full = grant.granted < demand || grant.points >= spec.points;
    if (!full) {
      serveWaiting(st);
      return;
    }
    const waiting = st.waiting;
    st.waiting = [];
    let i = 0;
    for (; i < waiting.length; i++) {
      const lease = usable(st, Date.now());
      if (!lease) break;
      waiting[i](slotOf(st, lease, Date.now()));
    }
    // The window is full (the store said so just now) and our last slot is spent: later requests
    // are refused from memory, in minute windows (an hourly row an operator clears is obeyed at once).
    if (usable(st, Date.now()) === null && spec.durationSec <= MAX_MEMORY_BLOCK_SEC) {
      if (exhausted.size >= 100_000) exhausted.clear(); // bounded memory
      exhausted.set(key, grant.expire);
    }
    for (; i < waiting.length; i++) waiting[i](decide(st.category, spec.points + 1, grant.expire));
  }

  /** The store failed: these requests are limited per process by the insurance limiter. */
  function insure(st: KeyState): void {
    st.asking = false;
    const waiting = st.waiting;
    st.waiting = [];
    const spec = RATE_LIMIT_CATEGORIES[st.category];
    for (const settleOne of waiting) {
      insurance
        .get(st.category)!
        .consume(st.subject, 1)
        .then(
          (res) =>
            settleOne(decide(st.category, spec.points - res.remainingPoints, Date.now() + res.msBeforeNext)),
          (rejection: unknown) =>
            settleOne(
              decide(
                st.category,
                spec.points + 1,
                Date.now() + (rejection instanceof RateLimiterRes ? rejection.msBeforeNext : 1000),
              ),
            ),
        );
    }
  }

  return {
    consume(category, subject) {
      if (options.disabled) return Promise.resolve(unlimited(category));
      const key = `${prefix}:${category}:${subject}`;
      const now = Date.now();
      const blockedUntil = exhausted.get(key);
      if (blockedUntil !== undefined) {
        if (blockedUntil > now)
          return Promise.resolve(decide(category, RATE_LIMIT_CATEGORIES[category].points + 1, blockedUntil));
        exhausted.delete(key);
      }
      let st = states.get(key);
      if (!st) {
        if (states.size >= 100_000) states.clear(); // bounded memory (leases held are simply not given back)
        st = {
          key,
          category,
          subject,
          lease: null,
          ahead: null,
          waiting: [],
          asking: false,
          takenAt: 0,
          usedSinceTake: 0,
        };
        states.set(key, st);
      }
      const lease = usable(st, now);
      if (lease) return Promise.resolve(slotOf(st, lease, now));
      rateLimitWaits.inc();
      const waiting = st.waiting;
      const answer = new Promise<RateLimitDecision>((resolve) => waiting.push(resolve));
      if (!st.asking) ask(key, st);
      return answer;
    },
    async peek(category, subject) {
      if (options.disabled) return unlimited(category);
      const key = `${prefix}:${category}:${subject}`;
      return peekDecision(category, async () => {
        const stored = await store.read(key);
        if (!stored) return null;
        // Our own unspent slots in this window are not used yet.
        const st = states.get(key);
        let ours = 0;
        for (const lease of [st?.lease, st?.ahead])
          if (lease && lease.expire === stored.expire && lease.end <= stored.points)
            ours += Math.max(0, lease.end - lease.next + 1);
        return { consumed: stored.points - ours, windowEndsAt: stored.expire };
      });
    },
    whenReady: store.whenReady,
  };
}

/** Windows in PostgreSQL (`rate_limits`): the default, shared by every API process. */
export function postgresRateLimitStore(pool: Pool): RateLimitStore {
  return {
    take: (steps) => takeRateLimitSlots(pool, steps, LEASE_POLICY),
    giveBack: (tails) => giveBackRateLimitSlots(pool, tails),
    read: (key) => readRateLimit(pool, key),
    sweep: () => deleteExpiredRateLimits(pool),
  };
}

/** The same windows in Redis: a hash per key (`c` count, `e` window end), expiring with its window. */
const REDIS_TAKE = `
local now, near, spread = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local out = {}
for i, key in ipairs(KEYS) do
  local b = 3 + (i - 1) * 4
  local d, x, l, dur = tonumber(ARGV[b + 1]), tonumber(ARGV[b + 2]), tonumber(ARGV[b + 3]), tonumber(ARGV[b + 4])
  local v = redis.call('HMGET', key, 'c', 'e')
  local c, e = tonumber(v[1]), tonumber(v[2])
  if not c or not e or e <= now then c = 0; e = now + dur end
  local a = math.max(0, l - c)
  local dd = math.min(d, a)
  local g = dd + math.min(x, math.max(0, math.floor((a - dd - near) / spread)))
  c = c + g
  redis.call('HSET', key, 'c', c, 'e', e)
  redis.call('PEXPIREAT', key, e)
  out[#out + 1] = c
  out[#out + 1] = e
  out[#out + 1] = g
end
return out`;
/** A tail goes back only while its lease is the newest of its window (as in PostgreSQL). */
const REDIS_GIVE_BACK = `
local out = {}
for i, key in ipairs(KEYS) do
  local b = (i - 1) * 3
  local p, e, n = tonumber(ARGV[b + 1]), tonumber(ARGV[b + 2]), tonumber(ARGV[b + 3])
  local v = redis.call('HMGET', key, 'c', 'e')
  if tonumber(v[1]) == p and tonumber(v[2]) == e then
    redis.call('HSET', key, 'c', p - n)
    out[i] = 1
  else
    out[i] = 0
  end
end
return out`;

type ScriptCall = (numKeys: number, ...args: (string | number)[]) => Promise<unknown>;

/** Windows in Redis (REDIS_URL): one script call per batch of keys, no PostgreSQL write per request. */
export function redisRateLimitStore(redis: Redis): RateLimitStore {
  redis.defineCommand('rlTake', { lua: REDIS_TAKE });
  redis.defineCommand('rlGiveBack', { lua: REDIS_GIVE_BACK });
  const scripts = redis as unknown as { rlTake: ScriptCall; rlGiveBack: ScriptCall };
  return {
    async take(steps) {
      const args: (string | number)[] = [Date.now(), LEASE_POLICY.nearLimit, LEASE_POLICY.spread];
      for (const s of steps) args.push(s.demand, s.extra, s.limit, s.durationMs);
      const out = (await scripts.rlTake(steps.length, ...steps.map((s) => s.key), ...args)) as number[];
      return new Map(
        steps.map((s, i) => [
          s.key,
          { points: Number(out[3 * i]), expire: Number(out[3 * i + 1]), granted: Number(out[3 * i + 2]) },
        ]),
      );
    },
    async giveBack(tails) {
      const args: number[] = [];
      for (const t of tails) args.push(t.end, t.expire, t.count);
      const out = (await scripts.rlGiveBack(tails.length, ...tails.map((t) => t.key), ...args)) as number[];
      return new Set(tails.filter((_, i) => Number(out[i]) === 1).map((t) => t.key));
    },
    async read(key) {
      const [c, e] = await redis.hmget(key, 'c', 'e');
      return c === null || e === null ? null : { points: Number(c), expire: Number(e) };
    },
    whenReady: () =>
      redis.status === 'ready'
        ? Promise.resolve()
        : new Promise((resolve) => redis.once('ready', () => resolve())),
  };
}

/** Counters in PostgreSQL, spent from local allocations (see createLeasingRateLimiter). */
export function createPostgresRateLimiter(pool: Pool, options: { disabled?: boolean } = {}): RateLimiter {
  return createLeasingRateLimiter(postgresRateLimitStore(pool), options);
}

/**
 * The same budgets in Redis (when REDIS_URL is set), shared by every API process like the
 * PostgreSQL table, with no write transaction in PostgreSQL per take. `keyPrefix` names the keys
 * (`<prefix>:<category>:<subject>`).
 */
export function createRedisRateLimiter(redis: Redis, options: { keyPrefix?: string } = {}): RateLimiter {
  return createLeasingRateLimiter(redisRateLimitStore(redis), { keyPrefix: options.keyPrefix ?? 'rlw' });
}
