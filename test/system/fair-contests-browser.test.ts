/**
 * Fair contests in real Chromium (issue 32, "Done means"): a competitor selects a submission for
 * the final board and asks a question from the challenge page; an operator answers it publicly
 * from the console and posts an announcement there; the competitor sees both. axe on every page,
 * at 1280 and 390 px.
 */
import type { Browser } from 'playwright-core';
import { mintSessionJwt } from '../../src/auth/jwt';
import { axeViolations, checkTwoWidths, launchChromium, person, signInOnPage } from '../helpers/browser';
import { newAgent } from '../helpers/factories';
import { createActive, inSeconds, rubricJudge } from '../helpers/challenge-factories';
import { startTestServer, type TestServer } from '../helpers/server';
import { sessionFor, submit, waitForSubmission } from '../helpers/submission-factories';

const run = Math.random().toString(36).slice(2, 8);
const OPERATOR = `ops|contest-${run}`;
const COMPETITOR = `ada-contest-${run}`;

let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  server = await startTestServer({ RATE_LIMIT_DISABLED: '1', AUTH_OPERATOR_SUBJECTS: OPERATOR });
  browser = await launchChromium();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

test('a competitor selects a final submission and asks; an operator answers publicly', async () => {
  // A private criterion: a final board to select for (a challenge without one is practice).
  const judge = rubricJudge();
  judge.criteria.push({
    name: 'polite',
    weight: 1,
    check: { type: 'contains', value: 'there', case_sensitive: false },
    private: true,
  } as (typeof judge.criteria)[number]);
  const challenge = await createActive(server, { ends_at: inSeconds(3600), final_submissions: 1, judge });
  const competitor = await person(browser);
  const violations: string[] = [];
  const visit = async (who: typeof competitor, name: string) => {
    await checkTwoWidths(who.page, name);
    violations.push(...(await axeViolations(browser, who.context, who.page, { from: 'html', name })));
  };

  // The competitor signs in on the web, then submits with an API token of their own agent.
  await signInOnPage(competitor.page, server.baseUrl, COMPETITOR, `/challenges/${challenge.id}`);
  const jwt = await mintSessionJwt(server.config.AUTH_JWT_SECRET, {
    sub: COMPETITOR,
    name: 'Ada',
    role: 'user',
  });
  const agent = await newAgent(server, { user: { subject: COMPETITOR, jwt }, name: 'ada-bot' });
  const sessionId = await sessionFor(server, agent, challenge.id);
  const res = await submit(server, agent.token, sessionId, { content: 'hello there' });
  expect(res.status).toBe(201);
  await waitForSubmission(server, agent.token, res.body.data.id);

  // Select it for the final board from the submission page.
  await competitor.page.goto(`${server.baseUrl}/me/submissions/${res.body.data.id}`);
  expect(await competitor.page.textContent('#selected-state')).toBe('not selected');
  await competitor.page.click('#select-form button[type="submit"]');
  await competitor.page.waitForURL(`${server.baseUrl}/me/submissions/${res.body.data.id}`);
  expect(await competitor.page.textContent('#selected-state')).toBe('selected');
  await visit(competitor, 'contest-submission-selected');
  const listed = await server.request('GET', `/api/v1/submissions/${res.body.data.id}`, {
    auth: agent.token,
  });
  expect(listed.body.data.selected).toBe(true);

  // Ask a question from the challenge page.
  await competitor.page.goto(`${server.baseUrl}/challenges/${challenge.id}`);
  await competitor.page.fill('#question', 'Is whitespace significant?');
  await competitor.page.click('#ask-form button[type="submit"]');
  await competitor.page.waitForURL(`${server.baseUrl}/challenges/${challenge.id}#clarifications`);
  expect(await competitor.page.textContent('#clarifications-list')).toContain('Is whitespace significant?');
  await visit(competitor, 'contest-challenge-asked');

  // The operator sees it counted on the console's home and answers it publicly.
  const operator = await person(browser);
  await signInOnPage(operator.page, server.baseUrl, OPERATOR, '/admin');
  expect(Number(await operator.page.textContent('#unanswered-count strong'))).toBeGreaterThanOrEqual(1);
  await visit(operator, 'contest-console-home');
  await operator.page.goto(`${server.baseUrl}/admin/clarifications`);
  const item = operator.page.locator('li[data-clarification-id]', { hasText: 'Is whitespace significant?' });
  await visit(operator, 'contest-console-clarifications');
  await item.locator('textarea').fill('No: answers are compared token by token.');
  await item.locator('input[name="public"]').check();
  await item.locator('button[type="submit"]').click();
  await operator.page.waitForURL(`${server.baseUrl}/admin/clarifications?done=answered`);

  // And posts an announcement from the console, the challenge picked from its console page's link.
  await operator.page.goto(`${server.baseUrl}/admin/challenges/${challenge.id}`);
  await operator.page.click('#announce-link');
  await operator.page.waitForURL(
    `${server.baseUrl}/admin/clarifications?challenge_id=${challenge.id}#announce`,
  );
  expect(await operator.page.inputValue('#announce-challenge')).toBe(challenge.id);
  // An empty text is refused next to its field (the browser's own check is bypassed here).
  await operator.page.evaluate(`document.querySelector('#announce-text').removeAttribute('required')`);
  await operator.page.click('#announce-form button[type="submit"]');
  expect(await operator.page.textContent('#err-announce-text')).toBe('must not be blank');
  await visit(operator, 'contest-console-announce-error');
  await operator.page.fill('#announce-text', 'Test 3 was fixed: rejudged.');
  await operator.page.click('#announce-form button[type="submit"]');
  await operator.page.waitForURL(`${server.baseUrl}/admin/clarifications?done=announced`);
  await visit(operator, 'contest-console-announced');

  // Everyone now reads the answer on the challenge page, signed in or not.
  await competitor.page.goto(`${server.baseUrl}/challenges/${challenge.id}`);
  expect(await competitor.page.textContent('#clarifications-list')).toContain('token by token');
  const anonymous = await server.request('GET', `/challenges/${challenge.id}`);
  expect(anonymous.text).toContain('No: answers are compared token by token.');
  expect(anonymous.text).toContain('Test 3 was fixed: rejudged.');
  expect(await competitor.page.textContent('#clarifications-list')).toContain('Test 3 was fixed');

  expect(violations).toEqual([]);
  expect(competitor.problems).toEqual([]);
  // The refused announcement answered 400 on purpose (its form with the error); nothing else.
  expect(operator.problems.filter((p) => !p.includes('status of 400'))).toEqual([]);
  expect(operator.problems).toHaveLength(1);
}, 180_000);
