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
import type { AnyRouteDef, AuthMode } from '../../src/api/route';
import { allRoutes } from '../../src/api/routes';
import { SCOPES, type Scope } from '../../src/auth/scopes';
import { createApiToken } from '../../src/domain/identity';
import { newAdmin, newAgent, newAgentKey, type TestAgent, type TestUser } from '../helpers/factories';
import { startTestServer, type TestServer } from '../helpers/server';

const ROUTES = allRoutes();
const AUTH_MODES: AuthMode[] = ['public', 'bearer', 'jwt', 'admin', 'agentKey'];
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
  credential: { bearer?: string; agentKey?: string } = {},
): Promise<Probe> {
  const headers: Record<string, string> = { 'x-forwarded-for': '203.0.113.9' };
  if (credential.bearer) headers.authorization = `Bearer ${credential.bearer}`;
  if (credential.agentKey) headers['x-service-api-key'] = credential.agentKey;
  const hasBody = def.method !== 'get' && def.method !== 'delete';
  if (hasBody) headers['content-type'] = 'application/json';
  const res = await fetch(server.baseUrl + concretePath(def), {
    method: def.method.toUpperCase(),
    headers,
    body: hasBody ? '{}' : undefined,
    signal: AbortSignal.timeout(15_000),
  });
  const type = res.headers.get('content-type') ?? '';
  if (type.includes('application/json')) return { status: res.status, body: await res.json() };
  await res.body?.cancel();
  return { status: res.status, body: null };
}

function expectRefused(res: Probe, def: AnyRouteDef, status: 401 | 403) {
  expect(res.status).toBe(status);
  if (def.auth === 'agentKey') {
    // Connector endpoints answer the flat body.
    expect(res.body).toEqual({ error: expect.any(String) });
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
  eachRoute([...cases], 'public → admitted, otherwise 401', async (def) => {
    const res = await probe(def);
    if (def.auth === 'public') expectAdmitted(res);
    else expectRefused(res, def, 401);
  });
});

describe('an invalid credential is 401 everywhere (never downgraded to anonymous)', () => {
  eachRoute([...cases], 'invalid credential → 401', async (def) => {
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
