/**
 * The spectator relay in a Temporal test environment (test/helpers/workflow-env.ts) over a scripted
 * release step typed against the real one: the delay (30 s in production, SPECTATOR_DELAY_MS) is
 * the workflow's input and rides on its nudge signal, so the tests use hundreds of milliseconds.
 * The release step itself (one transaction per grain, on the database) and the stream are
 * test/system/spectator-*.test.ts.
 */
import { Context } from '@temporalio/activity';
import type { RelaySteps } from '../../../src/domain/connector/release';
import {
  LIVE_EVENTS_ARRIVED_SIGNAL,
  RELAY_HOLD_MS,
  RELAY_TIMER_LEAD_MS,
  type ReleaseDueInput,
  type SpectatorRelayInput,
  type SpectatorRelayResult,
} from '../../../src/domain/connector/contract';
import type { ReleaseOutcome } from '../../../src/db/queries/live-events';
import { startWorkflowKit, until, type WorkflowKit } from '../../helpers/workflow-env';

jest.setTimeout(120_000);

/** The scripted feed of one challenge: events received (epoch ms), released when due. */
interface Feed {
  status: string;
  events: { receivedAt: number; releasedAt: number | null; dueAt: number | null }[];
  steps: { input: ReleaseDueInput; at: number; runId: string }[];
  /** Scripted answers of the step, in order (instead of the feed's own times). */
  script?: ReleaseOutcome[];
}
const feeds = new Map<string, Feed>();

const pause = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

const activities: RelaySteps = {
  // As the real step (src/domain/connector/release.ts): release what is due, keep holding for what
  // falls due within holdMs, report when the next pending event is due.
  async releaseDueLiveEvents(input) {
    const feed = feeds.get(input.challengeId)!;
    feed.steps.push({ input, at: Date.now(), runId: Context.current().info.workflowExecution?.runId ?? '' });
    if (feed.script) return feed.script[feed.steps.length - 1]!;
    const started = Date.now();
    let released = 0;
    for (;;) {
      const now = Date.now();
      for (const e of feed.events) {
        if (e.releasedAt === null && e.receivedAt + input.delayMs <= now) {
          e.releasedAt = now;
          e.dueAt = e.receivedAt + input.delayMs;
          released++;
        }
      }
      const pending = feed.events.filter((e) => e.releasedAt === null);
      const next = pending.length
        ? Math.max(0, Math.min(...pending.map((e) => e.receivedAt + input.delayMs)) - now)
        : null;
      const holdMs = input.holdMs ?? 0;
      if (next === null || next > holdMs - (Date.now() - started)) {
        return { released, lastFeedSeq: 0, nextDueInMs: next, challengeStatus: feed.status };
      }
      await pause(Math.max(next, input.granularityMs ?? 50));
    }
  },
};

let kit: WorkflowKit;
beforeAll(async () => {
  kit = await startWorkflowKit(activities);
}, 180_000);
afterAll(() => kit?.close());

function newFeed(receivedAgo: number[]) {
  const challengeId = kit.id('challenge');
  const now = Date.now();
  const feed: Feed = {
    status: 'active',
    events: receivedAgo.map((ago) => ({ receivedAt: now - ago, releasedAt: null, dueAt: null })),
    steps: [],
  };
  feeds.set(challengeId, feed);
  return { challengeId, feed };
}

async function startRelay(challengeId: string, input: Partial<SpectatorRelayInput>) {
  return kit.client.workflow.start('spectatorRelayWorkflow', {
    taskQueue: kit.taskQueue,
    workflowId: `spectator-relay-${challengeId}`,
    args: [{ challengeId, delayMs: 1000, ...input }],
  });
}

test('the relay looks again when the next event is due: at once within the lead, else after one timer ending RELAY_TIMER_LEAD_MS early', async () => {
  // The step's answers are scripted (what the database would report): due in 1300 ms, then in
  // RELAY_TIMER_LEAD_MS (no timer: the next step's hold covers it), then nothing pending.
  const { challengeId, feed } = newFeed([]);
  feed.script = [
    { released: 1, lastFeedSeq: 1, nextDueInMs: RELAY_TIMER_LEAD_MS + 300, challengeStatus: 'active' },
    { released: 1, lastFeedSeq: 2, nextDueInMs: RELAY_TIMER_LEAD_MS, challengeStatus: 'active' },
    { released: 1, lastFeedSeq: 3, nextDueInMs: null, challengeStatus: 'active' },
  ];
  const handle = await startRelay(challengeId, { delayMs: 2300, idleTimeoutMs: 200, batchWindowMs: 20 });
  const result = (await handle.result()) as SpectatorRelayResult;
  expect(result).toEqual({ steps: 3, released: 3, ended: 'idle' });
  expect(feed.steps.map((s) => s.input)).toEqual(
    Array(3).fill({ challengeId, delayMs: 2300, holdMs: RELAY_HOLD_MS, granularityMs: 20 }),
  );
  // One sleep of 300 ms (then the idle wait's timer of 200 ms), nothing between steps 2 and 3.
  const events = (await handle.fetchHistory()).events!;
  const timers = events
    .map((e) => e.timerStartedEventAttributes?.startToFireTimeout?.nanos)
    .filter((n) => n !== undefined);
  expect(timers).toEqual([300_000_000, 200_000_000]);
  // The second look waited for that timer: in the history, step (a local activity's marker),
  // timer started, timer fired, then the next two steps, then the idle wait's timer.
  const order = events
    .map((e) =>
      e.markerRecordedEventAttributes?.markerName === 'core_local_activity'
        ? 'step'
        : e.timerStartedEventAttributes
          ? 'timer'
          : e.timerFiredEventAttributes
            ? 'fired'
            : null,
    )
    .filter((k) => k !== null);
  expect(order.slice(0, 5)).toEqual(['step', 'timer', 'fired', 'step', 'step']);
});

test('the hold and the timer lead come from the input when given (SPECTATOR_RELAY_HOLD_MS, SPECTATOR_RELAY_TIMER_LEAD_MS)', async () => {
  const { challengeId, feed } = newFeed([]);
  feed.script = [
    { released: 0, lastFeedSeq: 1, nextDueInMs: 350, challengeStatus: 'active' },
    { released: 1, lastFeedSeq: 2, nextDueInMs: null, challengeStatus: 'active' },
  ];
  const handle = await startRelay(challengeId, {
    holdMs: 400,
    timerLeadMs: 100,
    idleTimeoutMs: 200,
    batchWindowMs: 20,
  });
  expect(await handle.result()).toEqual({ steps: 2, released: 1, ended: 'idle' });
  expect(feed.steps.map((s) => s.input.holdMs)).toEqual([400, 400]);
  // Due in 350 ms with a lead of 100 ms: one timer of 250 ms (with the default lead of 1 s there
  // would be none), then the idle wait's 200 ms.
  const timers = (await handle.fetchHistory())
    .events!.map((e) => e.timerStartedEventAttributes?.startToFireTimeout?.nanos)
    .filter((n) => n !== undefined);
  expect(timers).toEqual([250_000_000, 200_000_000]);
});

test('a nudge wakes an idle relay and brings the new delay; a closed challenge with nothing pending ends it', async () => {
  const { challengeId, feed } = newFeed([]);
  const handle = await startRelay(challengeId, { delayMs: 60_000, idleTimeoutMs: 60_000 });
  await until(() => feed.steps.length === 1);
  feed.events.push({ receivedAt: Date.now(), releasedAt: null, dueAt: null });
  feed.status = 'complete';
  await handle.signal(LIVE_EVENTS_ARRIVED_SIGNAL, { delayMs: 100 });
  const result = (await handle.result()) as SpectatorRelayResult;
  expect(result).toEqual({ steps: 2, released: 1, ended: 'challenge_closed' });
  expect(feed.steps.map((s) => s.input.delayMs)).toEqual([60_000, 100]);
});

test('continues as new after maxIterations steps, keeping the delay a signal brought', async () => {
  const { challengeId, feed } = newFeed([]);
  const handle = await startRelay(challengeId, { delayMs: 60_000, idleTimeoutMs: 60_000, maxIterations: 2 });
  await until(() => feed.steps.length === 1);
  await handle.signal(LIVE_EVENTS_ARRIVED_SIGNAL, { delayMs: 150 });
  await until(() => feed.steps.length === 2);
  await handle.signal(LIVE_EVENTS_ARRIVED_SIGNAL);
  const third = await until(() => feed.steps[2]);
  expect(third.runId).not.toBe(handle.firstExecutionRunId);
  expect(third.input.delayMs).toBe(150);
  await handle.terminate('test over');
});
