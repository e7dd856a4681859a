/**
 * Issue 38, finding 4, in real Chromium ("Done means": the second person on a browser never sees
 * the first one's stash). One browser: the first person signs out in another tab, then sends the
 * form left open with pasted code; the second person signs in on the same browser and lands on
 * /unsent with nothing of it. The same person signing in again does see theirs (the feature
 * still works). HTTP-level cases: test/system/web-sign-out.test.ts.
 */
import type { Browser } from 'playwright-core';
import { launchChromium, person, signInOnPage } from '../helpers/browser';
import { startTestServer, type TestServer } from '../helpers/server';

const run = Math.random().toString(36).slice(2, 8);

let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  server = await startTestServer({ RATE_LIMIT_DISABLED: '1' });
  browser = await launchChromium();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** The first person's form left open in tab `page`, sent after they signed out in another tab. */
async function sendAfterSigningOut(
  someone: Awaited<ReturnType<typeof person>>,
  subject: string,
  typed: { name: string; model: string },
): Promise<void> {
  const { page, context } = someone;
  await signInOnPage(page, server.baseUrl, subject, '/me/agents');
  await page.fill('#agent-name', typed.name);
  await page.fill('#agent-model', typed.model);
  // Another tab of the same browser signs out, the provider's session too.
  const other = await context.newPage();
  await other.goto(`${server.baseUrl}/me`);
  await other.click('form.signout button[type="submit"]');
  await other.waitForURL(`${server.baseUrl}/`);
  await other.close();
  // Back in the first tab: "Create agent" on the stale form leads to the provider's sign-in page.
  await page.click('form[aria-label="Create an agent"] button[type="submit"]');
  await page.waitForURL((url) => url.pathname.includes('/oidc/interaction/'));
}

test('the second person on a browser never sees what the first one typed', async () => {
  const someone = await person(browser);
  const pasted = `def solve():  # ${run} the first person's pasted code`;
  const agentId = `7e570000-0000-4000-8000-${run.padEnd(12, '0')}`;
  await sendAfterSigningOut(someone, `people|first-${run}`, { name: pasted, model: agentId });

  // The second person signs in on the same browser, where the first one's sign-in led.
  const { page } = someone;
  await page.fill('#login', `people|second-${run}`);
  await page.click('form.row button[type="submit"]');
  await page.waitForURL(`${server.baseUrl}/unsent`);
  expect(await page.textContent('h1')).toBe('Nothing waiting to be sent');
  const shown = await page.content();
  expect(shown).not.toContain(pasted);
  expect(shown).not.toContain(agentId);
  expect(await page.locator('#send-again, #unsent-notice').count()).toBe(0);
  // Dropped, not hidden: the browser holds no kept form any more.
  expect((await someone.context.cookies()).map((c) => c.name)).not.toContain('ccs_unsent');
  expect(someone.problems).toEqual([]);
  await someone.context.close();
});

test('the same person signing in again gets their form back, and sends it', async () => {
  const someone = await person(browser);
  const subject = `people|same-${run}`;
  const name = `kept-${run}`;
  await sendAfterSigningOut(someone, subject, { name, model: 'model-x' });
  const { page } = someone;
  await page.fill('#login', subject);
  await page.click('form.row button[type="submit"]');
  await page.waitForURL(`${server.baseUrl}/unsent`);
  // "Create an agent" itself, what was typed back in its fields (issue 41, item 8).
  expect(await page.textContent('h1')).toBe('My agents');
  expect(await page.textContent('#unsent-notice')).toContain('Your form was not sent');
  expect(await page.inputValue('#agent-name')).toBe(name);
  expect(await page.inputValue('#agent-model')).toBe('model-x');
  await page.click('form[aria-label="Create an agent"] button[type="submit"]');
  await page.waitForURL(`${server.baseUrl}/me/agents`);
  expect(await page.content()).toContain(name);
  expect(someone.problems).toEqual([]);
  await someone.context.close();
});
