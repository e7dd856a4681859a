/**
 * The web journey of issue 21 in real Chromium: two people sign in through the embedded
 * provider, create agents; one gets a connector key and an API token (shown once), enters a
 * challenge, submits from the browser and sees the status pushed to the page until its score;
 * a connector started with that agent's key sees the assignment; sign-out ends the session on the
 * server (the old cookie is refused). Screenshots at 1280 and 390 px; axe on every page.
 */
import type { Browser } from 'playwright-core';
import { ConnectorClient } from '../../src/connector-client';
import { axeViolations, checkTwoWidths, launchChromium, person, signInOnPage } from '../helpers/browser';
import { newChallenge } from '../helpers/submission-factories';
import { startTestServer, type TestServer } from '../helpers/server';

const run = Math.random().toString(36).slice(2, 8);

let server: TestServer;
let browser: Browser;
let challengeId: string;

beforeAll(async () => {
  server = await startTestServer({ RATE_LIMIT_DISABLED: '1' });
  browser = await launchChromium();
  // Rubric: "42" → 60, ≤ 200 chars → +20, hidden "^The" → +20.
  challengeId = await newChallenge(server, {
    title: `Journey ${run}`,
    ends_at: new Date(Date.now() + 86_400_000),
  });
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

test('two people sign in, create agents; one enters, submits, watches the status, and a connector sees the entry', async () => {
  const ada = await person(browser);
  const basil = await person(browser);
  const violations: string[] = [];

  // Signed out, /me leads to the provider's sign-in page.
  await ada.page.goto(`${server.baseUrl}/me`);
  expect(ada.page.url()).toContain('/oidc/interaction/');
  await checkTwoWidths(ada.page, 'web-provider-sign-in');
  violations.push(...(await axeViolations(browser, ada.context, ada.page.url(), { impacts: 'serious' })));

  await signInOnPage(ada.page, server.baseUrl, null, '/me/agents');
  await signInOnPage(basil.page, server.baseUrl, `basil-${run}`, '/me/agents');
  expect(await ada.page.textContent('header.site')).toContain('Signed in as Ada (demo)');

  // Both create an agent.
  for (const [who, name] of [
    [ada, `Ada bot ${run}`],
    [basil, `Basil bot ${run}`],
  ] as const) {
    await who.page.fill('#agent-name', name);
    await who.page.click('form[aria-label="Create an agent"] button');
    await who.page.waitForSelector(`text=${name}`);
  }
  // Ada renames hers, then makes a connector key: shown once.
  const card = ada.page.locator('li.card', { hasText: `Ada bot ${run}` });
  await card.locator('input[name="name"]').fill(`Ada racer ${run}`);
  await card.locator('button:has-text("Rename")').click();
  await ada.page.waitForSelector(`h2:has-text("Ada racer ${run}")`);
  await ada.page
    .locator('li.card', { hasText: `Ada racer ${run}` })
    .locator('button:has-text("New connector key")')
    .click();
  const agentKey = (await ada.page.textContent('#shown-secret'))!.trim();
  expect(agentKey).toMatch(/^aa_/);
  await checkTwoWidths(ada.page, 'web-my-agents');
  violations.push(
    ...(await axeViolations(browser, ada.context, `${server.baseUrl}/me/agents`, { impacts: 'serious' })),
  );
  await ada.page.reload({ waitUntil: 'load' }).catch(() => undefined);
  await ada.page.goto(`${server.baseUrl}/me/agents`);
  expect(await ada.page.locator('#shown-secret').count()).toBe(0);

  // An API token, shown once.
  await ada.page.goto(`${server.baseUrl}/me/tokens`);
  await ada.page.click('form[aria-label="Create an API token"] button[type="submit"]');
  expect((await ada.page.textContent('#shown-secret'))!.trim()).toMatch(/^svc_sk_live_/);
  await checkTwoWidths(ada.page, 'web-api-tokens');
  violations.push(
    ...(await axeViolations(browser, ada.context, `${server.baseUrl}/me/tokens`, { impacts: 'serious' })),
  );

  // Enter the challenge from its page.
  await ada.page.goto(`${server.baseUrl}/challenges/${challengeId}`);
  await ada.page.click('text=Take part: enter an agent, submit from the browser');
  await ada.page.click('button:has-text("Enter this challenge")');
  await ada.page.waitForSelector('h2:has-text("Submit from the browser")');
  await checkTwoWidths(ada.page, 'web-take-part');
  violations.push(...(await axeViolations(browser, ada.context, ada.page.url(), { impacts: 'serious' })));

  // The connector started with that agent's key sees the assignment (spec §1).
  const connector = new ConnectorClient({ baseUrl: server.baseUrl, agentKey });
  const assignments = await connector.pollAssignments();
  expect(assignments.map((a) => a.challenge.id)).toContain(challengeId);

  // Submit from the browser; the status is pushed to the page until the score shows.
  await ada.page.fill('#submit-content', 'The answer is 42');
  await ada.page.click('form[enctype="multipart/form-data"] button[type="submit"]');
  await ada.page.waitForURL(/\/me\/submissions\/[0-9a-f-]{36}$/);
  const seen = new Set<string>([(await ada.page.getAttribute('#status', 'data-status'))!]);
  await ada.page.waitForFunction(
    () => {
      const el = (
        globalThis as unknown as {
          document: { getElementById(id: string): { getAttribute(n: string): string } | null };
        }
      ).document.getElementById('score');
      return el !== null;
    },
    undefined,
    { timeout: 60_000 },
  );
  seen.add((await ada.page.getAttribute('#status', 'data-status'))!);
  expect(seen.has('complete')).toBe(true);
  expect(await ada.page.textContent('#score')).toContain('100.00');
  // The result as a judge shows it (issue 29): one row per visible criterion, the hidden one absent.
  const verdicts = await ada.page.textContent('#verdict-table');
  expect(verdicts).toContain('answer');
  expect(verdicts).toContain('concise');
  expect(verdicts).not.toContain('style');
  await checkTwoWidths(ada.page, 'web-submission');
  violations.push(...(await axeViolations(browser, ada.context, ada.page.url(), { impacts: 'serious' })));

  // My submissions lists it.
  await ada.page.goto(`${server.baseUrl}/me`);
  expect(await ada.page.locator('#history-table tbody tr').count()).toBe(1);
  await checkTwoWidths(ada.page, 'web-my-submissions');
  violations.push(
    ...(await axeViolations(browser, ada.context, `${server.baseUrl}/me`, { impacts: 'serious' })),
  );

  // Basil sees none of Ada's agents.
  await basil.page.goto(`${server.baseUrl}/me/agents`);
  expect(await basil.page.textContent('main')).not.toContain('Ada racer');

  // Sign out ends the session on the server: the old cookie is refused.
  const cookies = await ada.context.cookies();
  await ada.page.click('header.site button:has-text("Sign out")');
  // Sign-out continues to the provider's own logout (RP-initiated, issue 29), which may ask first.
  await ada.page.waitForURL((u) => u.pathname === '/' || u.pathname.startsWith('/oidc/'));
  const stale = cookies.find((c) => c.name === 'ccs_session')!;
  const replay = await fetch(`${server.baseUrl}/me/agents`, {
    headers: { cookie: `ccs_session=${stale.value}` },
    redirect: 'manual',
  });
  expect(replay.status).toBe(302);

  expect(violations).toEqual([]);
  expect([...ada.problems, ...basil.problems]).toEqual([]);
  await ada.context.close();
  await basil.context.close();
}, 180_000);
