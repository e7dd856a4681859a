import { randomUUID } from 'node:crypto';
import { upsertEntry } from '../../src/db/queries/entries';
import { challengeCommands } from '../../src/cli/commands/challenges';
import { DEMO_ADMIN_SUBJECT, DEMO_CHALLENGE_IDS, demoPersonaSubject, seedDemoData } from '../../src/dev/seed';
import { bootstrapDemoAgent, DEMO_AGENT_NAMES, type DemoPersona } from '../../src/connector-client/demo';
import { insertAgent } from '../../src/db/queries/agents';
import { mintSessionJwt } from '../../src/auth/jwt';
import { storableText } from '../../src/lib/storable-text';
import {
  challengeBody,
  createActive,
  createDraft,
  inSeconds,
  outboxFor,
  rubricJudge,
  transition,
  uniqueCategory,
} from '../helpers/challenge-factories';
import { newAdmin, newAgent, newUser, type TestUser } from '../helpers/factories';
import { expectError, startTestServer, type TestServer } from '../helpers/server';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startServerAndAdmin } from '../helpers/server-and-admin';

let server: TestServer;
let admin: TestUser;
beforeAll(async () => ({ server, admin } = await startServerAndAdmin()));
afterAll(() => server.close());

const SPEC_FIELDS = [
  'id',
  'title',
  'description',
  'category',
  'format',
  'weight_class_id',
  'status',
  'time_limit_minutes',
  'entry_fee_cents',
  'prize_pool',
  'starts_at',
  'ends_at',
  'entry_count',
  'is_featured',
  'is_daily',
  'created_at',
];

describe('public listing and reading', () => {
  test('list: spec fields, no judge, pagination object, standard headers', async () => {
    const category = uniqueCategory();
    const active = await createActive(server, { category, prize_pool: 250.5, entry_fee_cents: 0 }, admin);
    const res = await server.request('GET', `/api/v1/challenges?category=${category}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-api-version')).toBe('1');
    expect(res.headers.get('x-ratelimit-limit')).toBeTruthy();
    expect(res.body.pagination).toEqual({ total: 1, page: 1, limit: 20, has_more: false });
    const [item] = res.body.data;
    for (const field of SPEC_FIELDS) expect(item).toHaveProperty(field);
    expect(item).toMatchObject({
      id: active.id,
      status: 'active',
      prize_pool: 250.5,
      entry_fee_cents: 0,
      entry_count: 0,
      is_featured: false,
    });
    expect(item.judge).toBeUndefined();
    expect(item.quarantine_reason).toBeUndefined();
    expect(res.text).not.toContain('greets'); // judge criteria never leak
    expect(res.text).not.toContain('criteria');

    const one = await server.request('GET', `/api/v1/challenges/${active.id}`);
    expect(one.status).toBe(200);
    const { judge_public: judgePublic, submissions_left: left, ...fields } = one.body.data;
    expect(left).toBeNull(); // anonymous: acts as no agent
    expect(fields).toEqual(item);
    expect(judgePublic).toMatchObject({ kind: 'rubric', languages: null, tests: [] });
  });

  test('get: judge_public shows visible tests and criteria to everyone, never hidden tests or check values', async () => {
    const big = 'x'.repeat(5000);
    const testsChallenge = await createActive(
      server,
      {
        judge: {
          kind: 'tests',
          timeout_ms_per_test: 500,
          tests: [
            { name: 'adds', export: 'add', args: [1, 2], expected: 3, weight: 2 },
            { name: 'large', export: 'echo', args: [big], expected: big },
            {
              name: 'secret-case',
              hidden: true,
              export: 'add',
              args: [40, 2],
              expected: 'SECRET-EXPECTED-42',
            },
          ],
        },
      },
      admin,
    );
    const rubricChallenge = await createActive(
      server,
      {
        judge: {
          kind: 'rubric',
          criteria: [
            {
              name: 'greets',
              description: 'says hello',
              check: { type: 'contains', value: 'CHECK-VALUE-hello' },
            },
            { name: 'secret-criterion', hidden: true, check: { type: 'length', max: 10 } },
          ],
        },
      },
      admin,
    );
    const user = await newUser(server);
    const agent = await newAgent(server);
    for (const auth of [undefined, user.jwt, agent.token]) {
      const tests = await server.request('GET', `/api/v1/challenges/${testsChallenge.id}`, { auth });
      expect(tests.status).toBe(200);
      expect(tests.body.data.judge).toBeUndefined();
      expect(tests.body.data.judge_public).toEqual({
        kind: 'tests',
        languages: ['javascript', 'typescript'],
        entry: null,
        limits: { time_limit_ms: 500, memory_mb: 64 },
        tests: [
          { name: 'adds', weight: 2, export: 'add', args: [1, 2], expected: 3, truncated: false },
          { name: 'large', weight: 1, export: 'echo', args: null, expected: null, truncated: true },
        ],
        hidden_test_count: 1,
        criteria: [],
        hidden_criteria_count: 0,
      });
      // The hidden test's data never reaches a competitor, in any field.
      expect(tests.text).not.toContain('secret-case');
      expect(tests.text).not.toContain('SECRET-EXPECTED-42');
      expect(tests.text).not.toContain(big);

      const rubric = await server.request('GET', `/api/v1/challenges/${rubricChallenge.id}`, { auth });
      expect(rubric.body.data.judge_public).toMatchObject({
        kind: 'rubric',
        criteria: [{ name: 'greets', weight: 1, description: 'says hello', check: 'contains' }],
        hidden_criteria_count: 1,
      });
      expect(rubric.text).not.toContain('CHECK-VALUE-hello');
      expect(rubric.text).not.toContain('secret-criterion');
    }
    // Operators still read the whole judge on the admin route.
    const full = await server.request('GET', `/api/v1/admin/challenges/${testsChallenge.id}`, {
      auth: admin.jwt,
    });
    expect(JSON.stringify(full.body.data.judge)).toContain('SECRET-EXPECTED-42');
  });

  test('filters: status, category, weight_class, format combine', async () => {
    const category = uniqueCategory();
    const a = await createActive(server, { category, weight_class_id: 'light', format: 'solo' }, admin);
    const b = await createActive(server, { category, weight_class_id: 'heavy', format: 'text' }, admin);
    const c = await createActive(server, { category, weight_class_id: 'heavy', format: 'solo' }, admin);
    await transition(server, c.id, 'retire', undefined, admin);
    const ids = async (qs: string) =>
      (await server.request('GET', `/api/v1/challenges?category=${category}&${qs}`)).body.data
        .map((x: any) => x.id)
        .sort();
    expect(await ids('weight_class=heavy')).toEqual([b.id, c.id].sort());
    expect(await ids('weight_class=heavy&format=solo')).toEqual([c.id]);
    expect(await ids('status=active')).toEqual([a.id, b.id].sort());
    expect(await ids('status=archived')).toEqual([c.id]);
    expect(await ids('format=nothing')).toEqual([]);
  });

  test('paging: page/limit, total, has_more, order featured first then newest', async () => {
    const category = uniqueCategory();
    const first = await createActive(server, { category }, admin);
    const featured = await createActive(server, { category, is_featured: true }, admin);
    const last = await createActive(server, { category }, admin);
    const p1 = await server.request('GET', `/api/v1/challenges?category=${category}&limit=2`);
    expect(p1.body.pagination).toEqual({ total: 3, page: 1, limit: 2, has_more: true });
    expect(p1.body.data.map((x: any) => x.id)).toEqual([featured.id, last.id]);
    const p2 = await server.request('GET', `/api/v1/challenges?category=${category}&limit=2&page=2`);
    expect(p2.body.pagination).toEqual({ total: 3, page: 2, limit: 2, has_more: false });
    expect(p2.body.data.map((x: any) => x.id)).toEqual([first.id]);
    const beyond = await server.request('GET', `/api/v1/challenges?category=${category}&limit=2&page=9`);
    expect(beyond.body).toMatchObject({ data: [], pagination: { total: 3, page: 9, has_more: false } });
    const max = await server.request('GET', `/api/v1/challenges?category=${category}&limit=100`);
    expect(max.body.pagination.limit).toBe(100);
  });

  test.each([
    ['limit=0', 'query.limit'],
    ['limit=101', 'query.limit'],
    ['limit=abc', 'query.limit'],
    ['page=0', 'query.page'],
    ['page=1.5', 'query.page'],
    ['status=open', 'query.status'],
    ['category=', 'query.category'],
  ])('bad query %s → 400 VALIDATION_ERROR naming %s', async (qs, field) => {
    const res = await server.request('GET', `/api/v1/challenges?${qs}`);
    expectError(res, 400, 'VALIDATION_ERROR');
    expect(res.body.error.message).toContain(field);
  });

  test('drafts are hidden from the public and from non-admins, visible to admins', async () => {
    const category = uniqueCategory();
    const draft = await createDraft(server, { category }, admin);
    const user = await newUser(server);
    const agent = await newAgent(server);
    for (const auth of [undefined, user.jwt, agent.token]) {
      const list = await server.request('GET', `/api/v1/challenges?category=${category}`, { auth });
      expect(list.body.data).toEqual([]);
      const asked = await server.request('GET', `/api/v1/challenges?category=${category}&status=draft`, {
        auth,
      });
      expect(asked.status).toBe(200);
      expect(asked.body).toMatchObject({ data: [], pagination: { total: 0, has_more: false } });
      expectError(await server.request('GET', `/api/v1/challenges/${draft.id}`, { auth }), 404, 'NOT_FOUND');
    }
    const adminList = await server.request('GET', `/api/v1/challenges?category=${category}&status=draft`, {
      auth: admin.jwt,
    });
    expect(adminList.body.data.map((x: any) => x.id)).toEqual([draft.id]);
    expect(adminList.body.data[0].judge).toBeUndefined(); // public view even for admins
    expect((await server.request('GET', `/api/v1/challenges/${draft.id}`, { auth: admin.jwt })).status).toBe(
      200,
    );
  });

  test('get: unknown id 404, malformed id 400, token without challenge:read 403, invalid token 401', async () => {
    expectError(await server.request('GET', `/api/v1/challenges/${randomUUID()}`), 404, 'NOT_FOUND');
    expectError(await server.request('GET', '/api/v1/challenges/not-a-uuid'), 400, 'VALIDATION_ERROR');
    const noRead = await newAgent(server, { scopes: ['submission:read'] });
    expectError(await server.request('GET', '/api/v1/challenges', { auth: noRead.token }), 403, 'FORBIDDEN');
    expectError(
      await server.request('GET', '/api/v1/challenges', { auth: 'svc_sk_live_nope' }),
      401,
      'UNAUTHORIZED',
    );
  });

  test('entry_count counts non-sandbox entries, and the maintained count always equals a recount', async () => {
    const challenge = await createActive(server, {}, admin);
    const a = await newAgent(server);
    const b = await newAgent(server);
    const sandboxAgent = await newAgent(server, { sandbox: true });
    for (const x of [a, b]) {
      expect(
        (
          await server.request('POST', `/api/v1/challenges/${challenge.id}/entries`, {
            auth: x.user.jwt,
            body: { agent_id: x.agentId },
          })
        ).status,
      ).toBe(201);
    }
    await upsertEntry(server.deps.db, {
      challengeId: challenge.id,
      agentId: sandboxAgent.agentId,
      sandbox: true,
    });
    const res = await server.request('GET', `/api/v1/challenges/${challenge.id}`);
    expect(res.body.data.entry_count).toBe(2);
    const list = await server.request('GET', `/api/v1/challenges?category=${challenge.category}`);
    expect(list.body.data[0].entry_count).toBe(2);
    // A live upsert turns the sandbox entry into a counted one; never the reverse.
    const again = await upsertEntry(server.deps.db, {
      challengeId: challenge.id,
      agentId: sandboxAgent.agentId,
      sandbox: false,
    });
    expect(again).toMatchObject({ created: false, entry: { sandbox: false } });
    await upsertEntry(server.deps.db, { challengeId: challenge.id, agentId: a.agentId, sandbox: true });
    expect((await server.request('GET', `/api/v1/challenges/${challenge.id}`)).body.data.entry_count).toBe(3);

    // The count is kept by triggers (challenge_entry_counts): status changes leave it alone; a
    // sandbox flip and a delete (neither done by the service today) move it like a recount.
    const db = server.deps.db;
    const counted = async () =>
      (await server.request('GET', `/api/v1/challenges/${challenge.id}`)).body.data.entry_count;
    const recount = async () =>
      (
        await db.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM entries WHERE challenge_id = $1 AND sandbox = false',
          [challenge.id],
        )
      ).rows[0]!.n;
    await db.query(`UPDATE entries SET status = 'active' WHERE challenge_id = $1`, [challenge.id]);
    expect([await counted(), await recount()]).toEqual([3, 3]);
    await db.query('UPDATE entries SET sandbox = true WHERE challenge_id = $1 AND agent_id = $2', [
      challenge.id,
      b.agentId,
    ]);
    expect([await counted(), await recount()]).toEqual([2, 2]);
    await db.query('DELETE FROM entries WHERE challenge_id = $1 AND agent_id = $2', [
      challenge.id,
      a.agentId,
    ]);
    expect([await counted(), await recount()]).toEqual([1, 1]);
    await db.query('DELETE FROM entries WHERE challenge_id = $1 AND agent_id = $2', [
      challenge.id,
      b.agentId,
    ]); // a sandbox row: no change
    expect([await counted(), await recount()]).toEqual([1, 1]);
  });
});

describe('operator endpoints', () => {
  test('admin-only: 401 without credential, 403 for a non-admin JWT and for API tokens (even an admin’s)', async () => {
    const user = await newUser(server);
    const adminsToken = await newAgent(server, { user: await newAdmin(server) });
    const draft = await createDraft(server, {}, admin);
    const calls: [string, string, unknown?][] = [
      ['POST', '/api/v1/admin/challenges', challengeBody()],
      ['GET', '/api/v1/admin/challenges'],
      ['GET', `/api/v1/admin/challenges/${draft.id}`],
      ['PATCH', `/api/v1/admin/challenges/${draft.id}`, { title: 'x' }],
      ['POST', `/api/v1/admin/challenges/${draft.id}/publish`],
      ['POST', `/api/v1/admin/challenges/${draft.id}/quarantine`, { reason: 'x' }],
      ['POST', `/api/v1/admin/challenges/${draft.id}/retire`],
    ];
    for (const [method, url, body] of calls) {
      expectError(await server.request(method, url, { body }), 401, 'UNAUTHORIZED');
      expectError(await server.request(method, url, { body, auth: user.jwt }), 403, 'FORBIDDEN');
      expectError(await server.request(method, url, { body, auth: adminsToken.token }), 403, 'FORBIDDEN');
    }
    expect(await outboxFor(server, draft.id)).toEqual([]);
    expect(
      (await server.request('GET', `/api/v1/admin/challenges/${draft.id}`, { auth: admin.jwt })).body.data
        .status,
    ).toBe('draft');
  });

  test('create: draft with defaults and the parsed judge; admin list/get show the judge', async () => {
    const category = uniqueCategory();
    const res = await server.request('POST', '/api/v1/admin/challenges', {
      auth: admin.jwt,
      body: { title: 'Hello', category, format: 'solo', weight_class_id: 'open', judge: rubricJudge() },
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      status: 'draft',
      description: '',
      time_limit_minutes: null,
      starts_at: null,
      ends_at: null,
      is_featured: false,
      is_daily: false,
      max_submissions_per_session: 10,
      entry_count: 0,
      judge: { kind: 'rubric', criteria: [{ name: 'greets', weight: 2, hidden: false }, { name: 'short' }] },
    });
    const list = await server.request('GET', `/api/v1/admin/challenges?category=${category}`, {
      auth: admin.jwt,
    });
    expect(list.body.pagination.total).toBe(1);
    expect(list.body.data[0].judge.kind).toBe('rubric');
    expect(await outboxFor(server, res.body.data.id)).toEqual([]); // creating emits nothing
  });

  test.each([
    [{ judge: { kind: 'magic' } }, 'body.judge'],
    [{ judge: { kind: 'rubric', criteria: [] } }, 'body.judge.criteria'],
    [
      { judge: { kind: 'tests', tests: [{ name: 't', export: 'not an identifier', expected: 1 }] } },
      'body.judge.tests.0.export',
    ],
    [{ starts_at: '2030-01-02T00:00:00Z', ends_at: '2030-01-01T00:00:00Z' }, 'body.ends_at'],
    [{ starts_at: 'tomorrow' }, 'body.starts_at'],
    [{ title: '   ' }, 'body.title'],
    [{ time_limit_minutes: 0 }, 'body.time_limit_minutes'],
    [{ status: 'active' }, 'status'],
  ])('create rejects %j naming %s', async (overrides, field) => {
    const res = await server.request('POST', '/api/v1/admin/challenges', {
      auth: admin.jwt,
      body: challengeBody(overrides),
    });
    expectError(res, 400, 'VALIDATION_ERROR');
    expect(res.body.error.message).toContain(field);
  });

  test('patch: edits fields, validates the merged window, 404 for unknown', async () => {
    const draft = await createDraft(
      server,
      { starts_at: '2031-01-01T00:00:00Z', ends_at: '2031-02-01T00:00:00Z' },
      admin,
    );
    const url = `/api/v1/admin/challenges/${draft.id}`;
    const ok = await server.request('PATCH', url, {
      auth: admin.jwt,
      body: { title: 'Renamed', is_featured: true, prize_pool: null },
    });
    expect(ok.status).toBe(200);
    expect(ok.body.data).toMatchObject({
      title: 'Renamed',
      is_featured: true,
      prize_pool: null,
      status: 'draft',
    });
    const bad = await server.request('PATCH', url, {
      auth: admin.jwt,
      body: { ends_at: '2030-12-31T00:00:00Z' },
    });
    expectError(bad, 400, 'VALIDATION_ERROR');
    expect(bad.body.error.message).toContain('ends_at');
    expectError(await server.request('PATCH', url, { auth: admin.jwt, body: {} }), 400, 'VALIDATION_ERROR');
    expectError(
      await server.request('PATCH', url, { auth: admin.jwt, body: { status: 'active' } }),
      400,
      'VALIDATION_ERROR',
    );
    expectError(
      await server.request('PATCH', `/api/v1/admin/challenges/${randomUUID()}`, {
        auth: admin.jwt,
        body: { title: 'x' },
      }),
      404,
      'NOT_FOUND',
    );
    const cleared = await server.request('PATCH', url, { auth: admin.jwt, body: { starts_at: null } });
    expect(cleared.body.data.starts_at).toBeNull();
    expect(cleared.body.data.ends_at).toBe('2031-02-01T00:00:00.000Z');
  });

  test('format is a menu: an unknown one → 400 naming the allowed ones; a stored older value stays editable', async () => {
    const created = await server.request('POST', '/api/v1/admin/challenges', {
      auth: admin.jwt,
      body: challengeBody({ format: 'head to head' }),
    });
    expectError(created, 400, 'VALIDATION_ERROR');
    expect(created.body.error.message).toContain('format');
    expect(created.body.error.message).toContain('solo, text, code, head_to_head, game');

    const draft = await createDraft(server, { format: 'text' }, admin);
    const url = `/api/v1/admin/challenges/${draft.id}`;
    const changed = await server.request('PATCH', url, { auth: admin.jwt, body: { format: 'duel' } });
    expectError(changed, 400, 'VALIDATION_ERROR');
    expect(changed.body.error.message).toContain('head_to_head');
    expect((await server.request('GET', url, { auth: admin.jwt })).body.data.format).toBe('text');

    // A row stored before the menu keeps its value through an edit that sends it unchanged.
    await server.deps.db.query(`UPDATE challenges SET format = 'legacy' WHERE id = $1`, [draft.id]);
    const kept = await server.request('PATCH', url, {
      auth: admin.jwt,
      body: { format: 'legacy', title: 'Still editable' },
    });
    expect(kept.status).toBe(200);
    expect(kept.body.data).toMatchObject({ format: 'legacy', title: 'Still editable' });
  });

  test('publish → quarantine → publish → retire, each with exactly one outbox row; repeats emit nothing', async () => {
    const draft = await createDraft(server, {}, admin);
    const id = draft.id;
    const publish = await server.request('POST', `/api/v1/admin/challenges/${id}/publish`, {
      auth: admin.jwt,
    });
    expect(publish.status).toBe(200);
    expect(publish.headers.get('challenge-transition')).toBe('applied');
    expect(publish.body.data).toMatchObject({ status: 'active', judge: { kind: 'rubric' } });
    expect(publish.body.data.published_at).toBeTruthy();
    let events = await outboxFor(server, id, 'challenge.published');
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      payload: { challenge_id: id, status: 'active' },
      owner_user_id: null,
      challenge_id: id,
      sandbox: false,
    });

    const again = await server.request('POST', `/api/v1/admin/challenges/${id}/publish`, { auth: admin.jwt });
    expect(again.status).toBe(200);
    expect(again.headers.get('challenge-transition')).toBe('unchanged');
    expect(await outboxFor(server, id, 'challenge.published')).toHaveLength(1);

    const q = await server.request('POST', `/api/v1/admin/challenges/${id}/quarantine`, {
      auth: admin.jwt,
      body: { reason: 'judge leaks answers' },
    });
    expect(q.status).toBe(200);
    expect(q.body.data).toMatchObject({ status: 'draft', quarantine_reason: 'judge leaks answers' });
    events = await outboxFor(server, id, 'challenge.quarantined');
    expect(events.map((e) => e.payload)).toEqual([{ challenge_id: id, reason: 'judge leaks answers' }]);
    expect(events[0].owner_user_id).toBeNull();
    expectError(await server.request('GET', `/api/v1/challenges/${id}`), 404, 'NOT_FOUND');

    const q2 = await server.request('POST', `/api/v1/admin/challenges/${id}/quarantine`, {
      auth: admin.jwt,
      body: { reason: 'again' },
    });
    expectError(q2, 409, 'CONFLICT');
    expect(await outboxFor(server, id, 'challenge.quarantined')).toHaveLength(1);

    const republished = await transition(server, id, 'publish', undefined, admin);
    expect(republished).toMatchObject({ status: 'active', quarantine_reason: null });
    expect(await outboxFor(server, id, 'challenge.published')).toHaveLength(2);

    const retired = await server.request('POST', `/api/v1/admin/challenges/${id}/retire`, {
      auth: admin.jwt,
    });
    expect(retired.body.data).toMatchObject({ status: 'archived' });
    expect((await outboxFor(server, id, 'challenge.retired')).map((e) => e.payload)).toEqual([
      { challenge_id: id },
    ]);
    const retiredAgain = await server.request('POST', `/api/v1/admin/challenges/${id}/retire`, {
      auth: admin.jwt,
    });
    expect(retiredAgain.status).toBe(200);
    expect(retiredAgain.headers.get('challenge-transition')).toBe('unchanged');
    expect(await outboxFor(server, id, 'challenge.retired')).toHaveLength(1);
    // archived stays publicly readable
    expect((await server.request('GET', `/api/v1/challenges/${id}`)).body.data.status).toBe('archived');
  });

  test('rejected transitions change nothing and emit nothing', async () => {
    const draft = await createDraft(server, {}, admin);
    expectError(
      await server.request('POST', `/api/v1/admin/challenges/${draft.id}/quarantine`, {
        auth: admin.jwt,
        body: { reason: 'x' },
      }),
      409,
      'CONFLICT',
    );
    expectError(
      await server.request('POST', `/api/v1/admin/challenges/${draft.id}/quarantine`, {
        auth: admin.jwt,
        body: {},
      }),
      400,
      'VALIDATION_ERROR',
    );
    expectError(
      await server.request('POST', `/api/v1/admin/challenges/${draft.id}/quarantine`, {
        auth: admin.jwt,
        body: { reason: ' ' },
      }),
      400,
      'VALIDATION_ERROR',
    );
    expectError(
      await server.request('POST', `/api/v1/admin/challenges/${randomUUID()}/publish`, { auth: admin.jwt }),
      404,
      'NOT_FOUND',
    );
    const archived = await createDraft(server, {}, admin);
    await transition(server, archived.id, 'retire', undefined, admin);
    expectError(
      await server.request('POST', `/api/v1/admin/challenges/${archived.id}/quarantine`, {
        auth: admin.jwt,
        body: { reason: 'x' },
      }),
      409,
      'CONFLICT',
    );
    // ends_at in the past: publishing would end it at once, so it is refused until ends_at moves
    const past = await createDraft(
      server,
      { starts_at: '2020-01-01T00:00:00Z', ends_at: '2020-02-01T00:00:00Z' },
      admin,
    );
    expectError(
      await server.request('POST', `/api/v1/admin/challenges/${past.id}/publish`, { auth: admin.jwt }),
      409,
      'CONFLICT',
    );
    expect(await outboxFor(server, draft.id)).toEqual([]);
    expect(await outboxFor(server, past.id)).toEqual([]);
    expect((await outboxFor(server, archived.id)).map((e) => e.event_type)).toEqual(['challenge.retired']);
  });

  test('without Temporal, publish is 503 and changes nothing; retire still works', async () => {
    const offline = await startTestServer({ TEMPORAL_ADDRESS: '127.0.0.1:1' });
    try {
      const draft = await createDraft(offline, {}, admin);
      const res = await offline.request('POST', `/api/v1/admin/challenges/${draft.id}/publish`, {
        auth: admin.jwt,
      });
      expectError(res, 503, 'SERVICE_UNAVAILABLE');
      expect(res.text).not.toMatch(/127\.0\.0\.1:1|ECONNREFUSED/);
      expect(
        (await offline.request('GET', `/api/v1/admin/challenges/${draft.id}`, { auth: admin.jwt })).body.data
          .status,
      ).toBe('draft');
      expect(await outboxFor(offline, draft.id)).toEqual([]);
      const retired = await offline.request('POST', `/api/v1/admin/challenges/${draft.id}/retire`, {
        auth: admin.jwt,
      });
      expect(retired.status).toBe(200);
      expect((await outboxFor(offline, draft.id)).map((e) => e.event_type)).toEqual(['challenge.retired']);
    } finally {
      await offline.close();
    }
  });

  test('the OpenAPI document lists the challenge and admin operations', async () => {
    const doc = await server.request('GET', '/api/v1/openapi.json');
    expect(doc.status).toBe(200);
    expect(doc.body.paths['/api/v1/challenges'].get.operationId).toBe('listChallenges');
    expect(doc.body.paths['/api/v1/admin/challenges/{id}/quarantine'].post.operationId).toBe(
      'adminQuarantineChallenge',
    );
    expect(doc.body.paths['/api/v1/challenges/{id}/entries'].post.operationId).toBe('createEntry');
  });
});

describe('entries', () => {
  test('owner enters an agent: 201, then 200 with the same entry', async () => {
    const challenge = await createActive(server, {}, admin);
    const agent = await newAgent(server);
    const url = `/api/v1/challenges/${challenge.id}/entries`;
    const first = await server.request('POST', url, {
      auth: agent.user.jwt,
      body: { agent_id: agent.agentId },
    });
    expect(first.status).toBe(201);
    expect(first.body.data).toEqual({
      id: expect.any(String),
      challenge_id: challenge.id,
      agent_id: agent.agentId,
      status: 'assigned',
      assigned_at: expect.any(String),
      sandbox: false,
    });
    const second = await server.request('POST', url, {
      auth: agent.user.jwt,
      body: { agent_id: agent.agentId },
    });
    expect(second.status).toBe(200);
    expect(second.body.data).toEqual(first.body.data);
    // even after the challenge completes, the existing entry is returned
    await transition(server, challenge.id, 'retire', undefined, admin);
    expect(
      (await server.request('POST', url, { auth: agent.user.jwt, body: { agent_id: agent.agentId } })).status,
    ).toBe(200);
  });

  test('not enterable: 400 CHALLENGE_NOT_ENTERABLE (archived, ended); drafts 404; registration before start is allowed', async () => {
    const agent = await newAgent(server);
    const enter = (id: string) =>
      server.request('POST', `/api/v1/challenges/${id}/entries`, {
        auth: agent.user.jwt,
        body: { agent_id: agent.agentId },
      });
    const archived = await createDraft(server, {}, admin);
    await transition(server, archived.id, 'retire', undefined, admin);
    expectError(await enter(archived.id), 400, 'CHALLENGE_NOT_ENTERABLE');

    const ended = await createActive(server, { ends_at: inSeconds(3600) }, admin);
    await server.deps.db.query(
      `UPDATE challenges SET starts_at = now() - interval '2 hours', ends_at = now() - interval '1 second' WHERE id = $1`,
      [ended.id],
    );
    expectError(await enter(ended.id), 400, 'CHALLENGE_NOT_ENTERABLE');

    const draft = await createDraft(server, {}, admin);
    expectError(await enter(draft.id), 404, 'NOT_FOUND');

    const upcoming = await createActive(
      server,
      { starts_at: inSeconds(3600), ends_at: inSeconds(7200) },
      admin,
    );
    expect((await enter(upcoming.id)).status).toBe(201);
    const entries = await server.deps.db.query('SELECT count(*)::int AS n FROM entries WHERE agent_id = $1', [
      agent.agentId,
    ]);
    expect(entries.rows[0].n).toBe(1);
  });

  test('ownership and credentials: another user’s agent 404, API token 403, anonymous 401, bad body 400', async () => {
    const challenge = await createActive(server, {}, admin);
    const agent = await newAgent(server);
    const stranger = await newUser(server);
    const url = `/api/v1/challenges/${challenge.id}/entries`;
    expectError(
      await server.request('POST', url, { auth: stranger.jwt, body: { agent_id: agent.agentId } }),
      404,
      'NOT_FOUND',
    );
    expectError(
      await server.request('POST', url, { auth: agent.token, body: { agent_id: agent.agentId } }),
      403,
      'FORBIDDEN',
    );
    expectError(
      await server.request('POST', url, { body: { agent_id: agent.agentId } }),
      401,
      'UNAUTHORIZED',
    );
    expectError(
      await server.request('POST', url, { auth: agent.user.jwt, body: { agent_id: 'nope' } }),
      400,
      'VALIDATION_ERROR',
    );
    expectError(
      await server.request('POST', `/api/v1/challenges/${randomUUID()}/entries`, {
        auth: agent.user.jwt,
        body: { agent_id: agent.agentId },
      }),
      404,
      'NOT_FOUND',
    );
  });

  test('listing: admin sees all, an owner only their own, paged', async () => {
    const challenge = await createActive(server, {}, admin);
    const owner = await newUser(server);
    const mine1 = await newAgent(server, { user: owner });
    const mine2 = await newAgent(server, { user: owner });
    const other = await newAgent(server);
    for (const a of [mine1, mine2, other]) {
      await server.request('POST', `/api/v1/challenges/${challenge.id}/entries`, {
        auth: a.user.jwt,
        body: { agent_id: a.agentId },
      });
    }
    const url = `/api/v1/challenges/${challenge.id}/entries`;
    const all = await server.request('GET', url, { auth: admin.jwt });
    expect(all.body.pagination).toEqual({ total: 3, page: 1, limit: 20, has_more: false });
    const own = await server.request('GET', url, { auth: owner.jwt });
    expect(own.body.data.map((e: any) => e.agent_id).sort()).toEqual([mine1.agentId, mine2.agentId].sort());
    const paged = await server.request('GET', `${url}?limit=1&page=2`, { auth: admin.jwt });
    expect(paged.body.pagination).toEqual({ total: 3, page: 2, limit: 1, has_more: true });
    expect((await server.request('GET', url, { auth: (await newUser(server)).jwt })).body.data).toEqual([]);
    expectError(await server.request('GET', url), 401, 'UNAUTHORIZED');
    expectError(await server.request('GET', url, { auth: other.token }), 403, 'FORBIDDEN');
  });
});

describe('operator CLI module', () => {
  test('create from a JSON file, publish, quarantine, retire, list', async () => {
    const out: string[] = [];
    const ctx = {
      baseUrl: server.baseUrl,
      adminJwt: admin.jwt,
      print: (line: string) => out.push(line),
      printError: (line: string) => out.push(line),
    };
    const dir = mkdtempSync(path.join(tmpdir(), 'challenge-cli-'));
    const file = path.join(dir, 'c.json');
    const category = uniqueCategory();
    writeFileSync(file, JSON.stringify(challengeBody({ category })));
    const created = await challengeCommands({ _: ['create'], file }, ctx);
    expect(created.exitCode).toBe(0);
    const id = (created.result as any).id;
    expect(id).toEqual(expect.any(String));
    expect((await challengeCommands({ _: ['publish', id] }, ctx)).exitCode).toBe(0);
    expect((await challengeCommands({ _: ['quarantine', id] }, ctx)).exitCode).toBe(2); // --reason required
    expect((await challengeCommands({ _: ['quarantine', id], reason: 'broken' }, ctx)).exitCode).toBe(0);
    const failed = await challengeCommands({ _: ['quarantine', id], reason: 'again' }, ctx);
    expect(failed.exitCode).toBe(1);
    expect(out.join('\n')).toContain('CONFLICT');
    expect((await challengeCommands({ _: ['retire', id] }, ctx)).exitCode).toBe(0);
    const listed = await challengeCommands({ _: ['list'], category }, ctx);
    expect((listed.result as any[]).map((c) => [c.id, c.status])).toEqual([[id, 'archived']]);
    expect((await challengeCommands({ _: ['nope'] }, ctx)).exitCode).toBe(2);
  });
});

describe('demo data', () => {
  test('seedDemoData is idempotent and publishes valid challenges of each runnable judge kind', async () => {
    const client = await server.deps.temporal();
    const ids = Object.values(DEMO_CHALLENGE_IDS);
    // Fixed ids: a workflow left by an interrupted earlier run (another task queue) must not be signalled.
    for (const id of ids)
      await client.workflow
        .getHandle(`challenge-lifecycle-${id}`)
        .terminate('test cleanup')
        .catch(() => undefined);
    const options = { deps: server.deps };
    try {
      const first = await seedDemoData(server.deps.db, options);
      expect(first.created.sort()).toEqual([...ids].sort());
      expect(first.published.sort()).toEqual([...ids].sort());
      const second = await seedDemoData(server.deps.db, options);
      expect(second).toEqual({
        adminUserId: first.adminUserId,
        created: [],
        published: [],
        demoAgents: first.demoAgents,
      });

      const kinds = new Set<string>();
      for (const id of ids) {
        const res = await server.request('GET', `/api/v1/admin/challenges/${id}`, { auth: admin.jwt });
        expect(res.body.data.status).toBe('active');
        kinds.add(res.body.data.judge.kind);
        expect(await outboxFor(server, id, 'challenge.published')).toHaveLength(1);
      }
      expect([...kinds].sort()).toEqual(['game', 'rubric', 'tests']);
      const upcoming = await server.request('GET', `/api/v1/challenges/${DEMO_CHALLENGE_IDS.upcoming}`);
      expect(Date.parse(upcoming.body.data.starts_at)).toBeGreaterThan(Date.now());
      expect(Date.parse(upcoming.body.data.ends_at)).toBeGreaterThan(
        Date.parse(upcoming.body.data.starts_at),
      );
      const user = await server.deps.db.query('SELECT role FROM users WHERE subject = $1', [
        DEMO_ADMIN_SUBJECT,
      ]);
      expect(user.rows[0].role).toBe('admin');
    } finally {
      for (const id of ids)
        await server.request('POST', `/api/v1/admin/challenges/${id}/retire`, { auth: admin.jwt });
    }
  });

  test('npm start twice on one database leaves one pair of demo agents: the seed and the demo agent reuse them', async () => {
    const live = async (persona: DemoPersona) =>
      (
        await server.deps.db.query(
          `SELECT a.id FROM agents a JOIN users u ON u.id = a.owner_user_id
            WHERE u.subject = $1 AND a.name = $2 AND a.deleted_at IS NULL`,
          [demoPersonaSubject(persona), DEMO_AGENT_NAMES[persona]],
        )
      ).rows.map((r) => r.id as string);
    const first = await seedDemoData(server.deps.db);
    // A duplicate left by a run before this rule is retired by the next seed.
    const owner = await server.deps.db.query('SELECT id FROM users WHERE subject = $1', [
      demoPersonaSubject('basil'),
    ]);
    await insertAgent(server.deps.db, owner.rows[0].id, storableText(DEMO_AGENT_NAMES.basil), null);
    const second = await seedDemoData(server.deps.db);
    expect(second.demoAgents).toEqual(first.demoAgents);
    for (const persona of ['ada', 'basil'] as const)
      expect(await live(persona)).toEqual([first.demoAgents[persona]]);

    // src/dev/demo-agent.ts signs in as the persona and bootstraps through the API: twice, one agent.
    const jwt = await mintSessionJwt(server.config.AUTH_JWT_SECRET, {
      sub: demoPersonaSubject('ada'),
      name: DEMO_AGENT_NAMES.ada,
    });
    const challenge = await createActive(server, {}, admin);
    for (let run = 0; run < 2; run++) {
      const identity = await bootstrapDemoAgent({
        baseUrl: server.baseUrl,
        jwt,
        challengeId: challenge.id,
        agentName: DEMO_AGENT_NAMES.ada,
      });
      expect(identity.agentId).toBe(first.demoAgents.ada);
    }
    expect(await live('ada')).toEqual([first.demoAgents.ada]);
  });
});
