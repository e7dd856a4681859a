import { verify as verifyGithubStyle } from '@octokit/webhooks-methods';
import { Webhook } from 'standardwebhooks';
import { ServiceError } from '../../src/errors';
import { createDeliverySteps } from '../../src/domain/webhooks/delivery';
import { assertAcceptableUrl } from '../../src/domain/webhooks/subscriptions';
import { EVENT_TYPES } from '../../src/events/types';
import { newAdmin, newAgent, newUser } from '../helpers/factories';
import { expectError, startTestServer, type TestServer } from '../helpers/server';
import { createWebhook, startReceiver, TEST_SECRET, type TestReceiver } from '../helpers/webhook-factories';

let server: TestServer;
let strict: TestServer; // WEBHOOK_ALLOW_PRIVATE=0, as in production
let receiver: TestReceiver;
beforeAll(async () => {
  [server, strict, receiver] = await Promise.all([
    startTestServer(),
    startTestServer({ WEBHOOK_ALLOW_PRIVATE: '0' }),
    startReceiver(),
  ]);
});
afterAll(async () => {
  await receiver.close();
  await Promise.all([server.close(), strict.close()]);
});

const afterCleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(afterCleanup.splice(0).map((f) => f()));
});

describe('creating subscriptions', () => {
  test('201 with the WebhookSubscription fields; the secret is stored encrypted, only a prefix is shown', async () => {
    const user = await newUser(server);
    const res = await server.request('POST', '/api/v1/webhooks', {
      auth: user.jwt,
      body: { url: receiver.url, events: ['result.finalized', 'challenge.published'], secret: TEST_SECRET },
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      url: receiver.url,
      events: ['result.finalized', 'challenge.published'],
      secret_prefix: 'whse', // the secret's first 4 characters, nothing added
      active: true,
      status: 'active',
      failure_count: 0,
      last_delivery_at: null,
      created_at: expect.any(String),
      disabled_at: null,
      disabled_reason: null,
    });
    expect(res.text).not.toContain(TEST_SECRET);
    const stored = await server.deps.db.query('SELECT * FROM webhook_subscriptions WHERE id = $1', [
      res.body.data.id,
    ]);
    expect(JSON.stringify(stored.rows[0])).not.toContain(TEST_SECRET);
    expect(stored.rows[0].secret_encrypted).toMatch(/^v1:/);
    expect(res.headers.get('x-ratelimit-limit')).toBe('20');
  });

  test('every one of the 14 event types is accepted; an unknown one is 400 INVALID_EVENT naming it', async () => {
    const user = await newUser(server);
    await createWebhook(server, user.jwt, { url: receiver.url, events: [...EVENT_TYPES] });
    const bad = await server.request('POST', '/api/v1/webhooks', {
      auth: user.jwt,
      body: { url: receiver.url, events: ['result.finalized', 'submission.exploded'], secret: TEST_SECRET },
    });
    expectError(bad, 400, 'INVALID_EVENT', /submission\.exploded/);
    const test = await server.request('POST', '/api/v1/webhooks', {
      auth: user.jwt,
      body: { url: receiver.url, events: ['webhook.test'], secret: TEST_SECRET },
    });
    expectError(test, 400, 'INVALID_EVENT', /webhook\.test/);
  });

  test('schema violations are 400 VALIDATION_ERROR naming the field', async () => {
    const user = await newUser(server);
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ url: receiver.url, events: ['result.finalized'], secret: 'short77' }, /body\.secret/],
      [{ url: receiver.url, events: ['result.finalized'] }, /body\.secret/],
      [{ events: ['result.finalized'], secret: TEST_SECRET }, /body\.url/],
      [{ url: 'not a url', events: ['result.finalized'], secret: TEST_SECRET }, /body\.url/],
      [{ url: receiver.url, events: [], secret: TEST_SECRET }, /body\.events/],
      [{ url: receiver.url, events: 'result.finalized', secret: TEST_SECRET }, /body\.events/],
      [{ url: receiver.url, events: ['result.finalized'], secret: TEST_SECRET, extra: 1 }, /extra/],
      [
        { url: 'ftp://example.com/hook', events: ['result.finalized'], secret: TEST_SECRET },
        /body\.url: scheme/,
      ],
      [{ url: 'http://example.com/hook', events: ['result.finalized'], secret: TEST_SECRET }, /body\.url/],
    ];
    for (const [body, message] of cases) {
      expectError(
        await server.request('POST', '/api/v1/webhooks', { auth: user.jwt, body }),
        400,
        'VALIDATION_ERROR',
        message,
      );
    }
    expect((await server.request('GET', '/api/v1/webhooks', { auth: user.jwt })).body.data).toEqual([]);
  });

  test('SSRF at creation (WEBHOOK_ALLOW_PRIVATE=0): private, loopback, link-local, metadata, credentials, http', async () => {
    const user = await newUser(strict);
    const refused = [
      'https://10.1.2.3/hook',
      'https://172.16.0.9/hook',
      'https://192.168.1.20/hook',
      'https://127.0.0.1/hook',
      'https://2130706433/hook', // 127.0.0.1 spelled as a number
      'https://[::1]/hook',
      'https://[::ffff:10.0.0.1]/hook',
      'https://169.254.10.10/hook',
      'https://[fe80::1]/hook',
      'https://169.254.169.254/latest/meta-data/',
      'https://metadata.google.internal/computeMetadata/v1/',
      'https://localhost/hook', // a DNS name that resolves to loopback
      'https://hooks.localhost/hook',
      'https://user:pass@example.com/hook',
      'http://127.0.0.1:8080/hook', // http even to loopback
      receiver.url,
    ];
    for (const url of refused) {
      const res = await strict.request('POST', '/api/v1/webhooks', {
        auth: user.jwt,
        body: { url, events: ['challenge.retired'], secret: TEST_SECRET },
      });
      expect({ url, status: res.status, code: res.body.error?.code }).toEqual({
        url,
        status: 400,
        code: 'VALIDATION_ERROR',
      });
      expect(res.body.error.message).toMatch(/body\.url/);
    }
  });

  test('creation-time DNS check: a name resolving to a refused address is refused; an unresolvable one is accepted', async () => {
    const to = (address: string) => async () => [{ address, family: address.includes(':') ? 6 : 4 }];
    for (const address of ['127.0.0.1', '10.0.0.7', '169.254.169.254', '::1', 'fd00::1']) {
      const err = await assertAcceptableUrl('https://hooks.example.com/x', false, to(address)).catch(
        (e) => e,
      );
      expect(err).toBeInstanceOf(ServiceError);
      expect((err as ServiceError).code).toBe('VALIDATION_ERROR');
      expect((err as ServiceError).message).toContain(address);
    }
    await expect(
      assertAcceptableUrl('https://hooks.example.com/x', false, to('93.184.215.14')),
    ).resolves.toBeUndefined();
    const unresolvable = async () => {
      throw Object.assign(new Error('nope'), { code: 'ENOTFOUND' });
    };
    await expect(
      assertAcceptableUrl('https://not-yet.example.com/x', false, unresolvable),
    ).resolves.toBeUndefined();
    // With WEBHOOK_ALLOW_PRIVATE=1 loopback is allowed, private networks still are not.
    await expect(
      assertAcceptableUrl('http://hooks.example.com/x', true, to('127.0.0.1')),
    ).resolves.toBeUndefined();
    await expect(assertAcceptableUrl('https://hooks.example.com/x', true, to('10.0.0.7'))).rejects.toThrow(
      /10\.0\.0\.7/,
    );
  });

  test('limit: 10 active subscriptions per user, then 400 WEBHOOK_LIMIT_REACHED; deleting one frees a slot', async () => {
    const user = await newUser(server);
    const subs = [];
    for (let i = 0; i < 10; i++)
      subs.push(
        await createWebhook(server, user.jwt, {
          url: `${receiver.url}?n=${i}`,
          events: ['challenge.retired'],
        }),
      );
    const over = await server.request('POST', '/api/v1/webhooks', {
      auth: user.jwt,
      body: { url: receiver.url, events: ['challenge.retired'], secret: TEST_SECRET },
    });
    expectError(over, 400, 'WEBHOOK_LIMIT_REACHED');
    // Another user is not affected.
    const other = await newUser(server);
    await createWebhook(server, other.jwt, { url: receiver.url, events: ['challenge.retired'] });
    expect(
      (await server.request('DELETE', `/api/v1/webhooks/${subs[0].id}`, { auth: user.jwt })).status,
    ).toBe(200);
    await createWebhook(server, user.jwt, { url: receiver.url, events: ['challenge.retired'] });
  });

  test('concurrent creations cannot overshoot the limit', async () => {
    const user = await newUser(server);
    for (let i = 0; i < 8; i++)
      await createWebhook(server, user.jwt, { url: receiver.url, events: ['challenge.retired'] });
    const results = await Promise.all(
      [0, 1, 2, 3].map(() =>
        server.request('POST', '/api/v1/webhooks', {
          auth: user.jwt,
          body: { url: receiver.url, events: ['challenge.retired'], secret: TEST_SECRET },
        }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 201, 400, 400]);
  });

  test('rate limit: 20 webhook operations per hour per token, then 429 with the X-RateLimit-* headers', async () => {
    const agent = await newAgent(server, { scopes: ['webhook:manage'] });
    let sub: any;
    for (let i = 0; i < 20; i++) {
      const res =
        i === 0
          ? await server.request('POST', '/api/v1/webhooks', {
              auth: agent.token,
              body: { url: receiver.url, events: ['challenge.retired'], secret: TEST_SECRET },
            })
          : await server.request('POST', `/api/v1/webhooks/${sub.id}/test`, { auth: agent.token });
      if (i === 0) sub = res.body.data;
      expect(res.status).toBeLessThan(300);
      expect(res.headers.get('x-ratelimit-remaining')).toBe(String(19 - i));
    }
    const limited = await server.request('POST', '/api/v1/webhooks', {
      auth: agent.token,
      body: { url: receiver.url, events: ['challenge.retired'], secret: TEST_SECRET },
    });
    expectError(limited, 429, 'RATE_LIMITED');
    expect(limited.headers.get('x-ratelimit-limit')).toBe('20');
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
    const reset = Number(limited.headers.get('x-ratelimit-reset'));
    expect(reset).toBeGreaterThan(Date.now() / 1000 + 3000);
    expect(reset).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 3600);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(3000);
    // Listing is a read: still allowed.
    expect((await server.request('GET', '/api/v1/webhooks', { auth: agent.token })).status).toBe(200);
  });
});

describe('ownership, scopes and lifecycle', () => {
  test('subscriptions belong to the user: the API token and the JWT of one user see the same ones; others see none', async () => {
    const agent = await newAgent(server, { scopes: ['webhook:manage'] });
    const viaToken = await createWebhook(server, agent.token, {
      url: receiver.url,
      events: ['result.finalized'],
    });
    const viaJwt = await createWebhook(server, agent.user.jwt, {
      url: receiver.url,
      events: ['challenge.retired'],
    });
    const listed = await server.request('GET', '/api/v1/webhooks', { auth: agent.token });
    expect(listed.body.data.map((s: any) => s.id).sort()).toEqual([viaToken.id, viaJwt.id].sort());
    const stranger = await newAgent(server, { scopes: ['webhook:manage'] });
    expect((await server.request('GET', '/api/v1/webhooks', { auth: stranger.token })).body.data).toEqual([]);
    for (const [method, path, body] of [
      ['GET', `/api/v1/webhooks/${viaToken.id}`, undefined],
      ['DELETE', `/api/v1/webhooks/${viaToken.id}`, undefined],
      ['PATCH', `/api/v1/webhooks/${viaToken.id}`, { active: true }],
      ['POST', `/api/v1/webhooks/${viaToken.id}/test`, undefined],
      ['GET', `/api/v1/webhooks/${viaToken.id}/deliveries`, undefined],
      [
        'POST',
        `/api/v1/webhooks/${viaToken.id}/deliveries/whd_00000000000000000000000000000000/replay`,
        undefined,
      ],
    ] as const) {
      expectError(await server.request(method, path, { auth: stranger.token, body }), 404, 'NOT_FOUND');
    }
    expect(
      (await server.request('GET', `/api/v1/webhooks/${viaToken.id}`, { auth: agent.token })).body.data
        .status,
    ).toBe('active');
  });

  test('401 without credentials; 403 FORBIDDEN for a token without webhook:manage', async () => {
    const owner = await newAgent(server, { scopes: ['webhook:manage'] });
    const sub = await createWebhook(server, owner.token, { url: receiver.url, events: ['result.finalized'] });
    const noScope = await newAgent(server, { scopes: ['challenge:read'], user: owner.user });
    const routes = [
      ['POST', '/api/v1/webhooks', { url: receiver.url, events: ['result.finalized'], secret: TEST_SECRET }],
      ['GET', '/api/v1/webhooks', undefined],
      ['DELETE', `/api/v1/webhooks/${sub.id}`, undefined],
      ['POST', `/api/v1/webhooks/${sub.id}/test`, undefined],
      ['GET', `/api/v1/webhooks/${sub.id}/deliveries`, undefined],
    ] as const;
    for (const [method, path, body] of routes) {
      expectError(await server.request(method, path, { body }), 401, 'UNAUTHORIZED');
      expectError(await server.request(method, path, { auth: noScope.token, body }), 403, 'FORBIDDEN');
    }
  });

  test('DELETE → inactive (200, repeatable); test and re-enable of an inactive subscription are 400 WEBHOOK_INACTIVE', async () => {
    const user = await newUser(server);
    const sub = await createWebhook(server, user.jwt, { url: receiver.url, events: ['result.finalized'] });
    const del = await server.request('DELETE', `/api/v1/webhooks/${sub.id}`, { auth: user.jwt });
    expect(del.status).toBe(200);
    expect(del.body.data).toMatchObject({ id: sub.id, status: 'inactive', active: false });
    expect(
      (await server.request('DELETE', `/api/v1/webhooks/${sub.id}`, { auth: user.jwt })).body.data.status,
    ).toBe('inactive');
    expectError(
      await server.request('POST', `/api/v1/webhooks/${sub.id}/test`, { auth: user.jwt }),
      400,
      'WEBHOOK_INACTIVE',
    );
    expectError(
      await server.request('PATCH', `/api/v1/webhooks/${sub.id}`, { auth: user.jwt, body: { active: true } }),
      400,
      'WEBHOOK_INACTIVE',
    );
    const listed = await server.request('GET', '/api/v1/webhooks?status=inactive', { auth: user.jwt });
    expect(listed.body.data.map((s: any) => s.id)).toEqual([sub.id]);
    expect(
      (await server.request('GET', '/api/v1/webhooks?status=active', { auth: user.jwt })).body.data,
    ).toEqual([]);
    expectError(
      await server.request('GET', '/api/v1/webhooks?status=gone', { auth: user.jwt }),
      400,
      'VALIDATION_ERROR',
    );
  });

  test('PATCH {active: true} re-enables a disabled subscription and resets failure_count', async () => {
    const user = await newUser(server);
    const sub = await createWebhook(server, user.jwt, { url: receiver.url, events: ['result.finalized'] });
    await server.deps.db.query(
      `UPDATE webhook_subscriptions SET status = 'disabled', failure_count = 10, disabled_at = now(), disabled_reason = 'x' WHERE id = $1`,
      [sub.id],
    );
    const got = await server.request('GET', `/api/v1/webhooks/${sub.id}`, { auth: user.jwt });
    expect(got.body.data).toMatchObject({
      status: 'disabled',
      active: false,
      failure_count: 10,
      disabled_reason: 'x',
    });
    expectError(
      await server.request('POST', `/api/v1/webhooks/${sub.id}/test`, { auth: user.jwt }),
      400,
      'WEBHOOK_INACTIVE',
      /disabled/,
    );
    expectError(
      await server.request('PATCH', `/api/v1/webhooks/${sub.id}`, {
        auth: user.jwt,
        body: { active: false },
      }),
      400,
      'VALIDATION_ERROR',
    );
    const patched = await server.request('PATCH', `/api/v1/webhooks/${sub.id}`, {
      auth: user.jwt,
      body: { active: true },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({
      status: 'active',
      active: true,
      failure_count: 0,
      disabled_at: null,
      disabled_reason: null,
    });
    const row = await server.deps.db.query(
      'SELECT enable_generation FROM webhook_subscriptions WHERE id = $1',
      [sub.id],
    );
    expect(row.rows[0].enable_generation).toBe(1);
  });

  test('deliveries listing validates ?status=', async () => {
    const user = await newUser(server);
    const sub = await createWebhook(server, user.jwt, { url: receiver.url, events: ['result.finalized'] });
    expect(
      (await server.request('GET', `/api/v1/webhooks/${sub.id}/deliveries`, { auth: user.jwt })).body.data,
    ).toEqual([]);
    expect(
      (
        await server.request('GET', `/api/v1/webhooks/${sub.id}/deliveries?status=dead_letter`, {
          auth: user.jwt,
        })
      ).status,
    ).toBe(200);
    expectError(
      await server.request('GET', `/api/v1/webhooks/${sub.id}/deliveries?status=failed`, { auth: user.jwt }),
      400,
      'VALIDATION_ERROR',
      /status/,
    );
  });
});

describe('disabled for failures', () => {
  test('ten failures then a success in one batch: disabled, failure_count 0, the reason names the 10 reached', async () => {
    const user = await newUser(server);
    const hook = await createWebhook(server, user.jwt, { url: receiver.url, events: ['result.finalized'] });
    // The health workflow's call for such a batch (subscription-health.ts): the count now is 0.
    const steps = createDeliverySteps(server.deps);
    const { rows } = await server.deps.db.query(
      'SELECT enable_generation FROM webhook_subscriptions WHERE id = $1',
      [hook.id],
    );
    await expect(
      steps.disableSubscriptionForFailures({
        subscriptionId: hook.id,
        generation: Number(rows[0].enable_generation),
        failureCount: 0,
        reachedCount: 10,
      }),
    ).resolves.toBe(true);
    const res = await server.request('GET', `/api/v1/webhooks/${hook.id}`, { auth: user.jwt });
    expect(res.body.data).toMatchObject({
      active: false,
      status: 'disabled',
      failure_count: 0,
      disabled_reason: '10 consecutive failed delivery attempts',
    });
  });
});

describe('test event', () => {
  test('one signed webhook.test attempt: 200 {delivered, status_code, latency_ms}', async () => {
    const user = await newUser(server);
    const sub = await createWebhook(server, user.jwt, { url: receiver.url, events: ['result.finalized'] });
    const res = await server.request('POST', `/api/v1/webhooks/${sub.id}/test`, { auth: user.jwt });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: {
        delivered: true,
        status_code: 200,
        latency_ms: expect.any(Number),
        error: null,
        delivery_id: expect.stringMatching(/^whd_[0-9a-f]{32}$/),
      },
      request_id: res.headers.get('x-request-id'),
    });
    const req = receiver.requests.find((r) => r.headers['x-svc-delivery-id'] === res.body.data.delivery_id)!;
    expect(req.headers['x-svc-event']).toBe('webhook.test');
    expect(req.headers['x-svc-delivery-id']).toBe(res.body.data.delivery_id);
    expect(req.headers['x-svc-event-version']).toBe('1');
    expect(req.headers['content-type']).toBe('application/json');
    expect(await verifyGithubStyle(TEST_SECRET, req.rawBody, req.headers['x-svc-signature']!)).toBe(true);
    expect(() =>
      new Webhook(Buffer.from(TEST_SECRET).toString('base64')).verify(req.rawBody, req.headers),
    ).not.toThrow();
    const body = JSON.parse(req.rawBody);
    expect(Object.keys(body)).toEqual(['id', 'event_type', 'timestamp', 'data']);
    expect(body).toMatchObject({
      id: res.body.data.delivery_id,
      event_type: 'webhook.test',
      data: { subscription_id: sub.id },
    });
    // Not a delivery; no effect on the subscription.
    expect(
      (await server.request('GET', `/api/v1/webhooks/${sub.id}/deliveries`, { auth: user.jwt })).body.data,
    ).toEqual([]);
  });

  test('a failing receiver: delivered false with its status; a redirect is not followed; no answer → status_code 0', async () => {
    const user = await newUser(server);
    const receiver = await startReceiver(); // its own, so no other delivery takes the queued answers
    afterCleanup.push(() => receiver.close());
    const sub = await createWebhook(server, user.jwt, { url: receiver.url, events: ['result.finalized'] });
    receiver.enqueue({ status: 503 });
    const failed = await server.request('POST', `/api/v1/webhooks/${sub.id}/test`, { auth: user.jwt });
    expect(failed.body.data).toMatchObject({ delivered: false, status_code: 503, error: 'HTTP 503' });

    const elsewhere = await startReceiver();
    try {
      receiver.enqueue({ redirect: elsewhere.url, status: 307 });
      const redirected = await server.request('POST', `/api/v1/webhooks/${sub.id}/test`, { auth: user.jwt });
      expect(redirected.body.data).toMatchObject({ delivered: false, status_code: 307 });
      expect(elsewhere.requests).toHaveLength(0);
    } finally {
      await elsewhere.close();
    }

    const closed = await startReceiver();
    const url = closed.url;
    await closed.close();
    await server.deps.db.query('UPDATE webhook_subscriptions SET url = $2 WHERE id = $1', [sub.id, url]);
    const refused = await server.request('POST', `/api/v1/webhooks/${sub.id}/test`, { auth: user.jwt });
    expect(refused.body.data).toMatchObject({
      delivered: false,
      status_code: 0,
      error: expect.stringMatching(/ECONNREFUSED/),
    });
    const after = await server.request('GET', `/api/v1/webhooks/${sub.id}`, { auth: user.jwt });
    expect(after.body.data).toMatchObject({ status: 'active', failure_count: 0 });
  });

  test("the test operation is owner-only: an admin JWT gets 404 for another user's subscription", async () => {
    const user = await newUser(server);
    const admin = await newAdmin(server);
    const sub = await createWebhook(server, user.jwt, { url: receiver.url, events: ['result.finalized'] });
    expectError(
      await server.request('POST', `/api/v1/webhooks/${sub.id}/test`, { auth: admin.jwt }),
      404,
      'NOT_FOUND',
    );
  });
});
