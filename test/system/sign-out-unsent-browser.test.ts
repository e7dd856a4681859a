/**
 * Issue 41, item 8, in real Chromium at 1280 and 390 px with axe: signing out is one step (the
 * development provider ends its own session without asking, and the next protected page asks who
 * is there), and /unsent shows the take-part form itself with what was typed, not field names.
 */
import type { Browser } from 'playwright-core';
import { createActive } from '../helpers/challenge-factories';
import { newAdmin, newUser } from '../helpers/factories';
import { auditPage, launchChromium, person, signInOnPage } from '../helpers/browser';
import { startTestServer, type TestServer } from '../helpers/server';

let server: TestServer;
let browser: Browser;
beforeAll(async () => {
  server = await startTestServer({ RATE_LIMIT_DISABLED: '1' });
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

test('"Sign out" ends both sessions in one step; the next protected page asks who is there', async () => {
  const user = await newUser(server);
  const someone = await person(browser);
  const { page } = someone;
  await signInOnPage(page, server.baseUrl, user.subject, '/me');

  await page.click('form.signout button[type="submit"]');
  // Straight home: no provider page on the way, nothing to answer "No" to.
  await page.waitForURL(`${server.baseUrl}/`);
  expect(await page.locator('form.signout').count()).toBe(0);
  expect(await auditPage(browser, someone.context, page, 'signed-out-home')).toEqual([]);

  // The provider's session is gone too: a protected page leads to its sign-in page, not silently back.
  await page.goto(`${server.baseUrl}/me`);
  await page.waitForURL((url) => url.pathname.includes('/oidc/interaction/'));
  expect(await page.locator('#login').count()).toBe(1);
  expect(someone.problems).toEqual([]);
  await someone.context.close();
}, 120_000);

test('/unsent re-shows the take-part form with what was typed, and sends it', async () => {
  const admin = await newAdmin(server);
  const challenge = await createActive(
    server,
    {
      judge: {
        kind: 'program',
        languages: ['python', 'javascript'],
        tests: [{ name: 'small', stdin: '1 2\n', expected_stdout: '3\n' }],
      },
    },
    admin,
  );
  const user = await newUser(server);
  const agentIds: string[] = [];
  for (const name of ['First bot', 'Second bot']) {
    const agent = await server.request('POST', '/api/v1/agents', { auth: user.jwt, body: { name } });
    expect(agent.status).toBe(201);
    agentIds.push(agent.body.data.id);
    const entered = await server.request('POST', `/api/v1/challenges/${challenge.id}/entries`, {
      auth: user.jwt,
      body: { agent_id: agent.body.data.id },
    });
    expect(entered.status).toBe(201);
  }

  const someone = await person(browser);
  const { page, context } = someone;
  await signInOnPage(page, server.baseUrl, user.subject, `/me/challenges/${challenge.id}`);
  const code = 'a, b = map(int, input().split())\nprint(a + b)\n';
  await page.selectOption('#submit-agent', agentIds[1]);
  await page.selectOption('#submit-language', 'python');
  await page.fill('#submit-content', code);
  await page.fill('#submit-paste-path', 'main.py');
  await page.fill('#submit-path-1', 'docs/notes.txt');

  // The session ends on the server meanwhile (the idle limit, "sign out everywhere" elsewhere), then
  // "Submit" on the form left open: the provider's session still lives, so the sign-in is silent.
  await server.deps.db.query(
    `UPDATE web_sessions SET revoked_at = now()
      WHERE user_id = (SELECT id FROM users WHERE subject = $1) AND revoked_at IS NULL`,
    [user.subject],
  );
  await page.click('#submit-form button[type="submit"]');
  await page.waitForURL(`${server.baseUrl}/unsent`);

  // The same form, its values back in their fields; no internal field names as labels.
  expect(await page.textContent('h1')).toBe(`Take part: ${challenge.title}`);
  expect(await page.textContent('#unsent-notice')).toContain('Your form was not sent');
  expect(await page.inputValue('#submit-agent')).toBe(agentIds[1]);
  expect(await page.inputValue('#submit-language')).toBe('python');
  expect(await page.inputValue('#submit-content')).toBe(code);
  expect(await page.inputValue('#submit-paste-path')).toBe('main.py');
  expect(await page.inputValue('#submit-path-1')).toBe('docs/notes.txt');
  const labels = await page.locator('label').allTextContents();
  for (const internal of ['agent_id', 'paste_path', 'path_1'])
    expect(labels.filter((l) => l.trim().startsWith(internal))).toEqual([]);
  expect(await auditPage(browser, context, page, 'unsent-take-part', { from: 'html' })).toEqual([]);

  // Sending it creates the submission for the agent picked before the sign-out.
  await page.fill('#submit-path-1', '');
  await page.click('#submit-form button[type="submit"]');
  await page.waitForURL((url) => url.pathname.startsWith('/me/submissions/'));
  const sent = await server.deps.db.query<{ agent_id: string }>(
    'SELECT agent_id FROM submissions WHERE challenge_id = $1',
    [challenge.id],
  );
  expect(sent.rows.map((r) => r.agent_id)).toEqual([agentIds[1]]);
  expect(someone.problems).toEqual([]);
  await context.close();
}, 180_000);
