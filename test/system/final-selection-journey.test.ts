/**
 * Selection for the final board on the history page (issue 41, item 7; Kaggle's "a checkbox per
 * row and a counter"): a competitor with submissions to a contest (a private test, so a final
 * board to play for) and to a practice challenge (none) sees each row's verdict, ticks two
 * contest rows and saves; ticking a third re-shows the page with the reason beside the boxes
 * (never a bare 400 page) and changes nothing; practice rows and their result page offer no
 * selection. Chromium at 1280 and 390 px with axe.
 */
import type { Browser, Page } from 'playwright-core';
import { createActive, inSeconds } from '../helpers/challenge-factories';
import { newAgent, newUser } from '../helpers/factories';
import { auditPage, axeViolations, launchChromium, person, signInOnPage } from '../helpers/browser';
import { startTestServer, type TestServer } from '../helpers/server';
import { sessionFor, submit, waitForSubmission } from '../helpers/submission-factories';

let server: TestServer;
let browser: Browser;
beforeAll(async () => {
  server = await startTestServer({ RATE_LIMIT_DISABLED: '1' });
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await server.close();
});

/** The words of the history table's column headings that the browser laid out over two lines. */
function wordsBrokenInHeadings(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    // Runs in the browser (tsconfig has no DOM lib): the little of the DOM used here.
    interface TextNode {
      nodeType: number;
      textContent: string | null;
    }
    const doc = (
      globalThis as unknown as {
        document: {
          querySelectorAll(s: string): Iterable<{ firstChild: TextNode | null }>;
          createRange(): {
            setStart(n: TextNode, i: number): void;
            setEnd(n: TextNode, i: number): void;
            getClientRects(): { length: number };
          };
        };
      }
    ).document;
    const broken: string[] = [];
    for (const th of doc.querySelectorAll('#history-table thead th')) {
      const node = th.firstChild;
      if (!node || node.nodeType !== 3) continue;
      let at = 0;
      for (const word of String(node.textContent).split(' ')) {
        const range = doc.createRange();
        range.setStart(node, at);
        range.setEnd(node, at + word.length);
        if (word !== '' && range.getClientRects().length > 1) broken.push(word);
        at += word.length + 1;
      }
    }
    return broken;
  });
}

const judge = (withPrivate: boolean) => ({
  kind: 'tests',
  timeout_ms_per_test: 5000,
  tests: [
    { name: 'adds', export: 'add', args: [2, 3], expected: 5 },
    ...(withPrivate
      ? [{ name: 'held out', export: 'add', args: [-2, -3], expected: -5, private: true }]
      : []),
  ],
});
const program = (body: string) => ({
  content: 'my solution',
  files: [
    {
      path: 'src/index.ts',
      language: 'typescript',
      content: `export function add(a: number, b: number): number { ${body} }`,
    },
  ],
});

test('tick two for the final board, a third is refused beside the boxes; practice offers none; axe at both widths', async () => {
  const contest = await createActive(server, {
    judge: judge(true),
    ends_at: inSeconds(3600),
    final_submissions: 2,
  });
  const practice = await createActive(server, { judge: judge(false) });
  const user = await newUser(server);
  const agent = await newAgent(server, { user, name: 'ada-bot' });

  const sent = async (challengeId: string, body: string): Promise<string> => {
    const res = await submit(
      server,
      agent.token,
      await sessionFor(server, agent, challengeId),
      program(body),
    );
    expect(res.status).toBe(201);
    return res.body.data.id as string;
  };
  const first = await sent(contest.id, 'return a + b;');
  const second = await sent(contest.id, 'return b + a;');
  const wrong = await sent(contest.id, 'return a - b;');
  const playful = await sent(practice.id, 'return a + b;');
  for (const id of [first, second, wrong, playful])
    expect(
      (await waitForSubmission(server, agent.token, id, ['complete', 'failed'], 60_000)).submission_status,
    ).toBe('complete');

  const ada = await person(browser);
  const { page } = ada;
  await signInOnPage(page, server.baseUrl, user.subject, '/me');

  // DOMjudge's verdict per row, beside the raw result state.
  const verdict = async (id: string) =>
    page.textContent(`#history-table tr:has(a[href="/me/submissions/${id}"]) td[data-verdict]`);
  expect(await verdict(first)).toBe('correct');
  expect(await verdict(wrong)).toBe('wrong answer');

  // One counter, for the contest; no box on the practice row.
  expect(await page.locator('#final-selection form.selection').count()).toBe(1);
  const counter = page.locator('#final-selection [id^="sel-count-"]');
  expect(await counter.textContent()).toBe('0 of 2 selected');
  expect(await page.locator(`#pick-${playful}`).count()).toBe(0);

  await page.check(`#pick-${first}`);
  await page.check(`#pick-${second}`);
  expect(await counter.textContent()).toBe('2 of 2 selected');
  await page.click('#final-selection button[type="submit"]');
  await page.waitForURL(/\/me\?challenge_id=.*&saved=1$/);
  expect(await page.textContent('#history-notice')).toBe('Selection saved.');
  expect(await counter.textContent()).toBe('2 of 2 selected');
  expect(await page.isChecked(`#pick-${first}`)).toBe(true);
  const shown = async (id: string) =>
    (await server.request('GET', `/api/v1/submissions/${id}`, { auth: agent.token })).body.data.selected;
  expect([await shown(first), await shown(second), await shown(wrong)]).toEqual([true, true, false]);
  // At 390 px the table scrolls in its region and no column heading breaks inside a word (41.9).
  await page.setViewportSize({ width: 390, height: 844 });
  expect(await wordsBrokenInHeadings(page)).toEqual([]);
  await page.setViewportSize({ width: 1280, height: 860 });
  expect(await auditPage(browser, ada.context, page, 'final-selection-saved')).toEqual([]);
  expect(
    await axeViolations(browser, ada.context, page, { impacts: 'serious', width: 390, name: 'saved-390' }),
  ).toEqual([]);

  // A third: the page again (400), the boxes as ticked, the reason beside them; nothing changed.
  await page.check(`#pick-${wrong}`);
  expect(await counter.textContent()).toBe('3 of 2 selected: untick 1');
  const [answer] = await Promise.all([
    page.waitForResponse((r) => r.url().endsWith('/me/final-selection')),
    page.click('#final-selection button[type="submit"]'),
  ]);
  expect(answer.status()).toBe(400);
  await page.waitForSelector('.field-error');
  expect(await page.textContent('h1')).toBe('My submissions');
  expect(await page.textContent('.field-error')).toContain(
    'at most 2 submissions of this agent count on the final board',
  );
  expect(await page.isChecked(`#pick-${wrong}`)).toBe(true);
  expect([await shown(first), await shown(second), await shown(wrong)]).toEqual([true, true, false]);
  expect(await auditPage(browser, ada.context, page, 'final-selection-refused', { from: 'html' })).toEqual(
    [],
  );
  expect(
    await axeViolations(browser, ada.context, page, {
      from: 'html',
      impacts: 'serious',
      width: 390,
      name: 'refused-390',
    }),
  ).toEqual([]);

  // The result pages: the practice one offers no selection, the contest one does.
  await page.goto(`${server.baseUrl}/me/submissions/${playful}`);
  await page.waitForSelector('#status');
  expect(await page.locator('#select-form').count()).toBe(0);
  expect(await page.textContent('body')).not.toContain('Select for the final board');
  await page.goto(`${server.baseUrl}/me/submissions/${wrong}`);
  expect(await page.textContent('#select-form button')).toBe('Select for the final board');

  // The refused form's answer is a 400 (the page re-shown), which Chromium logs; nothing else.
  expect(ada.problems.filter((p) => !p.includes('status of 400 (Bad Request)'))).toEqual([]);
  await ada.context.close();
}, 300_000);
