/**
 * The operators' API (issue 23): every owner's submissions, one delivery with its attempts,
 * deliveries across subscriptions, the audit trail and the dry run. Real HTTP, PostgreSQL, Temporal
 * and worker; receivers are real HTTP servers on loopback.
 */
import { randomUUID } from 'node:crypto';
import { createDraft, transition } from '../helpers/challenge-factories';
import { eventually, newAdmin, newAgent, newUser, type TestAgent, type TestUser } from '../helpers/factories';
import { expectError, type TestServer } from '../helpers/server';
import { sessionFor, submit, waitForSubmission } from '../helpers/submission-factories';
import {
  deadLetteredDelivery,
  deliveryRow,
  emitResultFinalized,
  userIdOf,
  webhookFixtures,
  type TestReceiver,
} from '../helpers/webhook-factories';
import { startServerAndAdmin } from '../helpers/server-and-admin';

let server: TestServer;
let admin: TestUser;
beforeAll(async () => ({ server, admin } = await startServerAndAdmin({ RATE_LIMIT_DISABLED: '1' })));
afterAll(() => server.close());

const hooks = webhookFixtures(() => server);

const get = (path: string, auth: string) => server.request('GET', path, { auth });
const audit = async (query: string) => (await get(`/api/v1/admin/audit?${query}`, admin.jwt)).body;

describe("GET /api/v1/admin/submissions: every owner's submissions", () => {
  let challengeId: string;
  let alice: TestAgent;
  let bob: TestAgent;
  const ids: string[] = [];

  beforeAll(async () => {
    challengeId = (await transition(server, (await createDraft(server)).id, 'publish', undefined, admin)).id;
    alice = await newAgent(server, { name: 'alice' });
    bob = await newAgent(server, { name: 'bob' });
    // Alternating owners, one after the other, so "newest first" has a known order.
    for (const agent of [alice, bob, alice]) {
      const res = await submit(server, agent.token, await sessionFor(server, agent, challengeId), {
        content: `hello from ${agent.agentId}`,
      });
      expect(res.status).toBe(201);
      ids.push(res.body.data.id);
    }
    for (const id of ids) await waitForSubmission(server, admin.jwt, id);
  });

  test('an operator sees both owners, newest first; a user sees only their own through the history', async () => {
    const res = await get(`/api/v1/admin/submissions?challenge_id=${challengeId}`, admin.jwt);
    expect(res.status).toBe(200);
    expect(res.body.data.map((s: { id: string }) => s.id)).toEqual([...ids].reverse());
    expect(new Set(res.body.data.map((s: { agent_id: string }) => s.agent_id))).toEqual(
      new Set([alice.agentId, bob.agentId]),
    );
    expect(res.body.data[0]).toMatchObject({
      challenge_id: challengeId,
      submission_status: 'complete',
      result: { final_score: expect.any(Number) },
    });
    expect(res.body.pagination).toEqual({ limit: 20, has_more: false, next_cursor: null });

    const own = await get(`/api/v1/submissions?challenge_id=${challengeId}`, alice.user.jwt);
    expect(own.body.data.map((s: { id: string }) => s.id)).toEqual([ids[2], ids[0]]);
  });

  test('filters by agent and status, and the cursor walks every row once', async () => {
    const bobs = await get(
      `/api/v1/admin/submissions?challenge_id=${challengeId}&agent_id=${bob.agentId}`,
      admin.jwt,
    );
    expect(bobs.body.data.map((s: { id: string }) => s.id)).toEqual([ids[1]]);
    const none = await get(`/api/v1/admin/submissions?challenge_id=${challengeId}&status=judging`, admin.jwt);
    expect(none.body.data).toEqual([]);

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: { data: { id: string }[]; pagination: { next_cursor: string | null } } } =
        await get(
          `/api/v1/admin/submissions?challenge_id=${challengeId}&limit=1${cursor ? `&cursor=${cursor}` : ''}`,
          admin.jwt,
        );
      seen.push(...page.body.data.map((s) => s.id));
      cursor = page.body.pagination.next_cursor;
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());
  });

  test('bad input is a 400 in the envelope', async () => {
    expectError(
      await get('/api/v1/admin/submissions?cursor=bm9wZQ', admin.jwt),
      400,
      'VALIDATION_ERROR',
      /cursor/,
    );
    expectError(await get('/api/v1/admin/submissions?status=done', admin.jwt), 400, 'VALIDATION_ERROR');
    expectError(await get('/api/v1/admin/submissions?limit=0', admin.jwt), 400, 'VALIDATION_ERROR');
  });

  test('rejudge is audited with the operator as actor', async () => {
    const res = await server.request('POST', `/api/v1/admin/submissions/${ids[1]}/rejudge`, {
      auth: admin.jwt,
    });
    expect(res.status).toBe(202);
    const trail = await audit(`target_id=${ids[1]}`);
    expect(trail.data).toEqual([
      {
        id: expect.any(String),
        actor: admin.subject,
        action: 'submission.rejudge',
        target_type: 'submission',
        target_id: ids[1],
        at: expect.any(String),
        detail: {
          run: res.body.data.run,
          from_status: 'complete',
          challenge_id: challengeId,
          agent_id: bob.agentId,
        },
      },
    ]);
  });
});

describe('the audit trail', () => {
  test("a challenge's life, newest first, each action by its operator; ?actor= narrows", async () => {
    const other = await newAdmin(server);
    const draft = await createDraft(server, {}, admin);
    const edit = await server.request('PATCH', `/api/v1/admin/challenges/${draft.id}`, {
      auth: other.jwt,
      body: { title: 'Renamed', description: 'Say hello twice.' },
    });
    expect(edit.status).toBe(200);
    await transition(server, draft.id, 'publish', undefined, admin);
    await transition(server, draft.id, 'quarantine', { reason: 'judge config leaks a hidden test' }, other);
    await transition(server, draft.id, 'retire', undefined, admin);

    const trail = await audit(`target_id=${draft.id}`);
    expect(trail.data.map((r: { action: string; actor: string }) => [r.action, r.actor])).toEqual([
      ['challenge.retire', admin.subject],
      ['challenge.quarantine', other.subject],
      ['challenge.publish', admin.subject],
      ['challenge.update', other.subject],
      ['challenge.create', admin.subject],
    ]);
    expect(trail.data[1].detail).toEqual({ reason: 'judge config leaks a hidden test' });
    expect(trail.data[3].detail).toEqual({ fields: ['description', 'title'] });
    const times = trail.data.map((r: { at: string }) => Date.parse(r.at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);

    const byOther = await audit(`actor=${encodeURIComponent(other.subject)}`);
    expect(byOther.data.map((r: { action: string }) => r.action)).toEqual([
      'challenge.quarantine',
      'challenge.update',
    ]);

    const first = await audit(`target_id=${draft.id}&limit=2`);
    const second = await audit(`target_id=${draft.id}&limit=2&cursor=${first.pagination.next_cursor}`);
    expect([...first.data, ...second.data].map((r: { id: string }) => r.id)).toEqual(
      trail.data.slice(0, 4).map((r: { id: string }) => r.id),
    );
  });

  test('a refused action leaves no record', async () => {
    const draft = await createDraft(server, {}, admin);
    expectError(
      await server.request('POST', `/api/v1/admin/challenges/${draft.id}/quarantine`, {
        auth: admin.jwt,
        body: { reason: 'not active yet' },
      }),
      409,
      'CONFLICT',
    );
    expect((await audit(`target_id=${draft.id}`)).data.map((r: { action: string }) => r.action)).toEqual([
      'challenge.create',
    ]);
  });

  test('when the record cannot be written the action rolls back with it', async () => {
    const draft = await createDraft(server, {}, admin);
    const db = server.deps.db;
    // A fault in the audit table for this one challenge only (other suites share the database).
    const fn = `refuse_audit_${randomUUID().replace(/-/g, '')}`;
    await db.query(
      `CREATE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN IF NEW.target_id = '${draft.id}' THEN RAISE EXCEPTION 'audit refused'; END IF; RETURN NEW; END $$`,
    );
    await db.query(
      `CREATE TRIGGER ${fn} BEFORE INSERT ON audit_records FOR EACH ROW EXECUTE FUNCTION ${fn}()`,
    );
    try {
      const res = await server.request('POST', `/api/v1/admin/challenges/${draft.id}/publish`, {
        auth: admin.jwt,
      });
      expect(res.status).toBe(500); // DB_ERROR (src/api/errors.ts)
      expect(res.body.error.code).toBe('DB_ERROR');
    } finally {
      await db.query(`DROP TRIGGER ${fn} ON audit_records`);
      await db.query(`DROP FUNCTION ${fn}()`);
    }
    const row = await get(`/api/v1/admin/challenges/${draft.id}`, admin.jwt);
    expect(row.body.data).toMatchObject({ status: 'draft', published_at: null });
    const events = await db.query(
      `SELECT 1 FROM outbox_events WHERE event_type = 'challenge.published' AND challenge_id = $1`,
      [draft.id],
    );
    expect(events.rowCount).toBe(0);
    expect((await audit(`target_id=${draft.id}`)).data.map((r: { action: string }) => r.action)).toEqual([
      'challenge.create',
    ]);
  });

  test('bad input is a 400', async () => {
    expectError(await get('/api/v1/admin/audit?limit=1000', admin.jwt), 400, 'VALIDATION_ERROR');
    expectError(await get('/api/v1/admin/audit?cursor=%25%25', admin.jwt), 400, 'VALIDATION_ERROR');
    expectError(await get('/api/v1/admin/audit?since=2026-01-01', admin.jwt), 400, 'VALIDATION_ERROR');
  });
});

describe('deliveries and their attempts (support)', () => {
  let owner: TestUser;
  let ownerId: string;
  let receiver: TestReceiver;
  let sub: { id: string };
  let deliveryId: string;
  const BROKEN = 'receiver exploded: TypeError: cannot read properties of undefined (reading "score")';

  /**
   * A result.finalized for the owner; resolves with its delivery once it is dead-lettered (waited
   * for in the database, not by polling the API on the admin's read budget), and listed where
   * support looks for it.
   */
  async function deadLetter(): Promise<string> {
    const eventId = await emitResultFinalized(server.deps.db, ownerId);
    const id = await deadLetteredDelivery(server.deps.db, eventId);
    const listed = await get(
      `/api/v1/admin/webhooks/deliveries?subscription_id=${sub.id}&status=dead_letter`,
      admin.jwt,
    );
    expect(listed.body.data.find((d: { event_id: string }) => d.event_id === eventId)?.id).toBe(id);
    return id;
  }

  beforeEach(async () => {
    owner = await newUser(server);
    await get('/api/v1/webhooks', owner.jwt);
    ownerId = await userIdOf(server.deps.db, owner.subject);
    receiver = await hooks.receiver();
    receiver.setDefault({ status: 500, body: BROKEN });
    sub = await hooks.subscribe(owner, { url: receiver.url, events: ['result.finalized'] });
    deliveryId = await deadLetter();
  });

  test('one delivery with every attempt: status code, latency, error, the response excerpt', async () => {
    const res = await get(`/api/v1/webhooks/${sub.id}/deliveries/${deliveryId}`, owner.jwt);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: deliveryId, subscription_id: sub.id, status: 'dead_letter' });
    expect(res.body.data.attempts.map((a: { attempt_number: number }) => a.attempt_number)).toEqual([
      1, 2, 3, 4,
    ]);
    for (const a of res.body.data.attempts)
      expect(a).toEqual({
        replay: 0,
        attempt_number: expect.any(Number),
        success: false,
        status_code: 500,
        latency_ms: expect.any(Number),
        error: expect.stringContaining('500'),
        response_excerpt: BROKEN,
        attempted_at: expect.any(String),
      });
    // Operators read any subscription's delivery.
    expect((await get(`/api/v1/webhooks/${sub.id}/deliveries/${deliveryId}`, admin.jwt)).body.data.id).toBe(
      deliveryId,
    );
  });

  test("a subscriber never sees another's deliveries (404, as for the subscription)", async () => {
    const stranger = await newAgent(server);
    for (const auth of [stranger.user.jwt, stranger.token]) {
      expectError(await get(`/api/v1/webhooks/${sub.id}/deliveries/${deliveryId}`, auth), 404, 'NOT_FOUND');
      expectError(await get(`/api/v1/webhooks/${sub.id}/deliveries`, auth), 404, 'NOT_FOUND');
    }
    // Their own subscription with someone else's delivery id is 404 too.
    const theirs = await hooks.subscribe(stranger.user, { url: receiver.url, events: ['result.finalized'] });
    expectError(
      await get(`/api/v1/webhooks/${theirs.id}/deliveries/${deliveryId}`, stranger.user.jwt),
      404,
      'NOT_FOUND',
    );
    expectError(await get('/api/v1/admin/webhooks/deliveries', stranger.user.jwt), 403, 'FORBIDDEN');
  });

  test('support fixes the receiver and replays the dead letters since a time; the trail shows it', async () => {
    const second = await deadLetter();
    const listed = await get(
      `/api/v1/admin/webhooks/deliveries?subscription_id=${sub.id}&status=dead_letter`,
      admin.jwt,
    );
    expect(listed.body.data.map((d: { id: string }) => d.id)).toEqual([second, deliveryId]);
    expect(listed.body.data[0]).toMatchObject({ url: receiver.url, attempts: expect.any(Array) });
    const page1 = await get(`/api/v1/admin/webhooks/deliveries?subscription_id=${sub.id}&limit=1`, admin.jwt);
    const page2 = await get(
      `/api/v1/admin/webhooks/deliveries?subscription_id=${sub.id}&limit=1&cursor=${page1.body.pagination.next_cursor}`,
      admin.jwt,
    );
    expect([page1.body.data[0].id, page2.body.data[0].id]).toEqual([second, deliveryId]);

    receiver.setDefault({ status: 204 });
    const since = new Date(Date.now() - 3_600_000).toISOString();
    const res = await server.request('POST', `/api/v1/admin/webhooks/${sub.id}/replay-dead-letters`, {
      auth: admin.jwt,
      body: { since },
    });
    expect(res.status).toBe(202);
    expect(new Set(res.body.data.delivery_ids)).toEqual(new Set([deliveryId, second]));
    for (const id of [deliveryId, second]) {
      await eventually(async () => (await deliveryRow(server.deps.db, id)).status === 'delivered', 90_000);
      const done = (await get(`/api/v1/webhooks/${sub.id}/deliveries/${id}`, owner.jwt)).body.data;
      expect(done.status).toBe('delivered');
      expect(done.attempts.at(-1)).toMatchObject({
        replay: 1,
        attempt_number: 1,
        success: true,
        status_code: 204,
      });
    }
    const trail = await audit(`target_id=${sub.id}`);
    expect(trail.data).toEqual([
      expect.objectContaining({
        actor: admin.subject,
        action: 'delivery.replay_bulk',
        target_type: 'webhook_subscription',
        detail: expect.objectContaining({
          selection: 'dead_letters_since',
          since,
          count: 2,
          truncated: false,
        }),
      }),
    ]);
  });

  test('a replay by the subscriber is audited with the subscriber as actor; selected replays too', async () => {
    receiver.setDefault({ status: 200, body: 'ok' });
    const mine = await server.request('POST', `/api/v1/webhooks/${sub.id}/deliveries/${deliveryId}/replay`, {
      auth: owner.jwt,
    });
    expect(mine.status).toBe(202);
    const selected = await server.request('POST', '/api/v1/admin/webhooks/deliveries/replay', {
      auth: admin.jwt,
      body: { delivery_ids: [deliveryId] },
    });
    expect(selected.status).toBe(202);
    expect(selected.body.data).toEqual({ replayed: 1, delivery_ids: [deliveryId], truncated: false });
    const single = await audit(`target_id=${deliveryId}`);
    expect(single.data).toEqual([
      expect.objectContaining({
        actor: owner.subject,
        action: 'delivery.replay',
        target_type: 'delivery',
        detail: {
          subscription_id: sub.id,
          event_type: 'result.finalized',
          previous_status: 'dead_letter',
          replay: 1,
        },
      }),
    ]);
    expect((await audit(`target_id=${sub.id}`)).data).toEqual([
      expect.objectContaining({
        actor: admin.subject,
        action: 'delivery.replay_bulk',
        detail: { selection: 'selected', delivery_ids: [deliveryId], count: 1, truncated: false },
      }),
    ]);
    // An unknown id replays nothing (one transaction) and writes no record.
    expectError(
      await server.request('POST', '/api/v1/admin/webhooks/deliveries/replay', {
        auth: admin.jwt,
        body: { delivery_ids: [deliveryId, `whd_${'0'.repeat(32)}`] },
      }),
      404,
      'NOT_FOUND',
    );
    expect((await audit(`target_id=${sub.id}`)).data).toHaveLength(1);
  });

  test('listing filters are validated', async () => {
    for (const q of [
      'status=failed',
      'since=yesterday',
      'subscription_id=42',
      'cursor=eyJ4Ijox',
      'limit=101',
    ])
      expectError(await get(`/api/v1/admin/webhooks/deliveries?${q}`, admin.jwt), 400, 'VALIDATION_ERROR');
    expectError(
      await get(`/api/v1/webhooks/${sub.id}/deliveries/whd_nope`, owner.jwt),
      400,
      'VALIDATION_ERROR',
    );
  });
});

describe('POST /api/v1/admin/challenges/dry-run', () => {
  const judge = {
    kind: 'rubric',
    criteria: [
      { name: 'answer', weight: 3, check: { type: 'contains', value: '42' } },
      { name: 'style', weight: 1, hidden: true, check: { type: 'regex', pattern: '^The' } },
    ],
  };

  test('judges the sample on a worker and answers the admin breakdown; nothing is stored', async () => {
    const marker = `dry-run-${randomUUID()}`;
    const res = await server.request('POST', '/api/v1/admin/challenges/dry-run', {
      auth: admin.jwt,
      body: { judge, submission: { content: `The answer is 42 (${marker})`, files: [] } },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.workflow_id).toMatch(/^challenge-dry-run-[0-9a-f-]{36}$/);
    expect(res.body.data.breakdown).toMatchObject({
      audience: 'admin',
      final_score: 100,
      result_state: 'scored',
      hidden_summary: { hidden_passed: 1, hidden_total: 1 },
    });
    expect(
      res.body.data.breakdown.criteria.map((c: { name: string; hidden: boolean }) => [c.name, c.hidden]),
    ).toEqual([
      ['answer', false],
      ['style', true],
    ]);
    // It ran as a workflow on the worker (its history is the only trace).
    const client = await server.deps.temporal();
    const described = await client.workflow.getHandle(res.body.data.workflow_id).describe();
    expect(described.type).toBe('challengeDryRunWorkflow');
    expect(described.status.name).toBe('COMPLETED');
    // Nothing stored: no submission, result, event or audit record mentions it.
    const db = server.deps.db;
    expect(
      (await db.query('SELECT 1 FROM submissions WHERE content LIKE $1', [`%${marker}%`])).rowCount,
    ).toBe(0);
    expect(
      (
        await db.query(
          'SELECT 1 FROM results r JOIN submissions s ON s.id = r.submission_id WHERE s.content LIKE $1',
          [`%${marker}%`],
        )
      ).rowCount,
    ).toBe(0);
    expect(
      (await db.query('SELECT 1 FROM outbox_events WHERE payload::text LIKE $1', [`%${marker}%`])).rowCount,
    ).toBe(0);
    expect(
      (await db.query('SELECT 1 FROM audit_records WHERE detail::text LIKE $1', [`%${marker}%`])).rowCount,
    ).toBe(0);
  });

  test('an invalid judge config is a 400 naming the field, before any workflow runs', async () => {
    const res = await server.request('POST', '/api/v1/admin/challenges/dry-run', {
      auth: admin.jwt,
      body: {
        judge: {
          kind: 'rubric',
          criteria: [{ name: 'answer', weight: -1, check: { type: 'contains', value: '42' } }],
        },
        submission: { content: 'x' },
      },
    });
    expectError(res, 400, 'VALIDATION_ERROR', /judge\.criteria\.0\.weight/);
    expectError(
      await server.request('POST', '/api/v1/admin/challenges/dry-run', { auth: admin.jwt, body: { judge } }),
      400,
      'VALIDATION_ERROR',
      /submission/,
    );
  });

  test("a grader that never answers is the config's problem: a 400 saying so, not a 5xx", async () => {
    const res = await server.request('POST', '/api/v1/admin/challenges/dry-run', {
      auth: admin.jwt,
      // Port 1 on loopback: connection refused on every attempt of the step.
      body: { judge: { kind: 'http', url: 'http://127.0.0.1:1/grade' }, submission: { content: 'x' } },
    });
    expectError(res, 400, 'VALIDATION_ERROR', /dry run refused/);
  });
});
