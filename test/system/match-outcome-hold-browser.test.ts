/**
 * Pages hold match outcomes, in a real headless Chromium (DESIGN "Fifth-round extensions"; issue
 * 38, finding 3): right after a rated bout completes, the agent, challenge, ladder (ratings) and
 * match pages show it as running, their scripts included (the challenge page's board must not
 * fetch the API's ratings, which have the result at completion), until completed_at + the
 * spectator delay; then its result. The server's delay is 30 s (as in production; the tests'
 * default is 1.5 s) so that the held pages are read inside the hold; the test checks that they were.
 *
 * Needs Debian's Chromium at /usr/bin/chromium (see test/helpers/browser.ts).
 */
import type { Browser } from 'playwright-core';
import { launchChromium, person } from '../helpers/browser';
import { type TestUser } from '../helpers/factories';
import { playRatedBout } from '../helpers/match-factories';
import { type TestServer } from '../helpers/server';
import { startServerAndAdmin } from '../helpers/server-and-admin';

// The callbacks passed to page.evaluate/waitForFunction run in the browser (tsconfig has no DOM lib).
declare const document: { querySelector(selector: string): unknown };
declare const window: { __resultShownAt?: number };
declare class MutationObserver {
  constructor(callback: () => void);
  observe(target: unknown, options: { childList: boolean; subtree: boolean }): void;
}

const DELAY = 30_000;
let server: TestServer;
let browser: Browser;
let admin: TestUser;

beforeAll(async () => {
  ({ server, admin } = await startServerAndAdmin({
    RATE_LIMIT_DISABLED: '1',
    SPECTATOR_DELAY_MS: String(DELAY),
  }));
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

test('agent, challenge, ladder and match pages show a just-completed match as running until the hold ends', async () => {
  const bout = await playRatedBout(server, admin, 'Held outcomes in Chromium');
  const holdEnd = bout.completedAt.getTime() + DELAY;
  const spectator = await person(browser);
  const tab = async (path: string, waitUntil: 'load' | 'networkidle' = 'networkidle') => {
    const page = await spectator.context.newPage();
    page.on('pageerror', (err) => spectator.problems.push(`pageerror: ${err.message}`));
    await page.goto(server.baseUrl + path, { waitUntil });
    return page;
  };

  // The match page follows its live stream (never network-idle): watch for the result's arrival.
  const match = await tab(`/matches/${bout.matchId}`, 'load');
  await match.evaluate(() => {
    new MutationObserver(() => {
      if (window.__resultShownAt === undefined && document.querySelector('#result table'))
        window.__resultShownAt = Date.now();
    }).observe(document.querySelector('body'), { childList: true, subtree: true });
  });
  const agent = await tab(`/agents/${bout.ada.agentId}`);
  const challenge = await tab(`/challenges/${bout.challengeId}`);
  const ladder = await tab(`/weight-classes/${bout.weightClassId}/ladder`);

  const shown = {
    agentRow: await agent.textContent(`#matches-table tr:has(a[href="/matches/${bout.matchId}"])`),
    agentHistory: await agent.textContent('main'),
    challengeMatch: await challenge.textContent(`tr[data-match-id="${bout.matchId}"]`),
    challengeBoard: await challenge.textContent('#leaderboard'),
    ladder: await ladder.textContent('main'),
    matchStatus: await match.textContent('#match-status'),
    matchResult: await match.textContent('#result'),
  };
  // Every page above was read (scripts run, the challenge page's network idle) inside the hold.
  expect(Date.now()).toBeLessThan(holdEnd);

  expect(shown.agentRow).toContain('running');
  expect(shown.agentRow).not.toMatch(/complete|win/);
  expect(shown.agentHistory).toContain('No rated match yet.');
  expect(shown.challengeMatch).toContain('running');
  expect(shown.challengeBoard).toContain('0–0–0');
  expect(shown.challengeBoard).not.toContain('1–0–0');
  expect(shown.ladder).toContain('No rated agents yet.');
  expect(shown.matchStatus).toBe('running');
  expect(shown.matchResult).toContain('The result appears once the delayed feed reaches the end');

  // The match page's own script shows the result when the hold ends, not before.
  await match.waitForSelector('#result table', { timeout: DELAY + 30_000 });
  const resultAt = (await match.evaluate(() => window.__resultShownAt)) as number;
  expect(resultAt).toBeGreaterThanOrEqual(holdEnd - 50);
  expect(await match.textContent('#result')).toContain('win');
  expect(await match.textContent('#match-status')).toBe('complete');

  // After the hold a fresh load of each page shows the result.
  await agent.reload({ waitUntil: 'networkidle' });
  await challenge.reload({ waitUntil: 'networkidle' });
  await ladder.reload({ waitUntil: 'networkidle' });
  expect(await agent.textContent(`#matches-table tr:has(a[href="/matches/${bout.matchId}"])`)).toMatch(
    /complete.*win/,
  );
  expect(await agent.textContent('main')).toContain('Rating after each rated match');
  expect(await challenge.textContent(`tr[data-match-id="${bout.matchId}"]`)).toContain('complete');
  expect(await challenge.textContent(`#leaderboard tr[data-agent-id="${bout.ada.agentId}"]`)).toContain(
    '1–0–0',
  );
  expect(await ladder.textContent(`tr:has(a[href="/agents/${bout.ada.agentId}"])`)).toContain('1–0–0');
  expect(spectator.problems).toEqual([]);
  await spectator.context.close();
}, 240_000);
