import { Writable } from 'node:stream';
import { defineRoute } from '../../src/api/route';
import { allRoutes } from '../../src/api/routes';
import { mintSessionJwt } from '../../src/auth/jwt';
import { createLogger, scrubSecrets } from '../../src/lib/logger';
import { newAgent, newAgentKey } from '../helpers/factories';
import { startTestServer, type TestServer } from '../helpers/server';

/** Every line the API logs, at the most verbose level. */
const lines: string[] = [];
const memory = new Writable({
  write(chunk, _encoding, done) {
    lines.push(chunk.toString());
    done();
  },
});

/**
 * Test-only routes that behave like careless code: they log request headers and credentials
 * outright, and throw an error whose message embeds the caller's credential.
 */
const carelessRoutes = [
  defineRoute({
    operationId: 'testLogsHeaders',
    method: 'get',
    path: '/test/log-headers',
    summary: 'test',
    tags: ['test'],
    auth: 'bearer',
    rateLimit: 'default',
    responses: { 200: { description: 'ok' } },
    async handler({ ctx, deps }) {
      const authorization = ctx.get('authorization');
      deps.logger.debug({ headers: ctx.headers }, 'incoming headers');
      deps.logger.trace(
        { req: { headers: ctx.headers }, token: authorization.slice(7), nested: { jwt: authorization } },
        'credential fields',
      );
      deps.logger.info(
        { detail: `called with ${authorization}`, list: [authorization] },
        `caller presented ${authorization}`,
      );
      deps.logger.info('format args: %s', authorization);
      deps.logger.warn(new Error(`refused ${authorization}`)); // a bare error: its message becomes msg
      deps.logger.info(
        { a: { b: { c: { Token: authorization.slice(7), cookie: authorization } } } },
        'deeply nested',
      );
      return { data: { ok: true } };
    },
  }),
  defineRoute({
    operationId: 'testThrowsWithCredential',
    method: 'get',
    path: '/test/throws',
    summary: 'test',
    tags: ['test'],
    auth: 'bearer',
    rateLimit: 'default',
    responses: { 200: { description: 'ok' } },
    async handler({ ctx }) {
      throw new Error(
        `upstream refused credential ${ctx.get('authorization')} (key ${ctx.get('x-debug-key')})`,
      );
    },
  }),
];

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer(
    {},
    { logger: createLogger('trace', 'api-log-test', memory), routes: [...allRoutes(), ...carelessRoutes] },
  );
});
afterAll(() => server.close());

test('logs never contain a token, connector key, JWT or configured secret, whatever the code logs', async () => {
  // A realistic flow: JWT → agent + token → use it → connector key → use it → bad credentials.
  const agent = await newAgent(server);
  const key = await newAgentKey(server, agent);
  const secondToken = await server.request('POST', '/api/v1/auth/tokens', {
    auth: agent.user.jwt,
    body: { name: 'second', scopes: ['challenge:read'], agent_id: agent.agentId },
  });
  expect(secondToken.status).toBe(201);
  expect((await server.request('GET', '/api/v1/agents', { auth: agent.token })).status).toBe(200);
  expect(
    (await server.request('GET', '/api/v1/auth/tokens', { auth: secondToken.body.data.token })).status,
  ).toBe(200);
  const badToken = `svc_sk_live_${'x'.repeat(43)}`;
  expect((await server.request('GET', '/api/v1/agents', { auth: badToken })).status).toBe(401);
  const forgedJwt = await mintSessionJwt('another-secret-of-enough-length', {
    sub: 'attacker',
    role: 'admin',
  });
  expect((await server.request('GET', '/api/v1/agents', { auth: forgedJwt })).status).toBe(401);
  // A body that fails to parse, carrying a credential.
  const badJson = await server.request('POST', '/api/v1/agents', {
    auth: agent.user.jwt,
    rawBody: `{"name": "${agent.token}`,
    headers: { 'content-type': 'application/json' },
  });
  expect(badJson.status).toBe(400);
  // Whatever connector route exists: the key travels in x-service-api-key.
  const connectorRoute = allRoutes().find((r) => r.auth === 'agentKey' && r.method === 'post');
  if (connectorRoute) {
    await server.request('POST', connectorRoute.path.replace(/:[A-Za-z_]+/g, agent.agentId), {
      agentKey: key,
      body: {},
    });
  }
  // A webhook subscription's signing secret, when that route exists.
  const webhookSecret = `whsec-test-${'s'.repeat(24)}`;
  if (allRoutes().some((r) => r.method === 'post' && r.path === '/api/v1/webhooks')) {
    await server.request('POST', '/api/v1/webhooks', {
      auth: agent.token,
      body: { url: 'http://127.0.0.1:9/hook', events: ['result.finalized'], secret: webhookSecret },
    });
  }
  // Careless code paths.
  expect((await server.request('GET', '/test/log-headers', { auth: agent.token })).status).toBe(200);
  expect((await server.request('GET', '/test/log-headers', { auth: agent.user.jwt })).status).toBe(200);
  const crashed = await server.request('GET', '/test/throws', {
    auth: agent.token,
    headers: { 'x-debug-key': key },
  });
  expect(crashed.status).toBe(500);
  expect(crashed.text).not.toContain(agent.token);

  const output = lines.join('');
  // The flow was logged (one access line per request at least), so the scan is meaningful.
  expect(lines.length).toBeGreaterThan(15);
  expect(output).toContain('"msg":"request"');
  expect(output).toContain('incoming headers');
  expect(output).toContain('unhandled error');
  expect(output).toContain('[redacted]');

  const secrets: Record<string, string> = {
    'API token': agent.token,
    'second API token': secondToken.body.data.token,
    'connector key': key,
    'session JWT': agent.user.jwt,
    'forged JWT': forgedJwt,
    'invalid token': badToken,
    'webhook secret': webhookSecret,
    AUTH_JWT_SECRET: server.config.AUTH_JWT_SECRET,
    WEBHOOK_SECRET_KEY: server.config.WEBHOOK_SECRET_KEY,
  };
  for (const [what, value] of Object.entries(secrets)) {
    // Whole values and any 20-character window of them (a truncated credential is still a leak).
    const windows = [
      value,
      ...Array.from({ length: Math.max(0, value.length - 20) }, (_, i) => value.slice(i, i + 20)).filter(
        (_, i) => i % 7 === 0,
      ),
    ];
    const leaked = windows.find((w) => output.includes(w));
    if (leaked)
      throw new Error(`the logs contain the ${what} (${leaked}): ${lines.find((l) => l.includes(leaked))}`);
  }
  // Only hashes and display prefixes may appear.
  for (const line of lines)
    expect(line).not.toMatch(
      /svc_sk_(live|test)_[A-Za-z0-9_-]{12,}|\baa_[A-Za-z0-9_-]{16,}|eyJ[A-Za-z0-9_-]{8,}\./,
    );
});

test('scrubSecrets replaces credentials embedded in free text', () => {
  const text =
    'Authorization: Bearer abc.def-ghi token=svc_sk_test_AAAAAAAAAAAAAAAAAAAAAAAA key aa_BBBBBBBBBBBBBBBBBBBBBBBB jwt eyJhbGciOi.eyJzdWIiOi.sig';
  const scrubbed = scrubSecrets(text);
  expect(scrubbed).toBe('Authorization: Bearer [redacted] token=[redacted] key [redacted] jwt [redacted]');
  expect(scrubSecrets('svc_sk_live_ prefix and aa_ prefix alone stay readable')).toBe(
    'svc_sk_live_ prefix and aa_ prefix alone stay readable',
  );
});
