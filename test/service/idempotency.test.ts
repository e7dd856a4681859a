import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { ServiceError } from '../../src/errors';
import { requestHash, runIdempotent } from '../../src/api/middleware/idempotency';
import { defineRoute, type AnyRouteDef } from '../../src/api/route';
import { allRoutes } from '../../src/api/routes';
import { newAgent, newAgentKey } from '../helpers/factories';
import { startTestServer, type ApiResponse, type TestServer } from '../helpers/server';

/** How the next executions of the test route should fail (the test and the app share a process). */
const failures: Array<'throw' | 'apiError'> = [];

const widgetBody = z.object({ name: z.string().min(1), color: z.string().optional() }).strict();

function widgetRoute(operationId: string, path: string): AnyRouteDef {
  return defineRoute({
    operationId,
    method: 'post',
    path,
    summary: 'test-only idempotent create',
    tags: ['test'],
    auth: 'bearer',
    rateLimit: 'default',
    idempotent: true,
    body: widgetBody,
    responses: { 201: { description: 'created' } },
    async handler({ body, principal, deps }) {
      const failure = failures.shift();
      if (failure === 'throw') throw new Error('simulated crash in the handler');
      if (failure === 'apiError') throw new ServiceError('CHALLENGE_NOT_ENTERABLE', 'simulated refusal');
      // The sleep widens the window in which concurrent duplicates arrive.
      const row = await deps.db.query<{ id: string }>(
        'INSERT INTO test_widgets (owner, name) SELECT $1, $2 FROM pg_sleep(0.2) RETURNING id',
        [principal.userId, body.name],
      );
      return { status: 201, data: { id: row.rows[0].id, name: body.name } };
    },
  });
}

/** A connector-style idempotent route answering a raw (non-envelope) body. */
const rawRoute = defineRoute({
  operationId: 'testIdempotentRaw',
  method: 'post',
  path: '/test/connector/widgets',
  summary: 'test-only idempotent raw create',
  tags: ['test'],
  auth: 'agentKey',
  rateLimit: 'default',
  idempotent: true,
  body: widgetBody,
  responses: { 200: { description: 'created' } },
  async handler({ body, deps }) {
    const row = await deps.db.query<{ id: string }>(
      'INSERT INTO test_widgets (name) VALUES ($1) RETURNING id',
      [body.name],
    );
    return { raw: { received: true, id: row.rows[0].id } };
  },
});

let server: TestServer;
beforeAll(async () => {
  // Silent: the simulated crash below is logged as an unhandled error by design.
  server = await startTestServer(
    { LOG_LEVEL: 'silent' },
    {
      routes: [
        ...allRoutes(),
        widgetRoute('testCreateWidget', '/test/widgets'),
        widgetRoute('testCreateGadget', '/test/gadgets'),
        rawRoute,
      ],
    },
  );
  await server.deps.db.query(
    'CREATE TABLE IF NOT EXISTS test_widgets (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), owner uuid, name text NOT NULL)',
  );
});
afterAll(() => server.close());

const newKey = () => randomBytes(32).toString('hex');
const countWidgets = async (name: string) =>
  Number(
    (await server.deps.db.query('SELECT count(*) AS n FROM test_widgets WHERE name = $1', [name])).rows[0].n,
  );

function create(
  auth: string,
  key: string | undefined,
  body: unknown,
  path = '/test/widgets',
): Promise<ApiResponse> {
  return server.request('POST', path, {
    auth,
    body,
    headers: key === undefined ? {} : { 'idempotency-key': key },
  });
}

describe('Idempotency-Key', () => {
  test('must be exactly 64 hex characters (400 VALIDATION_ERROR, nothing created)', async () => {
    const agent = await newAgent(server);
    for (const bad of ['abc', 'g'.repeat(64), newKey() + 'a', newKey().slice(1), ' '.repeat(64)]) {
      const res = await create(agent.token, bad, { name: 'invalid-key' });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.message).toMatch(/Idempotency-Key/);
    }
    expect(await countWidgets('invalid-key')).toBe(0);
  });

  test('a replay returns the original body with 200 and Idempotent-Replayed: true', async () => {
    const agent = await newAgent(server);
    const key = newKey();
    const first = await create(agent.token, key, { name: 'replayed', color: 'red' });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const replay = await create(agent.token, key, { color: 'red', name: 'replayed' }); // same body, other key order
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body.data).toEqual(first.body.data);
    // request_id names the request that answered, as X-Request-ID does.
    expect(replay.body.request_id).toBe(replay.headers.get('x-request-id'));
    expect(replay.body.request_id).not.toBe(first.body.request_id);
    // The key is case-insensitive hex.
    const upper = await create(agent.token, key.toUpperCase(), { name: 'replayed', color: 'red' });
    expect(upper.status).toBe(200);
    expect(upper.body.data.id).toBe(first.body.data.id);
    expect(await countWidgets('replayed')).toBe(1);
    // Without a key every request creates.
    await create(agent.token, undefined, { name: 'replayed', color: 'red' });
    expect(await countWidgets('replayed')).toBe(2);
  });

  test('the same key with a different body is 409 IDEMPOTENCY_KEY_REUSED', async () => {
    const agent = await newAgent(server);
    const key = newKey();
    expect((await create(agent.token, key, { name: 'reused-a' })).status).toBe(201);
    const reused = await create(agent.token, key, { name: 'reused-b' });
    expect(reused.status).toBe(409);
    expect(reused.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(await countWidgets('reused-b')).toBe(0);
  });

  test('30 concurrent requests with one key create exactly one record, and all 30 get its id', async () => {
    const agent = await newAgent(server);
    const key = newKey();
    const results = await Promise.all(
      Array.from({ length: 30 }, () => create(agent.token, key, { name: 'concurrent' })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([...Array(29).fill(200), 201]);
    expect(new Set(results.map((r) => r.body.data.id)).size).toBe(1);
    expect(results.filter((r) => r.headers.get('idempotent-replayed') === 'true')).toHaveLength(29);
    expect(await countWidgets('concurrent')).toBe(1);
  });

  test('a failed execution releases the key: the retry with the same key executes', async () => {
    const agent = await newAgent(server);
    const key = newKey();
    failures.push('throw');
    const crashed = await create(agent.token, key, { name: 'after-failure' });
    expect(crashed.status).toBe(500);
    expect(crashed.body.error.code).toBe('INTERNAL_ERROR');
    failures.push('apiError');
    const refused = await create(agent.token, key, { name: 'after-failure' });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('CHALLENGE_NOT_ENTERABLE');
    const retried = await create(agent.token, key, { name: 'after-failure' });
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect(await countWidgets('after-failure')).toBe(1);
  });

  test('keys are scoped per agent and per route', async () => {
    const a = await newAgent(server);
    const b = await newAgent(server);
    const key = newKey();
    const byA = await create(a.token, key, { name: 'scoped' });
    const byB = await create(b.token, key, { name: 'scoped' });
    expect([byA.status, byB.status]).toEqual([201, 201]);
    expect(byB.body.data.id).not.toBe(byA.body.data.id);
    // A second token of agent A shares A's keys.
    const second = await server.request('POST', '/api/v1/auth/tokens', {
      auth: a.user.jwt,
      body: { name: 'second', scopes: ['challenge:read'], agent_id: a.agentId },
    });
    const bySecondToken = await create(second.body.data.token, key, { name: 'scoped' });
    expect(bySecondToken.status).toBe(200);
    expect(bySecondToken.body.data.id).toBe(byA.body.data.id);
    // Another route: another record.
    const otherRoute = await create(a.token, key, { name: 'scoped' }, '/test/gadgets');
    expect(otherRoute.status).toBe(201);
    expect(await countWidgets('scoped')).toBe(3);
  });

  test('raw (connector) bodies replay exactly as stored, without a request_id added', async () => {
    const agent = await newAgent(server);
    const agentKey = await newAgentKey(server, agent);
    const key = newKey();
    const send = () =>
      server.request('POST', '/test/connector/widgets', {
        agentKey,
        body: { name: 'raw' },
        headers: { 'idempotency-key': key },
      });
    const first = await send();
    expect(first.status).toBe(200);
    const replay = await send();
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);
    expect(replay.body).toEqual({ received: true, id: expect.any(String) });
  });
});

describe('runIdempotent claims', () => {
  const db = () => server.deps.db;
  const hash = requestHash({ n: 1 });
  const stored = (scope: string) =>
    db()
      .query('SELECT state, response_status, response_body FROM idempotency_keys WHERE scope = $1', [scope])
      .then((r) => r.rows[0]);

  test('an abandoned in-progress claim is taken over by a retry; the slow original cannot overwrite it', async () => {
    const scope = `test:fence:${newKey()}`;
    const key = newKey();
    let releaseOriginal!: () => void;
    const originalMayFinish = new Promise<void>((resolve) => (releaseOriginal = resolve));
    let originalRuns!: () => void;
    const originalRunning = new Promise<void>((resolve) => (originalRuns = resolve));
    const original = runIdempotent(db(), scope, key, hash, async () => {
      originalRuns();
      await originalMayFinish;
      return { status: 201, body: { who: 'original' } };
    });
    await originalRunning; // its claim is taken (the handler runs only then), not a guess at how long that takes
    // A duplicate arriving while the original runs waits, then gives up with 409 CONFLICT.
    await expect(
      runIdempotent(db(), scope, key, hash, async () => ({ status: 201, body: {} }), {
        waitForOriginalMs: 200,
      }),
    ).rejects.toMatchObject({
      code: 'CONFLICT',
    });
    // A different body never takes an abandoned claim over.
    await db().query(
      "UPDATE idempotency_keys SET created_at = now() - interval '2 minutes' WHERE scope = $1",
      [scope],
    );
    await expect(
      runIdempotent(db(), scope, key, requestHash({ n: 2 }), async () => ({ status: 201, body: {} })),
    ).rejects.toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });
    // The same request does (the original looks crashed: in progress for over 60 s).
    const retry = await runIdempotent(db(), scope, key, hash, async () => ({
      status: 201,
      body: { who: 'retry' },
    }));
    expect(retry).toEqual({ response: { status: 201, body: { who: 'retry' } }, replayed: false });
    releaseOriginal();
    await original;
    expect(await stored(scope)).toEqual({
      state: 'done',
      response_status: 201,
      response_body: { who: 'retry' },
    });
    const replay = await runIdempotent(db(), scope, key, hash, async () => ({
      status: 201,
      body: { who: 'third' },
    }));
    expect(replay).toEqual({ response: { status: 201, body: { who: 'retry' } }, replayed: true });
  });

  test('a failing original that lost its claim does not release the new holder', async () => {
    const scope = `test:fence-fail:${newKey()}`;
    const key = newKey();
    let failOriginal!: () => void;
    const gate = new Promise<void>((resolve) => (failOriginal = resolve));
    let originalRuns!: () => void;
    const originalRunning = new Promise<void>((resolve) => (originalRuns = resolve));
    const original = runIdempotent(db(), scope, key, hash, async () => {
      originalRuns();
      await gate;
      throw new Error('original failed late');
    });
    await originalRunning; // its claim is taken
    await db().query(
      "UPDATE idempotency_keys SET created_at = now() - interval '2 minutes' WHERE scope = $1",
      [scope],
    );
    await runIdempotent(db(), scope, key, hash, async () => ({ status: 200, body: { who: 'retry' } }));
    failOriginal();
    await expect(original).rejects.toThrow('original failed late');
    expect(await stored(scope)).toEqual({
      state: 'done',
      response_status: 200,
      response_body: { who: 'retry' },
    });
  });

  test('non-2xx outcomes are not kept, and an expired record is reused', async () => {
    const scope = `test:outcomes:${newKey()}`;
    const key = newKey();
    const refused = await runIdempotent(db(), scope, key, hash, async () => ({
      status: 400,
      body: { error: 'no' },
    }));
    expect(refused.replayed).toBe(false);
    expect(await stored(scope)).toBeUndefined();
    await runIdempotent(db(), scope, key, hash, async () => ({ status: 201, body: { v: 1 } }));
    await db().query(
      "UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE scope = $1",
      [scope],
    );
    const fresh = await runIdempotent(db(), scope, key, requestHash({ other: true }), async () => ({
      status: 201,
      body: { v: 2 },
    }));
    expect(fresh).toEqual({ response: { status: 201, body: { v: 2 } }, replayed: false });
  });
});
