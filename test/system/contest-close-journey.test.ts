/**
 * The contest's close on the challenge page (issue 41, item 5; Kaggle switches to the private
 * board at close), in real Chromium at 1280 and 390 px with axe: once complete, the final board
 * (100 vs 0 on the private criterion) comes first, the public board (both agents rank 1) below it
 * and labelled as the board of the contest's run, and the submit commands are gone.
 *
 * Needs Debian's Chromium at /usr/bin/chromium (see test/helpers/browser.ts).
 */
import type { Browser } from 'playwright-core';
import { mintSessionJwt } from '../../src/auth/jwt';
import { auditPage, launchChromium, person, signInOnPage } from '../helpers/browser';
import { createActive, inSeconds } from '../helpers/challenge-factories';
import { eventually, newAdmin, newAgent, type TestAgent, type TestUser } from '../helpers/factories';
import { startTestServer, type TestServer } from '../helpers/server';
import { sessionFor, submit, waitForSubmission } from '../helpers/submission-factories';

const WAIT = 60_000;
const JUDGE = {
  kind: 'rubric',
  criteria: [
    { name: 'greets', weight: 1, check: { type: 'contains', value: 'hello' } },
    { name: 'heldout', weight: 1, private: true, check: { type: 'contains', value: '42' } },
  ],
};

let server: TestServer;
let browser: Browser;
let admin: TestUser;

beforeAll(async () => {
  server = await startTestServer({ RATE_LIMIT_DISABLED: '1' });
  admin = await newAdmin(server);
  browser = await launchChromium();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

async function judged(agent: TestAgent, challengeId: string, content: string): Promise<string> {
  const res = await submit(server, agent.token, await sessionFor(server, agent, challengeId), { content });
  expect(res.status).toBe(201);
  const done = await waitForSubmission(server, agent.token, res.body.data.id, ['complete', 'failed'], WAIT);
  expect(done.submission_status).toBe('complete');
  return res.body.data.id;
}

test('at completion the final board comes first, the public board below and labelled, no submit commands', async () => {
  const challenge = await createActive(server, { judge: JUDGE, ends_at: inSeconds(3600) }, admin);
  const ada = await newAgent(server, { name: 'ada-close' });
  const bob = await newAgent(server, { name: 'bob-close' });
  await judged(ada, challenge.id, 'hello, the answer is 42');
  await judged(bob, challenge.id, 'hello there');

  const visitor = await person(browser);
  const page = visitor.page;
  const url = `${server.baseUrl}/challenges/${challenge.id}`;
  // While the contest runs: the submit commands, one board, no final board.
  await page.goto(url);
  expect(await page.locator('#take-part-cli').count()).toBe(1);
  expect(await page.locator('#final-board').count()).toBe(0);

  const ended = await server.request('PATCH', `/api/v1/admin/challenges/${challenge.id}`, {
    auth: admin.jwt,
    body: { ends_at: new Date(Date.now() - 1000).toISOString() },
  });
  expect(ended.status).toBe(200);
  // Complete, with both private passes done (the board shows no rows while any is pending).
  await eventually(async () => {
    const res = await server.request('GET', `/api/v1/leaderboards/${challenge.id}?board=final`);
    return res.status === 200 && res.body.pending === 0 && res.body.data.length === 2;
  }, WAIT);

  await page.goto(url);
  const order = await page.evaluate(() => {
    const ids = ['final-board', 'leaderboard'];
    const doc = (globalThis as unknown as { document: { getElementById(id: string): unknown } }).document;
    const [a, b] = ids.map((id) => doc.getElementById(id) as { compareDocumentPosition(o: unknown): number });
    return a && b ? (a.compareDocumentPosition(b) & 4) === 4 : null;
  });
  expect(order).toBe(true); // the final board precedes the public one
  const finalRows = await page.locator('#final-board tbody tr').allTextContents();
  expect(finalRows[0]).toMatch(/^1\s*ada-close\s*100/);
  expect(finalRows[1]).toMatch(/^2\s*bob-close\s*0/);
  expect(await page.textContent('#lb-title')).toMatch(/Public leaderboard/);
  expect(await page.textContent('#public-board-note')).toContain('the final board above decides');
  expect(await page.locator('#take-part-cli, #take-part-api').count()).toBe(0);
  expect(await page.textContent('#submissions-closed')).toContain('it takes no more submissions');
  expect(await auditPage(browser, visitor.context, page, 'contest-close-final-first')).toEqual([]);
  expect(visitor.problems).toEqual([]);
  await visitor.context.close();
}, 240_000);

test('the result page says what the agent has left on the challenge (issue 41, item 9)', async () => {
  const subject = `ada-left-${Math.random().toString(36).slice(2, 8)}`;
  const challenge = await createActive(
    server,
    { judge: JUDGE, ends_at: inSeconds(3600), max_submissions_per_session: 3 },
    admin,
  );
  const competitor = await person(browser);
  await signInOnPage(competitor.page, server.baseUrl, subject, '/me');
  const jwt = await mintSessionJwt(server.config.AUTH_JWT_SECRET, {
    sub: subject,
    name: 'Ada',
    role: 'user',
  });
  const agent = await newAgent(server, { user: { subject, jwt }, name: 'ada-left' });
  const id = await judged(agent, challenge.id, 'hello 42');
  await competitor.page.goto(`${server.baseUrl}/me/submissions/${id}`);
  expect(await competitor.page.textContent('#submissions-left')).toContain('2 left in this session');
  expect(
    await auditPage(browser, competitor.context, competitor.page, 'result-submissions-left', {
      from: 'html',
    }),
  ).toEqual([]);
  expect(competitor.problems).toEqual([]);
  await competitor.context.close();
}, 120_000);
