/**
 * The server-rendered pages (/, /challenges/{id}, /me) and the watch page's leaderboard in a real
 * headless Chromium: readable with JavaScript off, enhanced with it on, strict CSP, nothing from
 * another host, no serious or critical axe-core violation. Screenshots land in test-artifacts/.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { newAgent, newUser, type TestAgent } from '../helpers/factories';
import { newChallenge, sessionFor, submit, waitForSubmission } from '../helpers/submission-factories';
import { launchChromium } from '../helpers/browser';
import { startTestServer, type TestServer } from '../helpers/server';

// Callbacks given to page.evaluate run in the browser (tsconfig has no DOM lib).
declare const window: { axe: { run(ctx: unknown, options: unknown): Promise<AxeResults> } };
interface AxeResults {
  violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] }[];
}

const ARTIFACTS = path.resolve(__dirname, '../../test-artifacts');
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

let server: TestServer;
let browser: Browser;
const category = `pages-${Date.now().toString(36)}`;
let challengeId: string;
let twinA: TestAgent;
let twinB: TestAgent;
let solo: TestAgent;
const soloSubmissions: string[] = [];

async function scored(agent: TestAgent, content: string): Promise<string> {
  const session = await sessionFor(server, agent, challengeId);
  const res = await submit(server, agent.token, session, { content });
  expect(res.status).toBe(201);
  await waitForSubmission(server, agent.token, res.body.data.id);
  return res.body.data.id;
}

beforeAll(async () => {
  server = await startTestServer({ RATE_LIMIT_DISABLED: '1' });
  browser = await launchChromium();
  // Rubric: "42" → 60, ≤ 200 chars → +20, hidden "^The" → +20.
  challengeId = await newChallenge(server, {
    title: 'Pages <b>test</b>',
    ends_at: new Date(Date.now() + 86_400_000),
  });
  await server.deps.db.query(`UPDATE challenges SET category = $2, description = $3 WHERE id = $1`, [
    challengeId,
    category,
    'Answer the question.\nShow your <work>.',
  ]);
  const upcoming = await newChallenge(server, {
    title: 'Later',
    starts_at: new Date(Date.now() + 86_400_000),
  });
  await server.deps.db.query(`UPDATE challenges SET category = $2 WHERE id = $1`, [upcoming, category]);
  const sharedUser = await newUser(server);
  twinA = await newAgent(server, { name: 'Twin', user: sharedUser });
  twinB = await newAgent(server, { name: 'Twin' });
  solo = await newAgent(server, { name: 'Solo' });
  await scored(twinA, 'The answer is 42');
  await scored(twinB, 'The answer is 42');
  soloSubmissions.push(await scored(solo, '42'));
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

interface Watched {
  page: Page;
  context: BrowserContext;
  problems: string[];
}

async function open(urlPath: string, options: { javaScript?: boolean } = {}): Promise<Watched> {
  const context = await browser.newContext({
    javaScriptEnabled: options.javaScript ?? true,
    viewport: { width: 1280, height: 860 },
  });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error' || msg.type() === 'warning')
      problems.push(`console ${msg.type()}: ${msg.text()}`);
  });
  page.on('request', (req) => {
    if (!req.url().startsWith(server.baseUrl) && !req.url().startsWith('data:'))
      problems.push(`external request: ${req.url()}`);
  });
  const res = await page.goto(`${server.baseUrl}${urlPath}`);
  expect(res?.status()).toBe(200);
  const csp = res!.headers()['content-security-policy'];
  expect(csp).toMatch(/default-src 'none'/);
  expect(csp).toMatch(/require-trusted-types-for 'script'/);
  expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|https?:/);
  return { page, context, problems };
}

/** axe-core in a CSP-bypassing copy of the page (the CSP is asserted separately): serious and critical violations. */
async function axeViolations(urlPath: string, prepare?: (page: Page) => Promise<void>): Promise<string[]> {
  const context = await browser.newContext({ bypassCSP: true, viewport: { width: 1280, height: 860 } });
  const page = await context.newPage();
  await page.goto(`${server.baseUrl}${urlPath}`);
  if (prepare) await prepare(page);
  await page.evaluate(AXE_SOURCE);
  const results = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
  await context.close();
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} at ${JSON.stringify(v.nodes.map((n) => n.target))}`);
}
declare const document: unknown;

const shot = async (page: Page, name: string) => {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, name), fullPage: true });
};

const cells = (page: Page, selector: string) => page.locator(selector).allTextContents();

describe('/ (challenges)', () => {
  it('lists active and upcoming challenges with JavaScript off, filters by category and links onwards', async () => {
    const { page, context, problems } = await open(`/?category=${category}`, { javaScript: false });
    expect(await cells(page, '#challenges h2')).toEqual(['Later', 'Pages <b>test</b>']);
    expect(await page.locator('#challenges .badge').allTextContents()).toEqual(['upcoming', 'active']);
    expect(await page.textContent('#count')).toBe('2 challenges');
    // The filter form is a plain GET form: it works without script.
    await page.selectOption('select[name="status"]', 'complete');
    await Promise.all([page.waitForURL(/status=complete/), page.click('button[type="submit"]')]);
    expect(await page.textContent('#challenges')).toBe('No challenges match these filters.');
    await page.goto(`${server.baseUrl}/?category=${category}`);
    await Promise.all([
      page.waitForURL(new RegExp(`/challenges/${challengeId}$`)),
      page.click('text=Pages <b>test</b>'),
    ]);
    expect(await page.textContent('h1')).toBe('Pages <b>test</b>');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('takes any query (bad values fall back to defaults) and passes axe', async () => {
    const res = await server.request('GET', '/?status=nonsense&page=-3&category=');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const { page, context, problems } = await open('/');
    await shot(page, 'page-home.png');
    expect(problems).toEqual([]);
    await context.close();
    expect(await axeViolations(`/?category=${category}`)).toEqual([]);
  });
});

describe('/challenges/{id}', () => {
  it('renders description, rules and the leaderboard on the server: ties share a rank, same names show a short id', async () => {
    const { page, context, problems } = await open(`/challenges/${challengeId}`, { javaScript: false });
    expect(await page.textContent('.description')).toBe('Answer the question.\nShow your <work>.');
    const rules = await page.textContent('section[aria-labelledby="about"]');
    expect(rules).toContain('rubric');
    expect(await cells(page, 'section[aria-labelledby="about"] tbody td:first-child')).toEqual([
      'answer',
      'concise',
    ]);
    expect(rules).toContain('1 hidden criterion also counts');
    expect(rules).not.toContain('style');
    expect(await cells(page, '#leaderboard tbody td:nth-child(1)')).toEqual(['1', '1', '3']);
    const labels = await cells(page, '#leaderboard tbody td:nth-child(2)');
    expect(labels.slice(0, 2).sort()).toEqual(
      [`Twin #${twinA.agentId.slice(0, 8)}`, `Twin #${twinB.agentId.slice(0, 8)}`].sort(),
    );
    expect(labels[2]).toBe('Solo');
    expect(await page.getAttribute('a[href$="/watch"]', 'href')).toBe(`/challenges/${challengeId}/watch`);
    expect(await page.getAttribute('a[href$="export.csv"]', 'href')).toBe(
      `/api/v1/leaderboards/${challengeId}/export.csv`,
    );
    expect(problems).toEqual([]);
    await context.close();
  });

  it('refreshes the leaderboard in place (conditional GET when the API gives an ETag)', async () => {
    const { page, context, problems } = await open(`/challenges/${challengeId}`);
    // The first refresh runs at load; its answer is recorded on the box.
    await page.waitForSelector('#leaderboard[data-last-status]');
    soloSubmissions.push(await scored(solo, 'The answer: 42'));
    await page.waitForFunction(
      () => {
        const doc = document as { querySelectorAll(s: string): ArrayLike<{ textContent: string | null }> };
        return Array.from(doc.querySelectorAll('#leaderboard tbody td:nth-child(1)')).every(
          (td) => td.textContent === '1',
        );
      },
      undefined,
      { timeout: 25_000 },
    );
    expect(await cells(page, '#leaderboard tbody td:nth-child(1)')).toEqual(['1', '1', '1']);
    expect(['200', '304']).toContain(await page.getAttribute('#leaderboard', 'data-last-status'));
    await shot(page, 'page-challenge.png');
    expect(problems).toEqual([]);
    await context.close();
    expect(await axeViolations(`/challenges/${challengeId}`)).toEqual([]);
  }, 60_000);

  it('an unknown challenge is an HTML 404; a malformed id is 400', async () => {
    const missing = await server.request('GET', '/challenges/7b0c1f7e-9a1e-4c55-8f50-4a3a3b1f0d11');
    expect(missing.status).toBe(404);
    expect(missing.text).toContain('Challenge not found');
    expect((await server.request('GET', '/challenges/nope')).status).toBe(400);
  });
});

describe('the watch page leaderboard', () => {
  it('uses the same rules: shared ranks and short ids for same-named agents', async () => {
    const { page, context, problems } = await open(`/challenges/${challengeId}/watch`);
    await page.waitForSelector('#leaderboard tbody tr');
    expect(await cells(page, '#leaderboard tbody td:nth-child(1)')).toEqual(['1', '1', '1']);
    const labels = await cells(page, '#leaderboard tbody td:nth-child(2)');
    expect(labels.filter((l) => l.startsWith('Twin #'))).toHaveLength(2);
    expect(labels).toContain('Solo');
    expect(problems.filter((p) => !p.includes('/live'))).toEqual([]);
    await context.close();
  });
});

describe('/me', () => {
  // Signed in, /me is the history of the person's own agents (test/system/web-journey.test.ts);
  // the pasted-token page it replaces is gone (docs/decisions/web.md).
  it('signed out, it leads to signing in and returns to /me', async () => {
    const { page, context } = await open('/me');
    expect(page.url()).toContain('/oidc/interaction/');
    await page.fill('#login', solo.user.subject);
    await page.click('form.row button[type="submit"]');
    await page.waitForURL(`${server.baseUrl}/me`);
    const links = await page
      .locator('#history-table a[href^="/me/submissions/"]')
      .evaluateAll((as) =>
        as.map((a) => (a as unknown as { getAttribute(n: string): string }).getAttribute('href')),
      );
    // Newest first: the leaderboard test above may have added a second submission of Solo's.
    expect(links).toEqual([...soloSubmissions].reverse().map((id) => `/me/submissions/${id}`));
    const scores = await cells(page, '#history-table tbody td.num'); // the Score column
    expect(scores).toHaveLength(soloSubmissions.length);
    expect(scores[scores.length - 1]).toBe('80.00'); // the first, '42', scored in beforeAll
    await context.close();
  });
});
