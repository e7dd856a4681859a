/**
 * Pages people can rely on (issue 21), over HTTP and in a real headless Chromium:
 * - page routes answer HTML for their errors (400, 404, 429, 5xx) with a way back;
 * - pages spend their own per-IP budget, apart from the API's anonymous 60/min;
 * - an unknown path under /api/ is the JSON 404, any other the HTML 404 page;
 * - "How to take part" on the challenge page; one score format; the watch card's bar agrees
 *   with its label; the API reference with an operation open is axe clean.
 * Every page's way home, its width at 390 px and axe at both widths (error pages included) are
 * pages-axe-sweep.test.ts's: one sweep over the route table.
 */
import { readFileSync } from 'node:fs';
import { type Browser, type Page } from 'playwright-core';
import { formatScore } from '../../src/lib/score';
import { enteredAgent, liveEvent, postEvent } from '../helpers/connector-factories';
import { newAgent } from '../helpers/factories';
import { newChallenge, sessionFor, submit, waitForSubmission } from '../helpers/submission-factories';
import { launchChromium } from '../helpers/browser';
import { startTestServer, type TestServer } from '../helpers/server';

// Callbacks given to page.evaluate run in the browser (tsconfig has no DOM lib).
declare const window: { axe: { run(ctx: unknown, options: unknown): Promise<AxeResults> } };
declare const document: {
  documentElement: { scrollWidth: number; clientWidth: number };
  querySelector(s: string): { value: number; textContent: string | null } | null;
};
interface AxeResults {
  violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] }[];
}

const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

let server: TestServer;
let browser: Browser;
let rubricChallenge: string;
let programChallenge: string;
let watchChallenge: string;

/** Every page a person can land on, with what it is called in the screenshots. */
const PAGES = (): { name: string; path: string; status: number; ready?: string }[] => [
  { name: 'api-reference', path: '/api/v1/docs', status: 200, ready: '.opblock' },
];

beforeAll(async () => {
  // Rate limits on: this suite checks the budgets (each test uses addresses of its own).
  server = await startTestServer();
  rubricChallenge = await newChallenge(server, {
    title: 'A challenge with a rather long title that must wrap on a narrow phone screen',
  });
  programChallenge = await newChallenge(server, {
    title: 'Sum two numbers',
    judge: {
      kind: 'program',
      languages: ['python', 'c'],
      time_limit_ms: 1000,
      tests: [
        { name: 'sample', stdin: '1 2\n', expected_stdout: '3\n' },
        { name: 'wide', stdin: `${'9'.repeat(300)} 1\n`, expected_stdout: `1${'0'.repeat(300)}\n` },
        { name: 'secret', hidden: true, stdin: 'HIDDEN-INPUT-77', expected_stdout: 'HIDDEN-OUTPUT-77' },
      ],
    } as never,
  });
  const agent = await newAgent(server, { name: 'Scorer' });
  const session = await sessionFor(server, agent, rubricChallenge);
  const res = await submit(server, agent.token, session, { content: 'The answer is 42' });
  await waitForSubmission(server, agent.token, res.body.data.id);

  const watcher = await enteredAgent(server, { name: 'Progress Pat' });
  watchChallenge = watcher.challengeId;
  await postEvent(server, watcher, watchChallenge, liveEvent('progress', { percent: 42.6, stage: 'tests' }));
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** A fresh address per test (the test server trusts X-Forwarded-For), so budgets do not mix. */
// A block of its own (198.18.0.0/15, for benchmarks): other suites share the rate-limit table.
const block = `198.18.${Math.floor(Math.random() * 256)}`;
let nextAddress = 1;
const address = () => ({ 'x-forwarded-for': `${block}.${nextAddress++}` });

describe('errors on pages are pages', () => {
  test('unknown paths: JSON 404 under /api/, the HTML 404 page with navigation elsewhere', async () => {
    const api = await server.request('GET', '/api/v1/no-such-route', { headers: address() });
    expect(api.status).toBe(404);
    expect(api.headers.get('content-type')).toMatch(/application\/json/);
    expect(api.body.error.code).toBe('NOT_FOUND');

    for (const pagePath of ['/no/such/page', '/challenges', '/about.html']) {
      const res = await server.request('GET', pagePath, { headers: address() });
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/text\/html/);
      expect(res.text).toContain('Page not found');
      expect(res.text).toContain('href="/"');
      expect(res.text).toContain(res.headers.get('x-request-id')!);
      expect(res.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
    }
  });

  test('a malformed id is an HTML 400, a missing challenge an HTML 404, both with a way back', async () => {
    const bad = await server.request('GET', '/challenges/not-a-uuid', { headers: address() });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toMatch(/text\/html/);
    expect(bad.text).toContain('href="/"');
    const missing = await server.request('GET', '/challenges/7b0c1f7e-9a1e-4c55-8f50-4a3a3b1f0d11/watch', {
      headers: address(),
    });
    expect(missing.status).toBe(404);
    expect(missing.text).toContain('Challenge not found');
    expect(missing.text).toContain('href="/"');
  });

  test('a failure on our side is an HTML 5xx page that names the request, never a stack', async () => {
    const broken = await startTestServer();
    try {
      await broken.deps.db.end(); // the database goes away under the running app
      const res = await broken.request('GET', '/', { headers: address() });
      expect(Math.floor(res.status / 100)).toBe(5); // a 5xx status class, whichever our side chose
      expect(res.headers.get('content-type')).toMatch(/text\/html/);
      expect(res.text).toContain('href="/"');
      expect(res.text).toContain(res.headers.get('x-request-id')!);
      expect(res.text).not.toMatch(/at .*\.ts:\d+|Error:/);
      // The API beside it keeps its JSON envelope.
      const api = await broken.request('GET', '/api/v1/challenges', { headers: address() });
      expect(Math.floor(api.status / 100)).toBe(5);
      expect(api.body.error.code).toBeDefined();
    } finally {
      await broken.close().catch(() => undefined);
    }
  });
});

describe('the pages have their own budget', () => {
  test('after the API’s anonymous 60/min is spent, the home page still answers HTML', async () => {
    const ip = address();
    let last = await server.request('GET', '/api/v1/challenges', { headers: ip });
    for (let i = 1; i < 61 && last.status === 200; i++)
      last = await server.request('GET', '/api/v1/challenges', { headers: ip });
    expect(last.status).toBe(429);
    expect(last.body.error.code).toBe('RATE_LIMITED');

    const home = await server.request('GET', '/', { headers: ip });
    expect(home.status).toBe(200);
    expect(home.headers.get('content-type')).toMatch(/text\/html/);
    expect(home.headers.get('x-ratelimit-limit')).toBe('300');
  });

  test('pages themselves are limited per address, with an HTML 429 that says when to come back', async () => {
    const ip = address();
    const other = address();
    let res = await server.request('GET', '/', { headers: ip });
    const limit = Number(res.headers.get('x-ratelimit-limit'));
    expect(limit).toBe(300);
    // Spend the rest of the budget in parallel batches; the answer after it is the 429 page.
    for (let spent = 1; spent < limit; spent += 25) {
      const batch = Math.min(25, limit - spent);
      await Promise.all(
        Array.from({ length: batch }, () => server.request('GET', '/no/such/page', { headers: ip })),
      );
    }
    res = await server.request('GET', `/challenges/${rubricChallenge}`, { headers: ip });
    expect(res.status).toBe(429);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    expect(res.text).toContain('Too many requests');
    expect(res.text).toContain('href="/"');
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another address, and the API for this one, are untouched.
    expect((await server.request('GET', '/', { headers: other })).status).toBe(200);
    expect((await server.request('GET', '/api/v1/challenges', { headers: ip })).status).toBe(200);
  });
});

describe('the challenge page: how to take part', () => {
  test('names this challenge in the CLI and API lines, the allowed languages and the visible tests only', async () => {
    const res = await server.request('GET', `/challenges/${programChallenge}`, { headers: address() });
    expect(res.status).toBe(200);
    expect(res.text).toContain('How to take part');
    expect(res.text).toContain(`submit ${programChallenge} --file main.py --wait`);
    expect(res.text).toContain(`sessions open ${programChallenge}`);
    expect(res.text).toContain(`/api/v1/challenges/${programChallenge}/sessions`);
    expect(res.text).toMatch(/<code>python<\/code>.*<code>c<\/code>/s);
    expect(res.text).toContain('1 hidden test also counts');
    expect(res.text).not.toContain('HIDDEN-INPUT-77');
    expect(res.text).not.toContain('HIDDEN-OUTPUT-77');
    // The same view the API gives everyone.
    const api = await server.request('GET', `/api/v1/challenges/${programChallenge}`, { headers: address() });
    expect(api.body.data.judge_public.languages).toEqual(['python', 'c']);
    expect(api.body.data.judge_public.tests.map((t: { name: string }) => t.name)).toEqual(['sample', 'wide']);
    expect(api.text).not.toContain('HIDDEN');
  });

  test('scores use the one format everywhere on the page', async () => {
    const res = await server.request('GET', `/challenges/${rubricChallenge}`, { headers: address() });
    const board = await server.request('GET', `/api/v1/leaderboards/${rubricChallenge}`, {
      headers: address(),
    });
    const best = board.body.data[0].best_score as number;
    expect(res.text).toContain(`<td class="num">${formatScore(best)}</td>`);
    expect(formatScore(100)).toBe('100.00');
    expect(formatScore(87.5)).toBe('87.50');
    expect(formatScore(null)).toBe('–');
  });
});

describe('in Chromium: every page', () => {
  beforeAll(async () => {
    browser = await launchChromium();
  }, 60_000);
  async function openAt(width: number, pagePath: string, status: number, ready?: string): Promise<Page> {
    const context = await browser.newContext({
      viewport: { width, height: 860 },
      extraHTTPHeaders: address(),
    });
    const page = await context.newPage();
    const res = await page.goto(`${server.baseUrl}${pagePath}`);
    expect(res?.status()).toBe(status);
    if (ready) await page.waitForSelector(ready, { timeout: 90_000 });
    return page;
  }

  async function axeFindings(
    pages: Array<ReturnType<typeof PAGES>[number] & { open?: string }>,
  ): Promise<string[]> {
    const found: string[] = [];
    for (const p of pages) {
      const context = await browser.newContext({
        bypassCSP: true, // to inject axe; the pages' CSP is asserted by their own suites
        viewport: { width: 1280, height: 860 },
        extraHTTPHeaders: address(),
      });
      const page = await context.newPage();
      await page.goto(`${server.baseUrl}${p.path}`);
      if ('open' in p && typeof p.open === 'string') {
        await page.waitForSelector(p.open, { timeout: 90_000 });
        await page.click(p.open);
      }
      if (p.ready) await page.waitForSelector(p.ready, { timeout: 90_000 });
      await page.evaluate(AXE_SOURCE);
      const results = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
      for (const v of results.violations)
        if (v.impact === 'serious' || v.impact === 'critical')
          found.push(
            `${p.name}: ${v.id} (${v.impact}) ${v.help} at ${JSON.stringify(v.nodes.map((n) => n.target))}`,
          );
      await context.close();
    }
    return found;
  }

  // Swagger UI's own markup needed overrides (contrast, the servers <select>'s name, deep links
  // nested in toggle buttons, scrolling code samples): checked closed and with an operation open.
  test('the API reference (Swagger UI) has no serious or critical axe violation with an operation open', async () => {
    // Closed, it is one of pages-axe-sweep's visits (both widths).
    expect(
      await axeFindings(
        PAGES()
          .filter((p) => p.name === 'api-reference')
          .map((p) => ({
            ...p,
            name: 'api-reference (an operation open)',
            open: '.opblock-post .opblock-summary-control',
            ready: '.opblock.is-open .opblock-body',
          })),
      ),
    ).toEqual([]);
  }, 200_000);

  test("the watch card's progress bar agrees with its label", async () => {
    const page = await openAt(1280, `/challenges/${watchChallenge}/watch`, 200, '.agent progress');
    await page.waitForFunction(() =>
      (document.querySelector('.agent .stage')?.textContent ?? '').includes('%'),
    );
    const shown = await page.evaluate(() => ({
      value: document.querySelector('.agent progress')!.value,
      label: document.querySelector('.agent .stage')!.textContent,
    }));
    expect(shown.label).toBe('43% · tests');
    expect(`${shown.value}%`).toBe(shown.label!.split(' · ')[0]);
    await page.context().close();
  }, 60_000);
});
