/**
 * Issue 29 over HTTP: submissions_left for an agent's credential, agent names by DESIGN's rule
 * (and the heartbeat that ignores an invalid one), deleting an agent, a request body that never
 * arrives (408), and case-insensitive category/format filters.
 */
import net from 'node:net';
import { newAgent, newAgentKey, newUser } from '../helpers/factories';
import { newChallenge, sessionFor, submit } from '../helpers/submission-factories';
import { expectError, startTestServer, type TestServer } from '../helpers/server';
import { uniqueCategory } from '../helpers/challenge-factories';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ RATE_LIMIT_DISABLED: '1', REQUEST_TIMEOUT_MS: '1500' });
});
afterAll(() => server.close());

jest.setTimeout(120_000);

test('submissions_left: per session and per rolling day for an API token; null for a person or anonymous', async () => {
  const agent = await newAgent(server);
  const challengeId = await newChallenge(server, {
    max_submissions_per_session: 3,
    max_submissions_per_day: 5,
  });
  const before = await server.request('GET', `/api/v1/challenges/${challengeId}`, { auth: agent.token });
  expect(before.body.data.submissions_left).toEqual({ session: 3, day: 5, day_resets_at: null });
  const sessionId = await sessionFor(server, agent, challengeId);
  const res = await submit(server, agent.token, sessionId, { content: 'The answer is 42' });
  expect(res.status).toBe(201);
  const after = await server.request('GET', `/api/v1/challenges/${challengeId}`, { auth: agent.token });
  const left = after.body.data.submissions_left;
  expect(left).toMatchObject({ session: 2, day: 4 });
  const submittedAt = new Date(res.body.data.created_at).getTime();
  expect(new Date(left.day_resets_at).getTime()).toBe(submittedAt + 24 * 3600 * 1000);
  const session = await server.request('GET', `/api/v1/sessions/${sessionId}`, { auth: agent.token });
  expect(session.body.data.submissions_left).toEqual(left);
  // A refused submission counts against nothing.
  expectError(await submit(server, agent.token, sessionId, { content: ' ' }), 400, 'VALIDATION_ERROR');
  const same = await server.request('GET', `/api/v1/challenges/${challengeId}`, { auth: agent.token });
  expect(same.body.data.submissions_left).toEqual(left);
  for (const auth of [undefined, agent.user.jwt]) {
    const other = await server.request('GET', `/api/v1/challenges/${challengeId}`, { auth });
    expect(other.body.data.submissions_left).toBeNull();
  }
  const unlimited = await newChallenge(server, { max_submissions_per_day: null });
  const u = await server.request('GET', `/api/v1/challenges/${unlimited}`, { auth: agent.token });
  expect(u.body.data.submissions_left).toEqual({ session: 10, day: null, day_resets_at: null });
});

test('agent names: control or zero-width characters and blank names are refused; names are trimmed', async () => {
  const user = await newUser(server);
  for (const name of ['a\u0001b', 'zero\u200bwidth', '\u200b', '   ', '\u3164', 'x'.repeat(101), '']) {
    const res = await server.request('POST', '/api/v1/agents', { auth: user.jwt, body: { name } });
    expectError(res, 400, 'VALIDATION_ERROR');
  }
  const ok = await server.request('POST', '/api/v1/agents', {
    auth: user.jwt,
    body: { name: `  ${'é'.repeat(100)}  ` },
  });
  expect(ok.status).toBe(201);
  expect(ok.body.data.name).toBe('é'.repeat(100));
  const rename = await server.request('PATCH', `/api/v1/agents/${ok.body.data.id}`, {
    auth: user.jwt,
    body: { name: 'tab\there' },
  });
  expectError(rename, 400, 'VALIDATION_ERROR');
});

test('the heartbeat ignores an invalid agent_name: 200, the old name kept', async () => {
  const agent = await newAgent(server, { name: 'keeps-its-name' });
  const key = await newAgentKey(server, agent);
  // (NUL is refused in every JSON body before any route, 400 as everywhere; BEL is a control character.)
  for (const agent_name of ['\u200b\u200b', '   ', 'bad\u0007name']) {
    const ping = await server.request('POST', '/api/v1/agents/ping', { agentKey: key, body: { agent_name } });
    expect(ping.status).toBe(200);
  }
  const renamed = await server.request('POST', '/api/v1/agents/ping', {
    agentKey: key,
    body: { agent_name: '  new name ' },
  });
  expect(renamed.status).toBe(200);
  const got = await server.request('GET', `/api/v1/agents/${agent.agentId}`, { auth: agent.user.jwt });
  expect(got.body.data.name).toBe('new name');
});

test('DELETE /api/v1/agents/{id}: keys and tokens 401 after, gone from listings, results stay, audited', async () => {
  const agent = await newAgent(server, { name: 'to-be-deleted' });
  const key = await newAgentKey(server, agent);
  const challengeId = await newChallenge(server);
  const sessionId = await sessionFor(server, agent, challengeId);
  const submitted = await submit(server, agent.token, sessionId, { content: 'The answer is 42' });
  expect(submitted.status).toBe(201);

  const stranger = await newUser(server);
  expectError(
    await server.request('DELETE', `/api/v1/agents/${agent.agentId}`, { auth: stranger.jwt }),
    404,
    'NOT_FOUND',
  );
  const res = await server.request('DELETE', `/api/v1/agents/${agent.agentId}`, { auth: agent.user.jwt });
  expect(res.status).toBe(200);
  expect(res.body.data).toMatchObject({
    id: agent.agentId,
    name: 'to-be-deleted',
    revoked_keys: 1,
    revoked_tokens: 1,
  });

  expectError(await server.request('GET', '/api/v1/agents', { auth: agent.token }), 401, 'UNAUTHORIZED');
  const ping = await server.request('POST', '/api/v1/agents/ping', { agentKey: key, body: {} });
  expect(ping.status).toBe(401);
  const mine = await server.request('GET', '/api/v1/agents', { auth: agent.user.jwt });
  expect(mine.body.data.map((a: { id: string }) => a.id)).not.toContain(agent.agentId);
  expectError(
    await server.request('GET', `/api/v1/agents/${agent.agentId}`, { auth: agent.user.jwt }),
    404,
    'NOT_FOUND',
  );
  expectError(
    await server.request('DELETE', `/api/v1/agents/${agent.agentId}`, { auth: agent.user.jwt }),
    404,
    'NOT_FOUND',
  );
  // The submission stays, under the agent's name.
  const kept = await server.deps.db.query(
    'SELECT a.name FROM submissions s JOIN agents a ON a.id = s.agent_id WHERE s.id = $1',
    [submitted.body.data.id],
  );
  expect(kept.rows).toEqual([{ name: 'to-be-deleted' }]);
  const audit = await server.deps.db.query(
    "SELECT action, target_type, detail FROM audit_records WHERE target_id = $1 AND action = 'agent.delete'",
    [agent.agentId],
  );
  expect(audit.rows).toEqual([
    {
      action: 'agent.delete',
      target_type: 'agent',
      detail: expect.objectContaining({ name: 'to-be-deleted' }),
    },
  ]);
});

test('a request body dripped slowly is answered 408 REQUEST_TIMEOUT and the connection closed', async () => {
  // Signed in, so the body is read (an anonymous request is refused 401 before its body).
  const user = await newUser(server);
  const { port } = new URL(server.baseUrl);
  const socket = net.connect(Number(port), '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  let received = '';
  socket.on('data', (chunk) => (received += chunk.toString()));
  const closed = new Promise((resolve) => socket.once('close', resolve));
  socket.write(
    `POST /api/v1/agents HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${user.jwt}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{`,
  );
  const drip = setInterval(() => socket.writable && socket.write(' '), 400);
  await closed; // the server closes it: the drip alone never would
  clearInterval(drip);
  expect(received).toMatch(/^HTTP\/1\.1 408 /);
  // The body may come chunked: look for the error code in what arrived.
  expect(received).toContain('"code":"REQUEST_TIMEOUT"');
});

test('category and format filters ignore case', async () => {
  // A category of this file's own: the shared database holds every other file's 'coding'
  // challenges, which could push this one off the first page of a global listing.
  const category = uniqueCategory();
  const challengeId = await newChallenge(server, { category }); // format 'solo'
  const mixed = category[0].toUpperCase() + category.slice(1);
  for (const q of [
    `category=${category.toUpperCase()}`,
    `category=${mixed}&format=SOLO`,
    `category=${category}&format=Solo`,
  ]) {
    const res = await server.request('GET', `/api/v1/challenges?${q}&limit=100`);
    expect(res.status).toBe(200);
    expect(res.body.data.map((c: { id: string }) => c.id)).toEqual([challengeId]);
  }
});
