/**
 * Issue 41, item 3, in real Chromium at 1280 and 390 px with axe: the owner's stderr panel beside
 * the replay fills in when the hold ends, without a reload (the page's reveal asks the page again
 * for its panel). The hold is shortened as the other hold tests shorten it (SPECTATOR_DELAY_MS).
 *
 * Needs Debian's Chromium at /usr/bin/chromium (see test/helpers/browser.ts).
 */
import { randomUUID } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { mintSessionJwt } from '../../src/auth/jwt';
import { findGame } from '../../src/judging/games/catalog';
import { playMatch } from '../../src/judging/games/match';
import { auditPage, launchChromium, person, signInOnPage } from '../helpers/browser';
import { insertEntry } from '../helpers/connector-factories';
import { newAgent } from '../helpers/factories';
import { startTestServer, type TestServer } from '../helpers/server';
import { newChallenge } from '../helpers/submission-factories';
import { firstLegal } from '../fakes/players';

// The callbacks passed to page.evaluate run in the browser (tsconfig has no DOM lib).
declare const window: { __sameDocument?: string };

/** Long enough to open the page inside it on a loaded machine; short enough to wait for. */
const DELAY = 8_000;
const run = randomUUID().slice(0, 6);
const OWNER = `ada-stderr-${run}`;

let server: TestServer;
let browser: Browser;
beforeAll(async () => {
  server = await startTestServer({ RATE_LIMIT_DISABLED: '1', SPECTATOR_DELAY_MS: String(DELAY) });
  browser = await launchChromium();
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** A game match that completed just now, stored as the arena stores one (replay and stderr). */
async function justFinishedGame(challengeId: string, seats: { agentId: string; stderr: string }[]) {
  const db = server.deps.db;
  const match = await db.query<{ id: string; completed_at: Date }>(
    `INSERT INTO matches (challenge_id, weight_class_id, kind, status, rated, origin, started_at, ends_at,
                          bout_ended_at, completed_at, result_id, completed_seq)
     VALUES ($1, 'open', 'game', 'complete', false, 'exhibition', clock_timestamp() - interval '2 seconds',
             clock_timestamp() + interval '10 minutes', clock_timestamp(), clock_timestamp(),
             gen_random_uuid(), nextval('match_completed_seq'))
     RETURNING id, completed_at`,
    [challengeId],
  );
  const { id: matchId, completed_at: completedAt } = match.rows[0];
  for (const [i, s] of seats.entries()) {
    await db.query(
      `INSERT INTO match_participants (match_id, agent_id, seat, owner_user_id, score, rank, outcome)
       SELECT $1, a.id, $3, a.owner_user_id, $4, $5, $6 FROM agents a WHERE a.id = $2`,
      [matchId, s.agentId, i + 1, i === 0 ? 1 : -1, i + 1, i === 0 ? 'win' : 'loss'],
    );
    await db.query('INSERT INTO match_logs (match_id, agent_id, games) VALUES ($1, $2, $3)', [
      matchId,
      s.agentId,
      JSON.stringify([{ game: 1, seat: i + 1, stderr: s.stderr, fault: null }]),
    ]);
  }
  const engine = findGame('connect-four')!;
  const played = await playMatch({
    engine,
    matchId,
    participants: seats.map((s) => s.agentId),
    seeds: [7],
    limits: { turnMs: 1000, bankMs: 1000, maxTurns: engine.defaultMaxTurns },
    players: (order) => order.map(() => firstLegal()),
  });
  await db.query('INSERT INTO match_replays (match_id, game, replay) VALUES ($1, $2, $3)', [
    matchId,
    'connect-four',
    JSON.stringify(played.replay),
  ]);
  return { matchId, holdEnd: completedAt.getTime() + DELAY };
}

test('the owner’s stderr panel fills in when the hold ends, without a reload', async () => {
  const owner = await person(browser);
  const { page, context } = owner;
  await signInOnPage(page, server.baseUrl, OWNER, '/me');
  const challengeId = await newChallenge(server, { title: `Live stderr ${run}` });
  const jwt = await mintSessionJwt(server.config.AUTH_JWT_SECRET, { sub: OWNER, name: 'Ada', role: 'user' });
  const ada = await newAgent(server, { user: { subject: OWNER, jwt }, name: `Ada live ${run}` });
  const bob = await newAgent(server, { name: `Bob live ${run}` });
  await insertEntry(server, challengeId, ada.agentId);
  await insertEntry(server, challengeId, bob.agentId);
  const { matchId, holdEnd } = await justFinishedGame(challengeId, [
    { agentId: ada.agentId, stderr: `ada-debug <i>${run}</i> depth 3` },
    { agentId: bob.agentId, stderr: `bob-secret ${run}` },
  ]);

  // Inside the hold: the panel says the stderr comes with the result, and holds none.
  await page.goto(`${server.baseUrl}/matches/${matchId}`);
  const pending = (await page.textContent('#stderr-panel'))!;
  expect(Date.now()).toBeLessThan(holdEnd); // read inside the hold
  expect(pending).toContain('appears here with the result');
  expect(await page.locator('#stderr-panel pre.log').count()).toBe(0);
  expect(await page.content()).not.toContain('ada-debug');
  // A mark on this document: a reload or a navigation would lose it.
  await page.evaluate((mark) => {
    window.__sameDocument = mark;
  }, run);

  // The hold ends: the result, then the panel with this owner's stderr (as text), on the same document.
  await page.waitForSelector('#result table', { timeout: DELAY + 60_000 });
  await page.waitForSelector('#stderr-panel pre.log', { timeout: 30_000 });
  expect(await page.evaluate(() => window.__sameDocument)).toBe(run);
  expect(await page.locator('#stderr-pending').count()).toBe(0);
  const panel = (await page.textContent('#stderr-panel'))!;
  expect(panel).toContain(`ada-debug <i>${run}</i> depth 3`);
  expect(await page.locator('#stderr-panel i').count()).toBe(0);
  expect(panel).not.toContain('bob-secret');

  // As it is now (the panel put in by the script): both widths, axe at each (auditPage).
  expect(await auditPage(browser, context, page, 'match-stderr-live', { from: 'html' })).toEqual([]);
  expect(owner.problems).toEqual([]);
  await context.close();
}, 180_000);
