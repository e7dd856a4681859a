/**
 * Pages hold match outcomes (DESIGN "Fifth-round extensions"; issue 38, finding 3): right after a
 * rated bout completes, the agent, challenge (recent matches and the rating board), ladder and
 * match pages show it as running, with ratings and records as before it, until completed_at + the
 * spectator delay; then its result. Operators see it at once. A page revalidated across the hold's
 * end is a 200 with the new content. The JSON API has the result at completion (unchanged).
 *
 * This server's spectator delay is 12 s (not the tests' 1.5 s) so that every held page is read
 * inside the hold; the test checks that it was.
 */
import { eventually, type TestUser } from '../helpers/factories';
import { playRatedBout, type PlayedBout } from '../helpers/match-factories';
import { type TestServer } from '../helpers/server';
import { startServerAndAdmin } from '../helpers/server-and-admin';

const DELAY = 12_000;
let server: TestServer;
let admin: TestUser;

beforeAll(async () => {
  ({ server, admin } = await startServerAndAdmin({
    RATE_LIMIT_DISABLED: '1',
    SPECTATOR_DELAY_MS: String(DELAY),
  }));
}, 60_000);

afterAll(async () => {
  await server?.close();
});

async function page(path: string, headers: Record<string, string> = {}) {
  const res = await fetch(server.baseUrl + path, { headers });
  return { status: res.status, headers: res.headers, html: await res.text() };
}

const rowOf = (html: string, attr: string) => {
  const at = html.indexOf(attr);
  return at < 0 ? null : html.slice(at, html.indexOf('</tr>', at));
};
/** The agent page's list of matches (its rating history links the same matches above it). */
const matchesTable = (html: string) => html.slice(Math.max(0, html.indexOf('id="matches-table"')));

function pagesOf(bout: PlayedBout) {
  return {
    agent: `/agents/${bout.ada.agentId}`,
    challenge: `/challenges/${bout.challengeId}`,
    ladder: `/weight-classes/${bout.weightClassId}/ladder`,
    match: `/matches/${bout.matchId}`,
  };
}

test('a just-completed match reads as running on every page until the hold ends, then its result', async () => {
  const bout = await playRatedBout(server, admin, 'Held outcomes');
  const holdEnd = bout.completedAt.getTime() + DELAY;
  const paths = pagesOf(bout);

  // The API has the result at once (unchanged).
  const api = await server.request('GET', `/api/v1/matches/${bout.matchId}`);
  expect(api.body.data.status).toBe('complete');

  const held = {
    agent: await page(paths.agent),
    challenge: await page(paths.challenge),
    ladder: await page(paths.ladder),
    match: await page(paths.match),
    operatorsAgent: await page(paths.agent, { authorization: `Bearer ${admin.jwt}` }),
  };
  // Every read above happened inside the hold (else this test proves nothing).
  expect(Date.now()).toBeLessThan(holdEnd);

  for (const [name, res] of Object.entries(held)) {
    expect([name, res.status]).toEqual([name, 200]);
  }
  const agentRow = rowOf(matchesTable(held.agent.html), `/matches/${bout.matchId}`);
  expect(agentRow).toMatch(/<td>running<\/td>.*<td>–<\/td>$/);
  expect(held.agent.html).not.toMatch(/<td>(complete|win|loss)<\/td>/);
  expect(held.agent.html).toContain('No rated match yet.');

  expect(rowOf(held.challenge.html, `data-match-id="${bout.matchId}"`)).toMatch(/<td>running<\/td>/);
  const adaBoardRow = rowOf(held.challenge.html, `<tr data-agent-id="${bout.ada.agentId}"`);
  expect(adaBoardRow).toContain('<td class="num">0.00</td><td class="num">0–0–0</td>');
  expect(held.challenge.html).not.toContain('1–0–0');

  expect(held.ladder.html).toContain('No rated agents yet.');
  expect(held.ladder.html).not.toContain(bout.ada.agentId);

  expect(held.match.html).toContain('id="match-status">running<');
  expect(held.match.html).toContain('id="result-pending"');
  expect(held.match.html).not.toMatch(/>win</);

  // Operators: the outcome at once.
  expect(rowOf(matchesTable(held.operatorsAgent.html), `/matches/${bout.matchId}`)).toMatch(
    /<td>complete<\/td>.*<td>win<\/td>$/,
  );

  // Nothing keeps the held copy: pages are not stored by caches and carry no validator.
  expect(held.challenge.headers.get('cache-control')).toBe('no-store');

  // The hold ends: each page shows the result (waited for, never sooner than the end).
  const revealed = await eventually(
    async () => {
      const res = await page(paths.agent);
      return /<td>complete<\/td>/.test(res.html) ? { res, at: Date.now() } : undefined;
    },
    DELAY + 30_000,
    200,
  );
  expect(revealed.at).toBeGreaterThanOrEqual(holdEnd);
  expect(rowOf(matchesTable(revealed.res.html), `/matches/${bout.matchId}`)).toMatch(
    /<td>complete<\/td>.*<td>win<\/td>$/,
  );
  expect(revealed.res.html).toContain('Rating after each rated match');

  // Revalidating the held challenge page across the hold's end: a 200 with the new content.
  const revalidated = await page(paths.challenge, {
    'if-none-match': held.challenge.headers.get('etag') ?? '*',
  });
  expect(revalidated.status).toBe(200);
  expect(revalidated.html).not.toBe(held.challenge.html);
  expect(rowOf(revalidated.html, `data-match-id="${bout.matchId}"`)).toMatch(/<td>complete<\/td>/);
  expect(rowOf(revalidated.html, `<tr data-agent-id="${bout.ada.agentId}"`)).toContain('1–0–0');
  expect(rowOf(revalidated.html, `<tr data-agent-id="${bout.bob.agentId}"`)).toContain('0–0–1');

  const ladder = await page(paths.ladder);
  const adaAt = ladder.html.indexOf(bout.ada.agentId);
  const bobAt = ladder.html.indexOf(bout.bob.agentId);
  expect(adaAt).toBeGreaterThan(0);
  expect(bobAt).toBeGreaterThan(adaAt);
  expect(rowOf(ladder.html, `/agents/${bout.ada.agentId}`)).toContain('1–0–0');

  const match = await page(paths.match);
  expect(match.html).toContain('id="match-status">complete<');
  expect(match.html).toMatch(/<td>win<\/td><td class="num">\+\d+\.\d\d<\/td>/);
}, 240_000);
