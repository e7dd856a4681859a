/**
 * The operators' console in real Chromium (issue 23, "Done means"): an operator signs in, creates
 * a draft `tests` challenge (a wrong judge config first: the error shows beside it), dry-runs a
 * sample with it, publishes it (confirmed), sees two competitors' submissions, filters them,
 * rejudges one (confirmed), checks its Temporal Web UI link, and finds every step in the audit
 * trail. axe on every page visited; screenshots at 1280 and 390 px in test-artifacts/screenshots/.
 */
import type { Browser } from 'playwright-core';
import { submissionWorkflowId } from '../../src/domain/submissions/contract';
import { axeViolations, checkTwoWidths, launchChromium } from '../helpers/browser';
import { newAgent } from '../helpers/factories';
import { startTestServer, type TestServer } from '../helpers/server';
import { sessionFor, submit, waitForSubmission } from '../helpers/submission-factories';

const run = Math.random().toString(36).slice(2, 8);
const OPERATOR = `ops|journey-${run}`;
const TEMPORAL_UI = 'http://temporal-ui.test:8233';

/** add(a, b): two visible tests and a hidden one; the sample passes all but "wrong on purpose". */
const TESTS_JUDGE = {
  kind: 'tests',
  timeout_ms_per_test: 2000,
  tests: [
    { name: 'adds', export: 'add', args: [2, 3], expected: 5 },
    { name: 'hidden negative', export: 'add', args: [-2, -3], expected: -5, hidden: true },
    { name: 'wrong on purpose', export: 'add', args: [1, 1], expected: 3 },
  ],
};
const SOLUTION = 'export function add(a: number, b: number): number { return a + b; }';

let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  server = await startTestServer({
    RATE_LIMIT_DISABLED: '1',
    AUTH_OPERATOR_SUBJECTS: OPERATOR,
    TEMPORAL_UI_URL: TEMPORAL_UI,
  });
  browser = await launchChromium();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

test('an operator creates, dry-runs and publishes a tests challenge, rejudges a submission, and audits it all', async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
  page.on('console', (msg) => {
    // The wrong config is answered 400 on purpose (the form with its errors); Chromium logs that.
    const expected =
      msg.location().url === `${server.baseUrl}/admin/challenges` && msg.text().includes('400');
    if (msg.type() === 'error' && !expected)
      problems.push(`console error: ${msg.text()} at ${msg.location().url}`);
  });
  const violations: string[] = [];
  const visit = async (name: string) => {
    await checkTwoWidths(page, name);
    violations.push(...(await axeViolations(browser, context, page, { from: 'html', name })));
  };

  // Signed out, the console leads to the provider's sign-in page and back.
  await page.goto(`${server.baseUrl}/admin`);
  expect(page.url()).toContain('/oidc/interaction/');
  await page.fill('#login', OPERATOR);
  await page.click('form.row button[type="submit"]');
  await page.waitForURL(`${server.baseUrl}/admin`);
  expect(await page.getAttribute('header.site a[href="/admin"]', 'href')).toBe('/admin');
  expect(await page.getAttribute('nav.console a[href="/admin/deliveries"]', 'href')).toBe(
    '/admin/deliveries',
  );
  await visit('admin-console');

  // Every challenge, drafts included; a new draft.
  await page.click('nav.console >> text=Challenges');
  await page.waitForURL(`${server.baseUrl}/admin/challenges`);
  await visit('admin-challenges');
  await page.click('text=New draft challenge');
  await page.waitForURL(`${server.baseUrl}/admin/challenges/new`);
  const title = `Add two numbers ${run}`;
  await page.fill('#f-title', title);
  await page.fill('#f-description', 'Export add(a, b) returning the sum.');
  await page.fill('#f-category', `journey-${run}`);
  await page.fill('#f-time-limit-minutes', '45');
  // A wrong config first: the error shows beside the judge box and the form keeps what was typed.
  const wrong = { ...TESTS_JUDGE, tests: [{ ...TESTS_JUDGE.tests[0], export: 'not an identifier' }] };
  await page.fill('#f-judge', JSON.stringify(wrong, null, 2));
  await page.click('#save');
  await page.waitForSelector('#err-judge');
  expect(await page.textContent('#err-judge')).toContain('judge.tests.0.export');
  expect(await page.inputValue('#f-title')).toBe(title);
  expect(await page.getAttribute('#f-judge', 'aria-invalid')).toBe('true');
  await visit('admin-challenge-invalid');

  await page.fill('#f-judge', JSON.stringify(TESTS_JUDGE, null, 2));
  await page.click('#save');
  await page.waitForURL(/\/admin\/challenges\/[0-9a-f-]{36}\?done=created$/);
  const challengeId = /challenges\/([0-9a-f-]{36})/.exec(page.url())![1];
  expect(await page.textContent('#notice')).toContain('Draft created');
  expect(await page.textContent('#lifecycle-title')).toContain('draft');

  // Dry run of a sample with the config being edited: score and breakdown, nothing recorded.
  // This challenge's submissions only: other suites submit in parallel.
  const submissionsOf = 'SELECT count(*)::int AS n FROM submissions WHERE challenge_id = $1';
  const submissionsBefore = await server.deps.db.query(submissionsOf, [challengeId]);
  await page.fill('#f-sample', SOLUTION);
  // The page answers once the sample is judged, after its turn in the judging queue (other suites' judgings on CI).
  await page.click('#dry-run', { timeout: 120_000 });
  await page.waitForSelector('#dry-run-score', { timeout: 90_000 });
  expect(await page.textContent('#dry-run-score')).toBe('66.67');
  const criteria = await page.locator('#dry-run-criteria tbody tr').allTextContents();
  expect(criteria).toHaveLength(3);
  expect(criteria.join('|')).toContain('hidden negative hidden');
  expect(await page.inputValue('#f-sample')).toBe(SOLUTION);
  expect((await server.deps.db.query(submissionsOf, [challengeId])).rows[0].n).toBe(
    submissionsBefore.rows[0].n,
  );
  await visit('admin-dry-run');

  // Publish, after confirming.
  await page.goto(`${server.baseUrl}/admin/challenges/${challengeId}`);
  await page.click('text=Publish…');
  await page.waitForURL(`${server.baseUrl}/admin/challenges/${challengeId}/publish`);
  await visit('admin-confirm-publish');
  await page.click('button[name="confirm"]');
  await page.waitForURL(`${server.baseUrl}/admin/challenges/${challengeId}?done=published`);
  expect(await page.textContent('#lifecycle-title')).toContain('active');
  await visit('admin-challenge');

  // Two competitors submit through the API.
  const ada = await newAgent(server, { name: `Ada ${run}` });
  const basil = await newAgent(server, { name: `Basil ${run}` });
  const submissionIds: string[] = [];
  for (const [agent, code] of [
    [ada, SOLUTION],
    [basil, 'export function add(a: number, b: number): number { return a - b; }'],
  ] as const) {
    const res = await submit(server, agent.token, await sessionFor(server, agent, challengeId), {
      content: code,
    });
    expect(res.status).toBe(201);
    submissionIds.push(res.body.data.id);
    await waitForSubmission(server, agent.token, res.body.data.id, ['complete', 'failed'], 90_000);
  }

  // The operator sees both (newest first), then only Basil's.
  await page.click(`a[href="/admin/challenges/${challengeId}/submissions"]`);
  await page.waitForURL(`${server.baseUrl}/admin/challenges/${challengeId}/submissions`);
  const rows = page.locator('#submissions-table tbody tr');
  expect(await rows.count()).toBe(2);
  expect(await rows.nth(0).textContent()).toContain(`Basil ${run}`);
  expect(await rows.nth(1).textContent()).toContain(`Ada ${run}`);
  expect(await rows.nth(1).textContent()).toContain('66.67');
  await visit('admin-submissions');
  await page.selectOption('#f-agent', basil.agentId);
  await page.click('form[aria-label="Filter submissions"] button');
  await page.waitForURL(/agent_id=/);
  expect(await rows.count()).toBe(1);

  // One submission: the admin breakdown and its workflow in the Temporal Web UI.
  await page.click('#submissions-table tbody a:has-text("Details")');
  await page.waitForURL(`${server.baseUrl}/admin/submissions/${submissionIds[1]}`);
  const ns = encodeURIComponent(server.config.TEMPORAL_NAMESPACE);
  const judgeRun = async () =>
    (
      await server.deps.db.query<{ judge_run: number }>('SELECT judge_run FROM submissions WHERE id = $1', [
        submissionIds[1],
      ])
    ).rows[0].judge_run;
  const firstRun = await judgeRun();
  expect(await page.getAttribute('#workflow-link', 'href')).toBe(
    `${TEMPORAL_UI}/namespaces/${ns}/workflows/${encodeURIComponent(submissionWorkflowId(submissionIds[1], firstRun))}`,
  );
  expect(await page.textContent('#breakdown')).toContain('"audience": "admin"');
  expect(await page.textContent('#breakdown')).toContain('hidden negative');
  await visit('admin-submission');

  // Rejudge, after confirming: the page follows the new run and its workflow.
  await page.click('text=Rejudge…');
  await page.waitForURL(`${server.baseUrl}/admin/submissions/${submissionIds[1]}/rejudge`);
  await visit('admin-confirm-rejudge');
  await page.click('button[name="confirm"]');
  await page.waitForURL(`${server.baseUrl}/admin/submissions/${submissionIds[1]}?done=rejudged`);
  expect(await judgeRun()).toBe(firstRun + 1);
  expect(await page.textContent('#run')).toBe(String(firstRun + 1));
  expect(await page.getAttribute('#workflow-link', 'href')).toBe(
    `${TEMPORAL_UI}/namespaces/${ns}/workflows/${encodeURIComponent(submissionWorkflowId(submissionIds[1], firstRun + 1))}`,
  );

  // Every step in the audit trail, newest first, by this operator.
  await page.click('nav.console >> text=Audit trail');
  await page.waitForURL(`${server.baseUrl}/admin/audit`);
  await page.fill('#f-actor', OPERATOR);
  await page.click('form[aria-label="Filter the audit trail"] button');
  await page.waitForURL(/actor=/);
  const trailRows = page.locator('#audit-table tbody tr');
  const trail: (string | null)[][] = [];
  for (let i = 0; i < (await trailRows.count()); i++)
    trail.push([
      await trailRows.nth(i).getAttribute('data-action'),
      await trailRows.nth(i).getAttribute('data-target'),
    ]);
  expect(trail).toEqual([
    ['submission.rejudge', submissionIds[1]],
    ['challenge.publish', challengeId],
    ['challenge.create', challengeId],
  ]);
  await visit('admin-audit');

  expect(violations).toEqual([]);
  expect(problems).toEqual([]);
  await context.close();
}, 300_000);
