/**
 * The service-owned judging queue (docs/decisions/judging.md, "One queue for all judging work"):
 * every piece of judging work that runs in sandboxes waits here for its slots. A waiter puts its
 * row in once and then polls; each poll runs (or joins) its process's pass of the queue
 * (src/domain/judging-queue/order.ts, under the queue's advisory lock) and reads its row, and
 * now and then refreshes it.
 * Nothing depends on Temporal's retry timing: the order is the queue's.
 */
import type { Pool } from 'pg';
import type { Config } from '../../config';
import { withTransaction } from '../../db/pool';
import {
  type NewQueueWork,
  dropExpiredWork,
  enqueueWork,
  grantWork,
  listQueue,
  liveWorkerSlots,
  lockJudgingQueue,
  removeWork,
  touchWork,
  workState,
} from '../../db/queries/judging-queue';
import { type QueueLimits, type QueuedWork, boundedSlots, grantableWork } from './order';

/** A waiting row lives this long past its waiter's last poll (longer than the waiting activity's heartbeat timeout, so a retried wait keeps its place). */
export const WAITING_TTL_SECONDS = 60;
/** A running row lives this long past its judging's last tick (the judging ticks every 5 s). */
export const RUNNING_TTL_SECONDS = 120;
/** A waiter refreshes its row this often (well within WAITING_TTL_SECONDS); between, it only reads it. */
const WAITING_REFRESH_MS = 10_000;
/** A worker counts towards the capacity while it reported its slots this recently. */
export const WORKER_LIVE_SECONDS = 30;
/** How often a worker reports its slots. */
export const WORKER_REPORT_MS = 10_000;
/** One pass looks at this many waiting rows at most (in arrival order). */
const PASS_WAITING_LIMIT = 5_000;

export type QueueConfig = Pick<
  Config,
  | 'JUDGE_QUEUE_SLOTS'
  | 'JUDGE_MAX_IN_FLIGHT_PER_USER'
  | 'JUDGE_MAX_IN_FLIGHT_PER_AGENT'
  | 'JUDGE_QUEUE_POLL_MS'
>;

/** The queue's key of a submission run's work. */
export function submissionWorkKey(submissionId: string, run: number): string {
  return `submission:${submissionId}:${run}`;
}

/** The queue's key of a submission run's private pass (its own work, after the run's public pass). */
export function privatePassWorkKey(submissionId: string, run: number): string {
  return `private:${submissionId}:${run}`;
}

/** JUDGE_QUEUE_SLOTS, or the slots of the live workers together. */
export async function queueCapacity(db: Pool, config: QueueConfig): Promise<number> {
  return config.JUDGE_QUEUE_SLOTS ?? liveWorkerSlots(db, WORKER_LIVE_SECONDS);
}

async function limitsOf(db: Pool, config: QueueConfig): Promise<QueueLimits> {
  return {
    capacity: await queueCapacity(db, config),
    perUser: config.JUDGE_MAX_IN_FLIGHT_PER_USER,
    perAgent: config.JUDGE_MAX_IN_FLIGHT_PER_AGENT,
  };
}

/**
 * One pass: drops expired rows, then grants waiting work its slots as the rule says. `wait:
 * false` skips the pass when another one holds the lock (it grants the same). Answers the keys granted.
 */
export async function runQueuePass(db: Pool, config: QueueConfig, wait = false): Promise<string[]> {
  const limits = await limitsOf(db, config);
  return withTransaction(db, async (tx) => {
    if (!(await lockJudgingQueue(tx, wait))) return [];
    await dropExpiredWork(tx);
    const rows = await listQueue(tx, PASS_WAITING_LIMIT);
    const asWork = (row: (typeof rows)[number]): QueuedWork & { key: string } => ({
      key: row.work_key,
      seq: row.seq,
      ownerUserId: row.owner_user_id,
      agentId: row.agent_id,
      priority: row.priority,
      slots: row.slots,
      owners: row.owners.map((o) => ({ ownerUserId: o.owner_user_id, agentId: o.agent_id, slots: o.slots })),
      keepsASlotFree: row.kind === 'private_pass',
    });
    const running = rows.filter((row) => row.state === 'running').map(asWork);
    const waiting = rows.filter((row) => row.state === 'waiting').map(asWork);
    const granted = grantableWork(running, waiting, limits) as (QueuedWork & { key: string })[];
    await grantWork(
      tx,
      granted.map((work) => work.seq),
      RUNNING_TTL_SECONDS,
    );
    return granted.map((work) => work.key);
  });
}

/**
 * Puts the work in the queue (its slots bounded so it can ever be granted: an entry of several
 * owners by the capacity, each owner's share by the caps), or keeps its place when it is there.
 * Work counted against no owner at low priority (below every owner-counted entry): `priority:
 * QUEUE_PRIORITY.low, ownerUserId: null, agentId: null`.
 */
export async function enqueue(db: Pool, config: QueueConfig, work: NewQueueWork): Promise<void> {
  const limits = await limitsOf(db, config);
  const owners = work.owners?.length
    ? work.owners.map((o) => ({
        ...o,
        slots: boundedSlots(o.slots, limits, { owner: true, agent: o.agentId !== null }),
      }))
    : undefined;
  // A private pass leaves one slot free (order.ts): it asks for at most all but one.
  const ceiling =
    work.kind === 'private_pass' ? { ...limits, capacity: Math.max(1, limits.capacity - 1) } : limits;
  const slots = boundedSlots(work.slots, ceiling, {
    owner: !owners && work.ownerUserId !== null,
    agent: !owners && work.agentId !== null,
  });
  await enqueueWork(db, { ...work, slots, owners }, WAITING_TTL_SECONDS);
}

export interface WaitControls {
  signal?: AbortSignal;
  /** Called with each poll (the activity's heartbeat). */
  onPoll?: (details: { waitedMs: number }) => void;
}

/** Per process (per pool): the pass its waiters share, and when the last one started. */
const sharedPasses = new WeakMap<Pool, { running?: Promise<string[]>; startedAt: number }>();

/**
 * A pass for this process's waiters: one at a time, and none sooner than half a poll interval
 * after the last one started, however many waiters poll (a flood of 100 waiters in one worker
 * makes a few passes a second, not 400).
 */
async function sharedPass(db: Pool, config: QueueConfig): Promise<void> {
  let shared = sharedPasses.get(db);
  if (!shared) sharedPasses.set(db, (shared = { startedAt: 0 }));
  if (shared.running) {
    await shared.running;
    return;
  }
  if (Date.now() - shared.startedAt < config.JUDGE_QUEUE_POLL_MS / 2) return;
  shared.startedAt = Date.now();
  const state = shared;
  state.running = runQueuePass(db, config).finally(() => {
    state.running = undefined;
  });
  await state.running;
}

/**
 * Waits until the queue grants the work its slots, and answers them. The row is put in once; each
 * poll runs (or joins) this process's pass and reads the row; every WAITING_REFRESH_MS the poll
 * refreshes it instead (a waiter that dies lets it expire). Cancelled by `signal`: the row leaves
 * the queue.
 */
export async function waitForSlots(
  db: Pool,
  config: QueueConfig,
  work: NewQueueWork,
  controls: WaitControls = {},
): Promise<number> {
  const started = Date.now();
  await enqueue(db, config, work);
  let refreshedAt = Date.now();
  try {
    for (;;) {
      controls.signal?.throwIfAborted();
      await sharedPass(db, config);
      const refresh = Date.now() - refreshedAt >= WAITING_REFRESH_MS;
      const mine = refresh
        ? await touchWork(db, work.workKey, WAITING_TTL_SECONDS)
        : await workState(db, work.workKey);
      if (refresh) refreshedAt = Date.now();
      if (mine?.state === 'running') return mine.slots;
      if (mine === null) {
        // Expired while this waiter could not poll (a long pause): back in, as new work.
        await enqueue(db, config, work);
        refreshedAt = Date.now();
      }
      controls.onPoll?.({ waitedMs: Date.now() - started });
      await sleep(config.JUDGE_QUEUE_POLL_MS, controls.signal);
    }
  } catch (err) {
    if (controls.signal?.aborted) await removeWork(db, work.workKey).catch(() => undefined);
    throw err;
  }
}

/**
 * One attempt (the admission of workflows started before the queue, which wait by Temporal
 * retries): puts the work in, runs a pass, and answers whether it holds its slots now.
 */
export async function tryAdmit(db: Pool, config: QueueConfig, work: NewQueueWork): Promise<boolean> {
  await enqueue(db, config, work);
  const state = await touchWork(db, work.workKey, WAITING_TTL_SECONDS);
  if (state?.state === 'running') return true;
  const granted = await runQueuePass(db, config, true);
  return granted.includes(work.workKey);
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
