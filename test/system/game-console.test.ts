/**
 * The console's game template and dry run (issue 31): `/admin/challenges/new?template=game`
 * starts a game challenge (format, a connect-four `game` judge, match settings, a sample program);
 * the draft is created as typed; its dry run plays the sample against the game's baseline bot in
 * the wall and records nothing. Real web session, PostgreSQL, Temporal and worker.
 */
import { randomUUID } from 'node:crypto';
import { startTestServer, type TestServer } from '../helpers/server';
import { csrfFrom, signInThroughEmbeddedProvider, webClient, type WebClient } from '../helpers/web-session';

const run = randomUUID().slice(0, 8);
const OPERATOR = `ops|games-${run}`;

let server: TestServer;
let operator: WebClient;

beforeAll(async () => {
  server = await startTestServer({ RATE_LIMIT_DISABLED: '1', AUTH_OPERATOR_SUBJECTS: OPERATOR });
  operator = webClient(server.baseUrl);
  await signInThroughEmbeddedProvider(operator, OPERATOR);
});
afterAll(() => server.close());

jest.setTimeout(300_000);

const unescape = (s: string) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

function formOf(html: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of html.matchAll(/<input id="[^"]+" name="([a-z_]+)" value="([^"]*)"/g))
    out[m[1]] = unescape(m[2]);
  for (const m of html.matchAll(/<textarea id="[^"]+" name="([a-z_]+)"[^>]*>([\s\S]*?)<\/textarea>/g))
    out[m[1]] = unescape(m[2]);
  // A menu posts its selected option, as a browser does.
  for (const m of html.matchAll(/<select id="[^"]+" name="([a-z_]+)"[^>]*>([\s\S]*?)<\/select>/g)) {
    const selected = /<option value="([^"]*)" selected>/.exec(m[2]);
    if (selected) out[m[1]] = unescape(selected[1]);
  }
  out._csrf = csrfFrom(html);
  return out;
}

async function post(path: string, form: Record<string, string>) {
  const res = await operator.fetch(path, { method: 'POST', form });
  return { status: res.status, html: await res.text(), location: res.headers.get('location') };
}

test('the game template fills a game challenge; the dry run plays the sample against the baseline bot', async () => {
  const newPage = await operator.fetch('/admin/challenges/new');
  expect(await newPage.text()).toContain('href="/admin/challenges/new?template=game"');
  const res = await operator.fetch('/admin/challenges/new?template=game');
  expect(res.status).toBe(200);
  const form = formOf(await res.text());
  expect(form.format).toBe('game');
  expect(JSON.parse(form.judge)).toMatchObject({ kind: 'game', game: 'connect-four', games_per_match: 2 });
  expect(JSON.parse(form.match)).toMatchObject({ players: 2 });
  expect(form.sample).toContain('legal_actions');

  // The dry run: the sample in seat 1 against the boss, nothing recorded.
  const dry = await post('/admin/challenges/new/dry-run', {
    ...form,
    title: `Game ${run}`,
    category: 'games',
  });
  expect(dry.status).toBe(200);
  expect(dry.html).toMatch(/<span id="dry-run-score">100\.00<\/span>/);
  expect(dry.html).toMatch(/against the baseline bot \(reward -?\d\)/);
  const recorded = await server.deps.db.query(
    'SELECT 1 FROM submissions s JOIN challenges c ON c.id = s.challenge_id WHERE c.title = $1',
    [`Game ${run}`],
  );
  expect(recorded.rowCount).toBe(0);

  // A sample that prints garbage loses at its first turn, with the reason.
  const bad = await post('/admin/challenges/new/dry-run', {
    ...form,
    sample: '```python\nimport sys\nfor line in sys.stdin:\n    print("garbage", flush=True)\n```',
  });
  expect(bad.status).toBe(200);
  expect(bad.html).toMatch(/<span id="dry-run-score">0\.00<\/span>/);
  expect(bad.html).toContain('invalid action at turn 1 (seat 1)');

  // The draft is created as typed: a game challenge with its match settings.
  const created = await post('/admin/challenges', { ...form, title: `Game ${run}`, category: 'games' });
  expect(created.status).toBe(303);
  const id = /\/admin\/challenges\/([0-9a-f-]{36})/.exec(created.location ?? '')![1];
  const row = (await server.deps.db.query('SELECT format, judge, match FROM challenges WHERE id = $1', [id]))
    .rows[0];
  expect(row).toMatchObject({
    format: 'game',
    judge: { kind: 'game', game: 'connect-four' },
    match: { players: 2 },
  });

  // A game format without a game judge is refused beside the form, nothing created.
  const refused = await post('/admin/challenges', {
    ...form,
    title: `Not a game ${run}`,
    category: 'games',
    judge: JSON.stringify({
      kind: 'rubric',
      criteria: [{ name: 'a', weight: 1, check: { type: 'contains', value: 'x' } }],
    }),
  });
  expect(refused.status).toBe(400);
  expect(refused.html).toContain('a game challenge needs a judge of kind');
});
