/**
 * Real Chromium for the page tests (Debian's package, driven by playwright-core): one launch
 * recipe, a "person" with their own cookies who collects the page's own errors, sign-in through
 * the embedded provider's page, the two-width layout check and axe-core. One copy of each, so a
 * journey says only what the person does.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

declare const window: { axe: { run(ctx: unknown, options: unknown): Promise<AxeResults> } };
declare const document: { documentElement: { scrollWidth: number; clientWidth: number } };
interface AxeResults {
  violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] }[];
}

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const SCREENSHOTS = path.resolve(__dirname, '../../test-artifacts/screenshots');
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** Headless Chromium; fails with the reason when it is not installed (`.ci/run` installs it). */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `Chromium is not installed at ${CHROMIUM}: apt-get install -y chromium (Debian's package), or set CHROMIUM_PATH`,
    );
  mkdirSync(SCREENSHOTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-sync',
    ],
  });
}

export interface Person {
  context: BrowserContext;
  page: Page;
  /** The page's own uncaught errors and console errors: a journey ends expecting none. */
  problems: string[];
}

/** A person at a desktop window with cookies of their own. */
export async function person(browser: Browser, options: { bypassCSP?: boolean } = {}): Promise<Person> {
  // bypassCSP: axe may then run in the page as it is (`from: 'live'`), e.g. while events stream in.
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, ...options });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(`console error: ${msg.text()}`);
  });
  return { context, page, problems };
}

/**
 * Signs in through /login and the embedded provider's page, as a person would: as `subject`
 * typed into "Any name", or (null) with the first demo account's button.
 */
export async function signInOnPage(
  page: Page,
  baseUrl: string,
  subject: string | null,
  returnTo: string,
): Promise<void> {
  await page.goto(`${baseUrl}/login?return_to=${encodeURIComponent(returnTo)}`);
  if (!page.url().includes('/oidc/interaction/')) throw new Error(`/login led to ${page.url()}`);
  if (subject === null) await page.click('text=Continue as Ada (demo)');
  else {
    await page.fill('#login', subject);
    await page.click('form.row button[type="submit"]');
  }
  await page.waitForURL(`${baseUrl}${returnTo}`);
}

/**
 * Screenshots at 1280 and 390 px (test-artifacts/screenshots); at 390 the page must not scroll
 * sideways. JPEG: a full-page PNG of a long page cost ~1.4 s of Chromium's CPU against ~0.5 s, and
 * the system tier is bound by its CPU (docs/testing.md); the pictures are for people to look at.
 */
const SHOT = { fullPage: true, type: 'jpeg', quality: 80 } as const;

export async function checkTwoWidths(page: Page, name: string): Promise<void> {
  await page.setViewportSize({ width: 1280, height: 860 });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}-1280.jpg`), ...SHOT });
  await page.setViewportSize({ width: 390, height: 844 });
  const { scrollWidth, clientWidth } = await page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    clientWidth: document.documentElement.clientWidth,
  }));
  expect({ name, scrollWidth }).toEqual({ name, scrollWidth: clientWidth });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}-390.jpg`), ...SHOT });
  await page.setViewportSize({ width: 1280, height: 860 });
}

/**
 * axe-core in a CSP-bypassing copy of the person's context, same cookies (axe injects a script,
 * which the pages' CSP forbids), on an address, or on what a page shows now: reloaded from its
 * address, or from its HTML (a form's answer has no address to GET). One line per violation of
 * the given impacts, naming the nodes.
 */
export async function axeViolations(
  browser: Browser,
  context: BrowserContext,
  target: Page | string,
  options: AxeOptions & { name?: string; width?: number } = {},
): Promise<string[]> {
  return axeAtWidths(browser, context, target, options, [{ width: options.width, name: options.name }]);
}

interface AxeOptions {
  from?: 'url' | 'html' | 'live';
  impacts?: 'all' | 'serious';
}

/**
 * axe at each width in turn on one copy of the page: loaded and given axe once, then resized, as
 * the sweep does (a load and an injection of axe's 0.5 MB per width cost CPU the tier is bound by).
 */
async function axeAtWidths(
  browser: Browser,
  context: BrowserContext,
  target: Page | string,
  options: AxeOptions,
  runs: { width?: number; name?: string }[],
): Promise<string[]> {
  const found: string[] = [];
  if (options.from === 'live' && typeof target !== 'string') {
    for (const run of runs) found.push(...(await axeOnPage(target, { ...options, ...run })));
    return found;
  }
  const viewport = (width: number | undefined) =>
    width ? { width, height: 844 } : { width: 1280, height: 720 };
  return withAuditor(browser, context, async (checked) => {
    // A narrow width shows what only a phone meets (scrolling regions, wrapped headings).
    await checked.setViewportSize(viewport(runs[0]?.width));
    const url = typeof target === 'string' ? target : target.url();
    if (typeof target === 'string' || (options.from ?? 'url') === 'url') await checked.goto(url);
    else await checked.setContent(await target.content());
    await checked.addScriptTag({ content: AXE_SOURCE });
    for (const [i, run] of runs.entries()) {
      if (i > 0) await checked.setViewportSize(viewport(run.width));
      const where = run.name ?? url;
      const results = await checked.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
      found.push(
        ...results.violations
          .filter((v) => options.impacts !== 'serious' || v.impact === 'serious' || v.impact === 'critical')
          .map(
            (v) =>
              `${where}: ${v.id} [${v.impact}] (${v.help}) ${JSON.stringify(v.nodes.map((n) => n.target))}`,
          ),
      );
    }
    return found;
  });
}

/**
 * The person's auditor: a CSP-bypassing context of their own (axe injects a script, which the
 * pages' CSP forbids) with one page, made once per person and given their cookies before each
 * audit. A context and its first page cost Chromium ~0.6 s of CPU here; the tier is bound by its
 * CPU (docs/testing.md), and the pages keep no state but cookies (no localStorage).
 */
const auditors = new WeakMap<BrowserContext, { page: Promise<Page>; turn: Promise<unknown> }>();
async function withAuditor<T>(
  browser: Browser,
  context: BrowserContext,
  audit: (page: Page) => Promise<T>,
): Promise<T> {
  let made = auditors.get(context);
  if (!made) {
    const page = browser
      .newContext({ bypassCSP: true, viewport: { width: 1280, height: 720 } })
      .then((copy) => {
        context.once('close', () => void copy.close().catch(() => undefined));
        return copy.newPage();
      });
    made = { page, turn: Promise.resolve() };
    auditors.set(context, made);
  }
  const auditor = made;
  // One audit at a time per person: each sets the page's cookies, width and document.
  const run = auditor.turn.then(async () => {
    const page = await auditor.page;
    await page.context().clearCookies();
    await page.context().addCookies(await context.cookies());
    try {
      return await audit(page);
    } finally {
      // Nothing of the audited page keeps running (a live page's stream, its timers) between audits.
      await page.goto('about:blank').catch(() => undefined);
    }
  });
  auditor.turn = run.catch(() => undefined);
  return run;
}

/**
 * axe in the page itself, as it is now (what a stream has added included), at its width or the
 * given one: the person's context must bypass the CSP (`person(browser, { bypassCSP: true })`).
 */
async function axeOnPage(
  page: Page,
  options: { impacts?: 'all' | 'serious'; name?: string; width?: number },
): Promise<string[]> {
  const before = page.viewportSize();
  if (options.width) await page.setViewportSize({ width: options.width, height: 844 });
  try {
    if (!(await page.evaluate(() => typeof (window as unknown as { axe?: unknown }).axe !== 'undefined')))
      await page.addScriptTag({ content: AXE_SOURCE });
    const results = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
    const where = options.name ?? page.url();
    return results.violations
      .filter((v) => options.impacts === 'all' || v.impact === 'serious' || v.impact === 'critical')
      .map(
        (v) => `${where}: ${v.id} [${v.impact}] (${v.help}) ${JSON.stringify(v.nodes.map((n) => n.target))}`,
      );
  } finally {
    if (options.width && before) await page.setViewportSize(before);
  }
}

/**
 * A page as people meet it: both widths (no sideways scrolling, a screenshot each, named
 * `screenshot`) and axe's findings at each width (1280, then 390: what only a phone meets, such as
 * scrolling regions and wrapped headings), at the given impacts (serious and critical by default).
 */
export async function auditPage(
  browser: Browser,
  context: BrowserContext,
  page: Page,
  screenshot: string,
  options: { from?: 'url' | 'html' | 'live'; impacts?: 'all' | 'serious'; name?: string } = {},
): Promise<string[]> {
  await checkTwoWidths(page, screenshot);
  return axeAtWidths(browser, context, page, { impacts: 'serious', ...options }, [
    { name: options.name },
    { width: 390, name: `${options.name ?? screenshot} at 390 px` },
  ]);
}
