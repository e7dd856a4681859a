/**
 * Scope × route matrix, generated from the route table: every route that exists (including the
 * ones added after this file was written) is probed with no credential, the wrong credential
 * kinds, and API tokens with and without the route's scope. Path ids are random uuids and
 * bodies are `{}`, so handlers answer 4xx (404, 400…) once past authentication: anything but
 * 401/403 proves the authentication layer let the request through.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { openApiSchemaProblems } from '../../src/api/openapi';
import { RATE_LIMIT_CATEGORIES } from '../../src/api/rate-limits';
import { isPageRoute, type AnyRouteDef, type AuthMode } from '../../src/api/route';
import { allRoutes } from '../../src/api/routes';
import { SCOPES, type Scope } from '../../src/auth/scopes';
import { createApiToken } from '../../src/domain/identity';
import { newAdmin, newAgent, newAgentKey, type TestAgent, type TestUser } from '../helpers/factories';
import { startTestServer, type TestServer } from '../helpers/server';
import { manualDeliveries } from '../helpers/webhook-factories';
import { csrfFrom, signInThroughEmbeddedProvider, webClient } from '../helpers/web-session';

const ROUTES = allRoutes();
const AUTH_MODES: AuthMode[] = ['public', 'bearer', 'jwt', 'admin', 'agentKey', 'webSession'];
const label = (def: AnyRouteDef) =>
  `${def.method.toUpperCase()} ${def.path} (${def.operationId}, ${def.auth}${def.scope ? `, ${def.scope}` : ''})`;
const cases: Case[] = ROUTES.map((def) => [label(def), def] as const);

interface Probe {
  status: number;
  body: unknown;
}

let server: TestServer;
let agent: TestAgent;
let admin: TestUser;
let agentKey: string;
/** API tokens of the same agent: every scope but one, exactly one, all of them. */
const allBut = new Map<Scope, string>();
const only = new Map<Scope, string>();
let allScopes: string;
/** The agent's owner signed in on the web: the session cookie and its CSRF token. */
let webCookie: string;
let webCsrf: string;
/** An operator signed in on the web (`demo|admin`, an operator by its role claim in tests): the console's pages. */
let operatorCookie: string;
let operatorCsrf: string;

beforeAll(async () => {
  // The matrix sends many requests per route; budgets are tested in rate-limits.test.ts.
  server = await startTestServer({ RATE_LIMIT_DISABLED: '1', LOG_LEVEL: 'error' });
  agent = await newAgent(server);
  admin = await newAdmin(server);
  agentKey = await newAgentKey(server, agent);
  allScopes = agent.token;
  const user = await server.deps.db.query<{ id: string; name: string | null }>(
    'SELECT u.id, u.name FROM users u JOIN agents a ON a.owner_user_id = u.id WHERE a.id = $1',
    [agent.agentId],
  );
  const owner = { userId: user.rows[0].id, name: user.rows[0].name };
  const issue = async (scopes: Scope[]) =>
    (
      await createApiToken(server.deps.db, owner, {
        name: 'matrix',
        scopes,
        expiresInDays: null,
        agentId: agent.agentId,
        sandbox: false,
      })
    ).token;
  for (const scope of SCOPES) {
    allBut.set(scope, await issue(SCOPES.filter((s) => s !== scope)));
    only.set(scope, await issue([scope]));
  }
  const browser = webClient(server.baseUrl, '203.0.113.9');
  await signInThroughEmbeddedProvider(browser, agent.user.subject);
  webCookie = browser.jar.header();
  webCsrf = csrfFrom(await (await browser.fetch('/me/agents')).text());
  const operatorBrowser = webClient(server.baseUrl, '203.0.113.9');
  await signInThroughEmbeddedProvider(operatorBrowser, 'demo|admin');
  operatorCookie = operatorBrowser.jar.header();
  operatorCsrf = csrfFrom(await (await operatorBrowser.fetch('/me/agents')).text());
});
afterAll(() => server.close());

/** The keys of a z.object, looking through refinements and transforms. */
function objectShape(schema: unknown): Record<string, unknown> | undefined {
  let current = schema;
  while (current instanceof z.ZodEffects) current = current.innerType();
  return current instanceof z.ZodObject ? (current.shape as Record<string, unknown>) : undefined;
}

function concretePath(def: AnyRouteDef): string {
  return def.path.replace(/:([A-Za-z_][A-Za-z0-9_]*)(\([^)]*\))?\??/g, () => randomUUID());
}

/** One request; streaming answers (SSE) are not read beyond their headers. */
async function probe(
  def: AnyRouteDef,
  credential: {
    bearer?: string;
    agentKey?: string;
    webSession?: boolean;
    operatorSession?: boolean;
    /** A session signed in for this probe alone (sign-out ends the session it is sent with). */
    freshSession?: boolean;
  } = {},
): Promise<Probe> {
  const headers: Record<string, string> = { 'x-forwarded-for': '203.0.113.9' };
  if (credential.bearer) headers.authorization = `Bearer ${credential.bearer}`;
  if (credential.agentKey) headers['x-service-api-key'] = credential.agentKey;
  if (credential.webSession) headers.cookie = webCookie;
  if (credential.operatorSession) headers.cookie = operatorCookie;
  let csrf = credential.operatorSession ? operatorCsrf : webCsrf;
  if (credential.freshSession) {
    const fresh = webClient(server.baseUrl, '203.0.113.9');
    await signInThroughEmbeddedProvider(fresh, agent.user.subject);
    headers.cookie = fresh.jar.header();
    csrf = csrfFrom(await (await fresh.fetch('/me/agents')).text());
  }
  const hasBody = def.method !== 'get' && def.method !== 'delete';
  // Pages' forms are form posts (from this origin, with the session's token when signed in).
  const form = def.auth === 'webSession';
  if (hasBody) headers['content-type'] = form ? 'application/x-www-form-urlencoded' : 'application/json';
  if (hasBody && form) headers.origin = server.baseUrl;
  const res = await fetch(server.baseUrl + concretePath(def), {
    method: def.method.toUpperCase(),
    headers,
    body: hasBody ? (form ? new URLSearchParams({ _csrf: csrf }).toString() : '{}') : undefined,
    redirect: 'manual',
    signal: AbortSignal.timeout(15_000),
  });
  const type = res.headers.get('content-type') ?? '';
  if (type.includes('application/json')) return { status: res.status, body: await res.json() };
  // Pages answer their errors as HTML pages (src/web/error-page.ts).
  if (type.includes('text/html') && res.status >= 400)
    return { status: res.status, body: { html: await res.text() } };
  const location = res.headers.get('location');
  await res.body?.cancel();
  return { status: res.status, body: location === null ? null : { location } };
}

/** A signed-out page or form: sent to sign in (or where the route says), never a 401. */
function expectSignInRedirect(res: Probe, def: AnyRouteDef) {
  expect(res.status).toBe(def.method === 'get' ? 302 : 303);
  const location = (res.body as { location: string }).location;
  if (def.whenSignedOut) expect(location).toBe(def.whenSignedOut);
  else expect(location).toMatch(/^\/login\?return_to=/);
}

function expectRefused(res: Probe, def: AnyRouteDef, status: 401 | 403) {
  expect(res.status).toBe(status);
  if (def.auth === 'agentKey') {
    // Connector endpoints answer the flat body.
    expect(res.body).toEqual({ error: expect.any(String) });
  } else if (isPageRoute(def)) {
    // A page's refusal is a page: the error number and a way back, never the route's content.
    expect(res.body).toEqual({ html: expect.stringContaining(`Error ${status}`) });
    expect((res.body as { html: string }).html).toContain('href="/"');
  } else {
    expect(res.body).toEqual({
      error: {
        code: status === 401 ? 'UNAUTHORIZED' : 'FORBIDDEN',
        message: expect.any(String),
        request_id: expect.any(String),
      },
    });
  }
}

/** A signed-in page or form admitted: past authentication, and not sent to sign in (the session held). */
function expectSignedInAnswer(res: Probe) {
  expectAdmitted(res);
  expect((res.body as { location?: string } | null)?.location ?? '').not.toMatch(/^\/login/);
}

/** Past authentication: any answer but 401/403; a 500 on `{}` or a random id is a bug too (503: a dependency is down). */
function expectAdmitted(res: Probe) {
  expect(res.status).not.toBe(401);
  expect(res.status).not.toBe(403);
  if (res.status !== 503) expect(res.status).toBeLessThan(500);
}

type Case = readonly [string, AnyRouteDef];
/** test.each over the cases, or a todo while no route of the kind exists yet. */
function eachRoute(list: Case[], title: string, fn: (def: AnyRouteDef) => Promise<void>) {
  if (list.length === 0) test.todo(`${title}: no such route yet`);
  else test.each(list)(`%s: ${title}`, (_name, def) => fn(def));
}

describe('the route table is well formed', () => {
  test('operations are unique and every route declares an auth mode, a budget and valid scopes', () => {
    expect(ROUTES.length).toBeGreaterThan(10);
    const problems: string[] = [];
    const ids = new Set<string>();
    const endpoints = new Set<string>();
    for (const def of ROUTES) {
      const name = label(def);
      if (ids.has(def.operationId)) problems.push(`${name}: duplicate operationId`);
      ids.add(def.operationId);
      const endpoint = `${def.method} ${def.path.replace(/:[A-Za-z_][A-Za-z0-9_]*/g, ':p')}`;
      if (endpoints.has(endpoint)) problems.push(`${name}: duplicate method and path`);
      endpoints.add(endpoint);
      if (!AUTH_MODES.includes(def.auth))
        problems.push(`${name}: auth must be one of ${AUTH_MODES.join(', ')}`);
      if (!(def.rateLimit in RATE_LIMIT_CATEGORIES))
        problems.push(`${name}: unknown rate-limit category ${String(def.rateLimit)}`);
      if (def.scope !== undefined) {
        if (!(SCOPES as readonly string[]).includes(def.scope))
          problems.push(`${name}: unknown scope ${def.scope}`);
        // A connector key carries no scopes: a scope on an agentKey route would refuse every key.
        // (On jwt/admin routes it is merely inert: JWT callers hold every scope and tokens are refused.)
        if (def.auth === 'agentKey') problems.push(`${name}: connector keys carry no scopes`);
      }
      if (def.idempotent && def.method === 'get')
        problems.push(`${name}: a GET cannot take an Idempotency-Key`);
      if (typeof def.handler !== 'function') problems.push(`${name}: no handler`);
      // Every path parameter is validated by the route's params schema.
      const names = [...def.path.matchAll(/:([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]);
      if (names.length > 0) {
        const shape = objectShape(def.params);
        for (const param of names)
          if (!shape || !(param in shape))
            problems.push(`${name}: path parameter :${param} has no params schema`);
      }
    }
    expect(problems).toEqual([]);
  });

  test("every route's schemas can be rendered in the OpenAPI document", () => {
    expect(openApiSchemaProblems(ROUTES)).toEqual([]);
  });
});

describe('no credential', () => {
  eachRoute([...cases], 'public → admitted, web pages → sign in, otherwise 401', async (def) => {
    const res = await probe(def);
    if (def.auth === 'public') expectAdmitted(res);
    else if (def.auth === 'webSession') expectSignInRedirect(res, def);
    else expectRefused(res, def, 401);
  });
});

describe('an invalid credential is 401 everywhere (never downgraded to anonymous)', () => {
  const apiCases = cases.filter(([, def]) => def.auth !== 'webSession');
  eachRoute(apiCases, 'invalid credential → 401', async (def) => {
    const res =
      def.auth === 'agentKey'
        ? await probe(def, { agentKey: 'aa_not-a-real-key-00000000000000000000000000000' })
        : await probe(def, { bearer: 'svc_sk_live_not-a-real-token-000000000000000000000' });
    expectRefused(res, def, 401);
  });
});

describe('API token scopes', () => {
  const scoped = cases.filter(
    ([, def]) => def.scope !== undefined && (def.auth === 'bearer' || def.auth === 'public'),
  );
  eachRoute(scoped, 'every scope but this one → 403; only this one → admitted', async (def) => {
    expectRefused(await probe(def, { bearer: allBut.get(def.scope!)! }), def, 403);
    expectAdmitted(await probe(def, { bearer: only.get(def.scope!)! }));
  });

  const unscopedBearer = cases.filter(
    ([, def]) => def.scope === undefined && (def.auth === 'bearer' || def.auth === 'public'),
  );
  eachRoute(unscopedBearer, 'needs no scope → a token with all scopes is admitted', async (def) => {
    expectAdmitted(await probe(def, { bearer: allScopes }));
  });
});

describe('credential kinds', () => {
  const bearerOrPublic = cases.filter(([, def]) => def.auth === 'bearer' || def.auth === 'public');
  eachRoute(bearerOrPublic, 'a session JWT acts as the user with every scope', async (def) => {
    expectAdmitted(await probe(def, { bearer: agent.user.jwt }));
  });

  const jwtOnly = cases.filter(([, def]) => def.auth === 'jwt');
  eachRoute(jwtOnly, 'an API token (all scopes) → 403; a session JWT → admitted', async (def) => {
    expectRefused(await probe(def, { bearer: allScopes }), def, 403);
    expectAdmitted(await probe(def, { bearer: agent.user.jwt }));
  });

  const adminOnly = cases.filter(([, def]) => def.auth === 'admin');
  eachRoute(adminOnly, 'an API token → 403; a non-admin JWT → 403; an admin JWT → admitted', async (def) => {
    expectRefused(await probe(def, { bearer: allScopes }), def, 403);
    expectRefused(await probe(def, { bearer: agent.user.jwt }), def, 403);
    expectAdmitted(await probe(def, { bearer: admin.jwt }));
  });

  const webPages = cases.filter(([, def]) => def.auth === 'webSession' && !def.operatorsOnly);
  eachRoute(webPages, 'bearer credentials never sign a page in; the web session does', async (def) => {
    for (const bearer of [allScopes, agent.user.jwt, admin.jwt, 'svc_sk_live_not-a-real-token-0000000000000'])
      expectSignInRedirect(await probe(def, { bearer }), def);
    // Signing out ends the session it is sent with: that probe gets a session of its own, so the
    // shared one stays signed in for every other route.
    const endsSession = def.method === 'post' && def.path === '/logout';
    expectSignedInAnswer(await probe(def, endsSession ? { freshSession: true } : { webSession: true }));
  });

  const consolePages = cases.filter(([, def]) => def.auth === 'webSession' && def.operatorsOnly);
  eachRoute(
    consolePages,
    "bearer credentials never sign the console in; a person's session → the 403 page; an operator's → admitted",
    async (def) => {
      for (const bearer of [allScopes, agent.user.jwt, admin.jwt])
        expectSignInRedirect(await probe(def, { bearer }), def);
      expectRefused(await probe(def, { webSession: true }), def, 403);
      expectSignedInAnswer(await probe(def, { operatorSession: true }));
    },
  );

  test('the console is every page under /admin, and only those', () => {
    const consolePaths = ROUTES.filter((def) => def.operatorsOnly).map((def) => def.path);
    expect(consolePaths.length).toBeGreaterThan(0);
    for (const def of ROUTES)
      if (def.path === '/admin' || def.path.startsWith('/admin/'))
        expect([def.operationId, def.auth, def.operatorsOnly]).toEqual([def.operationId, 'webSession', true]);
    for (const path of consolePaths) expect(path === '/admin' || path.startsWith('/admin/')).toBe(true);
  });

  const apiRoutes = cases.filter(([, def]) => def.auth !== 'webSession' && !def.showsAccount);
  eachRoute(apiRoutes, 'the web session cookie is no API credential (anonymous)', async (def) => {
    const res = await probe(def, { webSession: true });
    if (def.auth === 'public') expectAdmitted(res);
    else expectRefused(res, def, 401);
  });

  const connector = cases.filter(([, def]) => def.auth === 'agentKey');
  eachRoute(connector, 'a bearer credential is 401; the agent key passes authentication', async (def) => {
    expectRefused(await probe(def, { bearer: allScopes }), def, 401);
    expectRefused(await probe(def, { bearer: agent.user.jwt }), def, 401);
    // 403 stays possible past authentication (e.g. "agent not in an active challenge").
    const res = await probe(def, { agentKey });
    expect(res.status).not.toBe(401);
    if (res.status !== 503) expect(res.status).toBeLessThan(500);
  });
});

describe("a subscriber never reaches another's subscription or deliveries", () => {
  // Every route under a subscription (its deliveries, one delivery, replays, test, edit, delete),
  // generated from the route table: another user's credential is 404 and changes nothing.
  const subscriptionScoped = cases.filter(
    ([, def]) => def.auth === 'bearer' && def.path.startsWith('/api/v1/webhooks/:id'),
  );
  let ownerSub: string;
  let ownerDelivery: string;
  let stranger: TestAgent;
  beforeAll(async () => {
    const created = await server.request('POST', '/api/v1/webhooks', {
      auth: agent.user.jwt,
      body: {
        url: 'http://127.0.0.1:9/hook',
        events: ['result.finalized'],
        secret: 'whsec-matrix-0123456789',
      },
    });
    expect(created.status).toBe(201);
    ownerSub = created.body.data.id;
    const ownerId = (
      await server.deps.db.query<{ owner_user_id: string }>(
        'SELECT owner_user_id FROM webhook_subscriptions WHERE id = $1',
        [ownerSub],
      )
    ).rows[0].owner_user_id;
    ownerDelivery = (
      await manualDeliveries(server.deps.db, {
        type: 'result.finalized',
        payload: {
          submission_id: randomUUID(),
          final_score: 71,
          result_state: 'scored',
          challenge_id: randomUUID(),
        },
        ownerUserId: ownerId,
      })
    ).deliveryIds[0];
    stranger = await newAgent(server);
    const strangerBrowser = webClient(server.baseUrl, '203.0.113.9');
    await signInThroughEmbeddedProvider(strangerBrowser, stranger.user.subject);
    strangerCookie = strangerBrowser.jar.header();
    strangerCsrf = csrfFrom(await (await strangerBrowser.fetch('/me/agents')).text());
  });
  let strangerCookie: string;
  let strangerCsrf: string;

  // The same for the subscriber's pages and forms under /me/webhooks/:id: another signed-in
  // person gets the 404 page (not 403: existence is not revealed), never the data.
  const subscriptionPages = cases.filter(
    ([, def]) => def.auth === 'webSession' && def.path.startsWith('/me/webhooks/:id'),
  );
  eachRoute(
    subscriptionPages,
    "another person's web session → the 404 page, nothing changes",
    async (def) => {
      const path = def.path.replace(':id', ownerSub).replace(':deliveryId', ownerDelivery);
      const before = await server.deps.db.query(
        'SELECT d.status, d.series, d.attempt_count, s.status AS sub_status FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id WHERE d.id = $1',
        [ownerDelivery],
      );
      const res = await fetch(server.baseUrl + path, {
        method: def.method.toUpperCase(),
        headers: {
          cookie: strangerCookie,
          'x-forwarded-for': '203.0.113.9',
          ...(def.method === 'post'
            ? { 'content-type': 'application/x-www-form-urlencoded', origin: server.baseUrl }
            : {}),
        },
        body: def.method === 'post' ? new URLSearchParams({ _csrf: strangerCsrf }).toString() : undefined,
        redirect: 'manual',
      });
      const html = await res.text();
      expect([res.status, html.includes('Error 404')]).toEqual([404, true]);
      expect(html).not.toContain(ownerDelivery);
      expect(html).not.toContain('127.0.0.1:9/hook');
      const after = await server.deps.db.query(
        'SELECT d.status, d.series, d.attempt_count, s.status AS sub_status FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id WHERE d.id = $1',
        [ownerDelivery],
      );
      expect(after.rows).toEqual(before.rows);
    },
  );

  eachRoute(subscriptionScoped, "another user's JWT or token → 404, nothing changes", async (def) => {
    const path = def.path.replace(':id', ownerSub).replace(':deliveryId', ownerDelivery);
    const before = await server.deps.db.query(
      'SELECT status, series, attempt_count FROM webhook_deliveries WHERE id = $1',
      [ownerDelivery],
    );
    for (const bearer of [stranger.user.jwt, stranger.token]) {
      const hasBody = def.method !== 'get' && def.method !== 'delete';
      const res = await fetch(server.baseUrl + path, {
        method: def.method.toUpperCase(),
        headers: {
          authorization: `Bearer ${bearer}`,
          'x-forwarded-for': '203.0.113.9',
          ...(hasBody ? { 'content-type': 'application/json' } : {}),
        },
        body: hasBody ? JSON.stringify(def.method === 'patch' ? { active: true } : {}) : undefined,
      });
      const body = (await res.json()) as { error?: { code: string } };
      expect([res.status, body.error?.code]).toEqual([404, 'NOT_FOUND']);
    }
    const after = await server.deps.db.query(
      'SELECT status, series, attempt_count FROM webhook_deliveries WHERE id = $1',
      [ownerDelivery],
    );
    expect(after.rows).toEqual(before.rows);
    const sub = await server.request('GET', `/api/v1/webhooks/${ownerSub}`, { auth: agent.user.jwt });
    expect(sub.body.data.status).toBe('active');
  });

  test('the owner reads the delivery; an operator does too', async () => {
    for (const auth of [agent.user.jwt, admin.jwt]) {
      const res = await server.request('GET', `/api/v1/webhooks/${ownerSub}/deliveries/${ownerDelivery}`, {
        auth,
      });
      expect([res.status, res.body.data?.id]).toEqual([200, ownerDelivery]);
    }
  });
});
