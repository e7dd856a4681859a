/**
 * No plaintext credential at rest or in the logs. A full flow runs with the API logging at 'trace'
 * into a captured stream: session JWT → agent → API tokens → connector keys → a webhook
 * subscription with a known secret (test event and real deliveries, signed by the API and by the
 * worker) → session, submission, judging, heartbeat, live event → then a series of failed
 * authentications (unknown, revoked, expired, forged, misplaced, malformed credentials, credentials
 * pasted into paths and broken bodies). Afterwards every text-like column of every table
 * (information_schema.columns), every captured log line, test-artifacts/worker.log and every HTTP
 * response but the one-time creation answers are scanned for each plaintext value and for any
 * 20-character window of it (a truncated credential is still a leak).
 */
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { SignJWT } from 'jose';
import { mintSessionJwt } from '../../src/auth/jwt';
import { SCOPES } from '../../src/auth/scopes';
import { sha256Hex } from '../../src/auth/secrets';
import { createLogger } from '../../src/lib/logger';
import { eventually, newUser } from '../helpers/factories';
import { startTestServer, type ApiResponse, type RequestOptions, type TestServer } from '../helpers/server';
import { newChallenge, newIdempotencyKey, waitForSubmission } from '../helpers/submission-factories';
import { startReceiver, type TestReceiver } from '../helpers/webhook-factories';

const lines: string[] = [];
const memory = new Writable({
  write(chunk, _encoding, done) {
    lines.push(chunk.toString());
    done();
  },
});

let server: TestServer;
let receiver: TestReceiver;
const startedAt = Date.now();
/** Every response of the flow: [label, body text]. Creation answers (plaintext shown once) are marked. */
const responses: { label: string; text: string; showsSecretOnce: boolean }[] = [];
const secrets: Record<string, string> = {};

async function call(
  label: string,
  method: string,
  urlPath: string,
  options: RequestOptions = {},
  showsSecretOnce = false,
): Promise<ApiResponse> {
  const res = await server.request(method, urlPath, options);
  responses.push({
    label: `${label} (${method} ${urlPath.slice(0, 60)} → ${res.status})`,
    text: res.text,
    showsSecretOnce,
  });
  return res;
}

/**
 * The value and every 20-character window of it (step 7): a truncated credential is still a leak.
 * Of a JWT only the signature's windows: its header and claims are public base64 that any other
 * JWT issued in the same 100 s shares (an OIDC id_token held by design showed `"iat":17959…`).
 */
function needles(value: string): string[] {
  const parts = value.split('.');
  const secretPart = parts.length === 3 ? parts[2] : value;
  const windows: string[] = [];
  for (let i = 0; i + 20 <= secretPart.length; i += 7) windows.push(secretPart.slice(i, i + 20));
  return [value, ...windows];
}

function findLeak(haystack: string): { what: string; needle: string } | null {
  for (const [what, value] of Object.entries(secrets)) {
    const needle = needles(value).find((n) => haystack.includes(n));
    if (needle) return { what, needle };
  }
  return null;
}

beforeAll(async () => {
  server = await startTestServer(
    { RATE_LIMIT_DISABLED: '1' },
    { logger: createLogger('trace', 'security-secrets', memory) },
  );
  receiver = await startReceiver();
}, 60_000);

afterAll(async () => {
  await receiver?.close();
  await server?.close();
});

test('a full flow, then failed authentications, leave no plaintext credential in the database, the logs or the responses', async () => {
  // ---- credentials -------------------------------------------------------------------------------
  const user = await newUser(server, 'user', 'Secret Keeper');
  secrets['session JWT'] = user.jwt;
  const agent = await call('create agent', 'POST', '/api/v1/agents', {
    auth: user.jwt,
    body: { name: 'keeper', model_name: 'm' },
  });
  const agentId: string = agent.body.data.id;
  const t1 = await call(
    'create token',
    'POST',
    '/api/v1/auth/tokens',
    { auth: user.jwt, body: { name: 'main', scopes: [...SCOPES], agent_id: agentId } },
    true,
  );
  const t2 = await call(
    'create sandbox token',
    'POST',
    '/api/v1/auth/tokens',
    { auth: user.jwt, body: { name: 'sbx', scopes: ['challenge:read'], agent_id: agentId, sandbox: true } },
    true,
  );
  secrets['API token'] = t1.body.data.token;
  secrets['sandbox API token (revoked later)'] = t2.body.data.token;
  const k1 = await call(
    'create key',
    'POST',
    `/api/v1/agents/${agentId}/keys`,
    { auth: user.jwt, body: {} },
    true,
  );
  const k2 = await call(
    'create key 2',
    'POST',
    `/api/v1/agents/${agentId}/keys`,
    { auth: user.jwt, body: { expires_in_hours: 1 } },
    true,
  );
  secrets['connector key'] = k1.body.data.key;
  secrets['connector key (revoked later)'] = k2.body.data.key;
  const token = secrets['API token'];
  const key = secrets['connector key'];

  // ---- a webhook subscription with a known secret --------------------------------------------------
  const webhookSecret = `whsec_${randomBytes(24).toString('hex')}`;
  secrets['webhook secret'] = webhookSecret;
  const events = ['submission.received', 'submission.completed', 'result.finalized'];
  const webhook = await call('create webhook', 'POST', '/api/v1/webhooks', {
    auth: token,
    body: { url: receiver.url, events, secret: webhookSecret },
  });
  expect(webhook.status).toBe(201);
  const tested = await call('test webhook', 'POST', `/api/v1/webhooks/${webhook.body.data.id}/test`, {
    auth: token,
  });
  expect(tested.body.data.delivered).toBe(true);

  // ---- use them: session, submission, judging, deliveries, connector -------------------------------
  const challengeId = await newChallenge(server, { time_limit_minutes: null });
  const session = await call('open session', 'POST', `/api/v1/challenges/${challengeId}/sessions`, {
    auth: token,
    headers: { 'idempotency-key': newIdempotencyKey() },
  });
  expect(session.status).toBe(201);
  const sub = await call('submit', 'POST', `/api/v1/sessions/${session.body.data.session_id}/submissions`, {
    auth: token,
    headers: { 'idempotency-key': newIdempotencyKey() },
    body: { content: 'The answer is 42' },
  });
  expect(sub.status).toBe(201);
  await waitForSubmission(server, token, sub.body.data.id);
  await call('read submission', 'GET', `/api/v1/submissions/${sub.body.data.id}`, { auth: token });
  await call('list tokens', 'GET', '/api/v1/auth/tokens', { auth: token });
  await call('list keys', 'GET', `/api/v1/agents/${agentId}/keys`, { auth: user.jwt });
  await call('list webhooks', 'GET', '/api/v1/webhooks', { auth: user.jwt });
  expect(
    (
      await call('heartbeat', 'POST', '/api/v1/agents/ping', {
        agentKey: key,
        body: { agent_name: 'keeper', version: '1' },
      })
    ).status,
  ).toBe(200);
  const live = await call('stream', 'POST', '/api/v1/events/stream', {
    agentKey: key,
    body: {
      challengeId,
      agentId,
      event: { type: 'progress', timestamp: new Date().toISOString(), percent: 50 },
    },
  });
  expect(live.status).toBe(200);
  // The worker delivered the three events (and signed them with the secret), plus the test event.
  const received = await receiver.waitForRequests(4, 30_000);
  for (const r of received)
    expect(r.headers['x-svc-signature']).toBe(
      `sha256=${createHmac('sha256', webhookSecret).update(r.rawBody).digest('hex')}`,
    );
  await call('list deliveries', 'GET', `/api/v1/webhooks/${webhook.body.data.id}/deliveries`, {
    auth: token,
  });

  // ---- failed authentications ------------------------------------------------------------------------
  const revokeT2 = await call('revoke token', 'DELETE', `/api/v1/auth/tokens/${t2.body.data.id}`, {
    auth: user.jwt,
  });
  expect(revokeT2.status).toBe(200);
  expect(
    (
      await call('revoke key', 'DELETE', `/api/v1/agents/${agentId}/keys/${k2.body.data.id}`, {
        auth: user.jwt,
      })
    ).status,
  ).toBe(200);
  secrets['unknown API token'] = `svc_sk_live_${randomBytes(32).toString('base64url')}`;
  secrets['unknown connector key'] = `aa_${randomBytes(32).toString('base64url')}`;
  secrets['forged JWT'] = await mintSessionJwt(`forger-${randomBytes(16).toString('hex')}`, {
    sub: 'attacker',
    role: 'admin',
  });
  secrets['expired JWT'] = await new SignJWT({ role: 'admin' })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(`expired|${randomUUID()}`)
    .setExpirationTime(Math.floor(Date.now() / 1000) - 60)
    .sign(new TextEncoder().encode(server.config.AUTH_JWT_SECRET));
  const failures: [string, string, string, RequestOptions][] = [
    ['unknown token', 'GET', '/api/v1/agents', { auth: secrets['unknown API token'] }],
    ['revoked token', 'GET', '/api/v1/challenges', { auth: secrets['sandbox API token (revoked later)'] }],
    ['forged JWT', 'GET', '/api/v1/admin/challenges', { auth: secrets['forged JWT'] }],
    [
      'expired JWT',
      'POST',
      '/api/v1/auth/tokens',
      { auth: secrets['expired JWT'], body: { name: 'x', scopes: ['challenge:read'] } },
    ],
    ['unknown key', 'POST', '/api/v1/agents/ping', { agentKey: secrets['unknown connector key'], body: {} }],
    [
      'revoked key',
      'GET',
      '/api/v1/challenges/assigned',
      { agentKey: secrets['connector key (revoked later)'] },
    ],
    ['key as bearer', 'GET', '/api/v1/agents', { auth: key }],
    ['token as key', 'GET', '/api/v1/challenges/assigned', { agentKey: token }],
    ['wrong scheme', 'GET', '/api/v1/agents', { headers: { authorization: `Token ${token}` } }],
    ['extra words', 'GET', '/api/v1/agents', { headers: { authorization: `Bearer ${token} ${key}` } }],
    ['JWT as API token prefix', 'GET', '/api/v1/agents', { auth: `svc_sk_${user.jwt}` }],
    ['token pasted into a path', 'GET', `/api/v1/sessions/${token}`, { auth: token }],
    ['key pasted into a path', 'GET', `/api/v1/agents/${key}`, { auth: user.jwt }],
    ['JWT pasted into a path', 'GET', `/api/v1/submissions/${user.jwt}`, { auth: user.jwt }],
    [
      'token in a query',
      'GET',
      `/api/v1/challenges?category=${token}&cursor=${key}`,
      { auth: secrets['unknown API token'] },
    ],
    [
      'token in a broken body',
      'POST',
      '/api/v1/agents',
      { auth: user.jwt, rawBody: `{"name": "${token}`, headers: { 'content-type': 'application/json' } },
    ],
    [
      'secret in a broken body',
      'POST',
      '/api/v1/webhooks',
      {
        auth: token,
        rawBody: `{"url": "${receiver.url}", "secret": "${webhookSecret}`,
        headers: { 'content-type': 'application/json' },
      },
    ],
    [
      'secret in a refused body',
      'POST',
      '/api/v1/webhooks',
      { auth: token, body: { url: 'http://169.254.169.254/', events, secret: webhookSecret } },
    ],
    [
      'secret with an unknown event',
      'POST',
      '/api/v1/webhooks',
      { auth: token, body: { url: receiver.url, events: ['nope'], secret: webhookSecret } },
    ],
  ];
  for (const [label, method, urlPath, options] of failures) {
    const res = await call(label, method, urlPath, options);
    expect({ label, status: res.status >= 400 && res.status < 500 }).toEqual({ label, status: true });
  }
  secrets.AUTH_JWT_SECRET = server.config.AUTH_JWT_SECRET;
  secrets.WEBHOOK_SECRET_KEY = server.config.WEBHOOK_SECRET_KEY;
  // Give fire-and-forget writes (last_used_at) and the worker's last log lines a moment.
  await eventually(
    async () =>
      (await server.deps.db.query('SELECT count(*)::int AS n FROM outbox_events WHERE dispatched_at IS NULL'))
        .rows[0].n === 0,
  );

  // ---- the database: every text-like column of every table ------------------------------------------
  const columns = await server.deps.db.query<{ table_name: string; column_name: string; data_type: string }>(
    `SELECT c.table_name, c.column_name, c.data_type
       FROM information_schema.columns c JOIN information_schema.tables t USING (table_schema, table_name)
      WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE'
        AND c.data_type IN ('text', 'character varying', 'character', 'json', 'jsonb', 'ARRAY', 'USER-DEFINED', 'bytea')
      ORDER BY c.table_name, c.ordinal_position`,
  );
  const tables = new Map<string, string[]>();
  for (const c of columns.rows)
    tables.set(c.table_name, [...(tables.get(c.table_name) ?? []), c.column_name]);
  expect([...tables.keys()]).toEqual(
    expect.arrayContaining([
      'api_tokens',
      'agent_keys',
      'webhook_subscriptions',
      'webhook_deliveries',
      'idempotency_keys',
      'outbox_events',
      'live_events',
      'users',
    ]),
  );
  let cells = 0;
  const leaksAtRest: string[] = [];
  let foundTokenHash = false;
  for (const [table, cols] of tables) {
    const res = await server.deps.db.query<Record<string, string | null>>(
      `SELECT ${cols.map((c) => `"${c}"::text AS "${c}"`).join(', ')} FROM "${table}"`,
    );
    for (const row of res.rows) {
      for (const [col, value] of Object.entries(row)) {
        if (value === null) continue;
        cells += 1;
        if (value.includes(sha256Hex(token))) foundTokenHash = true;
        const leak = findLeak(value);
        if (leak) leaksAtRest.push(`${table}.${col} holds the ${leak.what} (${leak.needle})`);
      }
    }
  }
  expect(leaksAtRest).toEqual([]);
  // The scan read what matters: the token's hash is there, the secret is stored encrypted.
  expect(foundTokenHash).toBe(true);
  const stored = await server.deps.db.query(
    'SELECT secret_encrypted, secret_prefix FROM webhook_subscriptions WHERE id = $1',
    [webhook.body.data.id],
  );
  expect(stored.rows[0].secret_encrypted.length).toBeGreaterThan(20);
  expect(cells).toBeGreaterThan(50);

  // ---- the logs: the API's (trace) and the worker's ------------------------------------------------------
  const apiLog = lines.join('');
  expect(lines.length).toBeGreaterThanOrEqual(responses.length); // at least one access line per request
  expect(apiLog).toContain('"msg":"request"');
  const workerLogPath = path.resolve(__dirname, '../../test-artifacts/worker.log');
  const workerLines = existsSync(workerLogPath)
    ? readFileSync(workerLogPath, 'utf8')
        .split('\n')
        .filter((l) => {
          const time = /"time":(\d+)/.exec(l);
          return !time || Number(time[1]) >= startedAt - 1000; // this run's lines (the file is shared by suites)
        })
    : [];
  console.log(
    `security-secrets: scanned ${cells} cells in ${tables.size} tables, ${lines.length} API log lines, ${workerLines.length} worker log lines (level ${process.env.LOG_LEVEL ?? '?'}), ${responses.length} responses`,
  );
  for (const [where, text] of [
    ['API log', apiLog],
    ['worker log', workerLines.join('\n')],
  ] as const) {
    const leak = findLeak(text);
    if (leak)
      throw new Error(
        `the ${where} contains the ${leak.what}: ${text
          .split('\n')
          .find((l) => l.includes(leak.needle))
          ?.slice(0, 500)}`,
      );
  }

  // ---- the responses: plaintext only in the one-time creation answers ---------------------------------------
  for (const r of responses.filter((x) => !x.showsSecretOnce)) {
    const leak = findLeak(r.text);
    if (leak) throw new Error(`the response of ${r.label} contains the ${leak.what}`);
  }
  // The failures really were failures that got logged.
  expect(apiLog.match(/"status":401/g)?.length ?? 0).toBeGreaterThanOrEqual(8);
}, 120_000);
