/**
 * Issue 40 in real Chromium against the real worker, as a person uploads a project: a Python
 * project (main.py, lib/adder.py, an empty lib/__init__.py) and a C++ one (main.cpp, lib/add.cpp,
 * lib/add.h), each file uploaded with its folder path, score 100 and the result lists every path;
 * a C++ program that does not compile shows g++'s message once, and "Submissions left" on the
 * take-part page and the challenge page does not drop for it (an accepted program's does). The
 * form says how many files go up there and how a bigger project does (the CLI's --dir); pasted
 * code beside uploaded files without a path is refused with the field to fill, not dropped.
 */
import type { Browser, Page } from 'playwright-core';
import { axeViolations, checkTwoWidths, launchChromium, person, signInOnPage } from '../helpers/browser';
import { newChallenge } from '../helpers/submission-factories';
import { startTestServer, type TestServer } from '../helpers/server';

const run = Math.random().toString(36).slice(2, 8);

const SUM_JUDGE = {
  kind: 'program',
  languages: ['python', 'cpp'],
  tests: [
    { name: 'small', stdin: '1 2\n', expected_stdout: '3\n' },
    { name: 'hidden', hidden: true, stdin: '10 20\n', expected_stdout: '30\n' },
  ],
};

type Upload = { path: string; content: string };
const PYTHON_PROJECT: Upload[] = [
  {
    path: 'main.py',
    content: 'from lib.adder import add\na, b = map(int, input().split())\nprint(add(a, b))\n',
  },
  { path: 'lib/adder.py', content: 'def add(a, b):\n    return a + b\n' },
  { path: 'lib/__init__.py', content: '' },
];
const CPP_PROJECT: Upload[] = [
  {
    path: 'main.cpp',
    content:
      '#include <iostream>\n#include "lib/add.h"\nint main(){long a,b;std::cin>>a>>b;std::cout<<add(a,b)<<"\\n";}\n',
  },
  { path: 'lib/add.cpp', content: '#include "add.h"\nlong add(long a, long b) { return a + b; }\n' },
  { path: 'lib/add.h', content: '#pragma once\nlong add(long a, long b);\n' },
];
/** g++ refuses it: the name is never declared. */
const CPP_BROKEN =
  '#include <iostream>\nint main() {\n  long a, b;\n  std::cin >> a >> b;\n  std::cout << a + undeclared_total;\n}\n';

let server: TestServer;
let browser: Browser;
let challengeId: string;

beforeAll(async () => {
  server = await startTestServer({ RATE_LIMIT_DISABLED: '1' });
  browser = await launchChromium();
  challengeId = await newChallenge(server, {
    title: `Sum, a project ${run}`,
    judge: SUM_JUDGE as never,
    max_submissions_per_session: 5,
  });
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

jest.setTimeout(900_000);

/** Opens the take-part page (entering once) and returns what it says is left for the agent. */
async function takePart(page: Page): Promise<string> {
  await page.goto(`${server.baseUrl}/me/challenges/${challengeId}`);
  if ((await page.locator('button:has-text("Enter this challenge")').count()) > 0)
    await page.click('button:has-text("Enter this challenge")');
  await page.waitForSelector('h2:has-text("Submit from the browser")');
  return (await page.textContent('[data-submissions-left]')) ?? '';
}

/** Chooses each file in its own slot, typing its path in the project. */
async function uploadFiles(page: Page, files: Upload[]): Promise<void> {
  for (const [i, file] of files.entries()) {
    await page.setInputFiles(`#submit-file-${i + 1}`, {
      name: file.path.slice(file.path.lastIndexOf('/') + 1),
      mimeType: 'text/plain',
      buffer: Buffer.from(file.content),
    });
    await page.fill(`#submit-path-${i + 1}`, file.path);
  }
}

/** Uploads the project, a file a slot under its path; waits for the score. */
async function uploadProject(page: Page, files: Upload[]): Promise<void> {
  await uploadFiles(page, files);
  await page.click('#submit-form button[type="submit"]');
  await page.waitForURL(/\/me\/submissions\/[0-9a-f-]{36}$/);
  await page.waitForSelector('#score', { timeout: 600_000 });
}

test('a Python and a C++ project uploaded with their folder paths score 100; a compile error leaves "Submissions left" as it was', async () => {
  const ada = await person(browser);
  const { page } = ada;
  const name = `multi-file-${run}`;
  await signInOnPage(page, server.baseUrl, name, '/me/agents');
  await page.fill('#agent-name', name);
  await page.click('form[aria-label="Create an agent"] button');
  await page.waitForSelector(`h2:has-text("${name}")`);

  expect(await takePart(page)).toBe('5 left in this session');
  // The form says how many files go up here and how a bigger project goes up.
  const note = (await page.textContent('#program-files-note')) ?? '';
  expect(note).toMatch(/up to 3 files here/i);
  expect(note).toContain(`npm run cli -- submit ${challengeId} --dir .`);
  // The entry pasted beside uploaded files but given no path: a clear refusal, never dropped.
  await page.selectOption('#submit-language', 'python');
  await page.fill('#submit-content', PYTHON_PROJECT[0].content);
  await page.fill('#submit-paste-path', '');
  const refused = page.waitForResponse((r) => r.request().method() === 'POST');
  await uploadFiles(page, PYTHON_PROJECT.slice(1));
  await page.click('#submit-form button[type="submit"]');
  expect((await refused).status()).toBe(400);
  expect(await page.textContent('body')).toContain('Save the pasted code as');
  // Chromium logs the refusal's 400 itself: that line, and nothing else, is expected here.
  expect(ada.problems.splice(0)).toEqual([
    'console error: Failed to load resource: the server responded with a status of 400 (Bad Request)',
  ]);
  expect(await takePart(page)).toBe('5 left in this session');
  await uploadProject(page, PYTHON_PROJECT);
  expect(await page.textContent('#score')).toContain('100.00');
  const shown = (await page.textContent('main')) ?? '';
  for (const file of PYTHON_PROJECT) expect(shown).toContain(file.path);
  await checkTwoWidths(page, 'multi-file-python-result');

  expect(await takePart(page)).toBe('4 left in this session');
  await uploadProject(page, CPP_PROJECT);
  expect(await page.textContent('#score')).toContain('100.00');
  for (const file of CPP_PROJECT) expect(await page.textContent('main')).toContain(file.path);

  // A compile error: g++'s message once, no row per test, and the limit is given back.
  expect(await takePart(page)).toBe('3 left in this session');
  await page.selectOption('#submit-language', 'cpp');
  await page.fill('#submit-content', CPP_BROKEN);
  await page.click('#submit-form button[type="submit"]');
  await page.waitForURL(/\/me\/submissions\/[0-9a-f-]{36}$/);
  await page.waitForSelector('#score', { timeout: 600_000 });
  expect(await page.textContent('#score')).toContain('0.00');
  const text = (await page.textContent('main')) ?? '';
  expect(text.match(/was not declared in this scope/g)).toHaveLength(1);
  expect(await page.locator('#verdict-table').count()).toBe(0);
  expect(await page.textContent('#compile-error')).toMatch(/counts against no submission limit/);

  expect(await takePart(page)).toBe('3 left in this session');
  await page.goto(`${server.baseUrl}/challenges/${challengeId}`);
  expect(await page.textContent('#submissions-left')).toBe(`${name}: 3 left in this session`);
  expect(await axeViolations(browser, ada.context, page.url(), { impacts: 'serious' })).toEqual([]);
  expect(ada.problems).toEqual([]);
});
