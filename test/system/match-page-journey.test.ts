/**
 * Match pages people can follow (issue 41, items 1–4), in real Chromium at 1280 and 390 px with axe:
 * 1. the match page shows its participants' events of this match only (not of their earlier
 *    matches), each with a readable time, between a start and an end separator;
 * 2. during the 30 s hold a game match reads as running with filled agent cards, no countdown
 *    (a game has no scheduled end) and no raw ISO time; once finished, "Finished at" readable;
 * 3. the owner of a seat reads their player's stderr beside the replay (escaped as data); a
 *    spectator gets no panel;
 * 4. the agent page's rating history is one labelled line per weight class, each match with its
 *    challenge and readable times.
 * The server's delay is 30 s (as in production) so that the held page is read inside the hold.
 *
 * Needs Debian's Chromium at /usr/bin/chromium (see test/helpers/browser.ts).
 */
import { randomUUID } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { mintSessionJwt } from '../../src/auth/jwt';
import { auditPage, launchChromium, person, signInOnPage } from '../helpers/browser';
import { insertEntry, liveEvent, postEvent } from '../helpers/connector-factories';
import { newAgent, newAgentKey, type TestAgent } from '../helpers/factories';
import { startTestServer, type TestServer } from '../helpers/server';
import { newChallenge } from '../helpers/submission-factories';
import { storedMatch, storeReplay } from '../helpers/match-factories';

// The callbacks passed to page.waitForFunction run in the browser (tsconfig has no DOM lib).
declare const document: { querySelectorAll(selector: string): { length: number } };

const DELAY = 30_000;
const run = randomUUID().slice(0, 6);
const OWNER = `ada-matchpage-${run}`;
const ISO = /\d{4}-\d\d-\d\dT\d\d:\d\d/;
const READABLE = /\d{1,2} [A-Z][a-z]{2} \d{4}, \d\d:\d\d:\d\d UTC/;

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

async function ownersAgent(name: string): Promise<TestAgent> {
  const jwt = await mintSessionJwt(server.config.AUTH_JWT_SECRET, { sub: OWNER, name: 'Ada', role: 'user' });
  return newAgent(server, { user: { subject: OWNER, jwt }, name });
}

const dbNow = async () =>
  (await server.deps.db.query<{ now: Date }>('SELECT clock_timestamp() AS now')).rows[0].now;

test('a game match page: this match’s events with times, held without a countdown, the owner’s stderr beside the replay', async () => {
  const owner = await person(browser);
  await signInOnPage(owner.page, server.baseUrl, OWNER, '/me');
  const challengeId = await newChallenge(server, { title: `Stacking ${run}` });
  const ada = await ownersAgent(`Ada stacker ${run}`);
  const bob = await newAgent(server, { name: `Bob stacker ${run}` });
  const keys = { ada: await newAgentKey(server, ada), bob: await newAgentKey(server, bob) };
  await insertEntry(server, challengeId, ada.agentId);
  await insertEntry(server, challengeId, bob.agentId);
  const say = async (who: 'ada' | 'bob', summary: string) => {
    const agent = who === 'ada' ? ada : bob;
    const res = await postEvent(
      server,
      { key: keys[who], agentId: agent.agentId },
      challengeId,
      liveEvent('thinking', { summary }),
    );
    expect(res.status).toBe(200);
  };

  // Events of an earlier match, then this match's.
  await say('ada', 'ada in an earlier match');
  await say('bob', 'bob in an earlier match');
  const startedAt = await dbNow();
  await say('ada', 'ada opens the centre');
  await say('bob', 'bob blocks');
  const completedAt = await dbNow();
  const matchId = await storedMatch(server, {
    challengeId,
    weightClass: 'open',
    kind: 'game',
    startedAt,
    completedAt,
    seats: [
      { agentId: ada.agentId, outcome: 'win', stderr: 'turn 1: <b>ada-debug</b> thinking' },
      { agentId: bob.agentId, outcome: 'loss', stderr: 'bob-secret strategy' },
    ],
  });
  await storeReplay(server, matchId, [ada.agentId, bob.agentId]);
  const holdEnd = completedAt.getTime() + DELAY;
  const url = `${server.baseUrl}/matches/${matchId}`;

  // A spectator during the hold: running, filled cards, no countdown, no raw ISO time, no stderr.
  const spectator = await person(browser);
  const page = spectator.page;
  await page.goto(url);
  const held = {
    status: await page.textContent('#match-status'),
    countdown: (await page.textContent('#countdown'))!,
    cards: await page.locator('.side').allTextContents(),
    main: (await page.innerText('main'))!,
    panel: await page.locator('#stderr-panel').count(),
  };
  const heldViolations = await auditPage(browser, spectator.context, page, 'match-page-game-held');
  expect(Date.now()).toBeLessThan(holdEnd); // everything above was read inside the hold
  expect(held.status).toBe('running');
  expect(held.countdown).toMatch(READABLE);
  expect(held.countdown).toMatch(/^Started at/);
  expect(held.countdown).not.toMatch(/Ends|Finished/);
  expect(held.main).not.toMatch(ISO);
  expect(held.cards).toHaveLength(2);
  for (const card of held.cards) expect(card).toMatch(/Seat \d · (rating|not rated)[\s\S]*replay/);
  expect(held.panel).toBe(0);
  expect(heldViolations).toEqual([]);

  // The owner during the hold: the panel says the stderr comes with the result, and holds none.
  await owner.page.goto(url);
  expect(await owner.page.textContent('#stderr-panel')).toContain('appears here with the result');
  expect(await owner.page.content()).not.toContain('ada-debug');

  // This match's events appear (delayed), each with its time; the earlier match's never do.
  await page.waitForFunction(
    () => document.querySelectorAll('.events li[data-type]').length >= 2,
    undefined,
    {
      timeout: DELAY + 60_000,
    },
  );
  const events = await page.locator('.events li[data-type]').allTextContents();
  expect(events.sort()).toEqual([
    expect.stringMatching(/^\d\d:\d\d:\d\d thinking: ada opens the centre$/),
    expect.stringMatching(/^\d\d:\d\d:\d\d thinking: bob blocks$/),
  ]);
  expect(await page.textContent('.sides')).not.toContain('earlier match');
  expect(await page.locator('li.sep[data-sep="start"]').count()).toBe(2);

  // The hold ends: the result, "Finished at" readable, the end separator on each side.
  await page.waitForSelector('#result table', { timeout: DELAY + 60_000 });
  expect(await page.textContent('#countdown')).toMatch(new RegExp(`^Finished at ${READABLE.source}`));
  expect(await page.locator('li.sep[data-sep="end"]').count()).toBe(2);
  expect(await page.textContent('.sides')).not.toContain('earlier match');

  // After the hold: the owner reads their player's stderr as text beside the replay, not bob's.
  await owner.page.reload();
  await owner.page.waitForSelector('#replay-viewer:not([hidden]), #replay-pending');
  const panel = (await owner.page.textContent('#stderr-panel'))!;
  expect(panel).toContain('turn 1: <b>ada-debug</b> thinking');
  expect(await owner.page.locator('#stderr-panel b').count()).toBe(0);
  expect(panel).not.toContain('bob-secret');
  expect(await auditPage(browser, owner.context, owner.page, 'match-page-game-owner')).toEqual([]);

  // A spectator after the hold: the result and replay, no stderr at all.
  await page.reload();
  expect(await page.locator('#stderr-panel').count()).toBe(0);
  expect(await page.content()).not.toMatch(/ada-debug|bob-secret/);
  expect(await page.textContent('#countdown')).toMatch(/^Finished at/);
  expect(await page.innerText('main')).not.toMatch(ISO);
  expect(await auditPage(browser, spectator.context, page, 'match-page-game-finished')).toEqual([]);
  expect([...spectator.problems, ...owner.problems]).toEqual([]);
  await spectator.context.close();
  await owner.context.close();
}, 300_000);

test('the agent page: rating history per weight class, labelled, with each match’s challenge and readable times', async () => {
  const alpha = await newChallenge(server, { title: `Alpha arena ${run}` });
  const beta = await newChallenge(server, { title: `Beta arena ${run}` });
  const ada = await newAgent(server, { name: `Ada rated ${run}` });
  const bob = await newAgent(server, { name: `Bob rated ${run}` });
  const day = (n: number) => new Date(Date.now() - (10 - n) * 86_400_000);
  const heavy = `heavy-${run}`;
  const light = `light-${run}`;
  await storedMatch(server, {
    challengeId: alpha,
    weightClass: heavy,
    kind: 'bout',
    startedAt: day(1),
    completedAt: day(1),
    seats: [
      { agentId: ada.agentId, outcome: 'win', before: 0, after: 3 },
      { agentId: bob.agentId, outcome: 'loss', before: 0, after: -3 },
    ],
  });
  await storedMatch(server, {
    challengeId: alpha,
    weightClass: heavy,
    kind: 'bout',
    startedAt: day(2),
    completedAt: day(2),
    seats: [
      { agentId: ada.agentId, outcome: 'win', before: 3, after: 5 },
      { agentId: bob.agentId, outcome: 'loss', before: -3, after: -5 },
    ],
  });
  await storedMatch(server, {
    challengeId: beta,
    weightClass: light,
    kind: 'bout',
    startedAt: day(3),
    completedAt: day(3),
    seats: [
      { agentId: ada.agentId, outcome: 'loss', before: 20, after: 17 },
      { agentId: bob.agentId, outcome: 'win', before: 20, after: 23 },
    ],
  });

  const visitor = await person(browser);
  const page = visitor.page;
  await page.goto(`${server.baseUrl}/agents/${ada.agentId}`);
  const classes = page.locator('section.weight-class');
  expect(await classes.count()).toBe(2);
  const heavyText = (await page.textContent(`section.weight-class[data-weight-class="${heavy}"]`))!;
  const lightText = (await page.textContent(`section.weight-class[data-weight-class="${light}"]`))!;
  expect(heavyText).toContain(`Weight class ${heavy}`);
  expect(heavyText).toContain(`Alpha arena ${run}`);
  expect(heavyText).toMatch(/3\.00[\s\S]*5\.00/);
  expect(heavyText).not.toMatch(/Beta arena|17\.00/);
  expect(lightText).toContain(`Beta arena ${run}`);
  expect(lightText).toContain('17.00');
  expect(await page.locator('section.weight-class svg title').allTextContents()).toEqual([
    expect.stringContaining(`weight class ${heavy}`),
  ]);
  // The matches list: each with its challenge; no raw ISO time anywhere.
  const matches = await page.locator('tr[data-match-id]').allTextContents();
  expect(matches.filter((t) => t.includes(`Alpha arena ${run}`))).not.toHaveLength(0);
  expect((await page.innerText('main'))!).not.toMatch(ISO);
  expect((await page.innerText('main'))!).toMatch(READABLE);
  expect(await auditPage(browser, visitor.context, page, 'agent-rating-history')).toEqual([]);
  expect(visitor.problems).toEqual([]);
  await visitor.context.close();
}, 120_000);
