/**
 * Signing out for real (DESIGN, "Submitting code the way people do": POST /logout ends the
 * provider's session too): RP-initiated logout where the provider offers end_session_endpoint
 * (the embedded provider does, without asking when our ID token is the hint), else `prompt=login` at the next sign-in; switching accounts; the
 * display name from userinfo; the provider's token-endpoint refusal in the log and on the page; a
 * form sent while signed out kept through the sign-in. Real HTTP, PostgreSQL and provider.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import pino from 'pino';
import { EMBEDDED_OIDC_CLIENT_ID, EMBEDDED_OIDC_CLIENT_SECRET } from '../../src/auth/embedded-oidc-client';
import { startWebSession } from '../../src/domain/accounts/web-sessions';
import { csrfTokenFor } from '../../src/domain/accounts/rules';
import { startTestServer, type TestServer } from '../helpers/server';
import { csrfFrom, signInThroughEmbeddedProvider, webClient } from '../helpers/web-session';

const logLines: string[] = [];
let server: TestServer;
beforeAll(async () => {
  const sink = new Writable({
    write(chunk, _enc, done) {
      logLines.push(chunk.toString());
      done();
    },
  });
  server = await startTestServer({ RATE_LIMIT_DISABLED: '1' }, { logger: pino({ level: 'info' }, sink) });
});
afterAll(() => server.close());

const uniqueSub = (name: string) => `out|${name}-${Math.random().toString(36).slice(2, 10)}`;
const location = (res: Response) => res.headers.get('location')!;

describe('sign out ends the provider session too (RP-initiated logout)', () => {
  test('after signing out, the provider asks who is there, and someone else can sign in', async () => {
    const client = webClient(server.baseUrl);
    await signInThroughEmbeddedProvider(client, uniqueSub('first'), '/me');

    // While the provider's session lives, a new sign-in is silent: straight back to the callback.
    const again = await client.fetch('/login?return_to=/me');
    let hop = new URL(location(again));
    let res = await client.fetch(hop.href);
    while (res.status >= 300 && res.status < 400 && !location(res).includes('/auth/callback')) {
      expect(location(res)).not.toContain('/interaction/');
      hop = new URL(location(res), hop);
      res = await client.fetch(hop.href);
    }
    expect(location(res)).toContain('/auth/callback');
    const callback = await client.fetch(new URL(location(res), hop).href);
    expect(callback.status).toBe(303);

    // Sign out: the service's session ends and the browser goes to the provider's end_session_endpoint.
    const me = await client.fetch('/me');
    const out = await client.fetch('/logout', { method: 'POST', form: { _csrf: csrfFrom(await me.text()) } });
    expect(out.status).toBe(303);
    const endSession = new URL(location(out));
    expect(endSession.origin + endSession.pathname).toBe(`${server.baseUrl}/oidc/session/end`);
    expect(endSession.searchParams.get('post_logout_redirect_uri')).toBe(`${server.baseUrl}/`);
    expect(endSession.searchParams.get('client_id')).toBe(EMBEDDED_OIDC_CLIENT_ID);
    expect(endSession.searchParams.get('id_token_hint')).toMatch(/^ey/);
    expect((await client.fetch('/me')).status).toBe(302);

    // Our own client's ID token as the hint: the provider ends its session without asking (issue
    // 41, item 8), straight back to the home page.
    const ended = await client.fetch(endSession.href);
    expect(ended.status).toBe(303);
    expect(location(ended)).toBe(`${server.baseUrl}/`);

    // The next sign-in is not silent: the provider's sign-in page comes, and another person signs in.
    const second = uniqueSub('second');
    expect(await signInThroughEmbeddedProvider(client, second, '/me')).toBe('/me');
    const rows = await server.deps.db.query(
      'SELECT u.subject FROM web_sessions s JOIN users u ON u.id = s.user_id WHERE s.revoked_at IS NULL AND u.subject = $1',
      [second],
    );
    expect(rows.rowCount).toBe(1);
  });

  test('without an ID token as the hint, the provider still asks before ending its session', async () => {
    const client = webClient(server.baseUrl);
    await signInThroughEmbeddedProvider(client, uniqueSub('unhinted'), '/me');
    const confirm = await client.fetch(`/oidc/session/end?client_id=${EMBEDDED_OIDC_CLIENT_ID}`);
    expect(confirm.status).toBe(200);
    const page = await confirm.text();
    expect(page).toContain('Sign out of the development provider too?');
    expect(page).toMatch(/name="xsrf" value="[^"]+"/);
  });

  test("the display name comes from the provider's userinfo when the ID token carries none", async () => {
    const client = webClient(server.baseUrl);
    await signInThroughEmbeddedProvider(client, 'demo|ada', '/me');
    const row = await server.deps.db.query<{ name: string | null; id_token: string }>(
      `SELECT u.name, s.id_token FROM web_sessions s JOIN users u ON u.id = s.user_id
        WHERE u.subject = 'demo|ada' ORDER BY s.created_at DESC LIMIT 1`,
    );
    const claims = JSON.parse(Buffer.from(row.rows[0].id_token.split('.')[1], 'base64url').toString());
    expect(claims.sub).toBe('demo|ada');
    expect(claims.name).toBeUndefined();
    expect(row.rows[0].name).toBe('Ada (demo)');
    expect(await (await client.fetch('/me')).text()).toContain('Ada (demo)');
  });

  test("a refused code: the provider's status and body in the log, a summary on the page", async () => {
    const client = webClient(server.baseUrl);
    const login = await client.fetch('/login');
    let at = new URL(location(login));
    let res = await client.fetch(at.href);
    while (!location(res).includes('/interaction/')) {
      at = new URL(location(res), at);
      res = await client.fetch(at.href);
    }
    const interaction = new URL(location(res), at);
    await client.fetch(interaction.href);
    res = await client.fetch(`${interaction.pathname}/login`, {
      method: 'POST',
      form: { login: uniqueSub('refused') },
    });
    at = new URL(location(res), interaction);
    while (res.status >= 300 && res.status < 400 && !location(res).includes('/auth/callback')) {
      at = new URL(location(res), at);
      res = await client.fetch(at.href);
    }
    const callback = new URL(location(res), at);
    callback.searchParams.set('code', 'a-code-the-provider-never-issued');
    const answer = await client.fetch(callback.href);
    expect(answer.status).toBe(400);
    const text = await answer.text();
    expect(text).toContain('Sign-in did not complete');
    expect(text).toMatch(/HTTP 400, invalid_grant/);
    const logged = logLines.map((l) => JSON.parse(l)).find((l) => l.provider_status === 400);
    expect(logged).toBeDefined();
    expect(logged.provider_body).toContain('invalid_grant');
  });
});

describe('a provider without end_session_endpoint: the next sign-in asks again (prompt=login)', () => {
  let relyingParty: TestServer;
  let discovery: http.Server;
  beforeAll(async () => {
    // A stand-in for a provider that offers no logout: the embedded provider's metadata without it.
    const upstream = (await (
      await fetch(`${server.baseUrl}/oidc/.well-known/openid-configuration`)
    ).json()) as Record<string, unknown>;
    discovery = http.createServer((req, res) => {
      const { address, port } = discovery.address() as AddressInfo;
      const issuer = `http://${address}:${port}`;
      const meta: Record<string, unknown> = { ...upstream, issuer };
      delete meta.end_session_endpoint;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(meta));
    });
    await new Promise<void>((resolve) => discovery.listen(0, '127.0.0.1', resolve));
    const { port } = discovery.address() as AddressInfo;
    relyingParty = await startTestServer({
      RATE_LIMIT_DISABLED: '1',
      AUTH_OIDC_ISSUER: `http://127.0.0.1:${port}`,
      AUTH_OIDC_CLIENT_ID: EMBEDDED_OIDC_CLIENT_ID,
      AUTH_OIDC_CLIENT_SECRET: EMBEDDED_OIDC_CLIENT_SECRET,
    });
  });
  afterAll(async () => {
    await relyingParty?.close();
    await new Promise((resolve) => discovery?.close(resolve));
  });

  test('sign-out stays on this site and marks the browser; the next /login carries prompt=login, once', async () => {
    const { secret } = await startWebSession(relyingParty.deps.db, relyingParty.config, {
      subject: uniqueSub('shared-machine'),
      name: null,
      role: 'user',
    });
    const client = webClient(relyingParty.baseUrl);
    client.jar.cookies.set('ccs_session', secret);
    const before = new URL(location(await client.fetch('/login')));
    expect(before.searchParams.get('prompt')).toBeNull();

    const out = await client.fetch('/logout', { method: 'POST', form: { _csrf: csrfTokenFor(secret) } });
    expect(out.status).toBe(303);
    expect(location(out)).toBe('/');
    expect(client.jar.cookies.get('ccs_prompt_login')).toBe('1');

    const next = new URL(location(await client.fetch('/login?return_to=/me')));
    expect(next.searchParams.get('prompt')).toBe('login');
    expect(next.searchParams.get('client_id')).toBe(EMBEDDED_OIDC_CLIENT_ID);
  });
});

describe('a form sent while signed out keeps what was typed', () => {
  test('it is stashed through the sign-in and shown with a button that sends it again', async () => {
    const client = webClient(server.baseUrl);
    const typist = uniqueSub('typist');
    await signInThroughEmbeddedProvider(client, typist, '/me/agents');
    const page = await client.fetch('/me/agents');
    const csrf = csrfFrom(await page.text());
    // Signed out in another tab.
    const other = await client.fetch('/me');
    await client.fetch('/logout', { method: 'POST', form: { _csrf: csrfFrom(await other.text()) } });
    client.jar.cookies.delete('ccs_prompt_login');

    const sent = await client.fetch('/me/agents', {
      method: 'POST',
      form: { _csrf: csrf, name: 'Typed while signed out' },
      headers: { referer: `${server.baseUrl}/me/agents` },
    });
    expect(sent.status).toBe(303);
    expect(location(sent)).toBe('/login?return_to=%2Funsent');
    expect(client.jar.cookies.get('ccs_unsent')).toMatch(/^ccs_fs_/);
    const agents = await server.deps.db.query("SELECT 1 FROM agents WHERE name = 'Typed while signed out'");
    expect(agents.rowCount).toBe(0);

    // The provider's session is ended too (its logout is tested above): only the kept form's cookie stays.
    for (const name of [...client.jar.cookies.keys()])
      if (name !== 'ccs_unsent') client.jar.cookies.delete(name);
    // Signing in again as the same person returns to /unsent, which shows what was typed and sends
    // it on request (another person never sees it: the next test).
    const landed = await signInThroughEmbeddedProvider(client, typist, '/unsent');
    expect(landed).toBe('/unsent');
    const unsent = await client.fetch('/unsent');
    const html = await unsent.text();
    expect(html).toContain('Your form was not sent');
    expect(html).toContain('Typed while signed out');
    expect(html).not.toContain(csrf);
    const resent = await client.fetch('/me/agents', {
      method: 'POST',
      form: { _csrf: csrfFrom(html), name: 'Typed while signed out' },
    });
    expect(resent.status).toBe(303);
    expect(
      (await server.deps.db.query("SELECT 1 FROM agents WHERE name = 'Typed while signed out'")).rowCount,
    ).toBe(1);
  });

  // Issue 38, finding 4: the kept form belongs to the person it was rendered for, not the browser.
  test('the next person on the browser never sees what the first one typed', async () => {
    const client = webClient(server.baseUrl);
    const first = uniqueSub('first-person');
    await signInThroughEmbeddedProvider(client, first, '/me/agents');
    const page = await client.fetch('/me/agents');
    const csrf = csrfFrom(await page.text());
    const secretAgentId = '5c0ffee0-1234-4321-8888-000000000038';
    const pasted = 'def solve():  # first person pasted code, not for anyone else';
    // The first person signs out (another tab), then sends the form left open.
    const other = await client.fetch('/me');
    await client.fetch('/logout', { method: 'POST', form: { _csrf: csrfFrom(await other.text()) } });
    for (const name of [...client.jar.cookies.keys()])
      if (name !== 'ccs_unsent') client.jar.cookies.delete(name);
    const sent = await client.fetch('/me/agents', {
      method: 'POST',
      form: { _csrf: csrf, name: pasted, agent_id: secretAgentId },
      headers: { referer: `${server.baseUrl}/me/agents` },
    });
    expect(sent.status).toBe(303);
    expect(location(sent)).toBe('/login?return_to=%2Funsent');

    // A second person signs in on the same browser: nothing of the first person's form, anywhere.
    const second = uniqueSub('second-person');
    const landed = await signInThroughEmbeddedProvider(client, second, '/unsent');
    const unsent = await client.fetch(landed);
    const html = await unsent.text();
    expect(unsent.status).toBe(200);
    expect(html).not.toContain(pasted);
    expect(html).not.toContain(secretAgentId);
    expect(html).not.toContain('Send it now');
    expect(html).toContain('Nothing waiting to be sent');
    // Dropped, not merely hidden: the first person signing back in finds nothing either.
    expect(client.jar.cookies.get('ccs_unsent') ?? '').toBe('');
    const kept = await server.deps.db.query('SELECT 1 FROM web_form_stashes WHERE fields::text LIKE $1', [
      `%${secretAgentId}%`,
    ]);
    expect(kept.rowCount).toBe(0);
  });

  test('sign-out drops a form kept for the person signing out', async () => {
    const client = webClient(server.baseUrl);
    const person = uniqueSub('leaver');
    await signInThroughEmbeddedProvider(client, person, '/me/agents');
    const csrf = csrfFrom(await (await client.fetch('/me/agents')).text());
    // The session ends on the server (the idle limit, another device's "sign out everywhere").
    const other = await client.fetch('/me');
    const otherCsrf = csrfFrom(await other.text());
    await server.deps.db.query(
      `UPDATE web_sessions SET revoked_at = now()
        WHERE user_id = (SELECT id FROM users WHERE subject = $1) AND revoked_at IS NULL`,
      [person],
    );
    const sent = await client.fetch('/me/agents', {
      method: 'POST',
      form: { _csrf: csrf, name: 'kept for the leaver' },
      headers: { referer: `${server.baseUrl}/me/agents` },
    });
    expect(location(sent)).toBe('/login?return_to=%2Funsent');
    for (const name of [...client.jar.cookies.keys()])
      if (name !== 'ccs_unsent') client.jar.cookies.delete(name);
    // The same person signs in again: the form is there; they sign out without sending it.
    await signInThroughEmbeddedProvider(client, person, '/unsent');
    const shown = await (await client.fetch('/unsent')).text();
    expect(shown).toContain('kept for the leaver');
    expect(otherCsrf).not.toBe(csrfFrom(shown));
    const out = await client.fetch('/logout', { method: 'POST', form: { _csrf: csrfFrom(shown) } });
    expect(out.status).toBe(303);
    expect(client.jar.cookies.get('ccs_unsent') ?? '').toBe('');
    const kept = await server.deps.db.query('SELECT 1 FROM web_form_stashes WHERE fields::text LIKE $1', [
      '%kept for the leaver%',
    ]);
    expect(kept.rowCount).toBe(0);
  });

  test('a cross-site form is not kept (only the usual sign-in redirect)', async () => {
    const client = webClient(server.baseUrl);
    const res = await client.fetch('/me/agents', {
      method: 'POST',
      form: { _csrf: 'x', name: 'from elsewhere' },
      headers: { origin: 'https://evil.example' },
    });
    expect(res.status).toBe(303);
    expect(location(res)).toMatch(/^\/login\?return_to=/);
    expect(location(res)).not.toContain('unsent');
    expect(client.jar.cookies.has('ccs_unsent')).toBe(false);
  });
});
