/**
 * Issue 41, item 6, in real Chromium at 1280 and 390 px with axe: an operator starts an
 * exhibition from a match challenge's console page (picking its agents, then confirming) and
 * voids it from its match page with a reason; a competitor sees neither button, and the console's
 * forms refuse them. The domain's own rules (entered agents, busy agents) are the API's tests.
 */
import { randomUUID } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { createActive } from '../helpers/challenge-factories';
import { newUser, type TestUser } from '../helpers/factories';
import { auditPage, launchChromium, person, signInOnPage } from '../helpers/browser';
import { startServerAndAdmin } from '../helpers/server-and-admin';
import type { TestServer } from '../helpers/server';

const run = Math.random().toString(36).slice(2, 8);
const OPERATOR = `ops|matches-${run}`;

let server: TestServer;
let admin: TestUser;
let browser: Browser;
beforeAll(async () => {
  ({ server, admin } = await startServerAndAdmin({
    RATE_LIMIT_DISABLED: '1',
    AUTH_OPERATOR_SUBJECTS: OPERATOR,
  }));
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

test('an operator starts an exhibition from the challenge page and voids it from the match page', async () => {
  const challenge = await createActive(
    server,
    {
      format: 'head_to_head',
      weight_class_id: `wc-${randomUUID().slice(0, 8)}`,
      judge: {
        kind: 'rubric',
        criteria: [{ name: 'answer', weight: 1, check: { type: 'contains', value: '42' } }],
      },
      time_limit_minutes: 600,
      // The matchmaker stays out of the way: only the exhibition runs.
      match: { every_minutes: 600, rematch_after_minutes: 0, max_per_agent_per_hour: 1 },
    },
    admin,
  );
  const competitor = await newUser(server);
  const agentIds: string[] = [];
  for (const who of ['ada', 'bob']) {
    const owner = who === 'ada' ? competitor : await newUser(server);
    const agent = await server.request('POST', '/api/v1/agents', {
      auth: owner.jwt,
      body: { name: `${who}-${run}` },
    });
    expect(agent.status).toBe(201);
    agentIds.push(agent.body.data.id);
    const entered = await server.request('POST', `/api/v1/challenges/${challenge.id}/entries`, {
      auth: owner.jwt,
      body: { agent_id: agent.body.data.id },
    });
    expect(entered.status).toBe(201);
  }

  const operator = await person(browser);
  const { page, context } = operator;
  await signInOnPage(page, server.baseUrl, OPERATOR, `/admin/challenges/${challenge.id}`);
  await page.click('#exhibition-link');
  await page.waitForURL(`${server.baseUrl}/admin/challenges/${challenge.id}/exhibition`);
  expect(await auditPage(browser, context, page, 'console-exhibition')).toEqual([]);

  // One agent only: refused on the page, nothing started.
  await page.check(`input[name="agent_id"][value="${agentIds[0]}"]`);
  await page.click('#exhibition-start');
  await page.waitForSelector('#exhibition-error');
  expect(await page.textContent('#exhibition-error')).toContain('Pick 2 agents');
  const none = await server.deps.db.query('SELECT 1 FROM matches WHERE challenge_id = $1', [challenge.id]);
  expect(none.rowCount).toBe(0);

  // Both: the match starts, and its page is where the operator lands.
  await page.check(`input[name="agent_id"][value="${agentIds[1]}"]`);
  await page.click('#exhibition-start');
  await page.waitForURL((url) => url.pathname.startsWith('/matches/'));
  const matchId = new URL(page.url()).pathname.split('/')[2];
  const created = await server.deps.db.query<{ origin: string; rated: boolean }>(
    'SELECT origin, rated FROM matches WHERE id = $1 AND challenge_id = $2',
    [matchId, challenge.id],
  );
  expect(created.rows).toEqual([{ origin: 'exhibition', rated: false }]);

  // Void it from its page: a reason is required, then the match is void with it in the audit trail.
  await page.click('#void-link');
  await page.waitForURL(`${server.baseUrl}/admin/matches/${matchId}/void`);
  expect(await auditPage(browser, context, page, 'console-void-match')).toEqual([]);
  await page.fill('#confirm-reason', '   ');
  await page.click('button[name="confirm"]');
  await page.waitForSelector('#err-reason');
  await page.fill('#confirm-reason', `Wrong pairing ${run}`);
  await page.click('button[name="confirm"]');
  await page.waitForURL(`${server.baseUrl}/matches/${matchId}`);
  const voided = await server.deps.db.query<{ status: string }>('SELECT status FROM matches WHERE id = $1', [
    matchId,
  ]);
  expect(voided.rows[0].status).toBe('void');
  const audited = await server.deps.db.query(
    'SELECT 1 FROM audit_records WHERE action = $1 AND detail::text LIKE $2',
    ['match.void', `%Wrong pairing ${run}%`],
  );
  expect(audited.rowCount).toBe(1);
  expect(await page.locator('#void-link').count()).toBe(0);
  // The two refusals above are 400 pages, which Chromium logs; nothing else.
  expect(operator.problems.filter((p) => !p.includes('status of 400'))).toEqual([]);
  await context.close();

  // A competitor sees no operator button, and the console's form refuses them.
  const someone = await person(browser);
  await signInOnPage(someone.page, server.baseUrl, competitor.subject, `/matches/${matchId}`);
  expect(await someone.page.locator('#void-link, #operator-actions').count()).toBe(0);
  const refused = await someone.page.goto(`${server.baseUrl}/admin/challenges/${challenge.id}/exhibition`);
  expect(refused?.status()).toBe(403);
  await someone.context.close();
}, 240_000);
