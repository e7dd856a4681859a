/**
 * The spectator watch page in a real headless Chromium: events appear only after the spectator
 * delay, hostile snippets render as text (no script runs, no element is created), the page is
 * self-contained under a strict CSP, and a screenshot lands in test-artifacts/watch-page.png.
 *
 * Needs Debian's Chromium at /usr/bin/chromium (`apt-get update && apt-get install -y chromium`).
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import { demoScript, judgedEvent } from '../../src/connector-client/demo';
import { enteredAgent, insertChallenge, liveEvent, postEvent } from '../helpers/connector-factories';
import { launchChromium } from '../helpers/browser';
import { startTestServer, type TestServer } from '../helpers/server';

// The callbacks passed to page.evaluate/waitForFunction run in the browser (tsconfig has no DOM lib).
declare const document: {
  querySelectorAll(selector: string): { length: number };
  getElementById(id: string): { textContent: string | null } | null;
  querySelector(selector: string): { scrollTop: number } | null;
};
declare const window: unknown;

const ARTIFACTS = path.resolve(__dirname, '../../test-artifacts');
const DELAY = 1500;

let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  server = await startTestServer({ RATE_LIMIT_DISABLED: '1' });
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

interface Observed {
  errors: string[];
  console: string[];
  dialogs: string[];
  external: string[];
}

async function openWatchPage(challengeId: string): Promise<{ page: Page; observed: Observed }> {
  const page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
  const observed: Observed = { errors: [], console: [], dialogs: [], external: [] };
  page.on('pageerror', (err) => observed.errors.push(err.message));
  page.on('console', (msg) => observed.console.push(`${msg.type()}: ${msg.text()}`));
  page.on('dialog', (dialog) => {
    observed.dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  page.on('response', (res) => {
    if (res.status() >= 400) observed.console.push(`http ${res.status()}: ${res.url()}`);
  });
  page.on('request', (req) => {
    if (!req.url().startsWith(server.baseUrl)) observed.external.push(req.url());
  });
  const res = await page.goto(`${server.baseUrl}/challenges/${challengeId}/watch`);
  expect(res?.status()).toBe(200);
  return { page, observed };
}

const HOSTILE_SNIPPET =
  '<script>window.__pwned = "script"; alert("xss")</script><img src=x onerror="window.__pwned=\'img\'">';

test('renders the delayed feed per agent, hostile text as text, and the leaderboard', async () => {
  const challengeId = await insertChallenge(server, { title: 'Reverse a string <i>fast</i>' });
  const ada = await enteredAgent(server, { challengeId, name: 'Ada (demo script)' });
  const mallory = await enteredAgent(server, { challengeId, name: '<img src=x onerror=alert(1)>Mallory' });

  const { page, observed } = await openWatchPage(challengeId);
  const csp = (await page.request.get(page.url())).headers()['content-security-policy'];
  expect(csp).toMatch(/default-src 'none'/);
  expect(csp).toMatch(/script-src 'nonce-[A-Za-z0-9+/=]+'/);
  expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/);
  // The server-rendered title is escaped.
  expect(await page.textContent('h1')).toBe('Reverse a string <i>fast</i>');
  await page.waitForSelector('#conn[data-state="live"]', { timeout: 10_000 });

  const postedAt = Date.now();
  // The demo's scripted events up to the fix, then what a local test run and a judged result look like.
  const adaEvents = [
    ...demoScript()
      .map((item) => item.event)
      .slice(0, 11),
    { type: 'command_run' as const, command: 'npm test', exit_code: 1, summary: '1 of 3 tests fail' },
    judgedEvent(
      'first draft',
      {
        id: 'x',
        submission_status: 'complete',
        failure_reason: null,
        result: { id: 'r', final_score: 40, result_state: 'scored' },
      },
      null,
    ),
    { type: 'command_run' as const, command: 'npm test', exit_code: 0, summary: 'All tests pass' },
    { type: 'command_run' as const, command: 'npx tsc --noEmit', exit_code: 0 },
    { type: 'progress' as const, percent: 80, stage: 'edge cases' },
  ];
  expect(adaEvents).toHaveLength(16);
  for (const event of adaEvents) {
    expect(
      (
        await postEvent(
          server,
          ada,
          challengeId,
          liveEvent(event.type, { ...event, timestamp: new Date().toISOString() }),
        )
      ).status,
    ).toBe(200);
  }
  const hostile = [
    liveEvent('code_write', {
      filename: 'evil.html',
      language: 'html',
      summary: '<b>bold?</b> <script>alert(1)</script>',
      snippet: HOSTILE_SNIPPET,
    }),
    liveEvent('command_run', {
      command: '<img src=x onerror="window.__pwned=1">',
      exit_code: 2,
      snippet: '</pre><script>window.__pwned=2</script>',
    }),
    liveEvent('error_hit', { error_summary: '"><svg onload="window.__pwned=3">' }),
    liveEvent('progress', { percent: 42, stage: '<em>stage</em>' }),
  ];
  for (const event of hostile)
    expect((await postEvent(server, mallory, challengeId, event)).status).toBe(200);

  // Nothing shows before the delay has passed: whatever a look at the page finds was found no sooner
  // than the delay after posting (the time is taken after the look, so a slow look cannot fail it).
  for (;;) {
    const shown = await page.locator('li.event').count();
    const elapsed = Date.now() - postedAt;
    if (shown > 0) expect(elapsed).toBeGreaterThanOrEqual(DELAY);
    if (elapsed >= DELAY - 300) break;
    await page.waitForTimeout(100);
  }
  // The deadlines below are safety nets only, for a relay on a machine far busier than its cores.
  await page.waitForFunction(() => document.querySelectorAll('li.event').length === 20, undefined, {
    timeout: 60_000,
  });
  expect(Date.now() - postedAt).toBeGreaterThanOrEqual(DELAY);

  // Hostile text stayed text: no script ran, no element was created from it.
  expect(await page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned)).toBeUndefined();
  expect(observed.dialogs).toEqual([]);
  expect(await page.locator('main img, main svg, main b, main em, main i, main script').count()).toBe(0);
  const malloryCard = page.locator(`article.agent[data-agent-id="${mallory.agentId}"]`);
  expect(await malloryCard.locator('h3').textContent()).toBe('<img src=x onerror=alert(1)>Mallory');
  const code = await malloryCard.locator('li.t-code_write pre code').textContent();
  expect(code).toBe(HOSTILE_SNIPPET);
  expect(await malloryCard.locator('li.t-code_write .text').textContent()).toBe(
    '<b>bold?</b> <script>alert(1)</script>',
  );
  expect(await malloryCard.locator('li.t-command_run pre code').first().textContent()).toBe(
    '$ <img src=x onerror="window.__pwned=1">',
  );
  expect(await malloryCard.locator('li.t-command_run .exit').textContent()).toBe('exit 2');
  expect(await malloryCard.locator('li.t-error_hit .text').textContent()).toBe(
    '"><svg onload="window.__pwned=3">',
  );
  expect(
    await malloryCard.locator('progress').evaluate((el) => (el as unknown as { value: number }).value),
  ).toBe(42);
  expect(await malloryCard.locator('.stage').textContent()).toBe('42% · <em>stage</em>');

  // Ada's card: typed events, newest first, progress from the last progress event.
  const adaCard = page.locator(`article.agent[data-agent-id="${ada.agentId}"]`);
  expect(await adaCard.locator('li.event').count()).toBe(16);
  expect(await adaCard.locator('li.t-code_write .file').first().textContent()).toBe(
    'src/solution.ts (typescript)',
  );
  expect(await adaCard.locator('li.t-command_run .exit.bad').count()).toBe(1);
  expect(await adaCard.locator('li.t-command_run .exit.ok').count()).toBeGreaterThanOrEqual(2);
  expect(await adaCard.locator('li.t-error_hit').count()).toBe(1);
  expect(await adaCard.locator('li.t-self_correct').count()).toBe(1);
  expect(await adaCard.locator('progress').evaluate((el) => (el as unknown as { value: number }).value)).toBe(
    80,
  );
  expect(await adaCard.locator('li.event').first().getAttribute('class')).toContain('t-progress');

  // Times in UTC, 24-hour, like every other page; the event list is a labelled region a keyboard
  // can focus and scroll.
  const times = await adaCard.locator('li.event time').allTextContents();
  expect(times.length).toBe(16);
  for (const t of times) expect(t).toMatch(/^\d{2}:\d{2}:\d{2} UTC$/);
  const firstTime = adaCard.locator('li.event time').first();
  expect(await firstTime.textContent()).toBe(
    `${new Date((await firstTime.getAttribute('datetime'))!).toISOString().slice(11, 19)} UTC`,
  );
  const region = adaCard.locator('.events-wrap');
  expect(await region.getAttribute('role')).toBe('region');
  expect(await region.getAttribute('tabindex')).toBe('0');
  expect(await region.getAttribute('aria-label')).toMatch(/^Events of .+, newest first$/);
  await region.focus();
  expect(
    await region.evaluate((el) => el === (el.ownerDocument as { activeElement: unknown }).activeElement),
  ).toBe(true);
  const scrollable = await region.evaluate(
    (el) =>
      (el as unknown as { scrollHeight: number; clientHeight: number }).scrollHeight >
      (el as unknown as { clientHeight: number }).clientHeight,
  );
  if (scrollable) {
    await page.keyboard.press('End');
    await page.waitForFunction(
      (id) => document.querySelector(`article.agent[data-agent-id="${id}"] .events-wrap`)!.scrollTop > 0,
      ada.agentId,
      { timeout: 5_000 },
    );
  }

  // The leaderboard panel left its loading state (rows, "no scored submissions" or the placeholder).
  await page.waitForFunction(
    () => !document.getElementById('leaderboard')!.textContent!.includes('Loading'),
    undefined,
    { timeout: 10_000 },
  );
  expect(await page.locator('#leaderboard').textContent()).toMatch(
    /No scored submissions yet|Leaderboard not available yet|Agent/,
  );

  // Self-contained and clean: no request left the origin, no error, no CSP violation.
  expect(observed.external).toEqual([]);
  expect(observed.errors).toEqual([]);
  expect(observed.console).toEqual([]);

  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, 'watch-page.png'), fullPage: true });
  await page.close();
}, 150_000);

test('a new event reaches an open page through the live stream after the delay', async () => {
  const agent = await enteredAgent(server, { name: 'Late Larry' });
  const { page } = await openWatchPage(agent.challengeId);
  await page.waitForSelector('#conn[data-state="live"]', { timeout: 30_000 });
  const postedAt = Date.now();
  await postEvent(
    server,
    agent,
    agent.challengeId,
    liveEvent('thinking', { summary: 'arrives late, on purpose' }),
  );
  await page.waitForSelector('li.t-thinking', { timeout: 60_000 });
  expect(Date.now() - postedAt).toBeGreaterThanOrEqual(DELAY);
  expect(await page.textContent('li.t-thinking .text')).toBe('arrives late, on purpose');
  expect(await page.textContent('#counter')).toBe('1 event');
  await page.close();
}, 120_000);

test('unknown and draft challenges answer an HTML 404; a bad id is 400', async () => {
  const draft = await insertChallenge(server, { status: 'draft' });
  for (const id of [draft, '7b0c1f7e-9a1e-4c55-8f50-4a3a3b1f0d11']) {
    const res = await server.request('GET', `/challenges/${id}/watch`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.text).toMatch(/Challenge not found/);
  }
  expect((await server.request('GET', '/challenges/nope/watch')).status).toBe(400);
  const ok = await server.request('GET', `/challenges/${await insertChallenge(server)}/watch`);
  expect(ok.status).toBe(200);
  expect(ok.headers.get('content-type')).toMatch(/^text\/html; charset=utf-8/);
  expect(ok.headers.get('x-content-type-options')).toBe('nosniff');
  expect(ok.headers.get('x-frame-options')).toBe('DENY');
  expect(ok.text).not.toMatch(/https?:\/\/(?!127\.0\.0\.1)/); // no CDN or external asset
});
