/**
 * Isolation between owners, table-driven: agent A (and its owner user A) owns a session, a judged
 * submission with its result and breakdown, a webhook subscription with a delivery, a connector key
 * and API tokens. Another user's agent (B's API token), that user (B's session JWT), and, where the
 * resource belongs to an agent rather than the user, A's own second agent try to read or change
 * each of them. Each attempt must be refused as the route documents (404 so ids do not leak; 403
 * where the spec says so), the breakdown is the spectator view, listings leave A's items out —
 * and afterwards the database is byte-for-byte what it was and A's resources still work.
 */
import { randomUUID } from 'node:crypto';
import {
  eventually,
  newAdmin,
  newAgent,
  newAgentKey,
  type TestAgent,
  type TestUser,
} from '../helpers/factories';
import { DbWatch, type Fingerprint } from '../helpers/route-table';
import { startTestServer, type ApiResponse, type TestServer } from '../helpers/server';
import { newChallenge, sessionFor, submit, waitForSubmission } from '../helpers/submission-factories';
import { createWebhook, startReceiver, type TestReceiver } from '../helpers/webhook-factories';

let server: TestServer;
let receiver: TestReceiver;
/** The victim: user A's agent A1 (token with every scope). */
let a: TestAgent;
/** User A's second agent: same owner, another agent. */
let a2: TestAgent;
/** User A's sandbox agent. */
let aSandbox: TestAgent;
/** The attacker: another user's agent (token with every scope) and that user's JWT. */
let b: TestAgent;
let bKey: string;
let admin: TestUser;
const ids: Record<string, string> = {};
let since: string;

beforeAll(async () => {
  server = await startTestServer({ RATE_LIMIT_DISABLED: '1' });
  // Before any fixture: what the fingerprint has to hash (see DbWatch).
  since = await DbWatch.currentXid(server.deps.db);
  receiver = await startReceiver();
  a = await newAgent(server, { name: 'victim' });
  a2 = await newAgent(server, { name: 'victim-second', user: a.user });
  aSandbox = await newAgent(server, { name: 'victim-sandbox', user: a.user, sandbox: true });
  b = await newAgent(server, { name: 'attacker' });
  bKey = await newAgentKey(server, b);
  admin = await newAdmin(server);
  // A session JWT's first use provisions its user row: do it now, not during the measured attempts.
  await server.request('GET', '/api/v1/agents', { auth: admin.jwt });

  ids.challenge = await newChallenge(server, { time_limit_minutes: null });
  const webhook = await createWebhook(server, a.token, { url: receiver.url, events: ['result.finalized'] });
  ids.webhook = webhook.id;
  ids.session = await sessionFor(server, a, ids.challenge);
  const sub = await submit(server, a.token, ids.session, { content: 'The answer is 42' });
  const judged = await waitForSubmission(server, a.token, sub.body.data.id);
  ids.submission = judged.id;
  ids.result = judged.result.id;
  const sandboxSession = await sessionFor(server, aSandbox, ids.challenge);
  const sandboxSub = await submit(server, aSandbox.token, sandboxSession, { content: 'The answer is 42' });
  ids.sandboxSubmission = (await waitForSubmission(server, aSandbox.token, sandboxSub.body.data.id)).id;
  ids.delivery = await eventually(async () => {
    const res = await server.deps.db.query<{ id: string }>(
      "SELECT id FROM webhook_deliveries WHERE subscription_id = $1 AND status = 'delivered'",
      [ids.webhook],
    );
    return res.rows[0]?.id;
  });
  ids.agent = a.agentId;
  ids.token = a.tokenId;
  const key = await server.request('POST', `/api/v1/agents/${a.agentId}/keys`, {
    auth: a.user.jwt,
    body: {},
  });
  ids.key = key.body.data.id;
  ids.keyPlain = key.body.data.key;
}, 120_000);

afterAll(async () => {
  await receiver?.close();
  await server?.close();
});

type Actor = 'B token' | 'B JWT' | 'A2 token';
const credential = (actor: Actor) =>
  actor === 'B token' ? b.token : actor === 'B JWT' ? b.user.jwt : a2.token;

interface Attempt {
  what: string;
  actors: Actor[];
  method: string;
  path: () => string;
  /** Built when the test runs (ids are known by then). */
  body?: () => unknown;
  status: number;
  code: string;
}

/** Every route × cross-owner attempt that must be refused. */
const ATTEMPTS: Attempt[] = [
  // sessions (owned by the agent: A's second agent is another agent)
  {
    what: 'read a session',
    actors: ['B token', 'B JWT', 'A2 token'],
    method: 'GET',
    path: () => `/api/v1/sessions/${ids.session}`,
    status: 404,
    code: 'NOT_FOUND',
  },
  {
    what: 'close a session',
    actors: ['B token', 'B JWT', 'A2 token'],
    method: 'DELETE',
    path: () => `/api/v1/sessions/${ids.session}`,
    status: 404,
    code: 'NOT_FOUND',
  },
  {
    what: 'submit to a session',
    actors: ['B token', 'B JWT', 'A2 token'],
    method: 'POST',
    path: () => `/api/v1/sessions/${ids.session}/submissions`,
    body: () => ({ content: 'hijack' }),
    status: 404,
    code: 'NOT_FOUND',
  },
  {
    what: 'open a session for the agent',
    actors: ['B JWT'],
    method: 'POST',
    path: () => `/api/v1/challenges/${ids.challenge}/sessions?agent_id=${ids.agent}`,
    status: 404,
    code: 'NOT_FOUND',
  },
  {
    what: 'open a session for the agent',
    actors: ['B token', 'A2 token'],
    method: 'POST',
    path: () => `/api/v1/challenges/${ids.challenge}/sessions?agent_id=${ids.agent}`,
    status: 403,
    code: 'FORBIDDEN',
  },
  {
    what: 'enter the agent in a challenge',
    actors: ['B JWT'],
    method: 'POST',
    path: () => `/api/v1/challenges/${ids.challenge}/entries`,
    body: () => ({ agent_id: ids.agent }),
    status: 404,
    code: 'NOT_FOUND',
  },
  // submissions and results
  {
    what: 'read a submission',
    actors: ['B token', 'B JWT', 'A2 token'],
    method: 'GET',
    path: () => `/api/v1/submissions/${ids.submission}`,
    status: 404,
    code: 'NOT_FOUND',
  },
  {
    what: "read a sandbox submission's breakdown",
    actors: ['B token', 'B JWT'],
    method: 'GET',
    path: () => `/api/v1/submissions/${ids.sandboxSubmission}/breakdown`,
    status: 404,
    code: 'NOT_FOUND',
  },
  {
    what: 'read a result by result id',
    actors: ['B token', 'B JWT', 'A2 token'],
    method: 'GET',
    path: () => `/api/v1/results/${ids.result}`,
    status: 403,
    code: 'FORBIDDEN',
  },
  {
    what: 'read a result by submission id',
    actors: ['B token', 'B JWT', 'A2 token'],
    method: 'GET',
    path: () => `/api/v1/results/${ids.submission}`,
    status: 403,
    code: 'FORBIDDEN',
  },
  {
    what: 'rejudge a submission',
    actors: ['B JWT'],
    method: 'POST',
    path: () => `/api/v1/admin/submissions/${ids.submission}/rejudge`,
    status: 403,
    code: 'FORBIDDEN',
  },
  // webhooks (owned by the user: A's second agent is the same owner, so only B)
  {
    what: 'read a webhook subscription',
    actors: ['B token', 'B JWT'],
    method: 'GET',
    path: () => `/api/v1/webhooks/${ids.webhook}`,
    status: 404,
    code: 'NOT_FOUND',
  },
  {
    what: 'delete a webhook subscription',
    actors: ['B token', 'B JWT'],
    method: 'DELETE',
    path: () => `/api/v1/webhooks/${ids.webhook}`,
    status: 404,
    code: 'NOT_FOUND',
  },
  {
    what: 're-enable a webhook subscription',
    actors: ['B token', 'B JWT'],
    method: 'PATCH',
    path: () => `/api/v1/webhooks/${ids.webhook}`,
    body: () => ({ active: true }),
    status: 404,
    code: 'NOT_FOUND',
  },
  {
    what: 'send a test event',
    actors: ['B token', 'B JWT'],
    method: 'POST',
    path: () => `/api/v1/webhooks/${ids.webhook}/test`,
    status: 404,
    code: 'NOT_FOUND',
  },
  {
    what: 'list deliveries',
    actors: ['B token', 'B JWT'],
    method: 'GET',
    path: () => `/api/v1/webhooks/${ids.webhook}/deliveries`,
    status: 404,
    code: 'NOT_FOUND',
  },
  {
    what: 'replay a delivery',
    actors: ['B token', 'B JWT'],
    method: 'POST',
    path: () => `/api/v1/webhooks/${ids.webhook}/deliveries/${ids.delivery}/replay`,
    status: 404,
    code: 'NOT_FOUND',
  },
  {
    what: 'replay a delivery through own subscription id',
    actors: ['B token'],
    method: 'POST',
    path: () => `/api/v1/webhooks/${ids.bWebhook}/deliveries/${ids.delivery}/replay`,
    status: 404,
    code: 'NOT_FOUND',
  },
  // agent profile
  {
    what: 'read the agent profile',
    actors: ['B token', 'B JWT', 'A2 token'],
    method: 'GET',
    path: () => `/api/v1/agents/${ids.agent}`,
    status: 404,
    code: 'NOT_FOUND',
  },
  {
    what: 'change the agent profile',
    actors: ['B token', 'B JWT', 'A2 token'],
    method: 'PATCH',
    path: () => `/api/v1/agents/${ids.agent}`,
    body: () => ({ name: 'pwned' }),
    status: 404,
    code: 'NOT_FOUND',
  },
  // connector keys (session JWT routes)
  {
    what: 'issue a connector key for the agent',
    actors: ['B JWT'],
    method: 'POST',
    path: () => `/api/v1/agents/${ids.agent}/keys`,
    body: () => ({}),
    status: 404,
    code: 'NOT_FOUND',
  },
  {
    what: "list the agent's connector keys",
    actors: ['B JWT'],
    method: 'GET',
    path: () => `/api/v1/agents/${ids.agent}/keys`,
    status: 404,
    code: 'NOT_FOUND',
  },
  {
    what: "revoke the agent's connector key",
    actors: ['B JWT'],
    method: 'DELETE',
    path: () => `/api/v1/agents/${ids.agent}/keys/${ids.key}`,
    status: 404,
    code: 'NOT_FOUND',
  },
  {
    what: 'revoke the key through an own agent id',
    actors: ['B JWT'],
    method: 'DELETE',
    path: () => `/api/v1/agents/${b.agentId}/keys/${ids.key}`,
    status: 404,
    code: 'NOT_FOUND',
  },
  // API tokens
  {
    what: 'revoke an API token',
    actors: ['B token', 'B JWT'],
    method: 'DELETE',
    path: () => `/api/v1/auth/tokens/${ids.token}`,
    status: 404,
    code: 'NOT_FOUND',
  },
  {
    what: 'revoke a sibling API token',
    actors: ['A2 token'],
    method: 'DELETE',
    path: () => `/api/v1/auth/tokens/${ids.token}`,
    status: 403,
    code: 'FORBIDDEN',
  },
  // operators' undelayed live view
  {
    what: 'read the undelayed live feed',
    actors: ['B JWT', 'B token'],
    method: 'GET',
    path: () => `/api/v1/challenges/${ids.challenge}/events?live=1`,
    status: 403,
    code: 'FORBIDDEN',
  },
];

const cases = ATTEMPTS.flatMap((attempt) =>
  attempt.actors.map((actor) => [`${actor}: ${attempt.what} → ${attempt.status}`, actor, attempt] as const),
);

function expectRefused(res: ApiResponse, status: number, code: string) {
  expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status, code });
  expect(res.body.error.request_id).toBe(res.headers.get('x-request-id'));
}

describe("another owner's resources", () => {
  let before: Fingerprint;
  let watch: DbWatch;
  beforeAll(async () => {
    ids.bWebhook = (
      await createWebhook(server, b.token, { url: receiver.url, events: ['challenge.retired'] })
    ).id;
    // Every row of both owners' worlds (other suites may share the database: see DbWatch).
    watch = new DbWatch(server.deps.db, since);
    const users = await server.deps.db.query('SELECT id FROM users WHERE subject = ANY($1)', [
      [a.user.subject, b.user.subject, admin.subject],
    ]);
    watch.watch(users.rows, ids, a, a2, aSandbox, b);
    before = await watch.quiesce();
  });

  test.each(cases)('%s', async (_name, actor, attempt) => {
    const res = await server.request(attempt.method, attempt.path(), {
      auth: credential(actor),
      body: attempt.body?.(),
    });
    expectRefused(res, attempt.status, attempt.code);
  });

  test('a connector key cannot stream for another agent', async () => {
    const res = await server.request('POST', '/api/v1/events/stream', {
      agentKey: bKey,
      body: {
        challengeId: ids.challenge,
        agentId: ids.agent,
        event: { type: 'progress', timestamp: new Date().toISOString(), percent: 99 },
      },
    });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: expect.any(String) });
  });

  test("another agent gets the spectator breakdown, never the competitor's", async () => {
    for (const actor of ['B token', 'B JWT', 'A2 token'] as Actor[]) {
      const res = await server.request('GET', `/api/v1/submissions/${ids.submission}/breakdown`, {
        auth: credential(actor),
      });
      expect({ actor, status: res.status, audience: res.body.data?.audience }).toEqual({
        actor,
        status: 200,
        audience: 'spectator',
      });
      const view = res.body.data;
      expect(view.summary).toBeUndefined();
      expect(view.details).toBeUndefined();
      for (const c of view.criteria) expect(Object.keys(c).sort()).toEqual(['name', 'score']);
      // The hidden criterion of RUBRIC_JUDGE is only a count.
      expect(view.criteria.map((c: { name: string }) => c.name)).not.toContain('style');
    }
    const own = await server.request('GET', `/api/v1/submissions/${ids.submission}/breakdown`, {
      auth: a.token,
    });
    expect(own.body.data.audience).toBe('competitor');
    const ownerJwt = await server.request('GET', `/api/v1/submissions/${ids.submission}/breakdown`, {
      auth: a.user.jwt,
    });
    expect(ownerJwt.body.data.audience).toBe('competitor');
    const operator = await server.request('GET', `/api/v1/submissions/${ids.submission}/breakdown`, {
      auth: admin.jwt,
    });
    expect(operator.body.data.audience).toBe('admin');
  });

  test("listings leave the other owner's items out", async () => {
    const has = (res: ApiResponse, id: string) => JSON.stringify(res.body.data).includes(id);
    for (const actor of ['B token', 'B JWT'] as Actor[]) {
      const auth = credential(actor);
      expect(has(await server.request('GET', '/api/v1/webhooks', { auth }), ids.webhook)).toBe(false);
      expect(has(await server.request('GET', '/api/v1/auth/tokens', { auth }), ids.token)).toBe(false);
      expect(has(await server.request('GET', '/api/v1/agents', { auth }), ids.agent)).toBe(false);
    }
    expect(has(await server.request('GET', '/api/v1/agents', { auth: a2.token }), ids.agent)).toBe(false);
    const entries = await server.request('GET', `/api/v1/challenges/${ids.challenge}/entries`, {
      auth: b.user.jwt,
    });
    expect(entries.status).toBe(200);
    expect(has(entries, ids.agent)).toBe(false);
    // B's own subscription sees none of A's deliveries.
    const bDeliveries = await server.request('GET', `/api/v1/webhooks/${ids.bWebhook}/deliveries`, {
      auth: b.token,
    });
    expect(bDeliveries.status).toBe(200);
    expect(has(bDeliveries, ids.delivery)).toBe(false);
  });

  test('nothing changed, and every resource of the owner still works', async () => {
    expect(watch.diff(before, await watch.fingerprint())).toEqual([]);
    const session = await server.request('GET', `/api/v1/sessions/${ids.session}`, { auth: a.token });
    expect({
      status: session.status,
      open: session.body.data.open,
      submissions: session.body.data.submissions.length,
    }).toEqual({ status: 200, open: true, submissions: 1 });
    const webhook = await server.request('GET', `/api/v1/webhooks/${ids.webhook}`, { auth: a.user.jwt });
    expect(webhook.body.data.status).toBe('active');
    const agent = await server.request('GET', `/api/v1/agents/${ids.agent}`, { auth: a.token });
    expect(agent.body.data.name).toBe('victim');
    expect(
      (await server.request('GET', '/api/v1/challenges/assigned', { agentKey: ids.keyPlain })).status,
    ).toBe(200);
    expect((await server.request('GET', `/api/v1/results/${ids.result}`, { auth: a.token })).status).toBe(
      200,
    );
    expect(
      (await server.request('GET', `/api/v1/submissions/${ids.submission}`, { auth: a.user.jwt })).status,
    ).toBe(200);
  });

  test('a random id is as unknown as a foreign one (same status, same code)', async () => {
    for (const path of [
      `/api/v1/sessions/${randomUUID()}`,
      `/api/v1/submissions/${randomUUID()}`,
      `/api/v1/webhooks/${randomUUID()}`,
      `/api/v1/agents/${randomUUID()}`,
    ]) {
      expectRefused(await server.request('GET', path, { auth: b.token }), 404, 'NOT_FOUND');
    }
  });
});
