/**
 * The replay viewer in real Chromium (issue 31): a stored game match (two connect-four games
 * played by the reducer itself, stored as the arena stores one) is played on its match page under
 * the pages' real CSP and Trusted Types: play, pause, step, scrub, the keyboard, the game select;
 * axe finds nothing serious at 1280 and 390 px, and nothing overflows at 390 px. A person gets
 * there from the game challenge's page (its recent matches), and reads the game's rules page.
 */
import { readFileSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { findGame } from '../../src/judging/games/catalog';
import { playMatch } from '../../src/judging/games/match';
import { newAgent } from '../helpers/factories';
import { auditPage, checkTwoWidths, launchChromium, person } from '../helpers/browser';
import { newChallenge } from '../helpers/submission-factories';
import { startTestServer, type TestServer } from '../helpers/server';
import { firstLegal } from '../fakes/players';

// The callbacks passed to page.waitForFunction run in the browser (tsconfig has no DOM lib).
declare const document: { getElementById(id: string): { textContent: string | null } | null };

const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  server = await startTestServer({ RATE_LIMIT_DISABLED: '1' });
  browser = await launchChromium();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** A complete game match stored as the arena stores one (match, participants, replay). */
async function storedMatch(challengeId?: string): Promise<{ matchId: string; turns: number }> {
  challengeId ??= await newChallenge(server, { title: 'Replay viewer' });
  const a = await newAgent(server, { name: 'Left stacker' });
  const b = await newAgent(server, { name: 'Other stacker' });
  const db = server.deps.db;
  const match = await db.query<{ id: string }>(
    `INSERT INTO matches (challenge_id, weight_class_id, kind, status, rated, origin, started_at, ends_at,
                          bout_ended_at, completed_at, result_id, completed_seq)
     VALUES ($1, 'open', 'game', 'complete', false, 'exhibition', now() - interval '2 hours',
             now() - interval '1 hour', now() - interval '1 hour', now() - interval '1 hour',
             gen_random_uuid(), nextval('match_completed_seq')) RETURNING id`,
    [challengeId],
  );
  const matchId = match.rows[0].id;
  const engine = findGame('connect-four')!;
  const result = await playMatch({
    engine,
    matchId,
    participants: [a.agentId, b.agentId],
    seeds: [11, 12],
    limits: { turnMs: 1000, bankMs: 1000, maxTurns: engine.defaultMaxTurns },
    players: (order) => order.map(() => firstLegal()),
  });
  for (const [i, agent] of [a, b].entries()) {
    const total = result.participants[i].total;
    await db.query(
      `INSERT INTO match_participants (match_id, agent_id, seat, owner_user_id, score, rank, outcome)
       SELECT $1, a.id, $3, a.owner_user_id, $4, $5, $6 FROM agents a WHERE a.id = $2`,
      [
        matchId,
        agent.agentId,
        i + 1,
        total,
        total >= 0 ? 1 : 2,
        total > 0 ? 'win' : total < 0 ? 'loss' : 'draw',
      ],
    );
  }
  await db.query(`INSERT INTO match_replays (match_id, game, replay) VALUES ($1, $2, $3)`, [
    matchId,
    'connect-four',
    JSON.stringify(result.replay),
  ]);
  return { matchId, turns: result.replay.games[0].steps.length - 1 };
}

test('the match page plays a stored game: play, pause, step, scrub, keyboard; axe-clean at both widths', async () => {
  const { matchId, turns } = await storedMatch();
  const url = `${server.baseUrl}/matches/${matchId}`;
  const viewer = await person(browser);
  const page = viewer.page;
  await page.goto(url);
  await page.waitForSelector('#replay-viewer:not([hidden])');
  const turnText = async () => (await page.textContent('#replay-turn'))!.trim();
  expect(await turnText()).toBe(`0 / ${turns}`);
  // The board of connect-four: 6 rows of 7 cells, empty before turn 1.
  expect(await page.locator('#replay-board tbody tr').count()).toBe(6);
  expect(await page.locator('#replay-board td.s1, #replay-board td.s2').count()).toBe(0);

  // Step forward and back with the buttons.
  await page.click('#replay-forward');
  expect(await turnText()).toBe(`1 / ${turns}`);
  expect(await page.locator('#replay-board td.s1').count()).toBe(1);
  await page.click('#replay-back');
  expect(await turnText()).toBe(`0 / ${turns}`);

  // Play runs on by itself; pause stops it.
  await page.click('#replay-play');
  expect(await page.textContent('#replay-play')).toBe('Pause');
  // A function, not a string: a string predicate is eval'd in the page, which its CSP refuses.
  await page.waitForFunction(() => !document.getElementById('replay-turn')?.textContent?.startsWith('0 '));
  await page.click('#replay-play');
  expect(await page.textContent('#replay-play')).toBe('Play');
  expect(await page.getAttribute('#replay-play', 'aria-pressed')).toBe('false');

  // Scrub to the end: the last position shows the rewards.
  await page.locator('#replay-scrub').fill(String(turns));
  expect(await turnText()).toBe(`${turns} / ${turns}`);
  expect(await page.textContent('#replay-seats')).toMatch(/reward -?1/);

  // The keyboard: focus a button, Home / ArrowRight / End on the viewer.
  await page.focus('#replay-forward');
  await page.keyboard.press('Home');
  expect(await turnText()).toBe(`0 / ${turns}`);
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  expect(await turnText()).toBe(`2 / ${turns}`);
  await page.keyboard.press('End');
  expect(await turnText()).toBe(`${turns} / ${turns}`);
  // Tab reaches the controls; Enter on Play plays.
  await page.keyboard.press('Home');
  await page.focus('#replay-play');
  await page.keyboard.press('Enter');
  expect(await page.textContent('#replay-play')).toBe('Pause');
  await page.keyboard.press('Enter');

  // The second game (seats swapped) through the select.
  await page.selectOption('#replay-game', '1');
  expect(await turnText()).toMatch(/^0 \//);
  expect(await page.textContent('#replay-seats')).toContain('Seat 1 (Other stacker)');

  await checkTwoWidths(page, 'game-replay');
  expect(viewer.problems).toEqual([]);

  // axe on the live page with the viewer shown, at both widths (a CSP-bypassing copy: axe injects a script).
  const violations: string[] = [];
  for (const width of [1280, 390]) {
    const context = await browser.newContext({ bypassCSP: true, viewport: { width, height: 860 } });
    try {
      const checked = await context.newPage();
      await checked.goto(url);
      await checked.waitForSelector('#replay-viewer:not([hidden])');
      await checked.click('#replay-forward');
      await checked.addScriptTag({ content: AXE_SOURCE });
      const results = (await checked.evaluate("axe.run(document, { resultTypes: ['violations'] })")) as {
        violations: { id: string; impact: string; nodes: { target: unknown }[] }[];
      };
      for (const v of results.violations)
        if (v.impact === 'serious' || v.impact === 'critical')
          violations.push(
            `${width}px: ${v.id} [${v.impact}] ${JSON.stringify(v.nodes.map((n) => n.target))}`,
          );
    } finally {
      await context.close();
    }
  }
  expect(violations).toEqual([]);
}, 300_000);

test('from the game challenge’s page to its match, and the game’s rules: both widths, axe-clean', async () => {
  const challengeId = await newChallenge(server, { title: 'Connect four league' });
  await server.deps.db.query(`UPDATE challenges SET format = 'game', judge = $2, match = $3 WHERE id = $1`, [
    challengeId,
    JSON.stringify({ kind: 'game', game: 'connect-four', turn_ms: 1000, bank_ms: 10000, games_per_match: 2 }),
    JSON.stringify({ players: 2, every_minutes: 10, rated: true }),
  ]);
  const { matchId } = await storedMatch(challengeId);
  // Two entrants: the board ranks them by rating (both at the initial one, no rated match yet).
  for (const name of ['Rated one', 'Rated two']) {
    const agent = await newAgent(server, { name });
    const entered = await server.request('POST', `/api/v1/challenges/${challengeId}/entries`, {
      auth: agent.user.jwt,
      body: { agent_id: agent.agentId },
    });
    expect(entered.status).toBe(201);
  }
  const { context, page, problems } = await person(browser);
  const violations: string[] = [];
  try {
    await page.goto(`${server.baseUrl}/challenges/${challengeId}`);
    // The rating board is the server's, by rating, both rows (the page's script no longer refreshes
    // it from the API, whose ratings move at completion while pages hold them: arena.md).
    await page.waitForSelector('#leaderboard-table[data-board="rating"]');
    expect(await page.getAttribute('#leaderboard-table', 'data-board')).toBe('rating');
    expect(await page.$$eval('#leaderboard-table th', (ths) => ths.map((th) => th.textContent))).toEqual([
      'Rank',
      'Agent',
      'Rating',
      'W–D–L',
    ]);
    expect(await page.$$eval('#leaderboard-table tbody tr', (trs) => trs.length)).toBe(2);
    violations.push(...(await auditPage(browser, context, page, 'game-challenge')));
    await page.click(`#recent-matches a[href="/matches/${matchId}"]`);
    await page.waitForURL(`${server.baseUrl}/matches/${matchId}`);
    await page.waitForSelector('#replay-viewer:not([hidden])');

    await page.goto(`${server.baseUrl}/challenges/${challengeId}`);
    await page.click('#game-link');
    await page.waitForURL(`${server.baseUrl}/games/connect-four`);
    expect(await page.textContent('#game-rules h2')).toBe('Connect Four');
    violations.push(...(await auditPage(browser, context, page, 'game-rules')));
    await page.click('a[href="/games"]');
    await page.waitForURL(`${server.baseUrl}/games`);
    violations.push(...(await auditPage(browser, context, page, 'games')));
  } finally {
    await context.close();
  }
  expect(problems).toEqual([]);
  expect(violations).toEqual([]);
}, 300_000);
