/**
 * Connector endpoints (agent key): heartbeat + presence, assigned challenges, event stream
 * (validation of every field and bound, 401/403/400/429 flat bodies, gap-free seq_num under
 * concurrency, entry transitions, the optional Idempotency-Key).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { sha256Hex } from '../../src/auth/secrets';
import { acceptLiveEvent } from '../../src/domain/connector/stream';
import { LIVE_EVENT_TYPES } from '../../src/wire/connector';
import { newAgent, newAgentKey } from '../helpers/factories';
import {
  enteredAgent,
  entryStatus,
  insertChallenge,
  insertEntry,
  liveEvent,
  SPEC_LIVE_EVENT_TYPES,
  newConnectorAgent,
  postEvent,
} from '../helpers/connector-factories';
import { startTestServer, type ApiResponse, type TestServer } from '../helpers/server';

let server: TestServer;
/** The spec's budgets are enforced here (the main server runs with rate limits off for the bound tables). */
let limited: TestServer;

beforeAll(async () => {
  server = await startTestServer({ RATE_LIMIT_DISABLED: '1' });
  limited = await startTestServer();
});
afterAll(async () => {
  await server.close();
  await limited.close();
});

function expectFlatError(res: ApiResponse, status: number, message?: RegExp | string) {
  expect(res.status).toBe(status);
  expect(res.body).toEqual({ error: expect.any(String) });
  expect(Object.keys(res.body)).toEqual(['error']);
  if (message instanceof RegExp) expect(res.body.error).toMatch(message);
  else if (message !== undefined) expect(res.body.error).toBe(message);
  expect(res.text).not.toMatch(/at \w+ \(|node_modules|\.ts:\d+/);
}

describe('POST /api/v1/agents/ping (heartbeat)', () => {
  test('answers 200 raw {status, agent_id, is_online}, stores the profile and marks the agent online', async () => {
    const agent = await newConnectorAgent(server);
    const before = await server.request('GET', `/api/v1/agents/${agent.agentId}`, { auth: agent.token });
    expect(before.body.data.is_online).toBe(false);

    // Timestamps have millisecond precision; the database clock is this machine's clock.
    const pingSentAt = Math.floor(Date.now());
    const res = await server.request('POST', '/api/v1/agents/ping', {
      agentKey: agent.key,
      body: {
        agent_name: 'Ada',
        model_name: 'gpt-x',
        skill_count: 7,
        soul_excerpt: 'I like tidy code.',
        version: '1.2.3',
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok', agent_id: agent.agentId, is_online: true });
    expect(res.headers.get('x-ratelimit-limit')).toBe('120');

    const after = await server.request('GET', `/api/v1/agents/${agent.agentId}`, { auth: agent.token });
    expect(after.body.data).toMatchObject({
      id: agent.agentId,
      name: 'Ada',
      model_name: 'gpt-x',
      skill_count: 7,
      soul_excerpt: 'I like tidy code.',
      version: '1.2.3',
      is_online: true,
    });
    // Seen by this ping: not before it was sent, not after it was read back.
    const lastSeen = Date.parse(after.body.data.last_seen_at);
    expect(lastSeen).toBeGreaterThanOrEqual(pingSentAt);
    expect(lastSeen).toBeLessThanOrEqual(Date.now());
  });

  test('an empty body (or none) is a valid heartbeat and keeps the profile', async () => {
    const agent = await newConnectorAgent(server, 'Keeper');
    const none = await server.request('POST', '/api/v1/agents/ping', { agentKey: agent.key });
    expect(none.status).toBe(200);
    const empty = await server.request('POST', '/api/v1/agents/ping', { agentKey: agent.key, body: {} });
    expect(empty.body).toEqual({ status: 'ok', agent_id: agent.agentId, is_online: true });
    const got = await server.request('GET', `/api/v1/agents/${agent.agentId}`, { auth: agent.token });
    expect(got.body.data.name).toBe('Keeper');
  });

  test('presence: an agent silent for longer than the online window is offline', async () => {
    const agent = await newConnectorAgent(server);
    await server.request('POST', '/api/v1/agents/ping', { agentKey: agent.key });
    const window = server.config.AGENT_ONLINE_WINDOW_MS;
    expect(window).toBe(90_000);
    await server.deps.db.query(
      `UPDATE agents SET last_seen_at = now() - make_interval(secs => $2) WHERE id = $1`,
      [agent.agentId, 89],
    );
    expect(
      (await server.request('GET', `/api/v1/agents/${agent.agentId}`, { auth: agent.token })).body.data
        .is_online,
    ).toBe(true);
    await server.deps.db.query(
      `UPDATE agents SET last_seen_at = now() - make_interval(secs => $2) WHERE id = $1`,
      [agent.agentId, 91],
    );
    expect(
      (await server.request('GET', `/api/v1/agents/${agent.agentId}`, { auth: agent.token })).body.data
        .is_online,
    ).toBe(false);
  });

  test.each([
    // An invalid name string is ignored (DESIGN; people-accounts.test.ts); a non-string is still 400.
    ['agent_name', { agent_name: 5 }],
    ['model_name', { model_name: 5 }],
    ['skill_count', { skill_count: -1 }],
    ['skill_count', { skill_count: 1.5 }],
    ['skill_count', { skill_count: '3' }],
    ['soul_excerpt', { soul_excerpt: 's'.repeat(1001) }],
    ['version', { version: 'v'.repeat(101) }],
    ['unexpected', { unexpected: true }],
  ])('400 flat error naming %s', async (field, body) => {
    const agent = await newConnectorAgent(server);
    const res = await server.request('POST', '/api/v1/agents/ping', { agentKey: agent.key, body });
    expectFlatError(res, 400, new RegExp(field));
  });

  test('soul_excerpt of exactly 1000 characters is accepted', async () => {
    const agent = await newConnectorAgent(server);
    const res = await server.request('POST', '/api/v1/agents/ping', {
      agentKey: agent.key,
      body: { soul_excerpt: 's'.repeat(1000) },
    });
    expect(res.status).toBe(200);
  });

  test('malformed JSON is a flat 400', async () => {
    const agent = await newConnectorAgent(server);
    const res = await server.request('POST', '/api/v1/agents/ping', {
      agentKey: agent.key,
      rawBody: '{"agent_name": ',
      headers: { 'content-type': 'application/json' },
    });
    expectFlatError(res, 400, /JSON/);
  });
});

describe('connector authentication (flat 401)', () => {
  const endpoints: [string, string, unknown][] = [
    ['POST', '/api/v1/agents/ping', {}],
    ['GET', '/api/v1/challenges/assigned', undefined],
    [
      'POST',
      '/api/v1/events/stream',
      { challengeId: randomUUID(), agentId: randomUUID(), event: liveEvent('thinking') },
    ],
  ];

  test.each(endpoints)(
    '%s %s: missing, malformed, unknown, expired and revoked keys, and bearer credentials are 401',
    async (method, path, body) => {
      const agent = await newConnectorAgent(server);
      expectFlatError(await server.request(method, path, { body }), 401);
      expectFlatError(
        await server.request(method, path, { body, agentKey: 'not-a-key' }),
        401,
        'invalid agent key',
      );
      expectFlatError(
        await server.request(method, path, { body, agentKey: `aa_${'x'.repeat(43)}` }),
        401,
        'invalid agent key',
      );
      // An API token or a JWT is not a connector credential.
      expectFlatError(await server.request(method, path, { body, auth: agent.token }), 401);
      expectFlatError(await server.request(method, path, { body, auth: agent.user.jwt }), 401);

      const expiring = await newAgentKey(server, agent);
      await server.deps.db.query(
        "UPDATE agent_keys SET expires_at = now() - interval '1 second' WHERE key_hash = $1",
        [sha256Hex(expiring)],
      );
      expectFlatError(await server.request(method, path, { body, agentKey: expiring }), 401, /expired/);

      const keyRow = await server.deps.db.query<{ id: string }>(
        'SELECT id FROM agent_keys WHERE key_hash = $1',
        [sha256Hex(agent.key)],
      );
      const revoked = await server.request(
        'DELETE',
        `/api/v1/agents/${agent.agentId}/keys/${keyRow.rows[0].id}`,
        { auth: agent.user.jwt },
      );
      expect(revoked.status).toBe(200);
      expectFlatError(await server.request(method, path, { body, agentKey: agent.key }), 401, /revoked/);
    },
  );
});

describe('GET /api/v1/challenges/assigned', () => {
  test("lists the agent's assigned entries in active challenges, raw, and wins over /challenges/:id", async () => {
    const agent = await newConnectorAgent(server);
    const active = await insertChallenge(server, { title: 'Reverse a string', timeLimitMinutes: 45 });
    const draft = await insertChallenge(server, { status: 'draft' });
    const running = await insertChallenge(server);
    const entryId = await insertEntry(server, active, agent.agentId);
    const draftEntry = await insertEntry(server, draft, agent.agentId);
    const runningEntry = await insertEntry(server, running, agent.agentId, { status: 'active' });
    // Another agent's assignment is not listed.
    const other = await newConnectorAgent(server);
    await insertEntry(server, active, other.agentId);

    const res = await server.request('GET', '/api/v1/challenges/assigned', { agentKey: agent.key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      challenges: [
        {
          entry_id: entryId,
          assigned_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
          challenge: {
            id: active,
            title: 'Reverse a string',
            description: 'Write a function that reverses a string.',
            category: 'coding',
            format: 'solo',
            time_limit_minutes: 45,
            starts_at: expect.any(String),
            ends_at: expect.any(String),
          },
        },
      ],
      // The other entries, each with why it is not an assignment (issue 29).
      idle: expect.arrayContaining([
        expect.objectContaining({
          entry_id: draftEntry,
          challenge_id: draft,
          reason: 'challenge_not_active',
        }),
        expect.objectContaining({ entry_id: runningEntry, challenge_id: running, reason: 'in_progress' }),
      ]),
    });
    expect(res.body.idle).toHaveLength(2);
    expect(res.body.data).toBeUndefined();

    // The literal segment is not mistaken for a challenge id (that route would answer 400/404 in the envelope).
    const unauthenticated = await server.request('GET', '/api/v1/challenges/assigned');
    expectFlatError(unauthenticated, 401);
    const getById = await server.request('GET', `/api/v1/challenges/${active}`);
    expect(getById.status).toBe(200);
  });

  test('an agent with nothing assigned gets an empty list; entered nowhere, idle is empty too', async () => {
    const agent = await newConnectorAgent(server);
    const res = await server.request('GET', '/api/v1/challenges/assigned', { agentKey: agent.key });
    expect(res.body).toEqual({ challenges: [], idle: [] });
  });

  test('an agent whose entry is already judged is told so instead of waiting for an assignment', async () => {
    const agent = await newConnectorAgent(server);
    const challenge = await insertChallenge(server, { title: 'Judged already' });
    const entry = await insertEntry(server, challenge, agent.agentId, { status: 'judged' });
    const res = await server.request('GET', '/api/v1/challenges/assigned', { agentKey: agent.key });
    expect(res.body).toEqual({
      challenges: [],
      idle: [
        {
          entry_id: entry,
          challenge_id: challenge,
          title: 'Judged already',
          reason: 'already_judged',
          message: expect.stringMatching(/^already judged/),
        },
      ],
    });
  });

  test('the first event takes the entry out of the assigned listing', async () => {
    const agent = await enteredAgent(server);
    expect(
      (await server.request('GET', '/api/v1/challenges/assigned', { agentKey: agent.key })).body.challenges,
    ).toHaveLength(1);
    expect((await postEvent(server, agent, agent.challengeId, liveEvent('started'))).status).toBe(200);
    expect(
      (await server.request('GET', '/api/v1/challenges/assigned', { agentKey: agent.key })).body.challenges,
    ).toHaveLength(0);
  });
});

describe('POST /api/v1/events/stream: validation (400, flat, naming the field)', () => {
  const textBounds: [string, number][] = [
    ['summary', 500],
    ['tool', 100],
    ['filename', 255],
    ['language', 50],
    ['snippet', 2000],
    ['command', 500],
    ['error_summary', 500],
    ['stage', 100],
  ];

  test.each(textBounds)('event.%s: %i characters accepted, one more refused', async (field, max) => {
    const agent = await enteredAgent(server);
    const ok = await postEvent(
      server,
      agent,
      agent.challengeId,
      liveEvent('thinking', { [field]: 'a'.repeat(max) }),
    );
    expect(ok.status).toBe(200);
    const tooLong = await postEvent(
      server,
      agent,
      agent.challengeId,
      liveEvent('thinking', { [field]: 'a'.repeat(max + 1) }),
    );
    expectFlatError(tooLong, 400, new RegExp(`body\\.event\\.${field}`));
    const wrongType = await postEvent(
      server,
      agent,
      agent.challengeId,
      liveEvent('thinking', { [field]: 42 }),
    );
    expectFlatError(wrongType, 400, new RegExp(`event\\.${field}`));
  });

  test('percent is a number from 0 to 100', async () => {
    const agent = await enteredAgent(server);
    for (const percent of [0, 42.5, 100]) {
      expect(
        (
          await postEvent(
            server,
            agent,
            agent.challengeId,
            liveEvent('progress', { percent, stage: 'tests' }),
          )
        ).status,
      ).toBe(200);
    }
    for (const percent of [-0.1, 100.01, '50', null]) {
      expectFlatError(
        await postEvent(server, agent, agent.challengeId, liveEvent('progress', { percent })),
        400,
        /event\.percent/,
      );
    }
  });

  test('exit_code is an integer', async () => {
    const agent = await enteredAgent(server);
    for (const exit_code of [0, 1, 127, -1]) {
      expect(
        (
          await postEvent(
            server,
            agent,
            agent.challengeId,
            liveEvent('command_run', { command: 'npm test', exit_code }),
          )
        ).status,
      ).toBe(200);
    }
    for (const exit_code of [1.5, '0', true]) {
      expectFlatError(
        await postEvent(server, agent, agent.challengeId, liveEvent('command_run', { exit_code })),
        400,
        /event\.exit_code/,
      );
    }
  });

  test('every one of the ten types is accepted; anything else is refused', async () => {
    const agent = await enteredAgent(server);
    const types = SPEC_LIVE_EVENT_TYPES.filter((t) => t !== 'timed_out');
    expect([...LIVE_EVENT_TYPES].sort()).toEqual([...SPEC_LIVE_EVENT_TYPES].sort());
    for (const type of types)
      expect((await postEvent(server, agent, agent.challengeId, liveEvent(type))).status).toBe(200);
    const other = await enteredAgent(server);
    expect((await postEvent(server, other, other.challengeId, liveEvent('timed_out'))).status).toBe(200);
    for (const type of ['Thinking', 'finished', '', 3]) {
      expectFlatError(
        await postEvent(server, agent, agent.challengeId, liveEvent('thinking', { type })),
        400,
        /event\.type/,
      );
    }
  });

  test('timestamp is a required ISO 8601 date-time', async () => {
    const agent = await enteredAgent(server);
    for (const timestamp of ['2025-03-01T10:00:00Z', '2025-03-01T10:00:00.123+02:00']) {
      expect(
        (await postEvent(server, agent, agent.challengeId, liveEvent('thinking', { timestamp }))).status,
      ).toBe(200);
    }
    for (const timestamp of ['yesterday', '2025-03-01', '2025-03-01 10:00', 1700000000000]) {
      expectFlatError(
        await postEvent(server, agent, agent.challengeId, liveEvent('thinking', { timestamp })),
        400,
        /event\.timestamp/,
      );
    }
    const { timestamp: _omitted, ...noTimestamp } = liveEvent('thinking');
    expectFlatError(await postEvent(server, agent, agent.challengeId, noTimestamp), 400, /event\.timestamp/);
  });

  test('challengeId, agentId and event are required; unknown fields are refused', async () => {
    const agent = await enteredAgent(server);
    const post = (body: unknown) =>
      server.request('POST', '/api/v1/events/stream', { agentKey: agent.key, body });
    const ids = { challengeId: agent.challengeId, agentId: agent.agentId };
    const refused: [body: Record<string, unknown>, names: RegExp][] = [
      [{ agentId: agent.agentId, event: liveEvent('thinking') }, /challengeId/],
      [{ ...ids, challengeId: 'not-a-uuid', event: liveEvent('thinking') }, /challengeId/],
      [{ challengeId: agent.challengeId, event: liveEvent('thinking') }, /agentId/],
      [{ ...ids }, /event/],
      [{ ...ids, event: 'thinking' }, /event/],
      [{ ...ids, event: liveEvent('thinking', { mood: 'good' }) }, /mood/],
      [{ ...ids, event: liveEvent('thinking'), extra: 1 }, /extra/],
      [{ ...ids, event: liveEvent('thinking', { summary: 'a\u0000b' }) }, /summary/],
    ];
    for (const [body, names] of refused) expectFlatError(await post(body), 400, names);
    // Nothing invalid was stored.
    const stored = await server.deps.db.query(
      'SELECT count(*)::int AS n FROM live_events WHERE agent_id = $1',
      [agent.agentId],
    );
    expect(stored.rows[0].n).toBe(0);
  });
});

describe('POST /api/v1/events/stream: who may post (403)', () => {
  test("agentId must be the key's agent", async () => {
    const agent = await enteredAgent(server);
    const other = await enteredAgent(server, { challengeId: agent.challengeId });
    const res = await server.request('POST', '/api/v1/events/stream', {
      agentKey: agent.key,
      body: { challengeId: agent.challengeId, agentId: other.agentId, event: liveEvent('thinking') },
    });
    expectFlatError(res, 403, /agentId/);
  });

  test('an agent without an entry, an unknown challenge, and a challenge that is not active are 403', async () => {
    const agent = await newConnectorAgent(server);
    const notEntered = await insertChallenge(server);
    expectFlatError(await postEvent(server, agent, notEntered, liveEvent('thinking')), 403, /not entered/);
    expectFlatError(await postEvent(server, agent, randomUUID(), liveEvent('thinking')), 403, /not entered/);
    for (const status of ['draft', 'complete', 'archived'] as const) {
      const challenge = await insertChallenge(server, { status });
      await insertEntry(server, challenge, agent.agentId);
      expectFlatError(
        await postEvent(server, agent, challenge, liveEvent('thinking')),
        403,
        'challenge is not active',
      );
    }
  });
});

describe('POST /api/v1/events/stream: storage, seq_num and entry transitions', () => {
  test('answers 200 raw {received: true, seq_num} and stores the event at once', async () => {
    const agent = await enteredAgent(server);
    const event = liveEvent('code_write', {
      filename: 'src/reverse.ts',
      language: 'typescript',
      snippet: 'export const r = (s: string) => [...s].reverse().join("");',
    });
    const res = await postEvent(server, agent, agent.challengeId, event);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ received: true, seq_num: 1 });
    expect(res.headers.get('x-ratelimit-limit')).toBe('30');
    const row = await server.deps.db.query(
      'SELECT seq_num, type, event, received_at, released_at FROM live_events WHERE agent_id = $1',
      [agent.agentId],
    );
    expect(row.rows).toHaveLength(1);
    expect(row.rows[0]).toMatchObject({ seq_num: 1, type: 'code_write', event, released_at: null });
    expect((await postEvent(server, agent, agent.challengeId, liveEvent('thinking'))).body).toEqual({
      received: true,
      seq_num: 2,
    });
  });

  test('seq_num is gap-free and increasing per (challenge, agent) under 20 concurrent posts', async () => {
    const a = await enteredAgent(server);
    const b = await enteredAgent(server, { challengeId: a.challengeId });
    const posts = [
      ...Array.from({ length: 20 }, (_, i) =>
        postEvent(server, a, a.challengeId, liveEvent('progress', { percent: i * 5 })),
      ),
      ...Array.from({ length: 7 }, () => postEvent(server, b, b.challengeId, liveEvent('thinking'))),
    ];
    const results = await Promise.all(posts);
    for (const r of results) expect(r.status).toBe(200);
    const seqA = results
      .slice(0, 20)
      .map((r) => r.body.seq_num)
      .sort((x, y) => x - y);
    const seqB = results
      .slice(20)
      .map((r) => r.body.seq_num)
      .sort((x, y) => x - y);
    expect(seqA).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(seqB).toEqual(Array.from({ length: 7 }, (_, i) => i + 1));
    const stored = await server.deps.db.query<{ seq_num: number }>(
      'SELECT seq_num FROM live_events WHERE challenge_id = $1 AND agent_id = $2 ORDER BY received_at, id',
      [a.challengeId, a.agentId],
    );
    // Stored in arrival order with increasing numbers.
    expect(stored.rows.map((r) => r.seq_num)).toEqual(seqA);
    // The same agent in another challenge starts at 1 again.
    const elsewhere = await insertChallenge(server);
    await insertEntry(server, elsewhere, a.agentId);
    expect((await postEvent(server, a, elsewhere, liveEvent('started'))).body.seq_num).toBe(1);
  });

  test('assigned → active on the first event → submitted; a second submitted is 400; narration is still accepted', async () => {
    const agent = await enteredAgent(server);
    expect(await entryStatus(server, agent.challengeId, agent.agentId)).toBe('assigned');
    await postEvent(server, agent, agent.challengeId, liveEvent('thinking', { summary: 'reading the task' }));
    expect(await entryStatus(server, agent.challengeId, agent.agentId)).toBe('active');
    expect((await postEvent(server, agent, agent.challengeId, liveEvent('started'))).status).toBe(200);
    expect(await entryStatus(server, agent.challengeId, agent.agentId)).toBe('active');
    expect((await postEvent(server, agent, agent.challengeId, liveEvent('submitted'))).body).toEqual({
      received: true,
      seq_num: 3,
    });
    expect(await entryStatus(server, agent.challengeId, agent.agentId)).toBe('submitted');
    const again = await postEvent(server, agent, agent.challengeId, liveEvent('submitted'));
    expectFlatError(again, 400, 'entry cannot be submitted: already in submitted status');
    expectFlatError(
      await postEvent(server, agent, agent.challengeId, liveEvent('timed_out')),
      400,
      'entry cannot be timed out: already in submitted status',
    );
    expectFlatError(
      await postEvent(server, agent, agent.challengeId, liveEvent('started')),
      400,
      /already in submitted status/,
    );
    // Informational events after the submission are kept, with the next number (refusals used none).
    expect(
      (
        await postEvent(
          server,
          agent,
          agent.challengeId,
          liveEvent('thinking', { summary: 'waiting for the judge' }),
        )
      ).body,
    ).toEqual({
      received: true,
      seq_num: 4,
    });
    expect(await entryStatus(server, agent.challengeId, agent.agentId)).toBe('submitted');
  });

  test('an entry already submitted through the session flow accepts one submitted report, then refuses another', async () => {
    const agent = await enteredAgent(server, { status: 'submitted' });
    expect((await postEvent(server, agent, agent.challengeId, liveEvent('submitted'))).status).toBe(200);
    expectFlatError(
      await postEvent(server, agent, agent.challengeId, liveEvent('submitted')),
      400,
      'entry cannot be submitted: already in submitted status',
    );
    const judged = await enteredAgent(server, { status: 'judged' });
    expect((await postEvent(server, judged, judged.challengeId, liveEvent('thinking'))).status).toBe(200);
    expect((await postEvent(server, judged, judged.challengeId, liveEvent('submitted'))).status).toBe(200);
    expectFlatError(
      await postEvent(server, judged, judged.challengeId, liveEvent('submitted')),
      400,
      'entry cannot be submitted: already in judged status',
    );
    expect(await entryStatus(server, judged.challengeId, judged.agentId)).toBe('judged');
  });

  test('started makes an assigned entry active; submitted straight from assigned is allowed', async () => {
    const one = await enteredAgent(server);
    await postEvent(server, one, one.challengeId, liveEvent('started'));
    expect(await entryStatus(server, one.challengeId, one.agentId)).toBe('active');
    const two = await enteredAgent(server);
    await postEvent(server, two, two.challengeId, liveEvent('submitted'));
    expect(await entryStatus(server, two.challengeId, two.agentId)).toBe('submitted');
  });

  test('timed_out ends the entry: later events are 403 and not stored', async () => {
    const agent = await enteredAgent(server);
    await postEvent(server, agent, agent.challengeId, liveEvent('started'));
    expect(
      (await postEvent(server, agent, agent.challengeId, liveEvent('timed_out', { summary: 'out of time' })))
        .status,
    ).toBe(200);
    expect(await entryStatus(server, agent.challengeId, agent.agentId)).toBe('timed_out');
    expectFlatError(
      await postEvent(server, agent, agent.challengeId, liveEvent('thinking')),
      403,
      'entry is timed_out; it accepts no more events',
    );
    const withdrawn = await enteredAgent(server, { status: 'withdrawn' });
    expectFlatError(
      await postEvent(server, withdrawn, withdrawn.challengeId, liveEvent('started')),
      403,
      /withdrawn/,
    );
    const stored = await server.deps.db.query(
      'SELECT count(*)::int AS n FROM live_events WHERE agent_id = ANY($1)',
      [[agent.agentId, withdrawn.agentId]],
    );
    expect(stored.rows[0].n).toBe(2);
  });
});

describe('POST /api/v1/events/stream: optional Idempotency-Key (extension, docs/decisions/connector.md)', () => {
  const newKey = () => randomBytes(32).toString('hex');
  function post(
    agent: { key: string; agentId: string },
    challengeId: string,
    event: Record<string, unknown>,
    idempotencyKey?: string,
  ) {
    return server.request('POST', '/api/v1/events/stream', {
      agentKey: agent.key,
      body: { challengeId, agentId: agent.agentId, event },
      headers: idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey },
    });
  }
  async function stored(agentId: string) {
    const res = await server.deps.db.query<{ seq_num: number; type: string; idempotency_key: string | null }>(
      'SELECT seq_num, type, idempotency_key FROM live_events WHERE agent_id = $1 ORDER BY seq_num',
      [agentId],
    );
    return res.rows;
  }

  test('a retried post with the same key answers the original {received, seq_num} and stores exactly one row', async () => {
    const agent = await enteredAgent(server);
    const key = newKey();
    const event = liveEvent('thinking', { summary: 'planning' });
    const first = await post(agent, agent.challengeId, event, key);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ received: true, seq_num: 1 });
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    for (const again of [
      await post(agent, agent.challengeId, event, key),
      await post(agent, agent.challengeId, event, key.toUpperCase()),
    ]) {
      expect(again.status).toBe(200);
      expect(again.body).toEqual({ received: true, seq_num: 1 });
      expect(again.headers.get('idempotent-replayed')).toBe('true');
    }
    expect(await stored(agent.agentId)).toEqual([{ seq_num: 1, type: 'thinking', idempotency_key: key }]);
    // Absent key: today's behaviour, a new event with the next number.
    expect((await post(agent, agent.challengeId, event)).body).toEqual({ received: true, seq_num: 2 });
    expect((await stored(agent.agentId)).map((r) => [r.seq_num, r.idempotency_key])).toEqual([
      [1, key],
      [2, null],
    ]);
  });

  test('different keys store two rows, even for an identical event', async () => {
    const agent = await enteredAgent(server);
    const event = liveEvent('progress', { percent: 10 });
    expect((await post(agent, agent.challengeId, event, newKey())).body).toEqual({
      received: true,
      seq_num: 1,
    });
    expect((await post(agent, agent.challengeId, event, newKey())).body).toEqual({
      received: true,
      seq_num: 2,
    });
    expect(await stored(agent.agentId)).toHaveLength(2);
  });

  test('concurrent duplicates under one key store exactly one event', async () => {
    const agent = await enteredAgent(server);
    const key = newKey();
    const event = liveEvent('started');
    const results = await Promise.all(
      Array.from({ length: 8 }, () => post(agent, agent.challengeId, event, key)),
    );
    for (const r of results)
      expect({ status: r.status, body: r.body }).toEqual({
        status: 200,
        body: { received: true, seq_num: 1 },
      });
    expect(await stored(agent.agentId)).toHaveLength(1);
  });

  test('a malformed key is a flat 400 and stores nothing', async () => {
    const agent = await enteredAgent(server);
    const bad = ['', 'abc', 'a'.repeat(63), 'a'.repeat(65), 'g'.repeat(64), `${'a'.repeat(62)} b`];
    for (const key of bad) {
      expectFlatError(
        await post(agent, agent.challengeId, liveEvent('thinking'), key),
        400,
        'Idempotency-Key must be exactly 64 hexadecimal characters',
      );
    }
    expect(await stored(agent.agentId)).toEqual([]);
    const claims = await server.deps.db.query(
      'SELECT count(*)::int AS n FROM idempotency_keys WHERE scope LIKE $1',
      [`agent:${agent.agentId}:%`],
    );
    expect(claims.rows[0].n).toBe(0);
    expect(await entryStatus(server, agent.challengeId, agent.agentId)).toBe('assigned');
  });

  test('the same key for a different event is a flat 409 and stores nothing', async () => {
    const agent = await enteredAgent(server);
    const key = newKey();
    expect(
      (await post(agent, agent.challengeId, liveEvent('thinking', { summary: 'one' }), key)).status,
    ).toBe(200);
    expectFlatError(
      await post(agent, agent.challengeId, liveEvent('thinking', { summary: 'two' }), key),
      409,
      /already used/,
    );
    expect(await stored(agent.agentId)).toHaveLength(1);
  });

  test('a refused event does not use the key up: the same post is stored once the agent is entered', async () => {
    const agent = await newConnectorAgent(server);
    const challengeId = await insertChallenge(server);
    const key = newKey();
    const event = liveEvent('started');
    expectFlatError(await post(agent, challengeId, event, key), 403, /not entered/);
    await insertEntry(server, challengeId, agent.agentId);
    expect((await post(agent, challengeId, event, key)).body).toEqual({ received: true, seq_num: 1 });
  });

  test('keys are per agent: two agents may use the same key', async () => {
    const a = await enteredAgent(server);
    const b = await enteredAgent(server, { challengeId: a.challengeId });
    const key = newKey();
    expect((await post(a, a.challengeId, liveEvent('thinking'), key)).body).toEqual({
      received: true,
      seq_num: 1,
    });
    expect((await post(b, b.challengeId, liveEvent('thinking'), key)).body).toEqual({
      received: true,
      seq_num: 1,
    });
    expect(await stored(a.agentId)).toHaveLength(1);
    expect(await stored(b.agentId)).toHaveLength(1);
  });

  test('the key is stored with the event: a repeat that gets past a lost idempotency record still stores nothing', async () => {
    // As after an API crash between the event's commit and the completion of the idempotency
    // record (a retry then takes the stale claim over), or after the record's 24 h.
    const agent = await enteredAgent(server);
    const key = newKey();
    const event = liveEvent('code_write', { filename: 'a.ts' });
    expect((await post(agent, agent.challengeId, event, key)).body).toEqual({ received: true, seq_num: 1 });
    const forget = () => server.deps.db.query('DELETE FROM idempotency_keys WHERE key = $1', [key]);
    await forget();
    const again = await post(agent, agent.challengeId, event, key);
    expect(again.body).toEqual({ received: true, seq_num: 1 });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    await forget();
    expectFlatError(
      await post(agent, agent.challengeId, liveEvent('code_write', { filename: 'b.ts' }), key),
      409,
      /already used for a different event/,
    );
    // The same key for another challenge of the agent is also a different event.
    const other = await insertChallenge(server);
    await insertEntry(server, other, agent.agentId);
    expectFlatError(await post(agent, other, event, key), 409, /already used/);
    // A repeat still answers as the original did after the challenge stopped being active.
    await server.deps.db.query("UPDATE challenges SET status = 'complete' WHERE id = $1", [
      agent.challengeId,
    ]);
    await forget();
    expect((await post(agent, agent.challengeId, event, key)).body).toEqual({ received: true, seq_num: 1 });
    expect(await stored(agent.agentId)).toHaveLength(1);
  });

  test('below the pipeline, the same key used at the same moment in two challenges stores one event; the other is 409', async () => {
    // The pipeline's record already refuses the second request (another body under the key); this
    // checks the stored key alone, as after a lost record: the entry lock serialises one challenge,
    // the unique index on (agent_id, idempotency_key) settles two.
    const agent = await enteredAgent(server);
    const other = await insertChallenge(server);
    await insertEntry(server, other, agent.agentId);
    const key = newKey();
    const body = (challengeId: string) => ({
      challengeId,
      agentId: agent.agentId,
      event: { type: 'thinking' as const, timestamp: new Date().toISOString() },
    });
    const outcomes = await Promise.allSettled([
      acceptLiveEvent(server.deps, agent.agentId, body(agent.challengeId), key),
      acceptLiveEvent(server.deps, agent.agentId, body(other), key),
    ]);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    const refused = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
    expect(refused?.reason).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' }); // the domain's code; HTTP answers it with 409 (src/api/errors.ts)
    expect(await stored(agent.agentId)).toHaveLength(1);
  });
});

describe('rate limits (429, flat, per key)', () => {
  test('stream: 30 per minute, then 429 with Retry-After', async () => {
    const agent = await enteredAgent(limited);
    const results = await Promise.all(
      Array.from({ length: 31 }, () => postEvent(limited, agent, agent.challengeId, liveEvent('thinking'))),
    );
    const refused = results.filter((r) => r.status === 429);
    expect(results.filter((r) => r.status === 200)).toHaveLength(30);
    expect(refused).toHaveLength(1);
    expectFlatError(refused[0], 429);
    expect(Number(refused[0].headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused[0].headers.get('x-ratelimit-remaining')).toBe('0');
    // Another key of the same agent has its own budget.
    const other = await newAgentKey(limited, agent);
    expect(
      (
        await postEvent(
          limited,
          { key: other, agentId: agent.agentId },
          agent.challengeId,
          liveEvent('thinking'),
        )
      ).status,
    ).toBe(200);
  });

  test('assigned: 30 per minute, then 429 with Retry-After: 60', async () => {
    const agent = await newConnectorAgent(limited);
    const results = await Promise.all(
      Array.from({ length: 31 }, () =>
        limited.request('GET', '/api/v1/challenges/assigned', { agentKey: agent.key }),
      ),
    );
    const refused = results.filter((r) => r.status === 429);
    expect(refused).toHaveLength(1);
    expectFlatError(refused[0], 429);
    expect(refused[0].headers.get('retry-after')).toBe('60');
  });

  test('heartbeat: 120 per minute, then 429', async () => {
    const agent = await newConnectorAgent(limited);
    const results: ApiResponse[] = [];
    for (let batch = 0; batch < 11; batch++) {
      results.push(
        ...(await Promise.all(
          Array.from({ length: 11 }, () =>
            limited.request('POST', '/api/v1/agents/ping', { agentKey: agent.key }),
          ),
        )),
      );
    }
    expect(results.filter((r) => r.status === 200)).toHaveLength(120);
    const refused = results.filter((r) => r.status === 429);
    expect(refused).toHaveLength(1);
    expectFlatError(refused[0], 429);
  });
});

test('a token-only agent (no key) cannot reach the connector, and a key works only for its own agent', async () => {
  const tokenOnly = await newAgent(server);
  const res = await server.request('GET', '/api/v1/challenges/assigned', { auth: tokenOnly.token });
  expectFlatError(res, 401);
});
