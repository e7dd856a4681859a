/**
 * Issue 41, item 6, in real Chromium at 1280 and 390 px with axe: an operator starts an
 * exhibition from a match challenge's console page (picking its agents, then confirming) and
 * voids it from its match page with a reason; a competitor sees neither button, and the console's
 * forms refuse them. The domain's own rules (entered agents, busy agents) are the API's tests.
 * The challenge page's list of matches offers an operator "Void…" on each match that can still be
 * voided (DOMjudge: acting where the object is shown), through the same confirmation step, back to
 * the list; a competitor sees no such column and posting the form is the 403 page.
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

/** A head_to_head challenge whose matchmaker stays out of the way, with two entered agents of two owners. */
async function boutChallengeWithTwo(competitor: TestUser) {
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
      match: { every_minutes: 600, rematch_after_minutes: 0, max_per_agent_per_hour: 1 },
    },
    admin,
  );
  const agentIds: string[] = [];
  for (const who of ['ada', 'bob']) {
    const owner = who === 'ada' ? competitor : await newUser(server);
    const agent = await server.request('POST', '/api/v1/agents', {
      auth: owner.jwt,
      body: { name: `${who}-list-${run}` },
    });
    expect(agent.status).toBe(201);
    agentIds.push(agent.body.data.id);
    const entered = await server.request('POST', `/api/v1/challenges/${challenge.id}/entries`, {
      auth: owner.jwt,
      body: { agent_id: agent.body.data.id },
    });
    expect(entered.status).toBe(201);
  }
  return { challenge, agentIds };
}

test('an operator voids a match from the challenge page’s list of matches; a competitor neither sees nor can post it', async () => {
  const competitor = await newUser(server);
  const { challenge, agentIds } = await boutChallengeWithTwo(competitor);
  // A match that finished earlier (stored as the arena stores one): nothing to void there.
  const finished = await server.deps.db.query<{ id: string }>(
    `INSERT INTO matches (challenge_id, weight_class_id, kind, status, rated, origin, started_at, ends_at,
                          bout_ended_at, completed_at, result_id, completed_seq)
     SELECT id, weight_class_id, 'bout', 'complete', false, 'exhibition', now() - interval '2 hours',
            now() - interval '1 hour', now() - interval '1 hour', now() - interval '1 hour',
            gen_random_uuid(), nextval('match_completed_seq')
       FROM challenges WHERE id = $1 RETURNING id`,
    [challenge.id],
  );
  const finishedId = finished.rows[0].id;
  for (const [i, agentId] of agentIds.entries())
    await server.deps.db.query(
      `INSERT INTO match_participants (match_id, agent_id, seat, owner_user_id, score, rank, outcome)
       SELECT $1, a.id, $3, a.owner_user_id, $4, $3, $5 FROM agents a WHERE a.id = $2`,
      [finishedId, agentId, i + 1, i === 0 ? 1 : -1, i === 0 ? 'win' : 'loss'],
    );
  const started = await server.request('POST', `/api/v1/admin/challenges/${challenge.id}/matches`, {
    auth: admin.jwt,
    body: { agent_ids: agentIds },
  });
  expect(started.status).toBe(201);
  const matchId: string = started.body.data.id;

  const operator = await person(browser);
  const { page, context } = operator;
  await signInOnPage(page, server.baseUrl, OPERATOR, `/challenges/${challenge.id}`);
  const row = page.locator(`#recent-matches tr[data-match-id="${matchId}"]`);
  const finishedRow = page.locator(`#recent-matches tr[data-match-id="${finishedId}"]`);
  expect(await page.locator('#recent-matches th', { hasText: 'Operator' }).count()).toBe(1);
  expect(await row.locator('a.void-match').count()).toBe(1);
  expect(await finishedRow.locator('a.void-match').count()).toBe(0);
  expect(await auditPage(browser, context, page, 'challenge-matches-void-operator')).toEqual([]);

  // The same confirmation step (a reason required), then back to the list, the match void.
  await row.locator('a.void-match').click();
  await page.waitForURL(`${server.baseUrl}/admin/matches/${matchId}/void?from=challenge`);
  expect(await page.getAttribute('form .actions a', 'href')).toBe(`/challenges/${challenge.id}#matches`);
  await page.fill('#confirm-reason', `Listed wrongly ${run}`);
  await page.click('button[name="confirm"]');
  await page.waitForURL(`${server.baseUrl}/challenges/${challenge.id}#matches`);
  const voided = await server.deps.db.query<{ status: string }>('SELECT status FROM matches WHERE id = $1', [
    matchId,
  ]);
  expect(voided.rows[0].status).toBe('void');
  expect(await row.locator('a.void-match').count()).toBe(0);
  const audited = await server.deps.db.query(
    'SELECT 1 FROM audit_records WHERE action = $1 AND detail::text LIKE $2',
    ['match.void', `%Listed wrongly ${run}%`],
  );
  expect(audited.rowCount).toBe(1);
  expect(operator.problems).toEqual([]);
  await context.close();

  // A competitor: no operator column, no link; posting the form anyway is the 403 page (HTML), nothing voided.
  const another = await server.request('POST', `/api/v1/admin/challenges/${challenge.id}/matches`, {
    auth: admin.jwt,
    body: { agent_ids: agentIds },
  });
  expect(another.status).toBe(201);
  const someone = await person(browser);
  await signInOnPage(someone.page, server.baseUrl, competitor.subject, `/challenges/${challenge.id}`);
  expect(
    await someone.page.locator(`#recent-matches tr[data-match-id="${another.body.data.id}"]`).count(),
  ).toBe(1);
  expect(await someone.page.locator('#recent-matches th', { hasText: 'Operator' }).count()).toBe(0);
  expect(await someone.page.locator('a.void-match, a[href*="/void"]').count()).toBe(0);
  const csrf = await someone.page.getAttribute('form.signout input[name="_csrf"]', 'value');
  const posted = await someone.page.request.post(
    `${server.baseUrl}/admin/matches/${another.body.data.id}/void?from=challenge`,
    {
      form: { _csrf: csrf!, confirm: 'yes', reason: 'not mine to void' },
      headers: { origin: server.baseUrl, referer: `${server.baseUrl}/challenges/${challenge.id}` },
      maxRedirects: 0,
    },
  );
  expect(posted.status()).toBe(403);
  expect(posted.headers()['content-type']).toMatch(/^text\/html/);
  expect(await posted.text()).toContain('is for operators only');
  const still = await server.deps.db.query<{ status: string }>('SELECT status FROM matches WHERE id = $1', [
    another.body.data.id,
  ]);
  expect(still.rows[0].status).not.toBe('void');
  await someone.context.close();
}, 240_000);

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

test('the format is a menu with a template per format: head_to_head fills its match settings and creates such a draft', async () => {
  const operator = await person(browser);
  const { page, context } = operator;
  await signInOnPage(page, server.baseUrl, OPERATOR, '/admin/challenges/new');
  // Exactly the five formats, nothing typed freely.
  expect(
    await page.locator('#f-format option').evaluateAll((os) => os.map((o) => o.getAttribute('value'))),
  ).toEqual(expect.arrayContaining(['solo', 'text', 'code', 'head_to_head', 'game']));
  expect(await page.locator('#f-format option').count()).toBe(5);
  await page.click('a[href="/admin/challenges/new?template=head_to_head"]');
  await page.waitForURL(`${server.baseUrl}/admin/challenges/new?template=head_to_head`);
  expect(await page.inputValue('#f-format')).toBe('head_to_head');
  expect(JSON.parse(await page.inputValue('#f-match'))).toMatchObject({ players: 2 });
  expect(await auditPage(browser, context, page, 'console-format-template-head-to-head')).toEqual([]);
  const title = `Bout template ${run}`;
  await page.fill('#f-title', title);
  await page.fill('#f-category', 'templates');
  await page.click('#save');
  await page.waitForURL(
    (url) => url.pathname.startsWith('/admin/challenges/') && url.search.includes('done=created'),
  );
  const created = await server.deps.db.query<{ format: string; match: { players: number } | null }>(
    'SELECT format, match FROM challenges WHERE title = $1',
    [title],
  );
  expect(created.rows).toEqual([{ format: 'head_to_head', match: expect.objectContaining({ players: 2 }) }]);
  expect(operator.problems).toEqual([]);
  await context.close();
}, 120_000);
