/**
 * Signing in on the web (issue 21): the OpenID Connect flow through the embedded provider, the
 * session it starts (the same user as a JWT with that sub), sign-out ending it on the server,
 * and attacks: CSRF, session fixation, open redirect, a replayed callback.
 */
import { createPrivateKey, generateKeyPairSync, randomUUID } from 'node:crypto';
import { loadConfig } from '../../src/config';
import { mintSessionJwt } from '../../src/auth/jwt';
import { sweepOnce } from '../../src/domain/submissions/sweeper';
import { EMBEDDED_OIDC_CLIENT_ID, EMBEDDED_OIDC_CLIENT_SECRET } from '../../src/auth/embedded-oidc-client';
import { freeLoopbackPort, startTestServer, type TestServer } from '../helpers/server';
import { csrfFrom, signInThroughEmbeddedProvider, webClient } from '../helpers/web-session';

let server: TestServer;
beforeAll(async () => {
  // Many sign-ins from one address in a minute; the budgets are tested in rate-limits.test.ts.
  server = await startTestServer({ RATE_LIMIT_DISABLED: '1' });
});
afterAll(() => server.close());

const uniqueSub = (name: string) => `web|${name}-${Math.random().toString(36).slice(2, 10)}`;

describe('the OpenID Connect authorization code flow', () => {
  test('/login sends the browser to the provider with PKCE S256, state and nonce', async () => {
    const client = webClient(server.baseUrl);
    const res = await client.fetch('/login?return_to=/me');
    expect(res.status).toBe(302);
    const url = new URL(res.headers.get('location')!);
    expect(url.origin + url.pathname).toBe(`${server.baseUrl}/oidc/auth`);
    expect(url.searchParams.get('response_type')).toBe('code');
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(url.searchParams.get('state')).toBeTruthy();
    expect(url.searchParams.get('nonce')).toBeTruthy();
    expect(url.searchParams.get('redirect_uri')).toBe(`${server.baseUrl}/auth/callback`);
    expect(client.jar.cookies.has('ccs_signin')).toBe(true);
  });

  test('signing in lands on return_to with a session that is the same user as a JWT with that sub', async () => {
    const sub = uniqueSub('ada');
    const client = webClient(server.baseUrl);
    const landed = await signInThroughEmbeddedProvider(client, sub, '/me/agents');
    expect(landed).toBe('/me/agents');
    expect(client.jar.cookies.get('ccs_session')).toMatch(/^ccs_ws_/);
    const rows = await server.deps.db.query(
      'SELECT u.subject FROM web_sessions s JOIN users u ON u.id = s.user_id WHERE u.subject = $1',
      [sub],
    );
    expect(rows.rowCount).toBe(1);
    // The JWT door finds the very same user row.
    const jwt = await mintSessionJwt(server.config.AUTH_JWT_SECRET, { sub });
    await server.request('GET', '/api/v1/agents', { auth: jwt });
    const users = await server.deps.db.query('SELECT id FROM users WHERE subject = $1', [sub]);
    expect(users.rowCount).toBe(1);
  });

  test('a replayed callback (the same code and state again) does not sign in a second time', async () => {
    const client = webClient(server.baseUrl);
    await client.fetch('/login');
    const attempt = client.jar.cookies.get('ccs_signin');
    await signInThroughEmbeddedProvider(client, uniqueSub('replay'));
    // Find the callback URL by doing a fresh flow but stopping before the callback is followed.
    const again = webClient(server.baseUrl);
    const login = await again.fetch('/login');
    let res = await again.fetch(login.headers.get('location')!);
    while (!res.headers.get('location')!.includes('/interaction/'))
      res = await again.fetch(res.headers.get('location')!);
    const interaction = res.headers.get('location')!;
    await again.fetch(interaction);
    res = await again.fetch(`${new URL(interaction, server.baseUrl).pathname}/login`, {
      method: 'POST',
      form: { login: uniqueSub('replay2') },
    });
    while (!res.headers.get('location')!.includes('/auth/callback'))
      res = await again.fetch(res.headers.get('location')!);
    const callbackUrl = res.headers.get('location')!;
    const signInCookie = again.jar.cookies.get('ccs_signin')!;
    const first = await again.fetch(callbackUrl);
    expect(first.status).toBe(303);
    const replay = await fetch(callbackUrl, {
      headers: { cookie: `ccs_signin=${signInCookie}` },
      redirect: 'manual',
    });
    expect(replay.status).toBe(400);
    expect(replay.headers.getSetCookie().some((c) => c.startsWith('ccs_session=ccs_ws_'))).toBe(false);
    expect(attempt).toBeTruthy();
  });

  test('a stale bearer header on the callback is answered with a page, not the API envelope', async () => {
    // Browsers never send one; a script or an extension that adds it to every request might.
    const res = await fetch(`${server.baseUrl}/auth/callback?code=x&state=y`, {
      headers: { authorization: 'Bearer svc_sk_live_revokedrevokedrevokedrevoked' },
      redirect: 'manual',
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const page = await res.text();
    expect(page).toContain('Error 401');
    expect(page).toContain('href="/"');
  });
});

describe('the embedded provider signs with the configured key (AUTH_OIDC_EMBEDDED_KEY)', () => {
  test('two API processes of one setup serve the one key set', async () => {
    const configured = createPrivateKey(server.config.AUTH_OIDC_EMBEDDED_KEY!).export({ format: 'jwk' });
    const jwksOf = async (s: TestServer) => {
      const res = await fetch(`${s.baseUrl}/oidc/jwks`);
      expect(res.status).toBe(200);
      return ((await res.json()) as { keys: { n: string; e: string }[] }).keys.map((k) => k.n);
    };
    expect(await jwksOf(server)).toEqual([configured.n]);
    const other = await startTestServer({ RATE_LIMIT_DISABLED: '1' });
    try {
      expect(await jwksOf(other)).toEqual([configured.n]);
    } finally {
      await other.close();
    }
  });

  test('a setting that is not an RSA private key is refused when the service starts', () => {
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({
      format: 'pem',
      type: 'pkcs8',
    });
    for (const bad of ['not a key', String(ec)])
      expect(() => loadConfig({ ...process.env, AUTH_OIDC_EMBEDDED_KEY: bad })).toThrow(
        /AUTH_OIDC_EMBEDDED_KEY must be an RSA private key in PEM/,
      );
  });
});

describe('open redirect: return_to takes same-origin paths only', () => {
  test.each([
    ['https://evil.example/'],
    ['//evil.example/x'],
    ['/\\evil.example'],
    ['javascript:alert(1)'],
    ['http:evil.example'],
    ['/%0d%0aSet-Cookie:x=1'],
    [' /me'],
  ])('%s → /', async (returnTo) => {
    const client = webClient(server.baseUrl);
    const landed = await signInThroughEmbeddedProvider(client, uniqueSub('redirect'), returnTo);
    expect(new URL(landed, server.baseUrl).origin).toBe(server.baseUrl);
    expect(landed === '/' || landed.startsWith('/%')).toBe(true);
  });
});

describe('sign-out ends the session on the server', () => {
  test('POST /logout revokes the session: the old cookie is refused afterwards', async () => {
    const client = webClient(server.baseUrl);
    await signInThroughEmbeddedProvider(client, uniqueSub('out'));
    const oldCookie = client.jar.header();
    const me = await client.fetch('/me/agents');
    expect(me.status).toBe(200);
    const out = await client.fetch('/logout', { method: 'POST', form: { _csrf: csrfFrom(await me.text()) } });
    expect(out.status).toBe(303);
    // Then on to the provider's own logout (DESIGN: RP-initiated logout), which returns to the home page.
    const providerLogout = new URL(out.headers.get('location')!);
    expect(providerLogout.pathname).toBe('/oidc/session/end');
    expect(providerLogout.searchParams.get('post_logout_redirect_uri')).toBe(`${server.baseUrl}/`);
    const replayed = await fetch(`${server.baseUrl}/me/agents`, {
      headers: { cookie: oldCookie },
      redirect: 'manual',
    });
    expect(replayed.status).toBe(302);
    expect(replayed.headers.get('location')).toBe('/login?return_to=%2Fme%2Fagents');
  });

  test('the sweeper deletes sessions a day past their absolute expiry, and only those', async () => {
    const sub = uniqueSub('swept');
    const client = webClient(server.baseUrl);
    await signInThroughEmbeddedProvider(client, sub);
    const old = webClient(server.baseUrl);
    await signInThroughEmbeddedProvider(old, sub);
    const sessions = async () =>
      (
        await server.deps.db.query<{ id: string }>(
          'SELECT s.id FROM web_sessions s JOIN users u ON u.id = s.user_id WHERE u.subject = $1 ORDER BY s.created_at',
          [sub],
        )
      ).rows.map((r) => r.id);
    const [, oldId] = await sessions();
    // The second one ended two days ago; the first one (live) and anyone else's stay.
    await server.deps.db.query(
      `UPDATE web_sessions SET created_at = now() - interval '3 days', absolute_expires_at = now() - interval '2 days' WHERE id = $1`,
      [oldId],
    );
    // The worker's own sweeper runs every second in the tests and may take it first: what counts
    // is that it is gone and the live one is not, whichever pass deleted it.
    await sweepOnce(server.deps);
    expect(await sessions()).toHaveLength(1);
    expect(await sessions()).not.toContain(oldId);
    expect((await client.fetch('/me/agents')).status).toBe(200);
  });

  test('sign out everywhere ends every session of the person', async () => {
    const sub = uniqueSub('everywhere');
    const laptop = webClient(server.baseUrl);
    const phone = webClient(server.baseUrl);
    await signInThroughEmbeddedProvider(laptop, sub);
    await signInThroughEmbeddedProvider(phone, sub);
    expect((await phone.fetch('/me/agents')).status).toBe(200);
    const page = await laptop.fetch('/me/agents');
    const out = await laptop.fetch('/logout', {
      method: 'POST',
      form: { _csrf: csrfFrom(await page.text()), everywhere: '1' },
    });
    expect(out.status).toBe(303);
    expect((await phone.fetch('/me/agents')).status).toBe(302);
  });
});

interface Attack {
  form: Record<string, string>;
  headers: { origin?: string; referer?: string };
}

describe('CSRF: a refused form is a 403 page and changes nothing', () => {
  async function signedIn(name: string) {
    const client = webClient(server.baseUrl);
    await signInThroughEmbeddedProvider(client, uniqueSub(name));
    const page = await (await client.fetch('/me/agents')).text();
    return { client, csrf: csrfFrom(page) };
  }
  const stillSignedIn = async (client: ReturnType<typeof webClient>) =>
    (await client.fetch('/me/agents')).status === 200;

  test.each<[string, (mine: string, other: string) => Attack]>([
    ['no _csrf', (_mine: string, _other: string) => ({ form: {} as Record<string, string>, headers: {} })],
    [
      'a wrong _csrf',
      () => ({ form: { _csrf: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }, headers: {} }),
    ],
    ["another session's _csrf", (_mine: string, other: string) => ({ form: { _csrf: other }, headers: {} })],
    [
      'a foreign Origin',
      (mine: string) => ({ form: { _csrf: mine }, headers: { origin: 'https://evil.example' } }),
    ],
    ['Origin: null', (mine: string) => ({ form: { _csrf: mine }, headers: { origin: 'null' } })],
    [
      'no Origin and a foreign Referer',
      (mine: string) => ({
        form: { _csrf: mine },
        headers: { origin: '', referer: 'https://evil.example/page' },
      }),
    ],
  ])('%s → 403, the session stays', async (_label, attack) => {
    const victim = await signedIn('victim');
    const other = await signedIn('other');
    const { form, headers } = attack(victim.csrf, other.csrf);
    const res = await victim.client.fetch('/logout', {
      method: 'POST',
      body: new URLSearchParams(form).toString(),
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        ...(headers.origin !== undefined && headers.origin !== '' ? { origin: headers.origin } : {}),
        ...(headers.referer ? { referer: headers.referer } : {}),
      },
    });
    expect(res.status).toBe(403);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await res.text()).toContain('Form refused');
    expect(await stillSignedIn(victim.client)).toBe(true);
  });

  test('the right token from the same origin (Referer only, no Origin) is accepted', async () => {
    const me = await signedIn('referer');
    const res = await me.client.fetch('/logout', {
      method: 'POST',
      body: new URLSearchParams({ _csrf: me.csrf }).toString(),
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        referer: `${server.baseUrl}/me/agents`,
      },
    });
    expect(res.status).toBe(303);
    expect(await stillSignedIn(me.client)).toBe(false);
  });
});

describe('session fixation and the cookie boundary', () => {
  test("a session id planted before sign-in is replaced, and never becomes the victim's", async () => {
    const attacker = webClient(server.baseUrl);
    await signInThroughEmbeddedProvider(attacker, uniqueSub('attacker'));
    const planted = attacker.jar.cookies.get('ccs_session')!;
    const victim = webClient(server.baseUrl);
    victim.jar.cookies.set('ccs_session', planted);
    const victimSub = uniqueSub('fixated');
    await signInThroughEmbeddedProvider(victim, victimSub);
    expect(victim.jar.cookies.get('ccs_session')).not.toBe(planted);
    // The planted id still belongs to the attacker's own account, not the victim's.
    const attackerView = await (await attacker.fetch('/me/agents')).text();
    expect(attackerView).not.toContain(victimSub);
    const rows = await server.deps.db.query(
      'SELECT count(*)::int AS n FROM web_sessions s JOIN users u ON u.id = s.user_id WHERE u.subject = $1',
      [victimSub],
    );
    expect(rows.rows[0].n).toBe(1);
  });

  test('an unknown or forged session cookie is signed out, not an error', async () => {
    for (const value of ['ccs_ws_forged', 'anything', 'ccs_ws_' + 'x'.repeat(300)]) {
      const res = await fetch(`${server.baseUrl}/me/agents`, {
        headers: { cookie: `ccs_session=${value}` },
        redirect: 'manual',
      });
      expect(res.status).toBe(302);
    }
  });

  test('the session cookie never authenticates /api/v1', async () => {
    const client = webClient(server.baseUrl);
    await signInThroughEmbeddedProvider(client, uniqueSub('api'));
    const res = await client.fetch('/api/v1/agents');
    expect(res.status).toBe(401);
    const created = await client.fetch('/api/v1/agents', {
      method: 'POST',
      body: JSON.stringify({ name: 'via cookie' }),
      headers: { 'content-type': 'application/json', origin: server.baseUrl },
    });
    expect(created.status).toBe(401);
  });

  test('the development cookie: HttpOnly, SameSite=Lax, Path=/', async () => {
    const client = webClient(server.baseUrl);
    const login = await client.fetch('/login');
    const attemptCookie = login.headers.getSetCookie().find((c) => c.startsWith('ccs_signin='))!;
    expect(attemptCookie).toMatch(/; HttpOnly/);
    expect(attemptCookie).toMatch(/; SameSite=Lax/);
    expect(attemptCookie).toMatch(/; Path=\//);
  });
});

describe('production: a standard OpenID provider and __Host- cookies', () => {
  // The first server's embedded provider stands in for Keycloak or Auth0; the second server runs
  // with production settings and knows it only as AUTH_OIDC_ISSUER, as a deployment would.
  let production: TestServer;
  beforeAll(async () => {
    const port = await freeLoopbackPort();
    const issuer = `${server.baseUrl}/oidc`;
    production = await startTestServer(
      {
        NODE_ENV: 'production',
        // The test run's shortened arena minute (test-env.ts) is refused in production.
        ARENA_MINUTE_MS: '60000',
        AUTH_JWT_SECRET: `a-production-secret-${randomUUID()}`,
        WEBHOOK_SECRET_KEY: `a-production-webhook-key-${randomUUID()}`,
        DATABASE_URL: server.config.DATABASE_URL.replace('postgres@', 'postgres:trust-auth-ignores-it@'),
        AUTH_TRUST_ROLE_CLAIM: '0',
        WEBHOOK_ALLOW_PRIVATE: '0',
        TRUST_PROXY: '0',
        METRICS_TOKEN: `metrics-${randomUUID()}`,
        AUTH_JWT_ISSUER: issuer,
        AUTH_OIDC_ISSUER: issuer,
        AUTH_OIDC_CLIENT_ID: EMBEDDED_OIDC_CLIENT_ID,
        AUTH_OIDC_CLIENT_SECRET: EMBEDDED_OIDC_CLIENT_SECRET,
        PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      },
      { port },
    );
  });
  afterAll(() => production?.close());

  /** Every attribute of a Set-Cookie line, lower-cased names. */
  const attributes = (line: string) =>
    line
      .split(';')
      .slice(1)
      .map((a) => a.trim().split('=')[0].toLowerCase());

  test('the sign-in attempt and the session cookies are __Host-: Secure, HttpOnly, SameSite=Lax, Path=/, no Domain', async () => {
    expect(production.config.NODE_ENV).toBe('production');
    const client = webClient(production.baseUrl);
    const login = await client.fetch('/login?return_to=/me/agents');
    expect(login.status).toBe(302);
    expect(new URL(login.headers.get('location')!).origin).toBe(server.baseUrl);
    const attempt = login.headers.getSetCookie().find((c) => c.startsWith('__Host-ccs_signin='))!;
    expect(attempt).toBeDefined();
    expect(login.headers.getSetCookie().some((c) => c.startsWith('ccs_signin='))).toBe(false);

    const sub = uniqueSub('prod');
    // Driven from /login again, through the provider's pages on the other origin, to the callback.
    const landed = await signInThroughEmbeddedProvider(client, sub, '/me/agents');
    expect(landed).toBe('/me/agents');
    const session = client.jar.cookies.get('__Host-ccs_session');
    expect(session).toMatch(/^ccs_ws_/);
    expect(client.jar.cookies.has('ccs_session')).toBe(false);

    for (const line of [attempt]) {
      expect(attributes(line)).toEqual(expect.arrayContaining(['path', 'httponly', 'samesite', 'secure']));
      expect(attributes(line)).not.toContain('domain');
      expect(line).toMatch(/; Path=\/(;|$)/);
      expect(line).toMatch(/; SameSite=Lax(;|$)/);
    }
    const me = await client.fetch('/me/agents');
    expect(me.status).toBe(200);

    // The same person as an API JWT with that sub would be: one account, whichever door.
    const users = await production.deps.db.query('SELECT id FROM users WHERE subject = $1', [sub]);
    expect(users.rowCount).toBe(1);

    // The development cookie name is not read in production.
    const devNamed = await fetch(`${production.baseUrl}/me/agents`, {
      headers: { cookie: `ccs_session=${session}` },
      redirect: 'manual',
    });
    expect(devNamed.status).toBe(302);

    // Sign-out ends it on the server: the old cookie is refused afterwards.
    const oldCookie = client.jar.header();
    const out = await client.fetch('/logout', { method: 'POST', form: { _csrf: csrfFrom(await me.text()) } });
    expect(out.status).toBe(303);
    const cleared = out.headers.getSetCookie().find((c) => c.startsWith('__Host-ccs_session='))!;
    expect(cleared).toMatch(/Max-Age=0/);
    expect(attributes(cleared)).toContain('secure');
    const replayed = await fetch(`${production.baseUrl}/me/agents`, {
      headers: { cookie: oldCookie },
      redirect: 'manual',
    });
    expect(replayed.status).toBe(302);
    expect(replayed.headers.get('location')).toBe('/login?return_to=%2Fme%2Fagents');
  });

  test('the session cookie is set with the same flags at the callback', async () => {
    const client = webClient(production.baseUrl);
    const seen: string[] = [];
    const original = client.fetch;
    client.fetch = async (path, init) => {
      const res = await original(path, init);
      seen.push(...res.headers.getSetCookie());
      return res;
    };
    await signInThroughEmbeddedProvider(client, uniqueSub('flags'));
    const line = seen.find((c) => c.startsWith('__Host-ccs_session='))!;
    expect(line).toBeDefined();
    expect(attributes(line)).toEqual(
      expect.arrayContaining(['path', 'httponly', 'samesite', 'secure', 'max-age']),
    );
    expect(attributes(line)).not.toContain('domain');
    expect(line).toMatch(/; SameSite=Lax(;|$)/);
  });
});
