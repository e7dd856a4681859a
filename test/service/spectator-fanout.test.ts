import { connect, type Socket } from 'node:net';
import { evictedSseStreams, openSseStreams } from '../../src/api/sse';
import { LIVE_EVENTS_CHANNEL } from '../../src/db/queries/live-events';
import { createRelaySteps, type RelaySteps } from '../../src/domain/connector/release';
import {
  enteredAgent,
  insertChallenge,
  liveEvent,
  postEvent,
  readSse,
  type SseMessage,
} from '../helpers/connector-factories';
import { eventually } from '../helpers/factories';
import { startTestServer, type TestServer } from '../helpers/server';
import { startWorkflowKit, type WorkflowKit } from '../helpers/workflow-env';

/**
 * The spectator fan-out: one feed per challenge in the process reads each release once and
 * writes it to every open stream of that challenge; streams resume by Last-Event-ID; a client
 * that stops reading is dropped without holding up the others.
 *
 * Service tier: the delayed release is the spectator relay workflow's step. The worker process is
 * not here, so this file runs the relay in a worker of its own (test/helpers/workflow-env.ts) with
 * the real release step on the database, on a task queue and Temporal of its own that the server
 * starts the relay on.
 */
let server: TestServer;
let kit: WorkflowKit;
/** Short, so the eviction test does not wait long; a reading client never stalls this long. */
const STALL_MS = 3_000;
beforeAll(async () => {
  // The release step needs the server's deps; the worker starts first (the server needs its client).
  const relay: { steps?: RelaySteps } = {};
  kit = await startWorkflowKit({
    releaseDueLiveEvents: (input: Parameters<RelaySteps['releaseDueLiveEvents']>[0]) =>
      relay.steps!.releaseDueLiveEvents(input),
  } satisfies RelaySteps);
  // Many requests from one client in a short time: the per-caller limits are not what is tested.
  // Every stream here comes from this one test client: the per-address cap (20 by default,
  // tested in production-hardening) is raised so the fan-out itself is what is tested.
  server = await startTestServer(
    {
      RATE_LIMIT_DISABLED: '1',
      SPECTATOR_STALL_TIMEOUT_MS: String(STALL_MS),
      SPECTATOR_STREAMS_PER_IP: '200',
      TEMPORAL_TASK_QUEUE: kit.taskQueue,
    },
    { temporal: async () => kit.client },
  );
  relay.steps = createRelaySteps(server.deps);
}, 180_000);
afterAll(async () => {
  await server?.close();
  await kit?.close();
});

const ids = (messages: SseMessage[]) => messages.map((m) => Number(m.id));
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

test('forty streams of one challenge (fresh, resumed, filtered by agent) each get every event, in order, from one shared feed', async () => {
  const first = await enteredAgent(server);
  const challengeId = first.challengeId;
  const second = await enteredAgent(server, { challengeId });
  const url = `${server.baseUrl}/api/v1/challenges/${challengeId}/live`;
  const feedUrl = `/api/v1/challenges/${challengeId}/events?limit=100`;

  // Four events released before the streams open (the backlog), six after.
  for (let i = 0; i < 4; i++)
    await postEvent(
      server,
      i % 2 ? second : first,
      challengeId,
      liveEvent('thinking', { summary: `before ${i}` }),
    );
  await eventually(async () => (await server.request('GET', feedUrl)).body.data.length === 4);

  const fresh = Array.from({ length: 20 }, () =>
    readSse(url, { until: (m) => m.length >= 10, timeoutMs: 90_000 }),
  );
  const resumed = Array.from({ length: 10 }, () =>
    readSse(url, { headers: { 'last-event-id': '2' }, until: (m) => m.length >= 8, timeoutMs: 90_000 }),
  );
  const filtered = Array.from({ length: 10 }, () =>
    readSse(`${url}?agent_id=${first.agentId}`, { until: (m) => m.length >= 5, timeoutMs: 90_000 }),
  );
  const hub = server.deps.liveHub;
  // Deadlines here are safety nets, sized for a machine far busier than its cores.
  await eventually(async () => hub.subscribers >= 40, 60_000, 20);
  const feed = hub.feed(`${challengeId}:released`)!;
  const readsBefore = feed.reads;

  for (let i = 4; i < 10; i++)
    await postEvent(
      server,
      i % 2 ? second : first,
      challengeId,
      liveEvent('thinking', { summary: `after ${i}` }),
    );

  const expected = await eventually(async () => {
    const items = (await server.request('GET', feedUrl)).body.data as {
      feed_seq: number;
      agent_id: string;
    }[];
    return items.length === 10 ? items : undefined;
  });
  const byId = new Map(expected.map((item) => [item.feed_seq, item]));
  const firstAgentSeqs = expected
    .filter((item) => item.agent_id === first.agentId)
    .map((item) => item.feed_seq);

  for (const res of await Promise.all(fresh)) {
    expect(ids(res.messages)).toEqual(range(1, 10));
    for (const m of res.messages) expect(JSON.parse(m.data)).toEqual(byId.get(Number(m.id)));
  }
  for (const res of await Promise.all(resumed)) expect(ids(res.messages)).toEqual(range(3, 10));
  for (const res of await Promise.all(filtered)) expect(ids(res.messages)).toEqual(firstAgentSeqs);

  // The six releases reached forty streams through the feed's own reads: fewer reads than streams.
  expect(feed.reads - readsBefore).toBeGreaterThan(0);
  expect(feed.reads - readsBefore).toBeLessThan(40);
}, 150_000);

/** Inserts `count` events straight into the feed (released, older than the delay) and wakes the feeds. */
async function releaseBulk(
  challengeId: string,
  agentId: string,
  entryId: string,
  count: number,
  startSeq: number,
): Promise<void> {
  const filler = 'x'.repeat(2_000);
  await server.deps.db.query(
    `INSERT INTO live_events (challenge_id, agent_id, entry_id, seq_num, type, occurred_at, event, received_at, released_at, feed_seq)
     SELECT $1, $2, $3, n, 'thinking', now(), jsonb_build_object('type', 'thinking', 'summary', $4::text || n),
            now() - interval '1 hour', now(), n
       FROM generate_series($5::int, $5::int + $6::int - 1) AS n`,
    [challengeId, agentId, entryId, filler, startSeq, count],
  );
  await server.deps.db.query(
    `INSERT INTO live_relay_state (challenge_id, last_feed_seq, idle) VALUES ($1, $2, true)
     ON CONFLICT (challenge_id) DO UPDATE SET last_feed_seq = EXCLUDED.last_feed_seq`,
    [challengeId, startSeq + count - 1],
  );
  await server.deps.db.query('SELECT pg_notify($1, $2)', [LIVE_EVENTS_CHANNEL, challengeId]);
}

test('a client that stops reading is dropped after the stall timeout without holding up a reading client of the same feed', async () => {
  const challengeId = await insertChallenge(server);
  const agent = await enteredAgent(server, { challengeId });
  const url = new URL(`${server.baseUrl}/api/v1/challenges/${challengeId}/live`);
  const hub = server.deps.liveHub;
  const evictedBefore = evictedSseStreams();
  const openBefore = openSseStreams();

  // The slow client: sends its request, then never reads (the kernel's buffers fill, then ours).
  const slow: Socket = connect(Number(url.port), url.hostname);
  const slowClosed = new Promise<void>((resolve) => slow.once('close', () => resolve()));
  slow.on('error', () => undefined);
  await new Promise<void>((resolve) => slow.once('connect', () => resolve()));
  slow.write(`GET ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nAccept: text/event-stream\r\n\r\n`);
  slow.pause();

  // 4,000 events of ~2 KB (8 MB): more than loopback's socket buffers take (tcp_wmem max 4 MB + rmem 128 KB).
  const count = 4_000;
  const reader = readSse(url.toString(), { until: (m) => m.length >= count, timeoutMs: 60_000 });
  await eventually(
    async () => openSseStreams() >= openBefore + 2 && hub.feed(`${challengeId}:released`) !== undefined,
    10_000,
    20,
  );
  // Both streams are live (joined the feed) before the burst.
  await eventually(
    async () => [...hub.feed(`${challengeId}:released`)!.subscribers].every((s) => s.live),
    10_000,
    20,
  );
  await releaseBulk(challengeId, agent.agentId, agent.entryId, count, 1);

  const received = await reader;
  expect(ids(received.messages)).toEqual(range(1, count));
  await eventually(async () => evictedSseStreams() > evictedBefore, 30_000, 50);
  // The server closed the slow client's connection (reading now drains to the end).
  slow.resume();
  await slowClosed;
  await eventually(async () => openSseStreams() === openBefore, 30_000, 20);
}, 150_000);

test('an evicted (or any) client resumes with Last-Event-ID from where it stopped, its backlog read at its own pace', async () => {
  const challengeId = await insertChallenge(server);
  const agent = await enteredAgent(server, { challengeId });
  // More than the feed keeps in memory, so a resume from the start reads its backlog itself.
  await releaseBulk(challengeId, agent.agentId, agent.entryId, 2_500, 1);
  const url = `${server.baseUrl}/api/v1/challenges/${challengeId}/live`;
  const resumed = await readSse(url, {
    headers: { 'last-event-id': '10' },
    until: (m) => m.length >= 2_490,
    timeoutMs: 60_000,
  });
  expect(ids(resumed.messages)).toEqual(range(11, 2_500));
}, 90_000);
