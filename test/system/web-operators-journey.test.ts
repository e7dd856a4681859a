/**
 * Operators and people in real Chromium (issue 29, "Done means"): two tabs edit one challenge and
 * the second save is refused with both values shown; a bulk rejudge after fixing the judge shows
 * old → new scores; sign out, then sign in as someone else; the judge-config editor's rows and
 * tests-file import (with script and without). axe (serious, critical) on every new page, at 1280
 * and 390 px (test-artifacts/screenshots).
 */
import type { Browser } from 'playwright-core';
import { auditPage, launchChromium, person, signInOnPage } from '../helpers/browser';
import { createActive, createDraft, createStarted } from '../helpers/challenge-factories';
import { newAgent, type TestUser } from '../helpers/factories';
import { type TestServer } from '../helpers/server';
import { RUBRIC_JUDGE, sessionFor, submit, waitForSubmission } from '../helpers/submission-factories';
import { startServerAndAdmin } from '../helpers/server-and-admin';

declare const document: { activeElement: { id: string } | null };

const run = Math.random().toString(36).slice(2, 8);
const OPERATOR = `ops|two-tabs-${run}`;

let server: TestServer;
let browser: Browser;
let admin: TestUser;

beforeAll(async () => {
  ({ server, admin } = await startServerAndAdmin({
    RATE_LIMIT_DISABLED: '1',
    AUTH_OPERATOR_SUBJECTS: OPERATOR,
  }));
  browser = await launchChromium();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

test('two tabs edit one challenge: the second save is refused and shows theirs and yours', async () => {
  // Started: the lifecycle's own first write is not the other tab's edit this test is about.
  const challenge = await createStarted(server, { title: `Two tabs ${run}`, judge: RUBRIC_JUDGE }, admin);
  const operator = await person(browser);
  await signInOnPage(operator.page, server.baseUrl, OPERATOR, '/admin');
  const tabOne = operator.page;
  const tabTwo = await operator.context.newPage();
  const editPage = `${server.baseUrl}/admin/challenges/${challenge.id}`;
  await tabOne.goto(editPage);
  await tabTwo.goto(editPage);

  await tabOne.fill('#f-title', `Title from tab one ${run}`);
  await tabOne.click('#save');
  await tabOne.waitForURL(`${editPage}?done=saved`);

  await tabTwo.fill('#f-title', `Title from tab two ${run}`);
  await tabTwo.click('#save');
  await tabTwo.waitForSelector('#edit-conflict');
  const row = tabTwo.locator('#conflict-table tr[data-field="title"]');
  expect(await row.locator('.theirs').textContent()).toBe(`Title from tab one ${run}`);
  expect(await row.locator('.yours').textContent()).toBe(`Title from tab two ${run}`);
  expect(await tabTwo.textContent('#edit-conflict')).toContain('Nothing of yours was saved');
  // Nothing of tab two's was saved.
  const stored = await server.request('GET', `/api/v1/admin/challenges/${challenge.id}`, { auth: admin.jwt });
  expect(stored.body.data.title).toBe(`Title from tab one ${run}`);

  const violations: string[] = [];
  violations.push(
    ...(await auditPage(browser, operator.context, tabTwo, 'console-edit-conflict', {
      from: 'html',
      name: 'edit conflict',
    })),
  );

  // Saving again, knowingly, replaces theirs.
  await tabTwo.click('#save');
  await tabTwo.waitForURL(`${editPage}?done=saved`);
  const replaced = await server.request('GET', `/api/v1/admin/challenges/${challenge.id}`, {
    auth: admin.jwt,
  });
  expect(replaced.body.data.title).toBe(`Title from tab two ${run}`);
  expect(violations).toEqual([]);
  expect(operator.problems.filter((p) => !p.includes('409'))).toEqual([]);
  await operator.context.close();
});

test('a bulk rejudge after fixing the judge shows each old → new score', async () => {
  const challenge = await createActive(server, { title: `Rejudge ${run}`, judge: RUBRIC_JUDGE }, admin);
  const ids: Record<string, string> = {};
  for (const [name, content] of [
    ['right', 'The answer is 42'],
    ['wrong', 'hello'],
  ]) {
    const agent = await newAgent(server, { name: `${name}-${run}` });
    const res = await submit(server, agent.token, await sessionFor(server, agent, challenge.id), { content });
    ids[name] = res.body.data.id;
    await waitForSubmission(server, admin.jwt, res.body.data.id);
  }
  // The operator fixes the test: the answer wanted was "hello".
  const fixed = {
    kind: 'rubric',
    criteria: [
      { name: 'answer', weight: 3, check: { type: 'contains', value: 'hello' } },
      { name: 'concise', weight: 1, check: { type: 'length', max: 200 } },
      { name: 'style', weight: 1, hidden: true, check: { type: 'regex', pattern: '^The' } },
    ],
  };
  const patched = await server.request('PATCH', `/api/v1/admin/challenges/${challenge.id}`, {
    auth: admin.jwt,
    body: { judge: fixed },
  });
  expect(patched.status).toBe(200);

  const operator = await person(browser);
  await signInOnPage(operator.page, server.baseUrl, OPERATOR, `/admin/challenges/${challenge.id}`);
  const page = operator.page;
  await page.click('#rejudge-all-link');
  await page.waitForURL(`${server.baseUrl}/admin/challenges/${challenge.id}/rejudge`);
  const violations: string[] = [];
  violations.push(...(await auditPage(browser, operator.context, page, 'console-rejudge-confirm')));
  await page.click('#rejudge-all');
  await page.waitForURL(/\/admin\/rejudges\/[0-9a-f-]{36}$/);

  // The person reloads until it is done (the page says how far it is).
  for (let i = 0; i < 120; i++) {
    if ((await page.getAttribute('#rejudge-status', 'data-status')) === 'done') break;
    await page.waitForTimeout(500);
    await page.reload();
  }
  expect(await page.getAttribute('#rejudge-status', 'data-status')).toBe('done');
  const scores = async (submissionId: string) => {
    const row = page.locator(`#rejudge-items tr[data-submission="${submissionId}"]`);
    return [await row.locator('.old').textContent(), await row.locator('.new').textContent()];
  };
  expect(await scores(ids.right)).toEqual(['100.00', '40.00']);
  expect(await scores(ids.wrong)).toEqual(['20.00', '80.00']);
  violations.push(...(await auditPage(browser, operator.context, page, 'console-rejudge-progress')));
  expect(violations).toEqual([]);
  expect(operator.problems).toEqual([]);
  await operator.context.close();
});

test('sign out, then sign in as someone else on the same browser', async () => {
  const first = `people|first-${run}`;
  const second = `people|second-${run}`;
  const someone = await person(browser);
  const page = someone.page;
  await signInOnPage(page, server.baseUrl, first, '/me');
  expect(await page.textContent('form.signout')).toContain(first);

  // One step: the provider's session ends too, without its page (test/system/sign-out-unsent-browser.test.ts).
  await page.click('form.signout button[type="submit"]');
  await page.waitForURL(`${server.baseUrl}/`);

  // The next sign-in asks who is there (signInOnPage fails if /login goes straight back).
  await signInOnPage(page, server.baseUrl, second, '/me');
  const header = await page.textContent('form.signout');
  expect(header).toContain(second);
  expect(header).not.toContain(first);
  expect(someone.problems).toEqual([]);
  await someone.context.close();
});

test('judge editor: add test rows (in place with script, by a post without), import a tests file (a bad one is told beside the field), save', async () => {
  const judge = {
    kind: 'program',
    languages: ['python'],
    tests: [{ name: 'sample', stdin: '1 2\n', expected_stdout: '3\n' }],
  };
  const draft = await createDraft(server, { title: `Editor rows ${run}`, judge }, admin);
  const editPage = `${server.baseUrl}/admin/challenges/${draft.id}`;
  const operator = await person(browser);
  await signInOnPage(operator.page, server.baseUrl, OPERATOR, `/admin/challenges/${draft.id}`);
  const page = operator.page;
  const violations: string[] = [];

  // With script: "Add a row" adds it in place (no navigation), numbered, focused.
  expect(await page.locator('fieldset.test-row').count()).toBe(1);
  await page.click('#add-test-row');
  await page.waitForSelector('#test-row-2');
  expect(page.url()).toBe(editPage);
  expect(await page.textContent('#test-row-2 legend')).toBe('New test 2');
  expect(await page.evaluate(() => document.activeElement?.id)).toBe('test-name-2');
  await page.fill('#test-input-1', '2 2\n');
  await page.fill('#test-expected-1', '4\n');
  await page.fill('#test-name-2', 'big');
  await page.fill('#test-input-2', '1000000 1\n');
  await page.fill('#test-expected-2', '1000001\n');
  await page.selectOption('#test-visibility-2', 'hidden');
  violations.push(
    ...(await auditPage(browser, operator.context, page, 'console-judge-rows', {
      from: 'html',
      name: 'judge rows',
    })),
  );

  // A bad file: the page comes back with the error beside the file field; the rows as typed.
  await page.setInputFiles('#f-tests-file', {
    name: 'broken.jsonl',
    mimeType: 'application/x-ndjson',
    buffer: Buffer.from('{"input": "3 3\\n", "expected": "6\\n"}\n{"input": 4}\n'),
  });
  await page.click('#import-tests');
  await page.waitForSelector('#err-tests-file');
  expect(await page.textContent('#err-tests-file')).toContain('line 2: input: the standard input, a string');
  expect(await page.getAttribute('#f-tests-file', 'aria-invalid')).toBe('true');
  expect(await page.inputValue('#test-name-2')).toBe('big');
  expect(await page.inputValue('#f-judge')).not.toContain('3 3');
  violations.push(
    ...(await auditPage(browser, operator.context, page, 'console-judge-bad-file', {
      from: 'html',
      name: 'bad tests file',
    })),
  );

  // A good file: its cases go into the box (nothing saved yet).
  await page.setInputFiles('#f-tests-file', {
    name: 'more.jsonl',
    mimeType: 'application/x-ndjson',
    buffer: Buffer.from(
      '{"input": "3 3\\n", "expected": "6\\n"}\n{"input": "0 0\\n", "expected": "0\\n", "visible": false}\n',
    ),
  });
  await page.click('#import-tests');
  await page.waitForSelector('#notice');
  expect(await page.textContent('#notice')).toContain(
    '2 tests added to the judge config from more.jsonl; nothing was saved',
  );
  const unsaved = await server.request('GET', `/api/v1/admin/challenges/${draft.id}`, { auth: admin.jwt });
  expect(unsaved.body.data.judge.tests).toHaveLength(1);

  // Save: the rows still typed go in too.
  await page.click('#save');
  await page.waitForURL(`${editPage}?done=saved`);
  const saved = await server.request('GET', `/api/v1/admin/challenges/${draft.id}`, { auth: admin.jwt });
  expect(
    saved.body.data.judge.tests.map((t: { name: string; stdin: string; hidden: boolean }) => [
      t.name,
      t.stdin,
      t.hidden,
    ]),
  ).toEqual([
    ['sample', '1 2\n', false],
    ['test 2', '3 3\n', false],
    ['test 3', '0 0\n', true],
    ['test 4', '2 2\n', false],
    ['big', '1000000 1\n', true],
  ]);

  // Without script: "Add a row" posts the form, which comes back with one more row, as typed.
  const noScript = await browser.newContext({
    javaScriptEnabled: false,
    storageState: await operator.context.storageState(),
  });
  const plain = await noScript.newPage();
  await plain.goto(editPage);
  await plain.fill('#test-input-1', '5 5\n');
  await plain.click('#add-test-row');
  await plain.waitForSelector('#test-row-2');
  expect(plain.url()).toBe(`${editPage}/judge-tests#test-rows`);
  expect(await plain.inputValue('#test-input-1')).toBe('5 5\n');
  await plain.fill('#test-expected-1', '10\n');
  await plain.click('#add-tests');
  await plain.waitForSelector('#notice');
  expect(await plain.inputValue('#f-judge')).toContain('"stdin": "5 5\\n"');
  await noScript.close();

  expect(violations).toEqual([]);
  // The bad file's answer is a 400 (the browser logs it); nothing else went wrong.
  expect(operator.problems.filter((p) => !p.includes('status of 400'))).toEqual([]);
  await operator.context.close();
});
