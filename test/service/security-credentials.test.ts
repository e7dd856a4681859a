/**
 * Credential attacks: `alg: none`, algorithm confusion (an HS256 token keyed with the identity
 * provider's public key material while a JWKS is configured), foreign keys in the header (jwk/jku),
 * expiry and missing claims — in both verification modes (shared HS256 secret, and a JWKS served by
 * a loopback HTTP server through AUTH_JWKS_URL) — and expired or revoked API tokens and connector
 * keys, which must be refused everywhere (never downgraded to anonymous on public routes). An
 * identity provider whose JWKS cannot be fetched is a 503 with Retry-After, not a 401.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { exportJWK, exportSPKI, generateKeyPair, SignJWT, type JWK, type KeyLike } from 'jose';
import { createLogger } from '../../src/lib/logger';
import { eventually, newAgent, newAgentKey, newUser, type TestAgent } from '../helpers/factories';
import { startTestServer, type ApiResponse, type TestServer } from '../helpers/server';

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const inAnHour = () => Math.floor(Date.now() / 1000) + 3600;

/** An unsigned token: `header.payload.` (or with a junk signature). */
function unsigned(alg: string, claims: Record<string, unknown>, signature = ''): string {
  return `${b64({ alg, typ: 'JWT' })}.${b64({ exp: inAnHour(), ...claims })}.${signature}`;
}

function expectUnauthorized(res: ApiResponse) {
  expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status: 401, code: 'UNAUTHORIZED' });
  expect(res.body.error.request_id).toBe(res.headers.get('x-request-id'));
}

function expectFlatUnauthorized(res: ApiResponse) {
  expect(res.status).toBe(401);
  expect(res.body).toEqual({ error: expect.any(String) });
}

describe('session JWTs verified with the shared HS256 secret', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ RATE_LIMIT_DISABLED: '1' });
  });
  afterAll(() => server.close());

  const secret = () => new TextEncoder().encode(server.config.AUTH_JWT_SECRET);
  const admin = { sub: `attacker|${randomUUID()}`, role: 'admin' };

  test.each(['none', 'None', 'NONE', 'nOnE'])(
    'alg "%s" is refused (with and without a signature part)',
    async (alg) => {
      for (const token of [
        unsigned(alg, admin),
        unsigned(alg, admin, 'c2lnbmF0dXJl'),
        unsigned(alg, admin).slice(0, -1),
      ]) {
        expectUnauthorized(await server.request('GET', '/api/v1/admin/challenges', { auth: token }));
        expectUnauthorized(await server.request('GET', '/api/v1/agents', { auth: token }));
      }
    },
  );

  test('a valid HS256 token with its signature stripped or swapped is refused', async () => {
    const user = await newUser(server);
    const [h, p] = user.jwt.split('.');
    const other = (await newUser(server)).jwt.split('.')[2];
    for (const token of [
      `${h}.${p}.`,
      `${h}.${p}`,
      `${h}.${p}.${other}`,
      `${h}.${b64({ sub: 'x', role: 'admin', exp: inAnHour() })}.${user.jwt.split('.')[2]}`,
    ]) {
      expectUnauthorized(await server.request('GET', '/api/v1/agents', { auth: token }));
    }
  });

  test('HS384/HS512 and RS256 are refused even when the key would match (the algorithm is pinned)', async () => {
    for (const alg of ['HS384', 'HS512']) {
      const token = await new SignJWT(admin)
        .setProtectedHeader({ alg })
        .setSubject(admin.sub)
        .setExpirationTime('1h')
        .sign(secret());
      expectUnauthorized(await server.request('GET', '/api/v1/agents', { auth: token }));
    }
    const { privateKey } = await generateKeyPair('RS256');
    const rs = await new SignJWT(admin)
      .setProtectedHeader({ alg: 'RS256' })
      .setSubject(admin.sub)
      .setExpirationTime('1h')
      .sign(privateKey);
    expectUnauthorized(await server.request('GET', '/api/v1/agents', { auth: rs }));
  });

  test('expired, not yet valid, and exp-less tokens are refused', async () => {
    const now = Math.floor(Date.now() / 1000);
    const expired = await new SignJWT({ role: 'user' })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('someone')
      .setExpirationTime(now - 10)
      .sign(secret());
    const notYet = await new SignJWT({ role: 'user' })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('someone')
      .setNotBefore(now + 600)
      .setExpirationTime(now + 3600)
      .sign(secret());
    const noExp = await new SignJWT({ role: 'user' })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('someone')
      .sign(secret());
    const noSub = await new SignJWT({ role: 'user' })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime('1h')
      .sign(secret());
    const badRole = await new SignJWT({ role: 'root' })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('someone')
      .setExpirationTime('1h')
      .sign(secret());
    for (const token of [expired, notYet, noExp, noSub, badRole])
      expectUnauthorized(await server.request('GET', '/api/v1/agents', { auth: token }));
  });
});

describe('session JWTs verified with a JWKS (AUTH_JWKS_URL)', () => {
  let jwks: Server;
  let server: TestServer;
  let privateKey: KeyLike;
  let publicJwk: JWK;
  let publicPem: string;
  const kid = 'idp-key-1';
  let jwksRequests = 0;

  beforeAll(async () => {
    const pair = await generateKeyPair('RS256', { extractable: true });
    privateKey = pair.privateKey;
    publicJwk = { ...(await exportJWK(pair.publicKey)), kid, alg: 'RS256', use: 'sig' };
    publicPem = await exportSPKI(pair.publicKey);
    jwks = createServer((req, res) => {
      jwksRequests += 1;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ keys: [publicJwk] }));
    });
    await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/.well-known/jwks.json`;
    server = await startTestServer({ AUTH_JWKS_URL: url, RATE_LIMIT_DISABLED: '1' });
  });
  afterAll(async () => {
    await server?.close();
    await new Promise<void>((resolve) => jwks.close(() => resolve()));
  });

  const rs256 = (key: KeyLike, claims: Record<string, unknown> = {}, header: Record<string, unknown> = {}) =>
    new SignJWT({ name: 'IdP user', ...claims })
      .setProtectedHeader({ alg: 'RS256', kid, ...header })
      .setSubject(`idp|${randomUUID()}`)
      .setExpirationTime('1h')
      .sign(key);
  const hs256 = (material: string) =>
    new SignJWT({ role: 'admin' })
      .setProtectedHeader({ alg: 'HS256', kid })
      .setSubject(`attacker|${randomUUID()}`)
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode(material));

  test('an RS256 token signed by the published key is accepted (and its role honoured)', async () => {
    const res = await server.request('GET', '/api/v1/agents', { auth: await rs256(privateKey) });
    expect(res.status).toBe(200);
    expect(jwksRequests).toBeGreaterThan(0);
    const admin = await server.request('GET', '/api/v1/admin/challenges', {
      auth: await rs256(privateKey, { role: 'admin' }),
    });
    expect(admin.status).toBe(200);
  });

  test('HS256 keyed with the public key material (PEM, JWK JSON, modulus) is refused: algorithm confusion', async () => {
    for (const material of [
      publicPem,
      publicPem.trim(),
      JSON.stringify(publicJwk),
      publicJwk.n!,
      server.config.AUTH_JWT_SECRET,
    ]) {
      expectUnauthorized(
        await server.request('GET', '/api/v1/admin/challenges', { auth: await hs256(material) }),
      );
      expectUnauthorized(await server.request('GET', '/api/v1/agents', { auth: await hs256(material) }));
    }
  });

  test('alg none, a foreign key under the same kid, an embedded jwk or a jku header are refused', async () => {
    const attacker = await generateKeyPair('RS256', { extractable: true });
    const attackerJwk = { ...(await exportJWK(attacker.publicKey)), kid };
    const attackerJwks = `data:application/json,${encodeURIComponent(JSON.stringify({ keys: [attackerJwk] }))}`;
    const tokens = [
      unsigned('none', { sub: 'attacker', role: 'admin' }),
      await rs256(attacker.privateKey, { role: 'admin' }),
      await rs256(attacker.privateKey, { role: 'admin' }, { jwk: attackerJwk }),
      await rs256(attacker.privateKey, { role: 'admin' }, { jku: attackerJwks }),
      await rs256(attacker.privateKey, { role: 'admin' }, { kid: 'unknown-kid' }),
    ];
    for (const token of tokens)
      expectUnauthorized(await server.request('GET', '/api/v1/admin/challenges', { auth: token }));
  });

  test('an expired or exp-less RS256 token is refused', async () => {
    const expired = await new SignJWT({})
      .setProtectedHeader({ alg: 'RS256', kid })
      .setSubject('idp|x')
      .setExpirationTime(Math.floor(Date.now() / 1000) - 10)
      .sign(privateKey);
    const noExp = await new SignJWT({})
      .setProtectedHeader({ alg: 'RS256', kid })
      .setSubject('idp|x')
      .sign(privateKey);
    expectUnauthorized(await server.request('GET', '/api/v1/agents', { auth: expired }));
    expectUnauthorized(await server.request('GET', '/api/v1/agents', { auth: noExp }));
  });
});

describe('an identity provider whose JWKS cannot be fetched: 503 with Retry-After, not 401', () => {
  /** How the loopback identity provider answers; 'down' = nothing listens on its port (connection refused). */
  type Mode = 'down' | 'ok' | '500' | 'hang' | 'stall' | 'invalid-json' | 'not-a-jwks';
  let mode: Mode = 'down';
  let idp: Server;
  let port: number;
  let server: TestServer;
  let privateKey: KeyLike;
  let publicJwk: JWK;
  let publicPem: string;
  const kid = 'idp-key-outage';
  const hits: Mode[] = [];
  const logLines: string[] = [];
  const TIMEOUT_MS = 300;

  const answer = (res: ServerResponse) => {
    hits.push(mode);
    switch (mode) {
      case 'ok':
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ keys: [publicJwk] }));
      case '500':
        res.writeHead(500, { 'content-type': 'application/json' });
        return res.end('{"error":"identity provider is down"}');
      case 'invalid-json':
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end('{"keys": [');
      case 'not-a-jwks':
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end('{"keys": "none today"}');
      case 'stall':
        // Headers and half a body, then silence (jose's own timeout ends at the headers).
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.write('{"keys": [');
      default:
        return; // 'hang': the connection is accepted and never answered
    }
  };
  const listen = () => new Promise<void>((resolve) => idp.listen(port, '127.0.0.1', resolve));
  const stop = async () => {
    idp.closeAllConnections();
    await new Promise<void>((resolve) => idp.close(() => resolve()));
  };

  beforeAll(async () => {
    const pair = await generateKeyPair('RS256', { extractable: true });
    privateKey = pair.privateKey;
    publicJwk = { ...(await exportJWK(pair.publicKey)), kid, alg: 'RS256', use: 'sig' };
    publicPem = await exportSPKI(pair.publicKey);
    idp = createServer((_req, res) => answer(res));
    await new Promise<void>((resolve) => idp.listen(0, '127.0.0.1', resolve));
    port = (idp.address() as AddressInfo).port;
    await stop(); // starts 'down': the port refuses connections
    const sink = new Writable({
      write(chunk, _enc, done) {
        logLines.push(chunk.toString());
        done();
      },
    });
    server = await startTestServer(
      {
        AUTH_JWKS_URL: `http://127.0.0.1:${port}/.well-known/jwks.json`,
        AUTH_JWKS_TIMEOUT_MS: String(TIMEOUT_MS),
        RATE_LIMIT_DISABLED: '1',
      },
      { logger: createLogger('warn', 'jwks-outage', sink) },
    );
  });
  afterAll(async () => {
    await server?.close();
    if (idp.listening) await stop();
  });

  const rs256 = (
    claims: Record<string, unknown> = {},
    key: KeyLike = privateKey,
    expiresAt: number | string = '1h',
  ) =>
    new SignJWT({ name: 'IdP user', ...claims })
      .setProtectedHeader({ alg: 'RS256', kid })
      .setSubject(`idp|${randomUUID()}`)
      .setExpirationTime(expiresAt)
      .sign(key);

  function expectUnavailable(res: ApiResponse) {
    expect({ status: res.status, code: res.body?.error?.code }).toEqual({
      status: 503,
      code: 'SERVICE_UNAVAILABLE',
    });
    expect(Object.keys(res.body)).toEqual(['error']);
    expect(Object.keys(res.body.error).sort()).toEqual(['code', 'message', 'request_id']);
    expect(res.body.error.request_id).toBe(res.headers.get('x-request-id'));
    expect(res.body.error.message).toMatch(/identity provider/);
    expect(res.headers.get('retry-after')).toBe('5');
    expect(res.text).not.toMatch(/at \w+ \(|node_modules|\.ts:\d+|ECONNREFUSED|127\.0\.0\.1/);
  }

  /** A valid token on a JWT route, a bearer route and a public route (not downgraded to anonymous). */
  async function expectAllUnavailable() {
    const token = await rs256({ role: 'admin' });
    const started = Date.now();
    expectUnavailable(await server.request('GET', '/api/v1/admin/challenges', { auth: token }));
    expectUnavailable(await server.request('GET', '/api/v1/agents', { auth: token }));
    expectUnavailable(await server.request('GET', '/api/v1/challenges', { auth: token }));
    expectUnavailable(
      await server.request('POST', '/api/v1/auth/tokens', {
        auth: token,
        body: { name: 'x', scopes: ['challenge:read'] },
      }),
    );
    return Date.now() - started;
  }

  test('connection refused → 503 SERVICE_UNAVAILABLE in the envelope, with Retry-After and no details', async () => {
    await expectAllUnavailable();
    // Logged for operators (the cause, never the token).
    const logged = logLines.filter((l) => /identity provider keys unavailable/.test(l));
    expect(logged.length).toBeGreaterThan(0);
    expect(logged.join('\n')).toMatch(/ECONNREFUSED/);
    expect(logged.join('\n')).not.toMatch(/eyJ/);
  });

  test('HTTP 500, a body that is not JSON, and JSON that is not a JWKS → 503', async () => {
    await listen();
    for (const m of ['500', 'invalid-json', 'not-a-jwks'] as const) {
      mode = m;
      hits.length = 0;
      await expectAllUnavailable();
      expect(hits.length).toBeGreaterThan(0); // each request tried again (a failure is not cached)
      expect(new Set(hits)).toEqual(new Set([m]));
    }
  });

  test('an endpoint that never answers, or stalls after the headers, → 503 after the configured timeout', async () => {
    for (const m of ['hang', 'stall'] as const) {
      mode = m;
      hits.length = 0;
      const elapsed = await expectAllUnavailable();
      expect(hits.length).toBeGreaterThan(0);
      // The endpoint never answers, so answering at all is the timeout's doing (300 ms here; 5 s
      // by default), and never before it; how soon after is load, not a promise.
      expect(elapsed).toBeGreaterThanOrEqual(TIMEOUT_MS);
    }
  });

  test('tokens refused without any key (algorithm, alg none, not a JWS) are still 401 while the provider is down', async () => {
    mode = '500';
    const hs256 = await new SignJWT({ role: 'admin' })
      .setProtectedHeader({ alg: 'HS256', kid })
      .setSubject('attacker')
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode(publicPem));
    for (const token of [
      hs256,
      unsigned('none', { sub: 'attacker', role: 'admin' }),
      unsigned('HS512', { sub: 'x' }, 'c2ln'),
      'not-a-jwt',
    ]) {
      expectUnauthorized(await server.request('GET', '/api/v1/agents', { auth: token }));
    }
    // A well-formed RS256 token (even one that will turn out forged or expired) needs the keys to be
    // judged: while they cannot be fetched it is a 503, never a verdict.
    const attacker = await generateKeyPair('RS256');
    expectUnavailable(
      await server.request('GET', '/api/v1/agents', { auth: await rs256({}, attacker.privateKey) }),
    );
  });

  test('once the JWKS is back, a valid token is 200 again and bad tokens are 401 again', async () => {
    mode = 'ok';
    const ok = await server.request('GET', '/api/v1/agents', { auth: await rs256() });
    expect(ok.status).toBe(200);
    expect(
      (await server.request('GET', '/api/v1/admin/challenges', { auth: await rs256({ role: 'admin' }) }))
        .status,
    ).toBe(200);
    const attacker = await generateKeyPair('RS256');
    expectUnauthorized(
      await server.request('GET', '/api/v1/agents', { auth: await rs256({}, attacker.privateKey) }),
    );
    expectUnauthorized(
      await server.request('GET', '/api/v1/agents', {
        auth: await rs256({}, privateKey, Math.floor(Date.now() / 1000) - 10),
      }),
    );
    const unknownKid = await new SignJWT({})
      .setProtectedHeader({ alg: 'RS256', kid: 'rotated-away' })
      .setSubject('idp|x')
      .setExpirationTime('1h')
      .sign(privateKey);
    expectUnauthorized(await server.request('GET', '/api/v1/agents', { auth: unknownKid }));
  });
});

describe('expired and revoked API tokens and connector keys', () => {
  let server: TestServer;
  let agent: TestAgent;
  beforeAll(async () => {
    server = await startTestServer({ RATE_LIMIT_DISABLED: '1' });
    agent = await newAgent(server);
  });
  afterAll(() => server.close());

  /** A bearer route, a public route (a bad credential must not fall back to anonymous), a JWT-only route. */
  async function expectTokenRefusedEverywhere(token: string) {
    expectUnauthorized(await server.request('GET', '/api/v1/agents', { auth: token }));
    expectUnauthorized(await server.request('GET', '/api/v1/challenges', { auth: token }));
    expectUnauthorized(await server.request('GET', `/api/v1/leaderboards/${randomUUID()}`, { auth: token }));
    expectUnauthorized(
      await server.request('POST', '/api/v1/auth/tokens', {
        auth: token,
        body: { name: 'x', scopes: ['challenge:read'] },
      }),
    );
  }

  async function issueToken(): Promise<{ id: string; token: string }> {
    const res = await server.request('POST', '/api/v1/auth/tokens', {
      auth: agent.user.jwt,
      body: { name: 'victim', scopes: ['challenge:read'], agent_id: agent.agentId },
    });
    expect(res.status).toBe(201);
    expect((await server.request('GET', '/api/v1/challenges', { auth: res.body.data.token })).status).toBe(
      200,
    );
    return res.body.data;
  }

  test('a revoked API token is refused on bearer, public and JWT-only routes', async () => {
    const { id, token } = await issueToken();
    expect(
      (await server.request('DELETE', `/api/v1/auth/tokens/${id}`, { auth: agent.user.jwt })).status,
    ).toBe(200);
    await expectTokenRefusedEverywhere(token);
    // The owner's other credentials are untouched.
    expect((await server.request('GET', '/api/v1/agents', { auth: agent.token })).status).toBe(200);
  });

  test('an expired API token is refused on bearer, public and JWT-only routes', async () => {
    const { id, token } = await issueToken();
    await server.deps.db.query(
      "UPDATE api_tokens SET expires_at = now() - interval '1 second' WHERE id = $1",
      [id],
    );
    // Changed behind the API's back (as another process would): the credential cache hears of it by
    // NOTIFY, asynchronously (docs/decisions/platform.md, "Credential cache"), so wait for that.
    await eventually(
      async () => (await server.request('GET', '/api/v1/challenges', { auth: token })).status === 401,
      10_000,
    );
    await expectTokenRefusedEverywhere(token);
  });

  async function expectKeyRefusedEverywhere(key: string) {
    expectFlatUnauthorized(await server.request('POST', '/api/v1/agents/ping', { agentKey: key, body: {} }));
    expectFlatUnauthorized(await server.request('GET', '/api/v1/challenges/assigned', { agentKey: key }));
    expectFlatUnauthorized(
      await server.request('POST', '/api/v1/events/stream', {
        agentKey: key,
        body: {
          challengeId: randomUUID(),
          agentId: agent.agentId,
          event: { type: 'progress', timestamp: new Date().toISOString() },
        },
      }),
    );
  }

  test('a revoked connector key is refused on every connector route', async () => {
    const created = await server.request('POST', `/api/v1/agents/${agent.agentId}/keys`, {
      auth: agent.user.jwt,
      body: {},
    });
    const { id, key } = created.body.data as { id: string; key: string };
    expect((await server.request('POST', '/api/v1/agents/ping', { agentKey: key, body: {} })).status).toBe(
      200,
    );
    expect(
      (await server.request('DELETE', `/api/v1/agents/${agent.agentId}/keys/${id}`, { auth: agent.user.jwt }))
        .status,
    ).toBe(200);
    await expectKeyRefusedEverywhere(key);
  });

  test('an expired connector key is refused on every connector route', async () => {
    const key = await newAgentKey(server, agent);
    await server.deps.db.query(
      "UPDATE agent_keys SET expires_at = now() - interval '1 second' WHERE agent_id = $1 AND revoked_at IS NULL",
      [agent.agentId],
    );
    await expectKeyRefusedEverywhere(key);
  });

  test('credentials in the wrong place are refused: an API token as a connector key, a connector key as a bearer token', async () => {
    const key = await newAgentKey(server, agent);
    expectFlatUnauthorized(
      await server.request('GET', '/api/v1/challenges/assigned', { agentKey: agent.token }),
    );
    expectFlatUnauthorized(await server.request('GET', '/api/v1/challenges/assigned', { auth: agent.token }));
    expectUnauthorized(await server.request('GET', '/api/v1/agents', { auth: key }));
    expectUnauthorized(await server.request('GET', '/api/v1/challenges', { auth: key }));
  });
});
