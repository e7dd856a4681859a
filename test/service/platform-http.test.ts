import net from 'node:net';
import { SignJWT } from 'jose';
import { mintSessionJwt } from '../../src/auth/jwt';
import { newAgent, newUser } from '../helpers/factories';
import { startTestServer, type ApiResponse, type TestServer } from '../helpers/server';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

function expectStandardHeaders(res: ApiResponse) {
  expect(res.headers.get('x-api-version')).toBe('1');
  expect(res.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{24}$/);
  expect(Number(res.headers.get('x-ratelimit-limit'))).toBeGreaterThan(0);
  expect(res.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
  expect(Number(res.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000 - 1);
}

function expectErrorEnvelope(res: ApiResponse, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.body).toEqual({
    error: { message: expect.any(String), code, request_id: res.headers.get('x-request-id') },
  });
  expect(res.text).not.toMatch(/at \w+ \(|node_modules|\.ts:\d+/); // no stack trace
}

describe('HTTP conventions', () => {
  test('success responses carry the envelope and every standard header', async () => {
    const res = await server.request('GET', '/healthz');
    expect(res.status).toBe(200);
    expectStandardHeaders(res);
  });

  test('unknown routes answer 404 NOT_FOUND in the envelope, with every header', async () => {
    const res = await server.request('GET', '/api/v1/does-not-exist');
    expectErrorEnvelope(res, 404, 'NOT_FOUND');
    expectStandardHeaders(res);
  });

  test('4xx responses carry every header and request_id equals X-Request-ID', async () => {
    const res = await server.request('GET', '/api/v1/auth/tokens');
    expectErrorEnvelope(res, 401, 'UNAUTHORIZED');
    expectStandardHeaders(res);
  });

  test('the retired submission endpoint answers 410 GONE', async () => {
    const res = await server.request('POST', '/api/v1/submissions', { body: { content: 'x' } });
    expectErrorEnvelope(res, 410, 'GONE');
  });

  test('malformed JSON is 400 INVALID_JSON, a wrong content type 415, an oversized body 413', async () => {
    const user = await newUser(server);
    const bad = await server.request('POST', '/api/v1/agents', {
      auth: user.jwt,
      rawBody: '{"name": ',
      headers: { 'content-type': 'application/json' },
    });
    expectErrorEnvelope(bad, 400, 'INVALID_JSON');
    const wrongType = await server.request('POST', '/api/v1/agents', {
      auth: user.jwt,
      rawBody: 'name=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expectErrorEnvelope(wrongType, 415, 'UNSUPPORTED_MEDIA_TYPE');
    const huge = await server.request('POST', '/api/v1/agents', {
      auth: user.jwt,
      body: { name: 'x'.repeat(3 * 1024 * 1024) },
    });
    expectErrorEnvelope(huge, 413, 'PAYLOAD_TOO_LARGE');
  });

  test('schema violations are 400 VALIDATION_ERROR naming the field, and create nothing', async () => {
    const user = await newUser(server);
    const res = await server.request('POST', '/api/v1/agents', {
      auth: user.jwt,
      body: { name: '', extra: 1 },
    });
    expectErrorEnvelope(res, 400, 'VALIDATION_ERROR');
    expect(res.body.error.message).toMatch(/body\.name/);
    const list = await server.request('GET', '/api/v1/agents', { auth: user.jwt });
    expect(list.body.data).toEqual([]);
  });

  test('OpenAPI 3.1 document is generated from the route table, with a reference page', async () => {
    const doc = await server.request('GET', '/api/v1/openapi.json');
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toBe('3.1.0');
    expect(doc.body.paths['/api/v1/auth/tokens'].post.operationId).toBe('createApiToken');
    expect(doc.body.paths['/api/v1/agents/{id}'].patch.requestBody).toBeDefined();
    const page = await server.request('GET', '/api/v1/docs');
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(page.text).toContain('/api/v1/openapi.json');
  });

  test('metrics and readiness', async () => {
    const metrics = await server.request('GET', '/metrics');
    expect(metrics.text).toContain('http_request_duration_seconds');
    const ready = await server.request('GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ready', checks: { postgres: 'ok', temporal: 'ok' } });
  });
});

describe('session JWT verification', () => {
  test('a JWT signed with the wrong key is 401', async () => {
    const forged = await mintSessionJwt('another-secret-of-enough-length', { sub: 'attacker' });
    expectErrorEnvelope(await server.request('GET', '/api/v1/agents', { auth: forged }), 401, 'UNAUTHORIZED');
  });

  test('alg: none is 401', async () => {
    const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
    const payload = Buffer.from(
      JSON.stringify({ sub: 'attacker', role: 'admin', exp: Math.floor(Date.now() / 1000) + 600 }),
    ).toString('base64url');
    expectErrorEnvelope(
      await server.request('GET', '/api/v1/agents', { auth: `${header}.${payload}.` }),
      401,
      'UNAUTHORIZED',
    );
  });

  test('an expired JWT is 401', async () => {
    const expired = await new SignJWT({ role: 'user' })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('someone')
      .setIssuedAt(Math.floor(Date.now() / 1000) - 7200)
      .setExpirationTime(Math.floor(Date.now() / 1000) - 3600)
      .sign(new TextEncoder().encode(server.config.AUTH_JWT_SECRET));
    expectErrorEnvelope(
      await server.request('GET', '/api/v1/agents', { auth: expired }),
      401,
      'UNAUTHORIZED',
    );
  });

  test('HS256 signed with an RS-style public key string is refused (algorithm pinned)', async () => {
    const confused = await new SignJWT({ role: 'admin' })
      .setProtectedHeader({ alg: 'HS512' })
      .setSubject('attacker')
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode(server.config.AUTH_JWT_SECRET));
    expectErrorEnvelope(
      await server.request('GET', '/api/v1/agents', { auth: confused }),
      401,
      'UNAUTHORIZED',
    );
  });
});

describe('API token lifecycle', () => {
  test('create (JWT only) → plaintext once → list without plaintext → use → revoke → 409 → refused', async () => {
    const user = await newUser(server);
    const created = await server.request('POST', '/api/v1/auth/tokens', {
      auth: user.jwt,
      body: { name: 'ci', scopes: ['challenge:read', 'submission:read'], expires_in_days: 30 },
    });
    expect(created.status).toBe(201);
    const token: string = created.body.data.token;
    expect(token).toMatch(/^svc_sk_live_[A-Za-z0-9_-]{43}$/);
    expect(created.body.data).toMatchObject({
      name: 'ci',
      scopes: ['challenge:read', 'submission:read'],
      token_prefix: token.slice(0, 16),
    });
    expect(new Date(created.body.data.expires_at).getTime()).toBeGreaterThan(Date.now() + 29 * 86400_000);

    const listed = await server.request('GET', '/api/v1/auth/tokens', { auth: token });
    expect(listed.status).toBe(200);
    expect(listed.body.data).toHaveLength(1);
    expect(listed.text).not.toContain(token);
    expect(listed.body.data[0].token).toBeUndefined();

    const stored = await server.deps.db.query('SELECT token_hash FROM api_tokens WHERE id = $1', [
      created.body.data.id,
    ]);
    expect(stored.rows[0].token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(stored.rows[0].token_hash).not.toContain(token);

    // An API token cannot create tokens.
    const byToken = await server.request('POST', '/api/v1/auth/tokens', {
      auth: token,
      body: { name: 'x', scopes: ['challenge:read'] },
    });
    expectErrorEnvelope(byToken, 403, 'FORBIDDEN');

    const revoked = await server.request('DELETE', `/api/v1/auth/tokens/${created.body.data.id}`, {
      auth: user.jwt,
    });
    expect(revoked.status).toBe(200);
    const again = await server.request('DELETE', `/api/v1/auth/tokens/${created.body.data.id}`, {
      auth: user.jwt,
    });
    expectErrorEnvelope(again, 409, 'TOKEN_ALREADY_REVOKED');
    expectErrorEnvelope(
      await server.request('GET', '/api/v1/auth/tokens', { auth: token }),
      401,
      'UNAUTHORIZED',
    );
    const after = await server.request('GET', '/api/v1/auth/tokens', { auth: user.jwt });
    expect(after.body.data).toEqual([]);
  });

  test('unknown scopes are rejected; sandbox tokens get the svc_sk_test_ prefix', async () => {
    const user = await newUser(server);
    const bad = await server.request('POST', '/api/v1/auth/tokens', {
      auth: user.jwt,
      body: { name: 'x', scopes: ['everything'] },
    });
    expectErrorEnvelope(bad, 400, 'VALIDATION_ERROR');
    const sandbox = await server.request('POST', '/api/v1/auth/tokens', {
      auth: user.jwt,
      body: { name: 'sbx', scopes: ['challenge:read'], sandbox: true },
    });
    expect(sandbox.status).toBe(201);
    expect(sandbox.body.data.token).toMatch(/^svc_sk_test_/);
    expect(sandbox.body.data.sandbox).toBe(true);
  });

  test('an expired token is refused', async () => {
    const agent = await newAgent(server);
    await server.deps.db.query(
      "UPDATE api_tokens SET expires_at = now() - interval '1 second' WHERE id = $1",
      [agent.tokenId],
    );
    expectErrorEnvelope(
      await server.request('GET', '/api/v1/agents', { auth: agent.token }),
      401,
      'UNAUTHORIZED',
    );
  });

  test('the 26th active token is 400 TOKEN_LIMIT_REACHED, and revoking one frees a slot', async () => {
    const user = await newUser(server);
    const ids: string[] = [];
    for (let i = 0; i < 25; i++) {
      const res = await server.request('POST', '/api/v1/auth/tokens', {
        auth: user.jwt,
        body: { name: `t${i}`, scopes: ['challenge:read'] },
      });
      // Token creation is limited to 10/hour per caller; reset the caller's counter between batches.
      if (res.status === 429) {
        await server.deps.db.query("DELETE FROM rate_limits WHERE key LIKE 'rl:tokenCreation:%'");
        i--;
        continue;
      }
      expect(res.status).toBe(201);
      ids.push(res.body.data.id);
    }
    await server.deps.db.query("DELETE FROM rate_limits WHERE key LIKE 'rl:tokenCreation:%'");
    const over = await server.request('POST', '/api/v1/auth/tokens', {
      auth: user.jwt,
      body: { name: 'over', scopes: ['challenge:read'] },
    });
    expectErrorEnvelope(over, 400, 'TOKEN_LIMIT_REACHED');
    await server.request('DELETE', `/api/v1/auth/tokens/${ids[0]}`, { auth: user.jwt });
    const again = await server.request('POST', '/api/v1/auth/tokens', {
      auth: user.jwt,
      body: { name: 'again', scopes: ['challenge:read'] },
    });
    expect(again.status).toBe(201);
  });

  test("another user's token is 404; an API token may revoke only itself", async () => {
    const a = await newAgent(server);
    const b = await newAgent(server);
    expectErrorEnvelope(
      await server.request('DELETE', `/api/v1/auth/tokens/${a.tokenId}`, { auth: b.user.jwt }),
      404,
      'NOT_FOUND',
    );
    const second = await server.request('POST', '/api/v1/auth/tokens', {
      auth: a.user.jwt,
      body: { name: 'second', scopes: ['challenge:read'], agent_id: a.agentId },
    });
    expectErrorEnvelope(
      await server.request('DELETE', `/api/v1/auth/tokens/${second.body.data.id}`, { auth: a.token }),
      403,
      'FORBIDDEN',
    );
    expect(
      (await server.request('DELETE', `/api/v1/auth/tokens/${a.tokenId}`, { auth: a.token })).status,
    ).toBe(200);
  });
});

describe('agents and connector keys', () => {
  test('agent CRUD with ownership and agent:write', async () => {
    const a = await newAgent(server, { scopes: ['agent:write'] });
    const noWrite = await newAgent(server, { scopes: ['challenge:read'], user: a.user });
    const patched = await server.request('PATCH', `/api/v1/agents/${a.agentId}`, {
      auth: a.token,
      body: { version: '1.2.3', skill_count: 4 },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({
      id: a.agentId,
      version: '1.2.3',
      skill_count: 4,
      is_online: false,
    });
    expectErrorEnvelope(
      await server.request('PATCH', `/api/v1/agents/${noWrite.agentId}`, {
        auth: noWrite.token,
        body: { version: '2' },
      }),
      403,
      'FORBIDDEN',
    );
    const other = await newAgent(server);
    expectErrorEnvelope(
      await server.request('GET', `/api/v1/agents/${a.agentId}`, { auth: other.token }),
      404,
      'NOT_FOUND',
    );
    expectErrorEnvelope(
      await server.request('PATCH', `/api/v1/agents/${a.agentId}`, {
        auth: other.user.jwt,
        body: { version: '9' },
      }),
      404,
      'NOT_FOUND',
    );
  });

  test('connector keys: issued once with aa_ prefix, hashed at rest, listed without plaintext, revocable', async () => {
    const a = await newAgent(server);
    const created = await server.request('POST', `/api/v1/agents/${a.agentId}/keys`, {
      auth: a.user.jwt,
      body: { expires_in_hours: 2 },
    });
    expect(created.status).toBe(201);
    expect(created.body.data.key).toMatch(/^aa_[A-Za-z0-9_-]{43}$/);
    const expiresIn = new Date(created.body.data.expires_at).getTime() - Date.now();
    expect(expiresIn).toBeGreaterThan(7100_000);
    expect(expiresIn).toBeLessThan(7300_000);
    const list = await server.request('GET', `/api/v1/agents/${a.agentId}/keys`, { auth: a.user.jwt });
    expect(list.text).not.toContain(created.body.data.key);
    const rows = await server.deps.db.query('SELECT key_hash FROM agent_keys WHERE agent_id = $1', [
      a.agentId,
    ]);
    expect(rows.rows[0].key_hash).toMatch(/^[0-9a-f]{64}$/);
    const revoke = await server.request(
      'DELETE',
      `/api/v1/agents/${a.agentId}/keys/${created.body.data.id}`,
      { auth: a.user.jwt },
    );
    expect(revoke.status).toBe(200);
    expect(revoke.body.data.revoked_at).not.toBeNull();
    // Creating keys needs the owner's session JWT.
    expectErrorEnvelope(
      await server.request('POST', `/api/v1/agents/${a.agentId}/keys`, { auth: a.token, body: {} }),
      403,
      'FORBIDDEN',
    );
  });
});

describe('requests rejected by the HTTP parser', () => {
  const rawRequest = (payload: string) =>
    new Promise<string>((resolve, reject) => {
      const { hostname, port } = new URL(server.baseUrl);
      const socket = net.connect({ host: hostname, port: Number(port) }, () => socket.write(payload));
      let data = '';
      socket.on('data', (chunk: Buffer) => (data += chunk.toString()));
      socket.on('end', () => resolve(data));
      socket.on('error', reject);
    });

  test('oversized headers get 431 in the envelope, with X-Request-ID and X-API-Version', async () => {
    const response = await rawRequest(
      `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    expect(response).toMatch(/^HTTP\/1\.1 431 /);
    expect(response).toMatch(/X-API-Version: 1/);
    const requestId = /X-Request-ID: (req_[0-9a-f]+)/.exec(response)?.[1];
    const body = JSON.parse(response.slice(response.indexOf('\r\n\r\n') + 4));
    expect(body).toEqual({
      error: { message: 'request headers are too large', code: 'PAYLOAD_TOO_LARGE', request_id: requestId },
    });
  });

  test('a malformed request line gets 400 VALIDATION_ERROR in the envelope', async () => {
    const response = await rawRequest('NOT A REQUEST\r\n\r\n');
    expect(response).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(response.slice(response.indexOf('\r\n\r\n') + 4)).error.code).toBe('VALIDATION_ERROR');
  });
});
