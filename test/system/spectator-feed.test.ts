/**
 * Spectator relay and feed: events become visible only after the spectator delay (shortened to
 * 1.5 s in tests, plus one run past a shortened hold and timer lead: a real relay timer), in order, in
 * batches; the JSON feed and the Server-Sent Events stream (resume with Last-Event-ID, heartbeats,
 * clean disconnect). The production delay (30 s, the configuration's default) is proved on the
 * configuration in test/unit/domain/workflow-defaults.test.ts; the relay takes it as workflow input.
 */
import { randomUUID } from 'node:crypto';
import { releaseDueEvents } from '../../src/db/queries/live-events';
import { spectatorRelayWorkflowId } from '../../src/domain/connector/contract';
import { startRelaySweeper } from '../../src/runtime/relay-sweeper';
import { sweepOverdueRelays } from '../../src/domain/connector/relay-client';
import { openSseStreams } from '../../src/api/sse';
import { eventually, newAdmin, newAgent } from '../helpers/factories';
import { enteredAgent, insertChallenge, liveEvent, postEvent, readSse } from '../helpers/connector-factories';
import { startTestServer, type TestServer } from '../helpers/server';

let server: TestServer;
const DELAY = 1500;
/** How long a test waits for a released event to show: a deadline for a busy machine, not a promise. */
const VISIBLE_WITHIN_MS = 45_000;

beforeAll(async () => {
  server = await startTestServer({ RATE_LIMIT_DISABLED: '1', SPECTATOR_SSE_HEARTBEAT_MS: '300' });
  expect(server.config.SPECTATOR_DELAY_MS).toBe(DELAY);
});
afterAll(() => server.close());

interface FeedItem {
  feed_seq: number;
  id: string;
  seq_num: number;
  agent_id: string;
  agent_name: string;
  received_at: string;
  released_at: string | null;
  event: Record<string, unknown>;
}

async function feed(s: TestServer, challengeId: string, query = '', auth?: string) {
  const res = await s.request('GET', `/api/v1/challenges/${challengeId}/events${query}`, { auth });
  return res;
}

/** Polls the feed until `count` items are visible, asserting on every observation that nothing is early. */
async function watchUntilVisible(
  s: TestServer,
  challengeId: string,
  count: number,
  delayMs: number,
  timeoutMs: number,
  options: { relayReleasedEarly?: boolean } = {},
): Promise<FeedItem[]> {
  let polls = 0;
  return eventually(
    async () => {
      const res = await feed(s, challengeId, '?limit=500');
      const seenAt = Date.now();
      expect(res.status).toBe(200);
      polls += 1;
      for (const item of res.body.data as FeedItem[]) {
        // Never visible before received_at + delay (same machine, so one clock).
        expect(seenAt).toBeGreaterThanOrEqual(Date.parse(item.received_at) + delayMs);
        if (!options.relayReleasedEarly)
          expect(Date.parse(item.released_at!) - Date.parse(item.received_at)).toBeGreaterThanOrEqual(
            delayMs,
          );
      }
      return res.body.data.length >= count && polls > 1 ? (res.body.data as FeedItem[]) : undefined;
    },
    timeoutMs,
    100,
  );
}

async function relayHistory(s: TestServer, challengeId: string) {
  const client = await s.deps.temporal();
  const history = await client.workflow.getHandle(spectatorRelayWorkflowId(challengeId)).fetchHistory();
  const events = history.events ?? [];
  return {
    activities: events.filter(
      (e) => e.markerRecordedEventAttributes || e.activityTaskScheduledEventAttributes,
    ).length,
    timers: events.filter((e) => e.timerStartedEventAttributes).length,
    signals: events.filter((e) => e.workflowExecutionSignaledEventAttributes).length,
  };
}

describe('delayed release by the spectator-relay workflow', () => {
  test('events are invisible before the delay and visible after it, in order, with feed positions', async () => {
    const agent = await enteredAgent(server, { name: 'Delayed Dora' });
    const postedAt = Date.now();
    for (let i = 1; i <= 3; i++) {
      expect(
        (
          await postEvent(
            server,
            agent,
            agent.challengeId,
            liveEvent('progress', { percent: i * 30, stage: `step ${i}` }),
          )
        ).status,
      ).toBe(200);
    }
    const immediately = await feed(server, agent.challengeId);
    expect(immediately.status).toBe(200);
    expect(immediately.body.data).toEqual([]);

    const items = await watchUntilVisible(server, agent.challengeId, 3, DELAY, VISIBLE_WITHIN_MS);
    expect(Date.now() - postedAt).toBeGreaterThanOrEqual(DELAY);
    expect(items.map((i) => i.seq_num)).toEqual([1, 2, 3]);
    expect(items.map((i) => i.feed_seq)).toEqual([1, 2, 3]);
    expect(items[0]).toMatchObject({
      agent_id: agent.agentId,
      agent_name: 'Delayed Dora',
      challenge_id: agent.challengeId,
      event: { type: 'progress', percent: 30, stage: 'step 1' },
    });
  });

  test('events that arrive together leave in one batch: a few timers and activities, and not one signal per event', async () => {
    const agent = await enteredAgent(server);
    const other = await enteredAgent(server, { challengeId: agent.challengeId });
    await Promise.all([
      ...Array.from({ length: 12 }, (_, i) =>
        postEvent(server, agent, agent.challengeId, liveEvent('thinking', { summary: `a${i}` })),
      ),
      ...Array.from({ length: 8 }, (_, i) =>
        postEvent(server, other, agent.challengeId, liveEvent('thinking', { summary: `b${i}` })),
      ),
    ]);
    // Events posted while the relay is busy do not signal it again.
    await new Promise((r) => setTimeout(r, 300));
    for (let i = 0; i < 5; i++)
      await postEvent(server, agent, agent.challengeId, liveEvent('thinking', { summary: `late${i}` }));
    const items = await watchUntilVisible(server, agent.challengeId, 25, DELAY, VISIBLE_WITHIN_MS);
    expect(items.map((i) => i.feed_seq)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
    // Per agent, the feed keeps seq order.
    const seqOf = (agentId: string) => items.filter((i) => i.agent_id === agentId).map((i) => i.seq_num);
    expect(seqOf(agent.agentId)).toEqual(Array.from({ length: 17 }, (_, i) => i + 1));
    expect(seqOf(other.agentId)).toEqual(Array.from({ length: 8 }, (_, i) => i + 1));
    const history = await relayHistory(server, agent.challengeId);
    expect(history.signals).toBeLessThanOrEqual(3);
    expect(history.activities).toBeLessThanOrEqual(8);
    expect(history.timers).toBeLessThanOrEqual(history.activities);
  });

  test('the relay continues as new after its iteration budget and keeps releasing', async () => {
    const challengeId = await insertChallenge(server);
    const client = await server.deps.temporal();
    const first = await client.workflow.start('spectatorRelayWorkflow', {
      workflowId: spectatorRelayWorkflowId(challengeId),
      taskQueue: server.config.TEMPORAL_TASK_QUEUE,
      args: [{ challengeId, delayMs: DELAY, maxIterations: 2 }],
    });
    const agent = await enteredAgent(server, { challengeId });
    for (let round = 0; round < 3; round++) {
      await postEvent(server, agent, challengeId, liveEvent('progress', { percent: round * 40 }));
      await eventually(async () => (await feed(server, challengeId)).body.data.length === round + 1, 15_000);
    }
    const latest = await client.workflow.getHandle(spectatorRelayWorkflowId(challengeId)).describe();
    expect(latest.runId).not.toBe(first.firstExecutionRunId);
    const firstRun = await client.workflow
      .getHandle(spectatorRelayWorkflowId(challengeId), first.firstExecutionRunId)
      .describe();
    expect(firstRun.status.name).toBe('CONTINUED_AS_NEW');
  });

  test('events stranded without a relay are picked up by the next event once they are overdue', async () => {
    const agent = await enteredAgent(server);
    // The relay looks busy but does not exist (lost with its Temporal state, or terminated).
    await server.deps.db.query('INSERT INTO live_relay_state (challenge_id, idle) VALUES ($1, false)', [
      agent.challengeId,
    ]);
    await postEvent(server, agent, agent.challengeId, liveEvent('thinking', { summary: 'stranded' }));
    const client = await server.deps.temporal();
    await expect(
      client.workflow.getHandle(spectatorRelayWorkflowId(agent.challengeId)).describe(),
    ).rejects.toThrow(/not found/i);
    // Past the delay plus the 5 s grace, the next event finds the oldest one overdue and signals.
    const stranded = await server.deps.db.query<{ received_at: Date }>(
      'SELECT received_at FROM live_events WHERE agent_id = $1',
      [agent.agentId],
    );
    const overdueAt = stranded.rows[0].received_at.getTime() + DELAY + 5_000;
    await eventually(async () => Date.now() > overdueAt, DELAY + 60_000, 100);
    expect((await feed(server, agent.challengeId)).body.data).toEqual([]);
    await postEvent(server, agent, agent.challengeId, liveEvent('thinking', { summary: 'rescuer' }));
    const items = await watchUntilVisible(server, agent.challengeId, 2, DELAY, 60_000);
    expect(items.map((i) => i.event.summary)).toEqual(['stranded', 'rescuer']);
    const late = Date.parse(items[0].released_at!) - Date.parse(items[0].received_at);
    expect(late).toBeGreaterThanOrEqual(DELAY + 5_000);
  }, 180_000);

  test('a relay lost while events are pending is restarted by the worker sweep, with no later event', async () => {
    const agent = await enteredAgent(server);
    // The relay looks busy but does not exist, and the agent then goes quiet: no event will rescue it.
    await server.deps.db.query('INSERT INTO live_relay_state (challenge_id, idle) VALUES ($1, false)', [
      agent.challengeId,
    ]);
    await postEvent(server, agent, agent.challengeId, liveEvent('thinking', { summary: 'orphan' }));
    const client = await server.deps.temporal();
    await expect(
      client.workflow.getHandle(spectatorRelayWorkflowId(agent.challengeId)).describe(),
    ).rejects.toThrow(/not found/i);
    // Not overdue yet (inside delay + grace): the sweep leaves it alone.
    expect(await sweepOverdueRelays(server.deps)).not.toContain(agent.challengeId);

    const sweeper = startRelaySweeper(server.deps, 250); // what src/worker.ts runs, every SPECTATOR_RELAY_SWEEP_MS
    try {
      const items = await watchUntilVisible(server, agent.challengeId, 1, DELAY, VISIBLE_WITHIN_MS);
      expect(items.map((i) => i.event.summary)).toEqual(['orphan']);
      const late = Date.parse(items[0].released_at!) - Date.parse(items[0].received_at);
      expect(late).toBeGreaterThanOrEqual(DELAY + 5_000);
      // The sweep started a new relay run for the challenge.
      expect(
        (await client.workflow.getHandle(spectatorRelayWorkflowId(agent.challengeId)).describe()).workflowId,
      ).toBe(spectatorRelayWorkflowId(agent.challengeId));
    } finally {
      sweeper.stop();
    }
    expect(await sweepOverdueRelays(server.deps)).not.toContain(agent.challengeId); // released: nothing overdue
  }, 30_000);

  test('readers also hide released events younger than the delay (a relay running ahead shows nothing early)', async () => {
    const agent = await enteredAgent(server);
    // Park the real relay's notion of work by releasing directly with a zero delay, as a buggy relay would.
    await postEvent(server, agent, agent.challengeId, liveEvent('thinking', { summary: 'early bird' }));
    const released = await releaseDueEvents(server.deps.db, agent.challengeId, 0);
    expect(released.released).toBe(1);
    expect((await feed(server, agent.challengeId)).body.data).toEqual([]);
    const sse = await readSse(`${server.baseUrl}/api/v1/challenges/${agent.challengeId}/live`, {
      until: (_m, raw) => raw.includes(': connected'),
    });
    expect(sse.messages).toEqual([]);
    const items = await watchUntilVisible(server, agent.challengeId, 1, DELAY, 10_000, {
      relayReleasedEarly: true,
    });
    expect(items[0].event.summary).toBe('early bird');
  });
});

describe('GET /api/v1/challenges/:id/events', () => {
  let challengeId: string;
  let a: Awaited<ReturnType<typeof enteredAgent>>;
  let b: Awaited<ReturnType<typeof enteredAgent>>;

  beforeAll(async () => {
    a = await enteredAgent(server, { name: 'Agent A' });
    challengeId = a.challengeId;
    b = await enteredAgent(server, { challengeId, name: 'Agent B' });
    for (let i = 0; i < 3; i++) {
      await postEvent(server, a, challengeId, liveEvent('thinking', { summary: `a${i}` }));
      await postEvent(server, b, challengeId, liveEvent('thinking', { summary: `b${i}` }));
    }
    await eventually(async () => (await feed(server, challengeId)).body.data.length === 6, 15_000);
  });

  test('is public, enveloped and cursor-paginated by feed position (after_seq = feed_seq)', async () => {
    const page1 = await feed(server, challengeId, '?limit=4');
    expect(page1.status).toBe(200);
    expect(page1.body).toEqual({
      data: expect.any(Array),
      request_id: page1.headers.get('x-request-id'),
      pagination: { limit: 4, has_more: true, next_cursor: '4' },
    });
    expect(page1.body.data.map((i: FeedItem) => i.event.summary)).toEqual(['a0', 'b0', 'a1', 'b1']);
    const page2 = await feed(server, challengeId, `?limit=4&after_seq=${page1.body.pagination.next_cursor}`);
    expect(page2.body.data.map((i: FeedItem) => i.feed_seq)).toEqual([5, 6]);
    expect(page2.body.pagination).toEqual({ limit: 4, has_more: false, next_cursor: '6' });
    const tail = await feed(server, challengeId, '?after_seq=6');
    expect(tail.body.data).toEqual([]);
    expect(tail.body.pagination.next_cursor).toBe('6');
  });

  test('agent_id filters one agent (cursor still the feed position)', async () => {
    const res = await feed(server, challengeId, `?agent_id=${b.agentId}`);
    expect(res.body.data.map((i: FeedItem) => [i.agent_name, i.seq_num, i.feed_seq])).toEqual([
      ['Agent B', 1, 2],
      ['Agent B', 2, 4],
      ['Agent B', 3, 6],
    ]);
  });

  test('query parameters are validated', async () => {
    for (const q of ['?limit=0', '?limit=501', '?after_seq=-1', '?after_seq=x', '?agent_id=nope']) {
      const res = await feed(server, challengeId, q);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
    }
  });

  test('unknown and draft challenges are 404 (drafts are visible to operators)', async () => {
    expect((await feed(server, randomUUID())).status).toBe(404);
    const draft = await insertChallenge(server, { status: 'draft' });
    const res = await feed(server, draft);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
    const admin = await newAdmin(server);
    expect((await feed(server, draft, '', admin.jwt)).status).toBe(200);
    expect(
      (await readSse(`${server.baseUrl}/api/v1/challenges/${draft}/live`, { until: () => true })).status,
    ).toBe(404);
  });

  test('operators see undelayed events with live=1 (cursor after_id); anyone else gets 403', async () => {
    const agent = await enteredAgent(server);
    await postEvent(server, agent, agent.challengeId, liveEvent('thinking', { summary: 'just now' }));
    const admin = await newAdmin(server);
    const live = await feed(server, agent.challengeId, '?live=1', admin.jwt);
    expect(live.status).toBe(200);
    expect(live.body.data).toHaveLength(1);
    expect(live.body.data[0]).toMatchObject({
      feed_seq: null,
      released_at: null,
      event: { summary: 'just now' },
    });
    expect(live.body.pagination.next_cursor).toBe(live.body.data[0].id);
    const after = await feed(
      server,
      agent.challengeId,
      `?live=1&after_id=${live.body.data[0].id}`,
      admin.jwt,
    );
    expect(after.body.data).toEqual([]);

    const user = await newAgent(server);
    expect((await feed(server, agent.challengeId, '?live=1', user.user.jwt)).status).toBe(403);
    expect((await feed(server, agent.challengeId, '?live=1')).status).toBe(403);
    expect((await feed(server, agent.challengeId)).body.data).toEqual([]);
  });

  test('events of sandbox entries never reach the public feed', async () => {
    const agent = await enteredAgent(server);
    const sandboxAgent = await enteredAgent(server, { challengeId: agent.challengeId });
    await server.deps.db.query('UPDATE entries SET sandbox = true WHERE id = $1', [sandboxAgent.entryId]);
    await postEvent(server, sandboxAgent, agent.challengeId, liveEvent('thinking', { summary: 'sandbox' }));
    await postEvent(server, agent, agent.challengeId, liveEvent('thinking', { summary: 'public' }));
    const items = await watchUntilVisible(server, agent.challengeId, 1, DELAY, VISIBLE_WITHIN_MS);
    await new Promise((r) => setTimeout(r, 300));
    const again = await feed(server, agent.challengeId);
    expect(again.body.data.map((i: FeedItem) => i.event.summary)).toEqual(['public']);
    expect(items).toHaveLength(1);
  });
});

describe('GET /api/v1/challenges/:id/live (Server-Sent Events)', () => {
  test('streams the backlog with id lines, pushes new releases, sends heartbeats, and resumes from Last-Event-ID', async () => {
    const agent = await enteredAgent(server);
    const url = `${server.baseUrl}/api/v1/challenges/${agent.challengeId}/live`;
    for (let i = 0; i < 3; i++)
      await postEvent(server, agent, agent.challengeId, liveEvent('thinking', { summary: `first ${i}` }));
    await eventually(async () => (await feed(server, agent.challengeId)).body.data.length === 3, 15_000);

    const first = await readSse(url, { until: (m, raw) => m.length >= 3 && raw.includes(': heartbeat') });
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(first.headers.get('cache-control')).toMatch(/no-cache/);
    expect(first.raw).toMatch(/^retry: \d+\n/);
    expect(first.messages.map((m) => m.id)).toEqual(['1', '2', '3']);
    expect(JSON.parse(first.messages[0].data)).toMatchObject({
      feed_seq: 1,
      seq_num: 1,
      event: { summary: 'first 0' },
    });

    // A connected client receives events as they are released (after the delay).
    const live = readSse(url, {
      headers: { 'last-event-id': '3' },
      until: (m) => m.length >= 2,
      timeoutMs: VISIBLE_WITHIN_MS,
    });
    await new Promise((r) => setTimeout(r, 200));
    const postedAt = Date.now();
    await postEvent(
      server,
      agent,
      agent.challengeId,
      liveEvent('code_write', { filename: 'a.ts', snippet: 'let x = 1;' }),
    );
    await postEvent(
      server,
      agent,
      agent.challengeId,
      liveEvent('command_run', { command: 'npm test', exit_code: 0 }),
    );
    const pushed = await live;
    expect(Date.now() - postedAt).toBeGreaterThanOrEqual(DELAY);
    expect(pushed.messages.map((m) => m.id)).toEqual(['4', '5']);
    expect(JSON.parse(pushed.messages[1].data).event).toEqual(
      expect.objectContaining({ type: 'command_run', exit_code: 0 }),
    );

    // Resume: only what came after the given id; ?after_seq= does the same for clients that cannot set headers.
    const resumed = await readSse(url, { headers: { 'last-event-id': '2' }, until: (m) => m.length >= 3 });
    expect(resumed.messages.map((m) => m.id)).toEqual(['3', '4', '5']);
    const viaQuery = await readSse(`${url}?after_seq=4`, { until: (m) => m.length >= 1 });
    expect(viaQuery.messages.map((m) => m.id)).toEqual(['5']);
  });

  test('client disconnects release the stream, its timers and the shared LISTEN connection', async () => {
    const agent = await enteredAgent(server);
    const url = `${server.baseUrl}/api/v1/challenges/${agent.challengeId}/live`;
    const hub = server.deps.liveHub;
    const baseline = openSseStreams();
    const baselineSubscribers = hub.subscribers;
    const controllers = Array.from({ length: 5 }, () => new AbortController());
    const responses = await Promise.all(controllers.map((c) => fetch(url, { signal: c.signal })));
    for (const r of responses) expect(r.status).toBe(200);
    await eventually(
      async () => openSseStreams() === baseline + 5 && hub.subscribers === baselineSubscribers + 5,
      5_000,
    );
    for (const c of controllers) c.abort();
    await eventually(
      async () => openSseStreams() === baseline && hub.subscribers === baselineSubscribers,
      5_000,
    );
  });

  test('operators may stream undelayed events (live=1); others get 403; bad ids 400', async () => {
    const agent = await enteredAgent(server);
    await postEvent(server, agent, agent.challengeId, liveEvent('thinking', { summary: 'raw' }));
    const admin = await newAdmin(server);
    const url = `${server.baseUrl}/api/v1/challenges/${agent.challengeId}/live?live=1`;
    const res = await readSse(url, {
      headers: { authorization: `Bearer ${admin.jwt}` },
      until: (m) => m.length >= 1,
    });
    expect(JSON.parse(res.messages[0].data)).toMatchObject({ feed_seq: null, event: { summary: 'raw' } });
    const denied = await readSse(url, { until: () => true });
    expect(denied.status).toBe(403);
    expect(
      (await readSse(`${server.baseUrl}/api/v1/challenges/not-a-uuid/live`, { until: () => true })).status,
    ).toBe(400);
  });
});

/**
 * A long delay: the relay sleeps on a Temporal timer (the delay minus its timer lead) and its
 * step's hold waits the rest, unlike the 1.5 s delay above, which the default 2 s hold window
 * covers. Here the hold and the lead are shortened (SPECTATOR_RELAY_HOLD_MS, _TIMER_LEAD_MS) so a
 * delay under 2 s is already past both; the production 30 s with the default hold and lead is
 * proved on the configuration (test/unit/domain/workflow-defaults.test.ts) and the timer's
 * arithmetic in the workflow's own test (test/service/workflows/spectator-relay.test.ts).
 */
const LONG_DELAY = 1_800;
const HOLD = 300;
const LEAD = 200;

describe('a long delay (a real timer; production: 30 s)', () => {
  let slow: TestServer;
  beforeAll(async () => {
    // Same shared worker: the relay's delay comes from the API's configuration (workflow input).
    slow = await startTestServer({
      SPECTATOR_DELAY_MS: String(LONG_DELAY),
      SPECTATOR_RELAY_HOLD_MS: String(HOLD),
      SPECTATOR_RELAY_TIMER_LEAD_MS: String(LEAD),
      RATE_LIMIT_DISABLED: '1',
    });
  });
  afterAll(() => slow.close());

  test('an event stays invisible for the whole delay, then appears (how soon after is the bench’s "Relay release delay")', async () => {
    expect(LONG_DELAY).toBeGreaterThan(HOLD + LEAD);
    const agent = await enteredAgent(slow);
    expect(
      (await postEvent(slow, agent, agent.challengeId, liveEvent('thinking', { summary: 'a long wait' })))
        .status,
    ).toBe(200);
    const stored = await slow.deps.db.query<{ received_at: Date }>(
      'SELECT received_at FROM live_events WHERE agent_id = $1',
      [agent.agentId],
    );
    const receivedAt = stored.rows[0].received_at.getTime();
    // Every poll checks it is not visible before received_at + the delay (watchUntilVisible).
    const items = await watchUntilVisible(slow, agent.challengeId, 1, LONG_DELAY, 150_000);
    expect(items[0].event.summary).toBe('a long wait');
    const releaseLag = Date.parse(items[0].released_at!) - receivedAt;
    expect(releaseLag).toBeGreaterThanOrEqual(LONG_DELAY);
    // The wait was a timer of the relay's own (not only its step's hold window). Whether one was
    // needed depends on when the relay first looked: a look that ended more than the lead before
    // the event was due leaves it due in more than the lead, which the relay sleeps on a timer.
    // Under heavy load the relay may start so late that its first hold covers the event; then the
    // release's timing is all there is to check (above). The timer's arithmetic for a given hold
    // and lead is proved deterministically in test/service/workflows/spectator-relay.test.ts.
    // A look is a local activity: its marker enters the history when the workflow task that ran
    // it completes, which may be after the release the look made; wait for the first one.
    const client = await slow.deps.temporal();
    const handle = client.workflow.getHandle(spectatorRelayWorkflowId(agent.challengeId));
    const events = await eventually(async () => {
      const all = (await handle.fetchHistory()).events ?? [];
      return all.some((e) => e.markerRecordedEventAttributes) ? all : undefined;
    });
    const ms = (t: { seconds?: unknown; nanos?: number | null } | null | undefined) =>
      Number(t?.seconds ?? 0) * 1000 + Math.floor((t?.nanos ?? 0) / 1e6);
    const firstLookEnded = events.find((e) => e.markerRecordedEventAttributes)!.eventTime;
    const dueInAfterFirstLook = receivedAt + LONG_DELAY - ms(firstLookEnded);
    const timersMs = events.flatMap((e) => {
      const timeout = e.timerStartedEventAttributes?.startToFireTimeout;
      return timeout ? [ms(timeout)] : [];
    });
    // The relay's idle wait is a timer of minutes: only timers shorter than the delay count.
    const relayTimers = timersMs.filter((t) => t > 0 && t < LONG_DELAY);
    if (dueInAfterFirstLook > LEAD + 100) {
      expect(relayTimers.length).toBeGreaterThan(0);
      expect(Math.max(...relayTimers)).toBeLessThanOrEqual(LONG_DELAY - LEAD);
    } else {
      console.warn(
        `spectator-feed: the relay first looked ${-dueInAfterFirstLook + LONG_DELAY} ms after the event (load); no timer was needed`,
      );
    }
  }, 180_000);
});
