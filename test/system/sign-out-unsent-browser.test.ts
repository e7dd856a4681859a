/**
 * Issue 41, item 8, in real Chromium at 1280 and 390 px with axe: signing out is one step (the
 * development provider ends its own session without asking, and the next protected page asks who
 * is there), and /unsent shows the take-part form itself with what was typed, not field names;
 * every other kind of form comes back as itself or as a summary in its own words (one case per
 * kind: a box beside an object, a pick from a list with boxes to tick, a question, the console's
 * challenge form, a confirmation step with its reason, a webhook's events), each sent again.
 * Every kept form has its entry: test/unit/api/pages/accounts/unsent-forms.test.ts.
 */
import type { Browser, Page } from 'playwright-core';
import { createActive } from '../helpers/challenge-factories';
import { newAdmin, newUser } from '../helpers/factories';
import { auditPage, launchChromium, person, signInOnPage } from '../helpers/browser';
import { startTestServer, type TestServer } from '../helpers/server';

const run = Math.random().toString(36).slice(2, 8);
const OPERATOR = `ops|unsent-${run}`;

let server: TestServer;
let browser: Browser;
beforeAll(async () => {
  server = await startTestServer({ RATE_LIMIT_DISABLED: '1', AUTH_OPERATOR_SUBJECTS: OPERATOR });
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

test('"Sign out" ends both sessions in one step; the next protected page asks who is there', async () => {
  const user = await newUser(server);
  const someone = await person(browser);
  const { page } = someone;
  await signInOnPage(page, server.baseUrl, user.subject, '/me');

  await page.click('form.signout button[type="submit"]');
  // Straight home: no provider page on the way, nothing to answer "No" to.
  await page.waitForURL(`${server.baseUrl}/`);
  expect(await page.locator('form.signout').count()).toBe(0);
  expect(await auditPage(browser, someone.context, page, 'signed-out-home')).toEqual([]);

  // The provider's session is gone too: a protected page leads to its sign-in page, not silently back.
  await page.goto(`${server.baseUrl}/me`);
  await page.waitForURL((url) => url.pathname.includes('/oidc/interaction/'));
  expect(await page.locator('#login').count()).toBe(1);
  expect(someone.problems).toEqual([]);
  await someone.context.close();
}, 120_000);

test('/unsent re-shows the take-part form with what was typed, and sends it', async () => {
  const admin = await newAdmin(server);
  const challenge = await createActive(
    server,
    {
      judge: {
        kind: 'program',
        languages: ['python', 'javascript'],
        tests: [{ name: 'small', stdin: '1 2\n', expected_stdout: '3\n' }],
      },
    },
    admin,
  );
  const user = await newUser(server);
  const agentIds: string[] = [];
  for (const name of ['First bot', 'Second bot']) {
    const agent = await server.request('POST', '/api/v1/agents', { auth: user.jwt, body: { name } });
    expect(agent.status).toBe(201);
    agentIds.push(agent.body.data.id);
    const entered = await server.request('POST', `/api/v1/challenges/${challenge.id}/entries`, {
      auth: user.jwt,
      body: { agent_id: agent.body.data.id },
    });
    expect(entered.status).toBe(201);
  }

  const someone = await person(browser);
  const { page, context } = someone;
  await signInOnPage(page, server.baseUrl, user.subject, `/me/challenges/${challenge.id}`);
  const code = 'a, b = map(int, input().split())\nprint(a + b)\n';
  await page.selectOption('#submit-agent', agentIds[1]);
  await page.selectOption('#submit-language', 'python');
  await page.fill('#submit-content', code);
  await page.fill('#submit-paste-path', 'main.py');
  await page.fill('#submit-path-1', 'docs/notes.txt');

  // The session ends on the server meanwhile (the idle limit, "sign out everywhere" elsewhere), then
  // "Submit" on the form left open: the provider's session still lives, so the sign-in is silent.
  await server.deps.db.query(
    `UPDATE web_sessions SET revoked_at = now()
      WHERE user_id = (SELECT id FROM users WHERE subject = $1) AND revoked_at IS NULL`,
    [user.subject],
  );
  await page.click('#submit-form button[type="submit"]');
  await page.waitForURL(`${server.baseUrl}/unsent`);

  // The same form, its values back in their fields; no internal field names as labels.
  expect(await page.textContent('h1')).toBe(`Take part: ${challenge.title}`);
  expect(await page.textContent('#unsent-notice')).toContain('Your form was not sent');
  expect(await page.inputValue('#submit-agent')).toBe(agentIds[1]);
  expect(await page.inputValue('#submit-language')).toBe('python');
  expect(await page.inputValue('#submit-content')).toBe(code);
  expect(await page.inputValue('#submit-paste-path')).toBe('main.py');
  expect(await page.inputValue('#submit-path-1')).toBe('docs/notes.txt');
  const labels = await page.locator('label').allTextContents();
  for (const internal of ['agent_id', 'paste_path', 'path_1'])
    expect(labels.filter((l) => l.trim().startsWith(internal))).toEqual([]);
  expect(await auditPage(browser, context, page, 'unsent-take-part', { from: 'html' })).toEqual([]);

  // Sending it creates the submission for the agent picked before the sign-out.
  await page.fill('#submit-path-1', '');
  await page.click('#submit-form button[type="submit"]');
  await page.waitForURL((url) => url.pathname.startsWith('/me/submissions/'));
  const sent = await server.deps.db.query<{ agent_id: string }>(
    'SELECT agent_id FROM submissions WHERE challenge_id = $1',
    [challenge.id],
  );
  expect(sent.rows.map((r) => r.agent_id)).toEqual([agentIds[1]]);
  expect(someone.problems).toEqual([]);
  await context.close();
}, 180_000);

/** The session ends on the server (idle limit, "sign out everywhere" elsewhere); the provider's lives on. */
async function endWebSessions(subject: string): Promise<void> {
  await server.deps.db.query(
    `UPDATE web_sessions SET revoked_at = now()
      WHERE user_id = (SELECT id FROM users WHERE subject = $1) AND revoked_at IS NULL`,
    [subject],
  );
}

interface UnsentCase {
  name: string;
  /** The page the form is on. */
  open: string;
  /** Types into the form as a person would. */
  fill: (page: Page) => Promise<void>;
  /** The form's button. */
  submit: string;
  /** What /unsent must show: the heading (h1 or h2) and the typed values by their labels. */
  shows: (page: Page) => Promise<void>;
  /** The button on /unsent that sends it again. */
  resend: string;
  /** The effect, once sent. */
  sent: () => Promise<void>;
}

/**
 * One form after another: typed, the session ended, sent (kept), signed in silently, /unsent in
 * its own words at 1280 and 390 px with axe, no internal field name as a label, sent again.
 */
async function unsentJourney(subject: string, cases: UnsentCase[]): Promise<void> {
  const someone = await person(browser);
  const { page, context } = someone;
  await signInOnPage(page, server.baseUrl, subject, '/me');
  for (const c of cases) {
    await page.goto(`${server.baseUrl}${c.open}`);
    await c.fill(page);
    await endWebSessions(subject);
    await page.click(c.submit);
    await page.waitForURL(`${server.baseUrl}/unsent`);
    expect({ case: c.name, notice: await page.textContent('body') }).toEqual({
      case: c.name,
      notice: expect.stringContaining('Your form was not sent'),
    });
    await c.shows(page);
    const stash = await server.deps.db.query<{ fields: [string, string][] }>(
      `SELECT fields FROM web_form_stashes
        WHERE user_id = (SELECT id FROM users WHERE subject = $1) ORDER BY created_at DESC LIMIT 1`,
      [subject],
    );
    const names = new Set(stash.rows[0].fields.map(([n]) => n));
    const labels = await page.locator('label, legend, dt, h2, #unsent-facts, strong').allTextContents();
    expect({ case: c.name, internal: labels.filter((l) => names.has(l.trim().split(/[\s:]/)[0])) }).toEqual({
      case: c.name,
      internal: [],
    });
    const shot = `unsent-${c.name}`;
    expect(await auditPage(browser, context, page, shot, { from: 'html' })).toEqual([]);
    await page.click(c.resend);
    await page.waitForURL((url) => url.pathname !== '/unsent');
    await c.sent();
  }
  expect(someone.problems).toEqual([]);
  await context.close();
}

test('/unsent re-shows every other kind of form in its own words, and each sends', async () => {
  const admin = await newAdmin(server);
  const challenge = await createActive(server, {}, admin);
  const user = await newUser(server);
  const agents: { id: string; name: string }[] = [];
  for (const name of [`Kept one ${run}`, `Kept two ${run}`]) {
    const agent = await server.request('POST', '/api/v1/agents', { auth: user.jwt, body: { name } });
    expect(agent.status).toBe(201);
    agents.push({ id: agent.body.data.id, name });
  }
  const one = async (sql: string, params: unknown[]) => (await server.deps.db.query(sql, params)).rowCount;

  await unsentJourney(user.subject, [
    {
      name: 'rename-agent',
      open: '/me/agents',
      fill: (page) => page.fill(`#rename-${agents[0].id}`, `Renamed ${run}`),
      submit: `form[action="/me/agents/${agents[0].id}"] button[type="submit"]`,
      shows: async (page) => {
        expect(await page.textContent('#unsent-form-title')).toBe('Rename the agent');
        expect(await page.textContent('#unsent-facts')).toContain(agents[0].name);
        expect(await page.inputValue('label:has-text("New name") input')).toBe(`Renamed ${run}`);
      },
      resend: '#send-again',
      sent: async () =>
        expect(
          await one('SELECT 1 FROM agents WHERE id = $1 AND name = $2', [agents[0].id, `Renamed ${run}`]),
        ).toBe(1),
    },
    {
      name: 'create-token',
      open: '/me/tokens',
      fill: async (page) => {
        await page.fill('#token-name', `kept token ${run}`);
        await page.selectOption('#token-agent', agents[1].id);
        await page.uncheck('input[name="scopes"][value="webhook:manage"]');
        await page.fill('#token-days', '30');
      },
      submit: 'form[aria-label="Create an API token"] button[type="submit"]',
      shows: async (page) => {
        expect(await page.textContent('#unsent-form-title')).toBe('Create an API token');
        expect(await page.inputValue('label:has-text("Name") input')).toBe(`kept token ${run}`);
        expect(await page.textContent('main form')).toContain(`Agent: ${agents[1].name}`);
        expect(await page.isChecked('input[name="scopes"][value="webhook:manage"]')).toBe(false);
        expect(await page.isChecked('input[name="scopes"][value="challenge:read"]')).toBe(true);
        expect(await page.inputValue('label:has-text("Expires after") input')).toBe('30');
      },
      resend: '#send-again',
      sent: async () =>
        expect(
          await one(
            `SELECT 1 FROM api_tokens WHERE name = $1 AND agent_id = $2 AND NOT ('webhook:manage' = ANY(scopes))`,
            [`kept token ${run}`, agents[1].id],
          ),
        ).toBe(1),
    },
    {
      name: 'enter-challenge',
      open: `/me/challenges/${challenge.id}`,
      fill: (page) => page.selectOption('#enter-agent', agents[1].id).then(() => undefined),
      submit: `form[action="/challenges/${challenge.id}/enter"] button[type="submit"]`,
      shows: async (page) => {
        expect(await page.textContent('#unsent-form-title')).toBe('Enter this challenge');
        expect(await page.textContent('main form')).toContain(`Agent: ${agents[1].name}`);
        expect(await page.textContent('#unsent-facts')).toContain(challenge.title);
      },
      resend: '#send-again',
      sent: async () =>
        expect(
          await one('SELECT 1 FROM entries WHERE challenge_id = $1 AND agent_id = $2', [
            challenge.id,
            agents[1].id,
          ]),
        ).toBe(1),
    },
    {
      name: 'ask-question',
      open: `/challenges/${challenge.id}`,
      fill: (page) => page.fill('#question', `Is the input sorted? ${run}\nAsking twice.`),
      submit: '#ask-form button[type="submit"]',
      shows: async (page) => {
        expect(await page.inputValue('label:has-text("Ask the operators a question") textarea')).toBe(
          `Is the input sorted? ${run}\nAsking twice.`,
        );
      },
      resend: '#send-again',
      sent: async () =>
        expect(
          await one('SELECT 1 FROM clarifications WHERE challenge_id = $1 AND question = $2', [
            challenge.id,
            `Is the input sorted? ${run}\nAsking twice.`,
          ]),
        ).toBe(1),
    },
    {
      name: 'create-webhook',
      open: '/me/webhooks',
      fill: async (page) => {
        await page.fill('#webhook-url', `http://127.0.0.1:9/${run}`);
        await page.check('input[name="events"][value="result.finalized"]');
      },
      submit: 'form[aria-label="Create a webhook"] button[type="submit"]',
      shows: async (page) => {
        expect(await page.textContent('#unsent-form-title')).toBe('Create a webhook');
        expect(await page.inputValue('label:has-text("Endpoint URL") input')).toBe(
          `http://127.0.0.1:9/${run}`,
        );
        expect(await page.isChecked('input[name="events"][value="result.finalized"]')).toBe(true);
        expect(await page.isChecked('input[name="events"][value="submission.received"]')).toBe(false);
      },
      resend: '#send-again',
      sent: async () =>
        expect(
          await one('SELECT 1 FROM webhook_subscriptions WHERE url = $1', [`http://127.0.0.1:9/${run}`]),
        ).toBe(1),
    },
  ]);

  // An operator's forms: the console's challenge form itself, and a confirmation step with its reason.
  await unsentJourney(OPERATOR, [
    {
      name: 'console-challenge-form',
      open: `/admin/challenges/${challenge.id}`,
      fill: (page) => page.fill('#f-title', `Retitled ${run}`),
      submit: '#save',
      shows: async (page) => {
        expect(await page.inputValue('#f-title')).toBe(`Retitled ${run}`);
      },
      resend: '#save',
      sent: async () =>
        expect(
          await one('SELECT 1 FROM challenges WHERE id = $1 AND title = $2', [
            challenge.id,
            `Retitled ${run}`,
          ]),
        ).toBe(1),
    },
    {
      name: 'console-quarantine',
      open: `/admin/challenges/${challenge.id}/quarantine`,
      fill: (page) => page.fill('#confirm-reason', `Leaked tests ${run}`),
      submit: 'button[name="confirm"]',
      shows: async (page) => {
        expect(await page.textContent('h1')).toContain('Quarantine');
        expect(await page.inputValue('#confirm-reason')).toBe(`Leaked tests ${run}`);
      },
      resend: 'button[name="confirm"]',
      sent: async () =>
        expect(
          await one('SELECT 1 FROM challenges WHERE id = $1 AND quarantine_reason = $2', [
            challenge.id,
            `Leaked tests ${run}`,
          ]),
        ).toBe(1),
    },
  ]);
}, 300_000);
