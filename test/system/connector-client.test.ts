/**
 * The connector client library and CLI: against the real API (heartbeat, assignment, streaming,
 * submission through the session flow, the demo agent, clean stops, one Idempotency-Key per event
 * reused when an answer is lost), and against a scripted fake server for the failure paths (429
 * Retry-After, 5xx backoff, hung requests aborted on stop, the key of every retry).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { backoffDelay } from '../../src/connector-client/backoff';
import {
  ConnectorClient,
  ConnectorHttpError,
  ConnectorNetworkError,
  idempotencyKeyFor,
  parseRetryAfter,
  randomIdempotencyKey,
} from '../../src/connector-client/client';
import { demoPlan, demoScript, judgedEvent, runDemo } from '../../src/connector-client/demo';
import { parseEventLine, readJsonlEvents } from '../../src/connector-client/jsonl';
import { ConnectorRunner } from '../../src/connector-client/runner';
import { eventually } from '../helpers/factories';
import {
  entryStatus,
  insertChallenge,
  insertEntry,
  newConnectorAgent,
  SPEC_LIVE_EVENT_TYPES,
} from '../helpers/connector-factories';
import { startTestServer, type TestServer } from '../helpers/server';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ RATE_LIMIT_DISABLED: '1' });
});
afterAll(() => server.close());

const ROOT = path.resolve(__dirname, '../..');

async function enterViaApi(agent: Awaited<ReturnType<typeof newConnectorAgent>>, challengeId: string) {
  const res = await server.request('POST', `/api/v1/challenges/${challengeId}/entries`, {
    auth: agent.user.jwt,
    body: { agent_id: agent.agentId },
  });
  expect(res.status).toBe(201);
  expect(res.body.data.status).toBe('assigned');
  return res.body.data.id as string;
}

async function storedEvents(agentId: string) {
  const res = await server.deps.db.query<{ seq_num: number; type: string; event: Record<string, unknown> }>(
    'SELECT seq_num, type, event FROM live_events WHERE agent_id = $1 ORDER BY seq_num',
    [agentId],
  );
  return res.rows;
}

describe('pure helpers', () => {
  test('backoff grows exponentially with jitter inside [ceiling/2, ceiling], capped', () => {
    expect(backoffDelay(0, { random: () => 0 })).toBe(500);
    expect(backoffDelay(0, { random: () => 1 })).toBe(1000);
    expect(backoffDelay(3, { random: () => 0.5 })).toBe(6000);
    expect(backoffDelay(20, { random: () => 1 })).toBe(60_000);
    expect(backoffDelay(20, { random: () => 0, maxMs: 10_000 })).toBe(5_000);
    const spread = new Set(Array.from({ length: 20 }, () => backoffDelay(4)));
    expect(spread.size).toBeGreaterThan(1);
  });

  test('Retry-After accepts seconds and HTTP dates', () => {
    expect(parseRetryAfter('60')).toBe(60_000);
    expect(parseRetryAfter(null)).toBeNull();
    expect(parseRetryAfter(new Date(Date.now() + 5_000).toUTCString())).toBeGreaterThan(3_000);
    expect(parseRetryAfter('soon')).toBeNull();
  });

  test('JSONL lines: bare events, inline target and pacing, wrapped events, comments; bad lines name their number', () => {
    expect(parseEventLine('{"type":"thinking","summary":"hi"}')).toEqual({
      challengeId: undefined,
      delayMs: undefined,
      event: { type: 'thinking', summary: 'hi' },
    });
    expect(parseEventLine('{"type":"progress","percent":5,"challengeId":"c","delay_ms":10}')).toEqual({
      challengeId: 'c',
      delayMs: 10,
      event: { type: 'progress', percent: 5 },
    });
    expect(parseEventLine('{"challengeId":"c","event":{"type":"started"}}')).toEqual({
      challengeId: 'c',
      delayMs: undefined,
      event: { type: 'started' },
    });
    expect(parseEventLine('   ')).toBeNull();
    expect(parseEventLine('# comment')).toBeNull();
    expect(() => parseEventLine('{"type":"dancing"}', 7)).toThrow(/line 7: "type"/);
    expect(() => parseEventLine('{nope', 3)).toThrow(/line 3: not valid JSON/);
  });

  test('the idempotency key of a submission is stable for the same content', () => {
    expect(idempotencyKeyFor('c', 'x')).toMatch(/^[0-9a-f]{64}$/);
    expect(idempotencyKeyFor('c', 'x')).toBe(idempotencyKeyFor('c', 'x'));
    expect(idempotencyKeyFor('c', 'x')).not.toBe(idempotencyKeyFor('c', 'y'));
  });

  test('the demo script covers every live event type but timed_out (error_hit comes from the judge), with progress 10 → 100', () => {
    const types = new Set(demoScript().map((e) => e.event.type));
    const failing = {
      id: 'x',
      submission_status: 'complete' as const,
      failure_reason: null,
      result: { id: 'r', final_score: 40, result_state: 'scored' },
    };
    types.add(judgedEvent('draft', failing, null).type);
    for (const t of SPEC_LIVE_EVENT_TYPES.filter((type) => type !== 'timed_out')) {
      expect(types).toContain(t);
    }
    const percents = demoScript()
      .map((e) => e.event.percent)
      .filter((p): p is number => p !== undefined);
    expect(percents[0]).toBe(10);
    expect(percents.at(-1)).toBe(100);
    expect(demoScript().length).toBeLessThanOrEqual(30); // fits the 30/min stream budget
  });
});

describe('ConnectorClient against the API', () => {
  test('heartbeat, assignments, stream, submit through a session, and flat errors surfaced as ConnectorHttpError', async () => {
    const agent = await newConnectorAgent(server);
    const challengeId = await insertChallenge(server);
    const client = new ConnectorClient({
      baseUrl: server.baseUrl + '/',
      agentKey: agent.key,
      apiToken: agent.token,
    });
    expect(client.agentId).toBeNull();
    expect(await client.heartbeat({ model_name: 'client-test' })).toEqual({
      status: 'ok',
      agent_id: agent.agentId,
      is_online: true,
    });
    expect(client.agentId).toBe(agent.agentId);
    expect(await client.pollAssignments()).toEqual([]);
    const entryId = await enterViaApi(agent, challengeId);
    const assignments = await client.pollAssignments();
    expect(assignments.map((a) => [a.entry_id, a.challenge.id])).toEqual([[entryId, challengeId]]);

    expect(await client.streamEvent(challengeId, { type: 'started' })).toEqual({
      received: true,
      seq_num: 1,
    });
    expect(
      await client.streamEvent(challengeId, {
        type: 'submitted',
        timestamp: new Date('2025-01-01T00:00:00Z'),
      }),
    ).toEqual({ received: true, seq_num: 2 });
    const error = await client.streamEvent(challengeId, { type: 'submitted' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectorHttpError);
    expect((error as ConnectorHttpError).status).toBe(400);
    expect((error as ConnectorHttpError).message).toBe(
      'HTTP 400: entry cannot be submitted: already in submitted status',
    );
    expect((error as ConnectorHttpError).retryable).toBe(false);

    const first = await client.submit(challengeId, 'olleh', [{ path: 'answer.txt', content: 'olleh' }]);
    expect(first.session.session_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(first.submission.id).toMatch(/^[0-9a-f-]{36}$/);
    // Retrying the same submit (e.g. after a lost answer) returns the same submission.
    const again = await client.submit(challengeId, 'olleh', [{ path: 'answer.txt', content: 'olleh' }]);
    expect(again.submission.id).toBe(first.submission.id);
    const detail = await server.request('GET', `/api/v1/submissions/${first.submission.id}`, {
      auth: agent.token,
    });
    expect(detail.status).toBe(200);

    const noToken = new ConnectorClient({ baseUrl: server.baseUrl, agentKey: agent.key });
    await expect(noToken.submit(challengeId, 'x')).rejects.toThrow(/API token/);
    const badKey = new ConnectorClient({ baseUrl: server.baseUrl, agentKey: 'aa_nope' });
    await expect(badKey.heartbeat()).rejects.toMatchObject({
      status: 401,
      message: 'HTTP 401: invalid agent key',
    });
    const nobody = new ConnectorClient({
      baseUrl: 'http://127.0.0.1:9',
      agentKey: agent.key,
      timeoutMs: 2_000,
    });
    await expect(nobody.heartbeat()).rejects.toBeInstanceOf(ConnectorNetworkError);
  });
});

describe('ConnectorRunner against the API', () => {
  test('heartbeats, sees the assignment, streams JSONL events in order, and stops on abort', async () => {
    const agent = await newConnectorAgent(server);
    const challengeId = await insertChallenge(server);
    const dir = mkdtempSync(path.join(tmpdir(), 'connector-'));
    const file = path.join(dir, 'events.jsonl');
    writeFileSync(
      file,
      [
        '# streamed into the first assignment',
        '{"type":"started","summary":"go"}',
        '{"type":"thinking","summary":"plan","delay_ms":20}',
        '{"event":{"type":"progress","percent":50,"stage":"half"}}',
        `{"type":"submitted","challengeId":"${challengeId}"}`,
      ].join('\n'),
    );
    const controller = new AbortController();
    const seen: string[] = [];
    const runner = new ConnectorRunner({
      // A request timeout past the test's own: if the run ends, the abort ended it.
      client: new ConnectorClient({ baseUrl: server.baseUrl, agentKey: agent.key, timeoutMs: 600_000 }),
      heartbeatIntervalMs: 200,
      pollIntervalMs: 100,
      signal: controller.signal,
      events: readJsonlEvents(file),
      onAssignment: (a) => void seen.push(a.challenge.id),
    });
    const running = runner.run();
    await eventually(async () => runner.stats.heartbeats >= 2 && runner.stats.polls >= 2, 10_000);
    const agentView = await server.request('GET', `/api/v1/agents/${agent.agentId}`, { auth: agent.token });
    expect(agentView.body.data.is_online).toBe(true);

    await enterViaApi(agent, challengeId);
    await eventually(async () => runner.stats.streamed === 4, 10_000);
    expect(seen).toEqual([challengeId]);
    expect((await storedEvents(agent.agentId)).map((e) => [e.seq_num, e.type])).toEqual([
      [1, 'started'],
      [2, 'thinking'],
      [3, 'progress'],
      [4, 'submitted'],
    ]);
    expect(await entryStatus(server, challengeId, agent.agentId)).toBe('submitted');

    controller.abort();
    // Ends: only the abort can end it (the client's request timeout is past the test's).
    await running;
    const beats = runner.stats.heartbeats;
    await new Promise((r) => setTimeout(r, 400));
    expect(runner.stats.heartbeats).toBe(beats); // no timer survived the stop
  });

  test('the demo agent streams its script into the assignment and submits through a session', async () => {
    const agent = await newConnectorAgent(server);
    const challengeId = await insertChallenge(server);
    await enterViaApi(agent, challengeId);
    const logs: string[] = [];
    const outcome = await runDemo({
      client: new ConnectorClient({ baseUrl: server.baseUrl, agentKey: agent.key, apiToken: agent.token }),
      paceMs: 10,
      pollIntervalMs: 100,
      judgePollMs: 100,
      exitWhenDone: true,
      logger: (_level, message) => void logs.push(message),
    });
    expect(outcome.challengeId).toBe(challengeId);
    // Every scripted event, plus one judged-result event per submission in the plan.
    const submits = demoPlan().filter((s) => s.submit).length;
    expect(outcome.submissions).toHaveLength(submits);
    expect(outcome.streamed).toBe(demoScript().length + submits);
    expect(outcome.submissionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(logs).toContain(`watch live: ${server.baseUrl}/challenges/${challengeId}/watch`);
    const events = await storedEvents(agent.agentId);
    expect(events.map((e) => e.seq_num)).toEqual(
      Array.from({ length: demoScript().length + submits }, (_, i) => i + 1),
    );
    expect(events.at(-1)?.type).toBe('submitted');
    expect(['submitted', 'judged']).toContain(await entryStatus(server, challengeId, agent.agentId));
  });
});

describe('Idempotency-Key on streamed events (against the API)', () => {
  /**
   * A proxy in front of the real API that records each stream request's Idempotency-Key and, while
   * `lose` > 0, forwards the request, lets the API store the event, then cuts the connection
   * instead of answering: the connector sees a reset, exactly like an answer lost on the way back.
   */
  async function lossyProxy() {
    const state = { lose: 0, keys: [] as string[], answered: [] as number[] };
    const proxy = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        void (async () => {
          const headers: Record<string, string> = {};
          for (const [name, value] of Object.entries(req.headers)) {
            if (
              typeof value === 'string' &&
              !['host', 'connection', 'content-length', 'keep-alive'].includes(name)
            )
              headers[name] = value;
          }
          const isStream = req.url === '/api/v1/events/stream';
          if (isStream) state.keys.push(String(req.headers['idempotency-key']));
          const body = chunks.length ? Buffer.concat(chunks) : undefined;
          const upstream = await fetch(server.baseUrl + (req.url ?? '/'), {
            method: req.method,
            headers,
            body,
          });
          const text = await upstream.text();
          if (isStream) state.answered.push(upstream.status);
          if (isStream && state.lose > 0) {
            state.lose -= 1;
            req.socket.destroy();
            return;
          }
          res.writeHead(upstream.status, {
            'content-type': upstream.headers.get('content-type') ?? 'application/json',
          });
          res.end(text);
        })().catch(() => req.socket.destroy());
      });
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', () => r()));
    return {
      state,
      url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
      close: async () => {
        proxy.closeAllConnections();
        await new Promise<void>((r) => proxy.close(() => r()));
      },
    };
  }

  test('the runner retries an event whose answer was lost with the same key: one stored row, the original seq_num', async () => {
    const agent = await newConnectorAgent(server);
    const challengeId = await insertChallenge(server);
    await enterViaApi(agent, challengeId);
    const proxy = await lossyProxy();
    try {
      const runner = new ConnectorRunner({
        client: new ConnectorClient({ baseUrl: proxy.url, agentKey: agent.key, agentId: agent.agentId }),
        backoff: { baseMs: 50, maxMs: 200 },
      });
      proxy.state.lose = 1;
      expect(await runner.stream(challengeId, { type: 'started', summary: 'go' })).toEqual({
        received: true,
        seq_num: 1,
      });
      expect(runner.stats).toMatchObject({ streamed: 1, retries: 1, dropped: 0 });
      // Two attempts reached the API (the first one stored the event, its answer was lost), both with one key.
      expect(proxy.state.answered).toEqual([200, 200]);
      expect(proxy.state.keys).toHaveLength(2);
      expect(proxy.state.keys[0]).toMatch(/^[0-9a-f]{64}$/);
      expect(proxy.state.keys[1]).toBe(proxy.state.keys[0]);
      expect((await storedEvents(agent.agentId)).map((e) => [e.seq_num, e.type])).toEqual([[1, 'started']]);

      // The next event has a key of its own.
      expect(await runner.stream(challengeId, { type: 'thinking' })).toEqual({ received: true, seq_num: 2 });
      expect(proxy.state.keys).toHaveLength(3);
      expect(proxy.state.keys[2]).not.toBe(proxy.state.keys[0]);
      expect((await storedEvents(agent.agentId)).map((e) => e.seq_num)).toEqual([1, 2]);
      await runner.stop();
    } finally {
      await proxy.close();
    }
  });

  test('streamEvent sends a fresh key per call (two calls, two events) unless one is given', async () => {
    const agent = await newConnectorAgent(server);
    const challengeId = await insertChallenge(server);
    await enterViaApi(agent, challengeId);
    const proxy = await lossyProxy();
    try {
      const client = new ConnectorClient({ baseUrl: proxy.url, agentKey: agent.key, agentId: agent.agentId });
      const event = { type: 'thinking' as const, timestamp: '2025-01-01T00:00:00.000Z' };
      expect(await client.streamEvent(challengeId, event)).toEqual({ received: true, seq_num: 1 });
      expect(await client.streamEvent(challengeId, event)).toEqual({ received: true, seq_num: 2 });
      expect(proxy.state.keys[0]).not.toBe(proxy.state.keys[1]);
      const key = randomIdempotencyKey();
      // A lost answer, then a manual retry with the caller's key.
      proxy.state.lose = 1;
      await expect(client.streamEvent(challengeId, event, { idempotencyKey: key })).rejects.toBeInstanceOf(
        ConnectorNetworkError,
      );
      expect(await client.streamEvent(challengeId, event, { idempotencyKey: key })).toEqual({
        received: true,
        seq_num: 3,
      });
      expect(proxy.state.keys.slice(2)).toEqual([key, key]);
      expect((await storedEvents(agent.agentId)).map((e) => e.seq_num)).toEqual([1, 2, 3]);
    } finally {
      await proxy.close();
    }
  });
});

describe('ConnectorRunner failure handling (scripted server)', () => {
  let fake: http.Server;
  let base: string;
  const hits: { path: string; at: number }[] = [];
  let script: (req: http.IncomingMessage, res: http.ServerResponse, n: number) => void;

  beforeAll(async () => {
    fake = http.createServer((req, res) => {
      hits.push({ path: req.url ?? '', at: Date.now() });
      const n = hits.filter((h) => h.path === req.url).length;
      req.resume();
      req.on('end', () => script(req, res, n));
    });
    await new Promise<void>((r) => fake.listen(0, '127.0.0.1', () => r()));
    base = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    fake.closeAllConnections();
    await new Promise<void>((r) => fake.close(() => r()));
  });
  beforeEach(() => {
    hits.length = 0;
  });

  const json = (
    res: http.ServerResponse,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
  ) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
  const agentId = '11111111-1111-4111-8111-111111111111';

  test('429 on the poll waits exactly Retry-After; 5xx and network failures on stream back off and retry', async () => {
    script = (req, res, n) => {
      if (req.url === '/api/v1/agents/ping')
        return json(res, 200, { status: 'ok', agent_id: agentId, is_online: true });
      if (req.url === '/api/v1/challenges/assigned') {
        return n === 1
          ? json(res, 429, { error: 'too many requests' }, { 'retry-after': '1' })
          : json(res, 200, { challenges: [] });
      }
      if (req.url === '/api/v1/events/stream') {
        if (n === 1) return json(res, 503, { error: 'busy' });
        if (n === 2) return req.socket.destroy(); // connection reset
        if (n === 3) return json(res, 429, { error: 'slow down' }, { 'retry-after': '0' });
        return json(res, 200, { received: true, seq_num: 1 });
      }
      json(res, 404, { error: 'nope' });
    };
    const runner = new ConnectorRunner({
      client: new ConnectorClient({ baseUrl: base, agentKey: 'aa_x', agentId }),
      heartbeatIntervalMs: 10_000,
      pollIntervalMs: 100,
      backoff: { baseMs: 50, maxMs: 200 },
    });
    const running = runner.run();
    const result = await runner.stream('22222222-2222-4222-8222-222222222222', { type: 'thinking' });
    expect(result).toEqual({ received: true, seq_num: 1 });
    expect(runner.stats.retries).toBe(3);
    await eventually(
      async () => hits.filter((h) => h.path === '/api/v1/challenges/assigned').length >= 2,
      5_000,
    );
    const polls = hits.filter((h) => h.path === '/api/v1/challenges/assigned');
    expect(polls[1].at - polls[0].at).toBeGreaterThanOrEqual(950);
    await runner.stop();
    await running;
  });

  test('every retry of one event carries the same Idempotency-Key (409 "still in progress" is retried too); the next event gets a new key', async () => {
    const keys: string[] = [];
    script = (req, res, n) => {
      if (req.url !== '/api/v1/events/stream') return json(res, 404, { error: 'nope' });
      keys.push(String(req.headers['idempotency-key']));
      if (n === 1) return json(res, 503, { error: 'busy' });
      if (n === 2) return req.socket.destroy();
      if (n === 3)
        return json(res, 409, {
          error: 'a request with this Idempotency-Key is still in progress; retry later',
        });
      return json(res, 200, { received: true, seq_num: n });
    };
    const runner = new ConnectorRunner({
      client: new ConnectorClient({ baseUrl: base, agentKey: 'aa_x', agentId }),
      backoff: { baseMs: 20, maxMs: 50 },
    });
    expect(await runner.stream('22222222-2222-4222-8222-222222222222', { type: 'thinking' })).toEqual({
      received: true,
      seq_num: 4,
    });
    expect(runner.stats.retries).toBe(3);
    expect(keys).toHaveLength(4);
    expect(keys[0]).toMatch(/^[0-9a-f]{64}$/);
    expect(new Set(keys).size).toBe(1);
    expect(
      await runner.stream('22222222-2222-4222-8222-222222222222', { type: 'progress', percent: 5 }),
    ).toEqual({ received: true, seq_num: 5 });
    expect(keys[4]).toMatch(/^[0-9a-f]{64}$/);
    expect(keys[4]).not.toBe(keys[0]);
    await runner.stop();
  });

  test('non-retryable answers drop the event at once; stop() aborts hung requests and clears every timer', async () => {
    script = (req, res) => {
      if (req.url === '/api/v1/events/stream') return json(res, 403, { error: 'challenge is not active' });
      // Heartbeat and poll hang forever: only an abort ends them.
    };
    const runner = new ConnectorRunner({
      // A request timeout past the test's own: the hung requests can only end by stop()'s abort.
      client: new ConnectorClient({ baseUrl: base, agentKey: 'aa_x', agentId, timeoutMs: 600_000 }),
      heartbeatIntervalMs: 100,
      pollIntervalMs: 100,
    });
    const running = runner.run();
    expect(await runner.stream('22222222-2222-4222-8222-222222222222', { type: 'thinking' })).toBeNull();
    expect(runner.stats.dropped).toBe(1);
    expect(hits.filter((h) => h.path === '/api/v1/events/stream')).toHaveLength(1);
    await eventually(async () => hits.some((h) => h.path === '/api/v1/agents/ping'), 5_000);
    await runner.stop();
    await running;
    const count = hits.length;
    await new Promise((r) => setTimeout(r, 300));
    expect(hits.length).toBe(count);
    // A stopped runner streams nothing.
    expect(await runner.stream('22222222-2222-4222-8222-222222222222', { type: 'thinking' })).toBeNull();
  });
});

/**
 * Each CLI run is a Node process that compiles TypeScript through tsx at start: seconds each on a
 * loaded machine, so these tests get a deadline sized for that, not for an idle one.
 */
const CLI_TEST_TIMEOUT_MS = 300_000;

describe('CLI (npm run connector)', () => {
  function cli(
    args: string[],
    options: {
      onStdout?: (text: string, child: ReturnType<typeof spawn>) => void;
      env?: Record<string, string>;
    } = {},
  ) {
    return new Promise<{
      code: number | null;
      signal: NodeJS.Signals | null;
      stdout: string;
      stderr: string;
    }>((resolve) => {
      // node --import tsx, not the tsx CLI: the CLI relays a signal to its child and, when the child
      // does not confirm within 30 ms (a loaded machine), SIGKILLs it and exits 130.
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/connector-client/cli.ts', ...args], {
        cwd: ROOT,
        env: { ...process.env, AGENT_KEY: '', API_TOKEN: '', ...options.env },
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => {
        stdout += d.toString();
        options.onStdout?.(stdout, child);
      });
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('exit', (code, signal) => resolve({ code, signal, stdout, stderr }));
    });
  }

  test(
    'ping, assigned and stream print the API answers; bad usage exits 2',
    async () => {
      const agent = await newConnectorAgent(server);
      const challengeId = await insertChallenge(server);
      await enterViaApi(agent, challengeId);
      const common = ['--base-url', server.baseUrl, '--key', agent.key];
      const [ping, assigned, usage] = await Promise.all([
        cli(['ping', ...common, '--agent-name', 'CLI Carl', '--skill-count', '4']),
        cli(['assigned', ...common]),
        cli(['stream', ...common]),
      ]);
      expect(ping.code).toBe(0);
      expect(JSON.parse(ping.stdout)).toEqual({ status: 'ok', agent_id: agent.agentId, is_online: true });
      expect(JSON.parse(assigned.stdout).challenges[0].challenge.id).toBe(challengeId);
      expect(usage.code).toBe(2);
      expect(usage.stderr).toMatch(/--challenge is required/);
      const stream = await cli([
        'stream',
        ...common,
        '--challenge',
        challengeId,
        '--type',
        'command_run',
        '--command',
        'npm test',
        '--exit-code',
        '1',
      ]);
      expect(stream.code).toBe(0);
      expect(JSON.parse(stream.stdout)).toEqual({ received: true, seq_num: 1 });
      const refused = await cli([
        'stream',
        ...common,
        '--challenge',
        challengeId,
        '--type',
        'progress',
        '--percent',
        '101',
      ]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/HTTP 400: body\.event\.percent/);
      const agentView = await server.request('GET', `/api/v1/agents/${agent.agentId}`, { auth: agent.token });
      expect(agentView.body.data).toMatchObject({ name: 'CLI Carl', skill_count: 4 });
    },
    CLI_TEST_TIMEOUT_MS,
  );

  test(
    "the key page's command runs as printed (CCS_BASE_URL, CCS_AGENT_KEY, run; --key alone runs too, PORT honoured), and says why nothing is assigned",
    async () => {
      const agent = await newConnectorAgent(server);
      const title = `Judged before ${Date.now()}`;
      const challengeId = await insertChallenge(server, { title });
      await insertEntry(server, challengeId, agent.agentId, { status: 'judged' });
      const stopOnReason = (text: string, child: ReturnType<typeof spawn>) => {
        if (/already judged/.test(text) && !child.killed) child.kill('SIGINT');
      };
      const port = new URL(server.baseUrl).port;
      const [printed, keyOnly] = await Promise.all([
        // The key page's command: CCS_BASE_URL=… CCS_AGENT_KEY=… npm run -s connector -- run
        cli(['run', '--poll-ms', '200'], {
          env: { CCS_BASE_URL: server.baseUrl, CCS_AGENT_KEY: agent.key },
          onStdout: stopOnReason,
        }),
        // `npm run connector -- --key …` (no command, no base URL): runs, on PORT.
        cli(['--key', agent.key, '--poll-ms', '200'], {
          env: { CCS_BASE_URL: '', CONNECTOR_BASE_URL: '', API_BASE_URL: '', PORT: port },
          onStdout: stopOnReason,
        }),
      ]);
      for (const run of [printed, keyOnly]) {
        expect(run.stdout).toContain(`no assignment from "${title}" (${challengeId}): already judged`);
        expect(run.stdout).not.toContain('usage:');
      }
    },
    CLI_TEST_TIMEOUT_MS,
  );

  test(
    'help, and unknown options or commands rejected with a suggestion (exit 2, stderr)',
    async () => {
      const [help, misspelt, unknown] = await Promise.all([
        cli(['help']),
        cli(['run', '--evnets', 'x.jsonl']),
        cli(['pnig']),
      ]);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain('usage: npm run -s connector');
      expect(misspelt.code).toBe(2);
      expect(misspelt.stderr).toContain('unknown option --evnets; did you mean --events?');
      expect(misspelt.stdout).toBe('');
      expect(misspelt.stderr.trim().split('\n')).toHaveLength(1); // one line, not the whole help
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toContain('unknown command "pnig"; did you mean "ping"?');
    },
    CLI_TEST_TIMEOUT_MS,
  );

  test(
    'run prints one line per event: streamed with its seq_num, or rejected/skipped with its line number',
    async () => {
      const agent = await newConnectorAgent(server);
      const challengeId = await insertChallenge(server);
      await enterViaApi(agent, challengeId);
      const dir = mkdtempSync(path.join(tmpdir(), 'connector-cli-'));
      const file = path.join(dir, 'events.jsonl');
      const lines = [
        '{"type":"started"}',
        '{not json',
        '{"type":"progress","percent":101}',
        '{"type":"bogus"}',
        '# a comment',
        '{"type":"thinking","summary":"from the file"}',
      ];
      writeFileSync(file, lines.join('\n') + '\n');
      let interrupted = false;
      const result = await cli(
        ['run', '--base-url', server.baseUrl, '--key', agent.key, '--events', file, '--poll-ms', '200'],
        {
          onStdout: (text, child) => {
            if (!interrupted && /line 6: streamed/.test(text)) {
              interrupted = true;
              child.kill('SIGINT');
            }
          },
        },
      );
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/line 1: streamed started \(seq_num 1\)/);
      expect(result.stdout).toMatch(/line 6: streamed thinking \(seq_num 2\)/);
      expect(result.stderr).toMatch(/line 2: not valid JSON; line skipped/);
      expect(result.stderr).toMatch(/line 3: progress not streamed/);
      expect(result.stderr).toMatch(/line 4: "type" must be one of/);
      expect((await storedEvents(agent.agentId)).map((e) => e.type)).toEqual(['started', 'thinking']);
    },
    CLI_TEST_TIMEOUT_MS,
  );

  test(
    'run streams a JSONL file and stops cleanly on SIGINT',
    async () => {
      const agent = await newConnectorAgent(server);
      const challengeId = await insertChallenge(server);
      await enterViaApi(agent, challengeId);
      const dir = mkdtempSync(path.join(tmpdir(), 'connector-cli-'));
      const file = path.join(dir, 'events.jsonl');
      writeFileSync(file, '{"type":"started"}\n{"type":"thinking","summary":"from the file"}\n');
      let interrupted = false;
      const result = await cli(
        ['run', '--base-url', server.baseUrl, '--key', agent.key, '--events', file, '--poll-ms', '200'],
        {
          onStdout: (text, child) => {
            if (!interrupted && /assigned: /.test(text)) {
              interrupted = true;
              void eventually(async () => (await storedEvents(agent.agentId)).length === 2, 10_000).then(() =>
                child.kill('SIGINT'),
              );
            }
          },
        },
      );
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/connector running/);
      expect(result.stdout).toMatch(/SIGINT: stopping/);
      expect(result.stdout).toMatch(/connector stopped/);
      expect(result.stdout).toContain(`/challenges/${challengeId}/watch`);
      expect((await storedEvents(agent.agentId)).map((e) => e.event.summary ?? e.type)).toEqual([
        'started',
        'from the file',
      ]);
    },
    CLI_TEST_TIMEOUT_MS,
  );
});
