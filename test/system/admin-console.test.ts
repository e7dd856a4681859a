/**
 * The operators' console (/admin, issue 23) over real HTTP with a real web session: who may see
 * it, forms with CSRF, the challenge form's inline validation (nothing changed on bad input),
 * the dry run (nothing recorded), confirmed transitions and rejudge each with its audit record,
 * a challenge's submissions with filters and cursor pages, the Temporal Web UI link, the audit
 * trail's filters. Real PostgreSQL, Temporal and worker.
 */
import { randomUUID } from 'node:crypto';
import { submissionWorkflowId } from '../../src/domain/submissions/contract';
import { judgeConfigSchema } from '../../src/judging';
import { temporalWorkflowUrl } from '../../src/api/pages/submissions/console-routes';
import { createActive, createDraft } from '../helpers/challenge-factories';
import { newAdmin, newAgent, type TestAgent } from '../helpers/factories';
import { startTestServer, type TestServer } from '../helpers/server';
import { RUBRIC_JUDGE, sessionFor, submit, waitForSubmission } from '../helpers/submission-factories';
import { csrfFrom, signInThroughEmbeddedProvider, webClient, type WebClient } from '../helpers/web-session';

const run = randomUUID().slice(0, 8);
const OPERATOR = `ops|console-${run}`;
const TEMPORAL_UI = 'http://temporal-ui.test:8233/';

let server: TestServer;
let operator: WebClient;
let person: WebClient;

beforeAll(async () => {
  server = await startTestServer({
    RATE_LIMIT_DISABLED: '1',
    AUTH_OPERATOR_SUBJECTS: OPERATOR,
    TEMPORAL_UI_URL: TEMPORAL_UI,
  });
  operator = webClient(server.baseUrl);
  await signInThroughEmbeddedProvider(operator, OPERATOR);
  person = webClient(server.baseUrl);
  await signInThroughEmbeddedProvider(person, `web|someone-${run}`);
});
afterAll(() => server.close());

const page = async (client: WebClient, path: string) => {
  const res = await client.fetch(path);
  return { status: res.status, html: await res.text(), location: res.headers.get('location') };
};
const csrfOf = async (client: WebClient, path = '/admin') => csrfFrom((await page(client, path)).html);
const post = async (client: WebClient, path: string, form: Record<string, string>) => {
  const res = await client.fetch(path, { method: 'POST', form });
  return { status: res.status, html: await res.text(), location: res.headers.get('location') };
};
const auditOf = async (targetId: string) =>
  (
    await server.deps.db.query<{ action: string; actor: string; detail: Record<string, unknown> }>(
      'SELECT action, actor, detail FROM audit_records WHERE target_id = $1 ORDER BY at, id',
      [targetId],
    )
  ).rows;
const challengeRow = async (id: string) =>
  (await server.deps.db.query('SELECT * FROM challenges WHERE id = $1', [id])).rows[0];
/** The form fields of a challenge as the page shows them (every field, as a browser would post it). */
function formOf(html: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of html.matchAll(/<input id="[^"]+" name="([a-z_]+)" value="([^"]*)"/g))
    out[m[1]] = unescape(m[2]);
  for (const m of html.matchAll(/<textarea id="[^"]+" name="([a-z_]+)"[^>]*>([\s\S]*?)<\/textarea>/g))
    out[m[1]] = unescape(m[2]);
  for (const m of html.matchAll(/<input type="checkbox" id="[^"]+" name="([a-z_]+)"( checked)?/g))
    if (m[2]) out[m[1]] = 'on';
  // A menu posts its selected option, as a browser does.
  for (const m of html.matchAll(/<select id="[^"]+" name="([a-z_]+)"[^>]*>([\s\S]*?)<\/select>/g)) {
    const selected = /<option value="([^"]*)" selected>/.exec(m[2]);
    if (selected) out[m[1]] = unescape(selected[1]);
  }
  out._csrf = csrfFrom(html);
  return out;
}
const unescape = (s: string) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
const idFrom = (location: string | null) => /\/admin\/challenges\/([0-9a-f-]{36})/.exec(location ?? '')![1];

function newDraftForm(csrf: string, overrides: Record<string, string> = {}): Record<string, string> {
  return {
    _csrf: csrf,
    title: `Console draft ${run}`,
    description: 'Answer with 42.',
    category: `console-${run}`,
    format: 'solo',
    weight_class_id: 'open',
    time_limit_minutes: '30',
    entry_fee_cents: '',
    prize_pool: '',
    starts_at: '',
    ends_at: '',
    max_submissions_per_session: '10',
    max_submissions_per_day: '',
    judge: JSON.stringify(RUBRIC_JUDGE),
    ...overrides,
  };
}

describe('who may use the console', () => {
  const pages = ['/admin', '/admin/challenges', '/admin/challenges/new', '/admin/audit'];

  test('signed out: sent to sign in, returning to the page', async () => {
    const anonymous = webClient(server.baseUrl);
    for (const path of pages) {
      const res = await page(anonymous, path);
      expect([path, res.status, res.location]).toEqual([
        path,
        302,
        `/login?return_to=${encodeURIComponent(path)}`,
      ]);
    }
  });

  test('a signed-in person who is not an operator gets the 403 page, and their form changes nothing', async () => {
    for (const path of pages) {
      const res = await page(person, path);
      expect([path, res.status]).toEqual([path, 403]);
      expect(res.html).toContain('Error 403');
      expect(res.html).toContain('console is for operators only');
      expect(res.html).not.toContain('New draft challenge');
    }
    const category = `refused-${randomUUID().slice(0, 8)}`;
    const res = await post(
      person,
      '/admin/challenges',
      newDraftForm(await csrfOf(person, '/me/agents'), { category }),
    );
    expect(res.status).toBe(403);
    const rows = await server.deps.db.query('SELECT 1 FROM challenges WHERE category = $1', [category]);
    expect(rows.rowCount).toBe(0);
    // Nor does the site header offer them the console.
    expect((await page(person, '/me/agents')).html).not.toContain('href="/admin"');
  });

  test("the operator's header links the console; the landing links challenges, deliveries and the audit trail", async () => {
    const res = await page(operator, '/admin');
    expect(res.status).toBe(200);
    for (const href of ['/admin/challenges', '/admin/deliveries', '/admin/audit'])
      expect(res.html).toContain(`href="${href}"`);
    expect(res.html).toMatch(/<header class="site">.*href="\/admin">Console<\/a>/s);
  });
});

describe('creating and editing a challenge', () => {
  test('a draft is created from the form, listed with its status, and its creation audited', async () => {
    const res = await post(operator, '/admin/challenges', newDraftForm(await csrfOf(operator)));
    expect(res.status).toBe(303);
    const id = idFrom(res.location);
    expect(res.location).toBe(`/admin/challenges/${id}?done=created`);
    const row = await challengeRow(id);
    expect(row).toMatchObject({
      status: 'draft',
      title: `Console draft ${run}`,
      time_limit_minutes: 30,
      max_submissions_per_day: null,
    });
    // Stored as the API stores it: the schema's defaults filled in.
    expect(row.judge).toEqual(judgeConfigSchema.parse(RUBRIC_JUDGE));
    expect(await auditOf(id)).toEqual([
      {
        action: 'challenge.create',
        actor: OPERATOR,
        detail: { title: `Console draft ${run}`, judge_kind: 'rubric' },
      },
    ]);
    const list = await page(operator, '/admin/challenges?status=draft');
    expect(list.html).toMatch(
      new RegExp(
        `href="/admin/challenges/${id}">Console draft ${run}</a></td><td><span class="badge b-draft">draft`,
      ),
    );
    const shown = await page(operator, `/admin/challenges/${id}?done=created`);
    expect(shown.html).toContain('Draft created');
  });

  test('invalid fields come back beside their fields, as typed; nothing is created or recorded', async () => {
    const category = `invalid-${randomUUID().slice(0, 8)}`;
    const badJudge = JSON.stringify({
      kind: 'rubric',
      criteria: [{ name: 'x', weight: -1, check: { type: 'contains', value: 'a' } }],
    });
    // This operator's records only: other suites write audit records in parallel.
    const auditByOperator = 'SELECT count(*)::int AS n FROM audit_records WHERE actor = $1';
    const before = await server.deps.db.query(auditByOperator, [OPERATOR]);
    const res = await post(
      operator,
      '/admin/challenges',
      newDraftForm(await csrfOf(operator), {
        title: '   ',
        category,
        time_limit_minutes: 'soon',
        ends_at: 'tomorrow',
        judge: badJudge,
      }),
    );
    expect(res.status).toBe(400);
    expect(res.html).toMatch(/<p class="field-error" id="err-title">[^<]*blank/);
    expect(res.html).toMatch(/<p class="field-error" id="err-time_limit_minutes">must be a number/);
    expect(res.html).toMatch(/<p class="field-error" id="err-ends_at">[^<]*datetime/i);
    expect(res.html).toMatch(/<p class="field-error" id="err-judge">judge\.criteria\.0\.weight: /);
    expect(res.html).toContain('aria-invalid="true"');
    // What was typed stays in the form.
    const kept = formOf(res.html);
    expect(kept).toMatchObject({
      category,
      time_limit_minutes: 'soon',
      ends_at: 'tomorrow',
      judge: badJudge,
    });
    expect(
      (await server.deps.db.query('SELECT 1 FROM challenges WHERE category = $1', [category])).rowCount,
    ).toBe(0);
    const after = await server.deps.db.query(auditByOperator, [OPERATOR]);
    expect(after.rows[0].n).toBe(before.rows[0].n);

    const notJson = await post(
      operator,
      '/admin/challenges',
      newDraftForm(await csrfOf(operator), { category, judge: '{"kind": ' }),
    );
    expect(notJson.status).toBe(400);
    // A NUL written as a JSON escape is refused beside the box (PostgreSQL could not store it).
    const nul = await post(
      operator,
      '/admin/challenges',
      newDraftForm(await csrfOf(operator), {
        category,
        judge: JSON.stringify({
          ...RUBRIC_JUDGE,
          criteria: [{ name: 'a\u0000b', weight: 1, check: { type: 'length', max: 5 } }],
        }),
      }),
    );
    expect(nul.status).toBe(400);
    expect(nul.html).toMatch(/id="err-judge">judge\.criteria\.0\.name: must not contain NUL/);
    expect(notJson.html).toMatch(/id="err-judge">not valid JSON/);
    expect(formOf(notJson.html).judge).toBe('{"kind": ');
  });

  test('editing saves only the changed fields (audited by name); a bad edit changes nothing', async () => {
    const draft = await createDraft(server, { judge: RUBRIC_JUDGE });
    const edit = await page(operator, `/admin/challenges/${draft.id}`);
    expect(edit.status).toBe(200);
    const form = formOf(edit.html);
    expect(JSON.parse(form.judge)).toEqual((await challengeRow(draft.id)).judge);

    // Nothing changed: nothing saved, nothing recorded.
    const same = await post(operator, `/admin/challenges/${draft.id}`, form);
    expect(same.status).toBe(200);
    expect(same.html).toContain('Nothing to save');
    expect((await auditOf(draft.id)).map((r) => r.action)).toEqual(['challenge.create']);

    const judge = {
      kind: 'rubric',
      criteria: [{ name: 'answer', weight: 1, check: { type: 'contains', value: '42' } }],
    };
    const saved = await post(operator, `/admin/challenges/${draft.id}`, {
      ...form,
      title: 'Edited in the console',
      is_featured: 'on',
      judge: JSON.stringify(judge, null, 2),
    });
    expect([saved.status, saved.location]).toEqual([303, `/admin/challenges/${draft.id}?done=saved`]);
    const row = await challengeRow(draft.id);
    expect(row).toMatchObject({ title: 'Edited in the console', is_featured: true });
    expect(row.judge).toEqual(judgeConfigSchema.parse(judge));
    const trail = await auditOf(draft.id);
    expect(trail.map((r) => [r.action, r.actor])).toEqual([
      ['challenge.create', expect.any(String)],
      ['challenge.update', OPERATOR],
    ]);
    expect(trail[1].detail).toEqual({ fields: ['is_featured', 'judge', 'title'] });

    // The window must be ordered (the domain's own check, shown beside ends_at).
    const current = formOf((await page(operator, `/admin/challenges/${draft.id}`)).html);
    const bad = await post(operator, `/admin/challenges/${draft.id}`, {
      ...current,
      starts_at: '2031-01-02T00:00:00Z',
      ends_at: '2031-01-01T00:00:00Z',
    });
    expect(bad.status).toBe(400);
    expect(bad.html).toMatch(/id="err-ends_at">[^<]*ends_at must be after starts_at/);
    expect(formOf(bad.html).starts_at).toBe('2031-01-02T00:00:00Z');
    expect((await challengeRow(draft.id)).starts_at).toBeNull();
    expect(await auditOf(draft.id)).toHaveLength(2);
  });

  test('a form without the CSRF token, or from another origin, is refused and changes nothing', async () => {
    const draft = await createDraft(server);
    const form = formOf((await page(operator, `/admin/challenges/${draft.id}`)).html);
    const { _csrf: _ignored, ...withoutToken } = form;
    expect(
      (await post(operator, `/admin/challenges/${draft.id}`, { ...withoutToken, title: 'no token' })).status,
    ).toBe(403);
    const foreign = await operator.fetch(`/admin/challenges/${draft.id}`, {
      method: 'POST',
      form: { ...form, title: 'cross-site' },
      headers: { origin: 'https://evil.example' },
    });
    expect(foreign.status).toBe(403);
    expect((await challengeRow(draft.id)).title).toBe(draft.title);
    expect((await auditOf(draft.id)).map((r) => r.action)).toEqual(['challenge.create']);
  });

  test('unknown or malformed ids and bad filters are HTML error pages, never a 500', async () => {
    const missing = await page(operator, `/admin/challenges/${randomUUID()}`);
    expect(missing.status).toBe(404);
    expect(missing.html).toContain('Challenge not found');
    // One convention for a signed-in page's refusal: the numbered error page, still signed in.
    expect(missing.html).toMatch(/Error 404 · request id <code>[^<]+<\/code>/);
    expect(missing.html).toContain('Sign out</button>');
    const refusedForm = await post(operator, `/admin/challenges/${randomUUID()}/publish`, { confirm: 'yes' });
    expect(refusedForm.status).toBe(403);
    expect(refusedForm.html).toMatch(/<h1>Form refused<\/h1>\s*<p>Nothing was changed\.<\/p>/);
    expect(refusedForm.html).toContain('Error 403');
    expect(refusedForm.html).toContain('Sign out</button>');
    expect((await page(operator, '/admin/challenges/not-a-uuid')).status).toBe(404);
    expect((await page(operator, `/admin/submissions/${randomUUID()}`)).status).toBe(404);
    const badStatus = await page(operator, '/admin/challenges?status=bogus');
    expect(badStatus.status).toBe(400);
    expect(badStatus.html).toContain('<!doctype html>');
    expect((await page(operator, '/admin/audit?since=yesterday')).status).toBe(400);
    expect((await page(operator, '/admin/audit?cursor=bm9wZQ')).status).toBe(400);
    expect((await page(operator, '/admin/audit?actor=a%00b')).status).toBe(400);
    const missingPost = await post(operator, `/admin/challenges/${randomUUID()}/publish`, {
      _csrf: await csrfOf(operator),
      confirm: 'yes',
    });
    expect(missingPost.status).toBe(404);
  });
});

describe('the dry run', () => {
  test('judges the sample with the config as typed (unsaved), shows score and breakdown, records nothing', async () => {
    const draft = await createDraft(server);
    const form = formOf((await page(operator, `/admin/challenges/${draft.id}`)).html);
    const marker = `dry-run-marker-${randomUUID()}`;
    // Scoped to this operator and this draft: other suites write to the same tables meanwhile.
    const count = async () =>
      (
        await server.deps.db.query(
          `SELECT (SELECT count(*) FROM audit_records WHERE actor = $1 OR target_id = $2::text)::int
                + (SELECT count(*) FROM submissions WHERE challenge_id = $2::uuid)::int
                + (SELECT count(*) FROM outbox_events WHERE challenge_id = $2::uuid)::int AS n`,
          [OPERATOR, draft.id],
        )
      ).rows[0].n;
    const before = await count();
    const res = await post(operator, `/admin/challenges/${draft.id}/dry-run`, {
      ...form,
      judge: JSON.stringify(RUBRIC_JUDGE),
      sample: `The answer is 42 ${marker}`,
    });
    expect(res.status).toBe(200);
    // "42" → 60, ≤ 200 characters → +20, hidden "^The" → +20.
    expect(res.html).toMatch(/<span id="dry-run-score">100\.00<\/span>/);
    expect(res.html).toMatch(/<td>style <span class="badge">hidden<\/span><\/td>/);
    // The unsaved config and the sample stay in the form; the stored judge is untouched.
    expect(JSON.parse(formOf(res.html).judge)).toEqual(RUBRIC_JUDGE);
    expect(formOf(res.html).sample).toBe(`The answer is 42 ${marker}`);
    expect((await challengeRow(draft.id)).judge).toEqual(draft.judge);
    expect(await count()).toBe(before);
    const mentions = await server.deps.db.query(
      `SELECT 1 FROM audit_records WHERE detail::text LIKE $1
       UNION ALL SELECT 1 FROM submissions WHERE content LIKE $1`,
      [`%${marker}%`],
    );
    expect(mentions.rowCount).toBe(0);
  });

  test('an invalid config is shown beside the judge box, before anything runs', async () => {
    const res = await post(operator, '/admin/challenges/new/dry-run', {
      ...newDraftForm(await csrfOf(operator)),
      judge: JSON.stringify({ kind: 'rubric', criteria: [] }),
      sample: 'anything',
    });
    expect(res.status).toBe(400);
    expect(res.html).toMatch(/id="err-judge">judge\.criteria: /);
    expect(res.html).not.toContain('id="dry-run-score"');
  });
});

describe('the judge-config editor per kind', () => {
  test("a kind's template comes in the box with its schema explained; the draft is created from it as typed", async () => {
    const fresh = await page(operator, '/admin/challenges/new?kind=program');
    expect(fresh.status).toBe(200);
    expect(fresh.html).toMatch(/<option value="program" selected>/);
    expect(fresh.html).toContain('data-kind="program"');
    expect(fresh.html).toContain('<code>expected_stdout</code>');
    expect(JSON.parse(formOf(fresh.html).judge).kind).toBe('program');

    // The selector's button: everything typed stays, only the judge box changes, nothing is saved.
    // This test's own rows only: other files create challenges in parallel.
    const title = `Template draft ${run}`;
    const saved = async () =>
      (await server.deps.db.query('SELECT count(*)::int AS n FROM challenges WHERE title = $1', [title]))
        .rows[0].n;
    const audited = async () =>
      (
        await server.deps.db.query('SELECT count(*)::int AS n FROM audit_records WHERE actor = $1', [
          OPERATOR,
        ])
      ).rows[0].n;
    const auditBefore = await audited();
    const swapped = await post(operator, '/admin/challenges/new/judge-template', {
      ...newDraftForm(await csrfOf(operator)),
      title,
      judge_kind: 'tests',
    });
    expect(swapped.status).toBe(200);
    expect(swapped.html).toContain(`value="Template draft ${run}"`);
    expect(swapped.html).toContain('data-kind="tests"');
    const typed = formOf(swapped.html);
    expect(JSON.parse(typed.judge)).toMatchObject({ kind: 'tests', entry: 'src/solution.ts' });
    expect(await saved()).toBe(0);
    expect(await audited()).toBe(auditBefore);

    const created = await post(operator, '/admin/challenges', { ...newDraftForm(typed._csrf), ...typed });
    expect(created.status).toBe(303);
    expect((await challengeRow(idFrom(created.location))).judge).toMatchObject({
      kind: 'tests',
      entry: 'src/solution.ts',
    });

    // An edit page's button works the same way; a template with a mistake shows the path of the field.
    const edit = formOf((await page(operator, created.location!)).html);
    const games = await post(operator, `/admin/challenges/${idFrom(created.location)}/judge-template`, {
      ...edit,
      judge_kind: 'program',
    });
    expect(games.status).toBe(200);
    expect(games.html).toContain('the program template; nothing was saved');
    const broken = JSON.parse(formOf(games.html).judge);
    delete broken.tests[0].expected_stdout;
    const refused = await post(operator, `/admin/challenges/${idFrom(created.location)}`, {
      ...formOf(games.html),
      judge: JSON.stringify(broken),
    });
    expect(refused.status).toBe(400);
    expect(refused.html).toMatch(/id="err-judge">judge\.tests\.0\.expected_stdout: Required/);
    expect(refused.html).toContain('data-kind="program"');
  });
});

describe('publish, quarantine, retire: confirmed, audited', () => {
  test('each asks first; without the confirmation nothing changes; with it the action and its record happen', async () => {
    const draft = await createDraft(server);
    const confirm = await page(operator, `/admin/challenges/${draft.id}/publish`);
    expect(confirm.status).toBe(200);
    expect(confirm.html).toContain(`action="/admin/challenges/${draft.id}/publish"`);
    expect(confirm.html).toContain('name="confirm" value="yes"');
    const csrf = csrfFrom(confirm.html);

    const unconfirmed = await post(operator, `/admin/challenges/${draft.id}/publish`, { _csrf: csrf });
    expect(unconfirmed.status).toBe(400);
    expect((await challengeRow(draft.id)).status).toBe('draft');

    const published = await post(operator, `/admin/challenges/${draft.id}/publish`, {
      _csrf: csrf,
      confirm: 'yes',
    });
    expect([published.status, published.location]).toEqual([
      303,
      `/admin/challenges/${draft.id}?done=published`,
    ]);
    expect((await challengeRow(draft.id)).status).toBe('active');

    // Quarantine needs a reason: a blank one comes back beside its box.
    const blank = await post(operator, `/admin/challenges/${draft.id}/quarantine`, {
      _csrf: csrf,
      confirm: 'yes',
      reason: '  ',
    });
    expect(blank.status).toBe(400);
    expect(blank.html).toMatch(/id="err-reason">A reason is required/);
    expect((await challengeRow(draft.id)).status).toBe('active');

    const quarantined = await post(operator, `/admin/challenges/${draft.id}/quarantine`, {
      _csrf: csrf,
      confirm: 'yes',
      reason: 'hidden test leaked',
    });
    expect(quarantined.status).toBe(303);
    expect(await challengeRow(draft.id)).toMatchObject({
      status: 'draft',
      quarantine_reason: 'hidden test leaked',
    });
    // Quarantining a draft is refused by the domain (409 page) and leaves no record.
    const again = await post(operator, `/admin/challenges/${draft.id}/quarantine`, {
      _csrf: csrf,
      confirm: 'yes',
      reason: 'twice',
    });
    expect(again.status).toBe(409);
    expect(again.html).toContain('only an active challenge can be quarantined');

    const retired = await post(operator, `/admin/challenges/${draft.id}/retire`, {
      _csrf: csrf,
      confirm: 'yes',
    });
    expect([retired.status, retired.location]).toEqual([303, `/admin/challenges/${draft.id}?done=retired`]);
    expect((await challengeRow(draft.id)).status).toBe('archived');

    const trail = await auditOf(draft.id);
    expect(trail.slice(1).map((r) => [r.action, r.actor, r.detail])).toEqual([
      ['challenge.publish', OPERATOR, { from: 'draft', changed: true }],
      ['challenge.quarantine', OPERATOR, { reason: 'hidden test leaked' }],
      ['challenge.retire', OPERATOR, { from: 'draft', changed: true }],
    ]);
    const shown = await page(operator, `/admin/challenges/${draft.id}?done=retired`);
    expect(shown.html).toContain('Retired: the challenge is archived.');
    expect(shown.html).toContain('<span class="badge b-archived">archived</span>');
  });
});

describe("a challenge's submissions, one submission, rejudge", () => {
  let challengeId: string;
  let ada: TestAgent;
  let basil: TestAgent;
  /** Oldest first: ada 100, basil 80, ada 0 (RUBRIC_JUDGE). */
  const ids: string[] = [];

  beforeAll(async () => {
    challengeId = (await createActive(server, { judge: RUBRIC_JUDGE })).id;
    ada = await newAgent(server, { name: `ada-${run}` });
    basil = await newAgent(server, { name: `basil-${run}` });
    for (const [agent, content] of [
      [ada, 'The answer is 42'],
      [basil, 'maybe 42'],
      [ada, `nothing here ${'x'.repeat(300)}`],
    ] as const) {
      const res = await submit(server, agent.token, await sessionFor(server, agent, challengeId), {
        content,
      });
      expect(res.status).toBe(201);
      ids.push(res.body.data.id);
      await waitForSubmission(server, agent.token, res.body.data.id);
    }
  });
  const judgeRun = async (id: string) =>
    (
      await server.deps.db.query<{ judge_run: number }>('SELECT judge_run FROM submissions WHERE id = $1', [
        id,
      ])
    ).rows[0].judge_run;
  const rowIds = (html: string) =>
    [...html.matchAll(/href="\/admin\/submissions\/([0-9a-f-]{36})"/g)].map((m) => m[1]);

  test("every owner's submissions, newest first, with status, agent and score filters", async () => {
    const base = `/admin/challenges/${challengeId}/submissions`;
    const all = await page(operator, base);
    expect(all.status).toBe(200);
    expect(rowIds(all.html)).toEqual([...ids].reverse());
    expect(all.html).toContain(`ada-${run}`);
    expect(all.html).toContain(`basil-${run}`);
    expect(rowIds((await page(operator, `${base}?agent_id=${basil.agentId}`)).html)).toEqual([ids[1]]);
    expect(rowIds((await page(operator, `${base}?min_score=50`)).html)).toEqual([ids[1], ids[0]]);
    expect(rowIds((await page(operator, `${base}?min_score=50&max_score=80`)).html)).toEqual([ids[1]]);
    expect(rowIds((await page(operator, `${base}?status=judging`)).html)).toEqual([]);
    // Blank boxes of the filter form mean "any".
    expect(
      rowIds((await page(operator, `${base}?status=&agent_id=&min_score=&max_score=`)).html),
    ).toHaveLength(3);
    expect((await page(operator, `${base}?min_score=90&max_score=10`)).status).toBe(400);
    expect((await page(operator, `${base}?min_score=lots`)).status).toBe(400);

    // The cursor walks every row once, keeping the filters.
    const seen: string[] = [];
    let next: string | null = `${base}?limit=1&agent_id=${ada.agentId}`;
    while (next) {
      const p = await page(operator, next);
      seen.push(...rowIds(p.html));
      const m = /<a href="([^"]+)">Older submissions<\/a>/.exec(p.html);
      next = m ? unescape(m[1]) : null;
    }
    expect(seen).toEqual([ids[2], ids[0]]);
  });

  test('the admin API narrows by score the same way (min_score, max_score; bounds included)', async () => {
    const jwt = (await newAdmin(server)).jwt;
    const list = async (q: string) => {
      const res = await server.request('GET', `/api/v1/admin/submissions?challenge_id=${challengeId}&${q}`, {
        auth: jwt,
      });
      return res.status === 200 ? res.body.data.map((r: { id: string }) => r.id) : res.status;
    };
    expect(await list('min_score=50')).toEqual([ids[1], ids[0]]);
    expect(await list('min_score=80&max_score=80')).toEqual([ids[1]]);
    expect(await list('max_score=0')).toEqual([ids[2]]);
    expect(await list('min_score=90&max_score=10')).toBe(400);
    expect(await list('min_score=101')).toBe(400);
  });

  test('one submission: the admin breakdown and the Temporal Web UI link of its workflow', async () => {
    const res = await page(operator, `/admin/submissions/${ids[0]}`);
    expect(res.status).toBe(200);
    expect(res.html).toContain('&quot;audience&quot;: &quot;admin&quot;');
    // The hidden criterion's name shows only in the admin audience.
    expect(res.html).toContain('&quot;name&quot;: &quot;style&quot;');
    const href = /<a id="workflow-link" href="([^"]+)"/.exec(res.html)![1];
    expect(unescape(href)).toBe(
      `http://temporal-ui.test:8233/namespaces/${encodeURIComponent(server.config.TEMPORAL_NAMESPACE)}/workflows/${encodeURIComponent(submissionWorkflowId(ids[0], await judgeRun(ids[0])))}`,
    );
    // Without TEMPORAL_UI_URL there is no link.
    expect(
      temporalWorkflowUrl({ TEMPORAL_UI_URL: undefined, TEMPORAL_NAMESPACE: 'default' }, 'w'),
    ).toBeNull();
    // Non-operators never see it.
    expect((await page(person, `/admin/submissions/${ids[0]}`)).status).toBe(403);
  });

  test('rejudge is confirmed, audited, and the page then follows the new run', async () => {
    const confirm = await page(operator, `/admin/submissions/${ids[1]}/rejudge`);
    expect(confirm.status).toBe(200);
    const csrf = csrfFrom(confirm.html);
    const unconfirmed = await post(operator, `/admin/submissions/${ids[1]}/rejudge`, { _csrf: csrf });
    expect(unconfirmed.status).toBe(400);
    expect(await auditOf(ids[1])).toEqual([]);

    const runBefore = await judgeRun(ids[1]);
    const done = await post(operator, `/admin/submissions/${ids[1]}/rejudge`, {
      _csrf: csrf,
      confirm: 'yes',
    });
    expect([done.status, done.location]).toEqual([303, `/admin/submissions/${ids[1]}?done=rejudged`]);
    const trail = await auditOf(ids[1]);
    expect(trail).toEqual([
      {
        action: 'submission.rejudge',
        actor: OPERATOR,
        detail: {
          run: runBefore + 1,
          from_status: 'complete',
          challenge_id: challengeId,
          agent_id: basil.agentId,
        },
      },
    ]);
    const shown = await page(operator, `/admin/submissions/${ids[1]}?done=rejudged`);
    expect(shown.html).toContain('Rejudge started');
    expect(shown.html).toContain(`<dd id="run">${runBefore + 1}</dd>`);
    expect(shown.html).toContain(encodeURIComponent(submissionWorkflowId(ids[1], runBefore + 1)));
  });
});

describe('the audit trail page', () => {
  test('filters by action, actor and since, newest first, with cursor pages', async () => {
    const start = new Date().toISOString();
    const first = await post(
      operator,
      '/admin/challenges',
      newDraftForm(await csrfOf(operator), { title: `Audit A ${run}` }),
    );
    const second = await post(
      operator,
      '/admin/challenges',
      newDraftForm(await csrfOf(operator), { title: `Audit B ${run}` }),
    );
    const [a, b] = [idFrom(first.location), idFrom(second.location)];
    const targets = (html: string) =>
      [...html.matchAll(/<tr data-action="([^"]+)" data-target="([^"]+)"/g)].map((m) => [m[1], m[2]]);

    const q = `action=challenge.create&actor=${encodeURIComponent(OPERATOR)}&since=${encodeURIComponent(start)}`;
    const res = await page(operator, `/admin/audit?${q}`);
    expect(res.status).toBe(200);
    expect(targets(res.html)).toEqual([
      ['challenge.create', b],
      ['challenge.create', a],
    ]);
    expect(
      (await page(operator, `/admin/audit?action=challenge.retire&since=${encodeURIComponent(start)}`)).html,
    ).toContain('No record matches.');
    // A future "since" (a datetime-local box, read as UTC) lists nothing.
    expect(targets((await page(operator, '/admin/audit?since=2999-01-01T00:00')).html)).toEqual([]);

    // The admin API takes the same filters.
    const api = await server.request('GET', `/api/v1/admin/audit?${q}`, {
      auth: (await newAdmin(server)).jwt,
    });
    expect(api.body.data.map((r: { action: string; target_id: string }) => [r.action, r.target_id])).toEqual(
      targets(res.html),
    );
    const walked: string[][] = [];
    let next: string | null = `/admin/audit?${q}&limit=1`;
    while (next) {
      const p = await page(operator, next);
      walked.push(...targets(p.html));
      const m = /<a href="([^"]+)">Older records<\/a>/.exec(p.html);
      next = m ? unescape(m[1]) : null;
    }
    expect(walked).toEqual(targets(res.html));
  });
});
