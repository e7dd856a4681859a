/**
 * Private tests stay hidden in the surfaces the people issue added (issue 32, "Private tests stay
 * hidden in every surface"): the competitor's verdict table on the submission page, the CLI's
 * `submit --wait` and `results get`, and the bulk rejudge's score lists. While the challenge is
 * active the competitor sees no name, verdict or count of a private criterion; operators see it
 * (the CLI with an operator's JWT, the rejudge progress in the API and the console).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { mintSessionJwt } from '../../src/auth/jwt';
import { createActive, inSeconds } from '../helpers/challenge-factories';
import { eventually, newAgent, type TestAgent, type TestUser } from '../helpers/factories';
import { cliProcess } from '../helpers/cli';
import { expectError, type TestServer } from '../helpers/server';
import { signInThroughEmbeddedProvider, webClient, type WebClient } from '../helpers/web-session';
import { startServerAndAdmin } from '../helpers/server-and-admin';

const run = Math.random().toString(36).slice(2, 8);
const OPERATOR = `ops|surfaces-${run}`;
const COMPETITOR = `ada-surfaces-${run}`;

/** Visible "answer" (contains 42), hidden "style" (starts with "The"), private "heldout-seven". */
const JUDGE = {
  kind: 'rubric',
  criteria: [
    { name: 'answer', weight: 1, check: { type: 'contains', value: '42' } },
    { name: 'style', weight: 1, hidden: true, check: { type: 'regex', pattern: '^The' } },
    { name: 'heldout-seven', weight: 1, private: true, check: { type: 'contains', value: 'seven' } },
  ],
};
const TRACE = /heldout|private/i;

let server: TestServer;
const cli = (args: string[], env?: Record<string, string>) => cliProcess(server)(args, env);
let admin: TestUser;
let agent: TestAgent;
let competitor: WebClient;
let operator: WebClient;
let dir: string;

beforeAll(async () => {
  ({ server, admin } = await startServerAndAdmin({
    RATE_LIMIT_DISABLED: '1',
    AUTH_OPERATOR_SUBJECTS: OPERATOR,
  }));
  competitor = webClient(server.baseUrl);
  await signInThroughEmbeddedProvider(competitor, COMPETITOR);
  operator = webClient(server.baseUrl);
  await signInThroughEmbeddedProvider(operator, OPERATOR);
  const jwt = await mintSessionJwt(server.config.AUTH_JWT_SECRET, {
    sub: COMPETITOR,
    name: 'Ada',
    role: 'user',
  });
  agent = await newAgent(server, { user: { subject: COMPETITOR, jwt }, name: 'ada-surfaces' });
  dir = mkdtempSync(path.join(tmpdir(), 'fair-surfaces-'));
  writeFileSync(path.join(dir, 'answer.txt'), 'The answer is 42');
}, 90_000);
afterAll(() => server.close());

/** The rows of the verdict table (the `<th scope="row">` cells' text). */
const verdictRowNames = (page: string) =>
  [...page.matchAll(/<tr class="(?:ok|bad)"><th scope="row">(.*?)<\/th>/g)].map((m) =>
    m[1].replace(/<[^>]+>/g, '').trim(),
  );

test('the verdict table, the CLI and the bulk rejudge show a private criterion to operators only', async () => {
  const challenge = await createActive(server, { judge: JUDGE, ends_at: inSeconds(3600) }, admin);

  // Submitted and waited for with the CLI, as the competitor (their agent's API token).
  const submitted = await cli(['submit', challenge.id, '--file', path.join(dir, 'answer.txt'), '--wait'], {
    CCS_TOKEN: agent.token,
  });
  expect(submitted.code).toBe(0);
  const id = /^submission ([0-9a-f-]{36}) complete$/m.exec(submitted.out)?.[1];
  expect(id).toBeDefined();
  expect(submitted.out).toMatch(/^score 100\.00 \(scored\)/m);
  expect(submitted.out).toMatch(/^ {2}answer\s+passed/m);
  // The hidden criterion is counted; the private one is neither listed nor counted.
  expect(submitted.out).toContain('  hidden: 1 of 1 passed');
  expect(submitted.out).not.toMatch(TRACE);
  expect(submitted.err).not.toMatch(TRACE);

  const [again, asJson, asOperator] = await Promise.all([
    cli(['results', 'get', id!, '--token', agent.token]),
    cli(['results', 'get', id!, '--json', '--token', agent.token]),
    cli(['results', 'get', id!, '--jwt', admin.jwt]),
  ]);
  expect(again.code).toBe(0);
  expect(again.out).toBe(submitted.out);
  expect(asJson.code).toBe(0);
  expect(asJson.out).not.toMatch(TRACE);
  // The operator's CLI lists it, marked, and prints the private score.
  expect(asOperator.code).toBe(0);
  expect(asOperator.out).toMatch(/^ {2}heldout-seven \(private\)\s+not passed/m);
  expect(asOperator.out).toContain('private score 0.00');

  // The competitor's submission page: the verdict table has the visible criterion only.
  const page = await competitor.fetch(`/me/submissions/${id}`);
  expect(page.status).toBe(200);
  const html = await page.text();
  expect(verdictRowNames(html)).toEqual(['answer']);
  expect(html).toContain('Hidden tests: 1 of 1 passed.');
  expect(html).not.toMatch(/heldout/i);
  expect(html).not.toContain('class="badge">private<');
  expect(html).not.toMatch(/private.score/i);

  // A bulk rejudge: the operators' score lists carry the private scores; a competitor has none.
  const started = await server.request('POST', `/api/v1/admin/challenges/${challenge.id}/rejudge`, {
    auth: admin.jwt,
  });
  expect(started.status).toBe(202);
  const rejudgeId = started.body.data.rejudge_id as string;
  expectError(
    await server.request('GET', `/api/v1/admin/rejudges/${rejudgeId}`, { auth: agent.user.jwt }),
    403,
    'FORBIDDEN',
  );
  const done = await eventually(async () => {
    const res = await server.request('GET', `/api/v1/admin/rejudges/${rejudgeId}`, { auth: admin.jwt });
    return res.body.data.status === 'done' ? res.body.data : undefined;
  }, 60_000);
  expect(done.items).toEqual([
    expect.objectContaining({
      submission_id: id,
      old_score: 100,
      new_score: 100,
      old_private_score: 0,
      new_private_score: 0,
    }),
  ]);
  const progressPage = await operator.fetch(`/admin/rejudges/${rejudgeId}`);
  expect(progressPage.status).toBe(200);
  const progressHtml = await progressPage.text();
  expect(progressHtml).toContain('New private score');
  expect(progressHtml).toMatch(/<td class="num new-private">0(\.00)?<\/td>/);
  const refused = await competitor.fetch(`/admin/rejudges/${rejudgeId}`);
  expect(refused.status).toBe(403);

  // After the rejudge, the competitor's surfaces still show no trace.
  const afterRejudge = await cli(['results', 'get', id!, '--token', agent.token]);
  expect(afterRejudge.out).not.toMatch(TRACE);
  const pageAfter = await (await competitor.fetch(`/me/submissions/${id}`)).text();
  expect(verdictRowNames(pageAfter)).toEqual(['answer']);
  expect(pageAfter).not.toMatch(/heldout/i);
  const outbox = await server.deps.db.query(
    `SELECT payload::text AS payload FROM outbox_events WHERE challenge_id = $1`,
    [challenge.id],
  );
  for (const row of outbox.rows) expect(row.payload).not.toMatch(TRACE);

  // At completion they are revealed to the owner, marked private.
  await server.request('PATCH', `/api/v1/admin/challenges/${challenge.id}`, {
    auth: admin.jwt,
    body: { ends_at: new Date(Date.now() - 1000).toISOString() },
  });
  await eventually(async () => {
    const res = await server.request('GET', `/api/v1/challenges/${challenge.id}`);
    return res.body.data.status === 'complete';
  }, 30_000);
  const revealed = await cli(['results', 'get', id!, '--token', agent.token]);
  expect(revealed.out).toMatch(/^ {2}heldout-seven \(private\)\s+not passed/m);
  expect(revealed.out).toContain('private score 0.00');
  const revealedPage = await (await competitor.fetch(`/me/submissions/${id}`)).text();
  expect(verdictRowNames(revealedPage)).toEqual(['answer', 'heldout-seven private']);
}, 240_000);
