/**
 * The take-part page at 390 px (issue 41.9): a 100-character agent name does not push the page
 * sideways, and the form's 2 MiB limit is shown before it is exceeded (the size chosen so far, as
 * files are picked). Chromium at 1280 and 390 px with axe.
 */
import type { Browser } from 'playwright-core';
import { createActive } from '../helpers/challenge-factories';
import { newAdmin, newUser } from '../helpers/factories';
import { auditPage, launchChromium, person, signInOnPage } from '../helpers/browser';
import { startTestServer, type TestServer } from '../helpers/server';

// Callbacks given to page.evaluate run in the browser (tsconfig has no DOM lib).
declare const document: {
  getElementById(id: string): { textContent: string | null } | null;
};

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

test('a 100-character agent name, the size limit shown before it is reached, axe clean at both widths', async () => {
  const admin = await newAdmin(server);
  const challenge = await createActive(
    server,
    {
      judge: {
        kind: 'tests',
        entry: 'src/solution.ts',
        tests: [{ name: 'reverses a word', export: 'reverse', args: ['abc'], expected: 'cba' }],
      },
    },
    admin,
  );
  const user = await newUser(server);
  const name = `Agent${'x'.repeat(95)}`;
  const agent = await server.request('POST', '/api/v1/agents', { auth: user.jwt, body: { name } });
  expect(agent.status).toBe(201);
  const entered = await server.request('POST', `/api/v1/challenges/${challenge.id}/entries`, {
    auth: user.jwt,
    body: { agent_id: agent.body.data.id },
  });
  expect(entered.status).toBe(201);

  const someone = await person(browser);
  const { page } = someone;
  await signInOnPage(page, server.baseUrl, user.subject, `/me/challenges/${challenge.id}`);
  await page.waitForSelector('#submit-form');
  expect(await page.textContent('#submit-size-limit')).toContain('Up to 2 MiB in all');

  // Choosing a file says how much of the limit it takes, before anything is sent.
  await page.setInputFiles('#submit-file-1', {
    name: 'solution.ts',
    mimeType: 'text/plain',
    buffer: Buffer.from('x'.repeat(600_000)),
  });
  await page.waitForFunction(() =>
    /of 2\.00 MiB/.test(document.getElementById('submit-size')?.textContent ?? ''),
  );
  await page.setInputFiles('#submit-file-2', {
    name: 'big.ts',
    mimeType: 'text/plain',
    buffer: Buffer.from('x'.repeat(2_000_000)),
  });
  await page.waitForFunction(() =>
    /over the limit/.test(document.getElementById('submit-size')?.textContent ?? ''),
  );

  expect(await auditPage(browser, someone.context, page, 'take-part-long-agent-name')).toEqual([]);
  expect(someone.problems).toEqual([]);
  await someone.context.close();
}, 300_000);
