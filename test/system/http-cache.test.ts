import { createHash, randomBytes } from 'node:crypto';
import { PUBLIC_MAX_AGE_SEC, PUBLIC_STALE_WHILE_REVALIDATE_SEC } from '../../src/api/http-cache';
import { metricsRegistry } from '../../src/lib/metrics';
import { newAdmin, newAgent, newUser } from '../helpers/factories';
import { newChallenge, sessionFor, submit, waitForSubmission } from '../helpers/submission-factories';
import { startTestServer, type ApiResponse, type TestServer } from '../helpers/server';

let server: TestServer;
let challengeId: string;
// The list is read under a category of its own: other suites add challenges to the shared
// database at any moment, and a list that changed between two reads rightly has a new tag.
const category = `http-cache-${randomBytes(4).toString('hex')}`;
beforeAll(async () => {
  server = await startTestServer();
  challengeId = await newChallenge(server, { title: 'http cache' });
  await server.deps.db.query('UPDATE challenges SET category = $2 WHERE id = $1', [challengeId, category]);
  // One judged result so the leaderboard and its CSV have a row to show.
  const agent = await newAgent(server);
  const res = await submit(server, agent.token, await sessionFor(server, agent, challengeId), {
    content: 'answer 42',
  });
  await waitForSubmission(server, agent.token, res.body.data.id);
});
afterAll(() => server.close());

const PUBLIC_CACHE_CONTROL = `public, max-age=${PUBLIC_MAX_AGE_SEC}, stale-while-revalidate=${PUBLIC_STALE_WHILE_REVALIDATE_SEC}`;

const READS: [string, () => string][] = [
  ['challenge list', () => `/api/v1/challenges?limit=100&category=${category}`],
  ['challenge', () => `/api/v1/challenges/${challengeId}`],
  ['leaderboard page', () => `/api/v1/leaderboards/${challengeId}`],
  ['leaderboard CSV export', () => `/api/v1/leaderboards/${challengeId}/export.csv`],
];

function etagOf(res: ApiResponse): string {
  const etag = res.headers.get('etag');
  if (!etag) throw new Error(`no ETag on ${res.status} ${res.text.slice(0, 200)}`);
  return etag;
}

describe.each(READS)('HTTP caching of the %s', (_name, path) => {
  test('anonymous: strong ETag, public Cache-Control, Vary: Authorization; stable across requests', async () => {
    const first = await server.request('GET', path());
    const second = await server.request('GET', path());
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(etagOf(first)).toMatch(/^"[A-Za-z0-9_-]+"$/); // strong: no W/ prefix
    // Each envelope names its own request_id; the tag covers what is shown, so it does not move.
    expect(etagOf(second)).toBe(etagOf(first));
    expect(first.headers.get('cache-control')).toBe(PUBLIC_CACHE_CONTROL);
    expect(first.headers.get('vary')).toMatch(/authorization/i);
  });

  test('If-None-Match with the current ETag → 304 without a body; another tag → 200 with the body', async () => {
    const full = await server.request('GET', path());
    const etag = etagOf(full);
    const notModified = await server.request('GET', path(), { headers: { 'if-none-match': etag } });
    expect(notModified.status).toBe(304);
    expect(notModified.text).toBe('');
    expect(notModified.headers.get('etag')).toBe(etag);
    expect(notModified.headers.get('cache-control')).toBe(PUBLIC_CACHE_CONTROL);
    // A list of tags and the weak form of ours also match (If-None-Match compares weakly).
    const inList = await server.request('GET', path(), {
      headers: { 'if-none-match': `"other", W/${etag}` },
    });
    expect(inList.status).toBe(304);
    const stale = await server.request('GET', path(), {
      headers: { 'if-none-match': '"not-the-current-tag"' },
    });
    expect(stale.status).toBe(200);
    expect(etagOf(stale)).toBe(etag);
    expect(stale.text.length).toBeGreaterThan(0);
  });

  test('with a credential: private Cache-Control (still an ETag and 304s)', async () => {
    const agent = await newAgent(server);
    const res = await server.request('GET', path(), { auth: agent.token });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('private, no-cache');
    const again = await server.request('GET', path(), {
      auth: agent.token,
      headers: { 'if-none-match': etagOf(res) },
    });
    expect(again.status).toBe(304);
    expect(again.headers.get('cache-control')).toBe('private, no-cache');
  });
});

test('an unversioned read: the ETag is a digest of what is shown (data and pagination, not the request id)', async () => {
  const res = await server.request('GET', READS[0]![1]());
  const representation = `${JSON.stringify(res.body.data)}\n${JSON.stringify(res.body.pagination)}`;
  const digest = createHash('sha256').update(representation).digest('base64url').slice(0, 32);
  expect(etagOf(res)).toBe(`"${digest}"`);
});

test('a new result changes the leaderboard page and CSV ETags at once; the old tag then gets the new body', async () => {
  const page = `/api/v1/leaderboards/${challengeId}`;
  const csv = `${page}/export.csv`;
  const before = { page: await server.request('GET', page), csv: await server.request('GET', csv) };
  const agent = await newAgent(server, { name: 'newcomer' });
  const res = await submit(server, agent.token, await sessionFor(server, agent, challengeId), {
    content: 'The answer is 42',
  });
  await waitForSubmission(server, agent.token, res.body.data.id);

  const after = {
    page: await server.request('GET', page, { headers: { 'if-none-match': etagOf(before.page) } }),
    csv: await server.request('GET', csv, { headers: { 'if-none-match': etagOf(before.csv) } }),
  };
  expect(after.page.status).toBe(200);
  expect(after.csv.status).toBe(200);
  expect(etagOf(after.page)).not.toBe(etagOf(before.page));
  expect(etagOf(after.csv)).not.toBe(etagOf(before.csv));
  expect(after.page.body.data.map((e: { agent_id: string }) => e.agent_id)).toContain(agent.agentId);
  expect(after.csv.text).toContain(agent.agentId);
});

test('operators (drafts visible) and anonymous callers never share a cached copy: the operator answer is private', async () => {
  const admin = await newAdmin(server);
  const draft = await newChallenge(server, { status: 'draft' });
  const anonymous = await server.request('GET', `/api/v1/challenges/${draft}`);
  expect(anonymous.status).toBe(404);
  expect(anonymous.headers.get('etag')).toBeNull();
  const operator = await server.request('GET', `/api/v1/challenges/${draft}`, { auth: admin.jwt });
  expect(operator.status).toBe(200);
  expect(operator.headers.get('cache-control')).toBe('private, no-cache');
  expect(operator.headers.get('vary')).toMatch(/authorization/i);
});

test('an edit of the challenge changes its ETag', async () => {
  const id = await newChallenge(server);
  const before = await server.request('GET', `/api/v1/challenges/${id}`);
  await server.deps.db.query(`UPDATE challenges SET title = 'renamed' WHERE id = $1`, [id]);
  const after = await server.request('GET', `/api/v1/challenges/${id}`, {
    headers: { 'if-none-match': etagOf(before) },
  });
  expect(after.status).toBe(200);
  expect(after.body.data.title).toBe('renamed');
  expect(etagOf(after)).not.toBe(etagOf(before));
});

describe('leaderboard answers kept per version in each API process (migration 2520)', () => {
  const lookups = async (outcome: 'hit' | 'miss') => {
    const metric = await metricsRegistry.getSingleMetric('http_response_cache_lookups_total')!.get();
    return (
      metric.values.find((v) => v.labels.route === 'getLeaderboard' && v.labels.outcome === outcome)?.value ??
      0
    );
  };

  test('a repeated read is served from the process (same bytes and ETag, a hit); a 304 from the version alone', async () => {
    const page = `/api/v1/leaderboards/${challengeId}?limit=7`;
    const first = await server.request('GET', page);
    const hitsBefore = await lookups('hit');
    const second = await server.request('GET', page);
    expect(await lookups('hit')).toBe(hitsBefore + 1);
    expect(etagOf(second)).toBe(etagOf(first));
    expect(second.body.data).toEqual(first.body.data);
    expect(second.body.request_id).not.toBe(first.body.request_id);
    // The tag names the board's version: a 304 needs nothing else (no kept page, no rendering).
    const missesBefore = await lookups('miss');
    const revalidated = await server.request('GET', page, { headers: { 'if-none-match': etagOf(first) } });
    expect(revalidated.status).toBe(304);
    expect(revalidated.headers.get('etag')).toBe(etagOf(first));
    expect(revalidated.text).toBe('');
    expect([await lookups('hit'), await lookups('miss')]).toEqual([hitsBefore + 1, missesBefore]);
  });

  test('a versioned answer is tagged by its version: the same tag for the same version in every request, a new one when it moves', async () => {
    const page = `/api/v1/leaderboards/${challengeId}?limit=3`;
    const first = await server.request('GET', page);
    const again = await server.request('GET', `/api/v1/leaderboards/${challengeId}?limit=3`);
    expect(etagOf(first)).toMatch(/^"v[A-Za-z0-9_-]{31}"$/); // strong, and not a body digest
    expect(etagOf(again)).toBe(etagOf(first));
    // Another query is another answer: another tag.
    const other = await server.request('GET', `/api/v1/leaderboards/${challengeId}?limit=4`);
    expect(etagOf(other)).not.toBe(etagOf(first));
    await server.deps.db.query(
      'UPDATE leaderboard_entries SET submission_count = submission_count + 1 WHERE challenge_id = $1',
      [challengeId],
    );
    const moved = await server.request('GET', page, { headers: { 'if-none-match': etagOf(first) } });
    expect(moved.status).toBe(200);
    expect(etagOf(moved)).not.toBe(etagOf(first));
  });

  test('renaming an agent on the board changes the page at once', async () => {
    const owner = await newUser(server);
    const agent = await newAgent(server, { user: owner, name: 'before-rename' });
    const res = await submit(server, agent.token, await sessionFor(server, agent, challengeId), {
      content: 'answer 42',
    });
    await waitForSubmission(server, agent.token, res.body.data.id);
    const page = `/api/v1/leaderboards/${challengeId}?limit=100`;
    const before = await server.request('GET', page);
    expect(before.body.data.map((e: { agent_name: string }) => e.agent_name)).toContain('before-rename');
    const renamed = await server.request('PATCH', `/api/v1/agents/${agent.agentId}`, {
      auth: owner.jwt,
      body: { name: 'after-rename' },
    });
    expect(renamed.status).toBe(200);
    const after = await server.request('GET', page, { headers: { 'if-none-match': etagOf(before) } });
    expect(after.status).toBe(200);
    expect(after.body.data.map((e: { agent_name: string }) => e.agent_name)).toContain('after-rename');
  });

  test('any write to the board, whoever makes it, moves the version (a trigger, not the writers)', async () => {
    const page = `/api/v1/leaderboards/${challengeId}?limit=100`;
    const before = await server.request('GET', page);
    await server.deps.db.query(
      'UPDATE leaderboard_entries SET submission_count = submission_count + 1 WHERE challenge_id = $1',
      [challengeId],
    );
    const after = await server.request('GET', page, { headers: { 'if-none-match': etagOf(before) } });
    expect(after.status).toBe(200);
    expect(after.body.data[0].submission_count).toBe(before.body.data[0].submission_count + 1);
  });

  test('a challenge hidden again (draft) stops being served from the process: 404 for the public', async () => {
    const id = await newChallenge(server, { title: 'soon hidden' });
    const page = `/api/v1/leaderboards/${id}`;
    expect((await server.request('GET', page)).status).toBe(200);
    expect((await server.request('GET', page)).status).toBe(200);
    await server.deps.db.query(`UPDATE challenges SET status = 'draft' WHERE id = $1`, [id]);
    const hidden = await server.request('GET', page);
    expect(hidden.status).toBe(404);
    const admin = await newAdmin(server);
    const operator = await server.request('GET', page, { auth: admin.jwt });
    expect(operator.status).toBe(200);
    expect(operator.headers.get('cache-control')).toBe('private, no-cache');
  });
});
