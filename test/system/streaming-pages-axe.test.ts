/**
 * The pages that stream (issue 41, item 9): axe finds nothing serious or critical on the watch
 * page and on a match page while their events arrive, at 1280 and 390 px. Streamed code blocks
 * (a snippet with a long line, a long command) and the event lists scroll, so each is a labelled
 * region a keyboard can focus. axe runs in the live page (its context bypasses the CSP), since a
 * reload would start the stream over.
 */
import type { Browser } from 'playwright-core';
import { auditPage, axeViolations, launchChromium, person } from '../helpers/browser';
import { enteredAgent, liveEvent, postEvent } from '../helpers/connector-factories';
import { startTestServer, type TestServer } from '../helpers/server';
import { startMatchWorkflow } from '../../src/domain/matches/workflow-start';

// The callbacks passed to page.waitForFunction run in the browser (tsconfig has no DOM lib).
declare const document: { querySelectorAll(selector: string): { length: number } };

let server: TestServer;
let browser: Browser;
beforeAll(async () => {
  server = await startTestServer({ RATE_LIMIT_DISABLED: '1', SPECTATOR_DELAY_MS: '200' });
  browser = await launchChromium();
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

// Under the event's limits (a snippet ≤ 2,000 characters, a command ≤ 500), wider than any box.
const LONG_LINE = `const answer = ${'"x" + '.repeat(25)}"end";`;
const SNIPPET = Array.from({ length: 9 }, (_, i) => `${i}: ${LONG_LINE}`).join('\n');
/** Enough events, with code blocks wider and taller than their boxes, that every list scrolls. */
const events = () => [
  ...Array.from({ length: 18 }, (_, i) => liveEvent('thinking', { summary: `step ${i}: reading the tests` })),
  liveEvent('code_write', {
    filename: 'src/solution.ts',
    language: 'typescript',
    summary: 'a draft',
    snippet: SNIPPET,
  }),
  liveEvent('command_run', {
    command: `npm test -- ${'--verbose '.repeat(30)}`,
    exit_code: 1,
    snippet: SNIPPET,
  }),
  liveEvent('error_hit', { error_summary: 'TypeError', snippet: SNIPPET }),
  liveEvent('progress', { percent: 60, stage: 'edge cases', snippet: SNIPPET }),
];

test('the watch page while events stream: axe clean at 1280 and 390 px', async () => {
  const ada = await enteredAgent(server, { name: 'Ada (streaming)' });
  const viewer = await person(browser, { bypassCSP: true });
  const { page } = viewer;
  await page.goto(`${server.baseUrl}/challenges/${ada.challengeId}/watch`);
  await page.waitForSelector('#conn[data-state="live"]');
  const sent = events();
  for (const event of sent) expect((await postEvent(server, ada, ada.challengeId, event)).status).toBe(200);
  await page.waitForFunction((n) => document.querySelectorAll('li.event').length === n, sent.length);

  const violations = [
    ...(await auditPage(browser, viewer.context, page, 'watch-streaming', {
      from: 'live',
      name: 'watch 1280',
    })),
    ...(await axeViolations(browser, viewer.context, page, { from: 'live', width: 390, name: 'watch 390' })),
  ];
  expect(violations).toEqual([]);
  expect(viewer.problems).toEqual([]);
  await viewer.context.close();
}, 180_000);

test('a match page while its events stream: axe clean at 1280 and 390 px', async () => {
  const ada = await enteredAgent(server, { name: 'Ada (bout)' });
  const bob = await enteredAgent(server, { challengeId: ada.challengeId, name: 'Bob (bout)' });
  const db = server.deps.db;
  // A bout under way, as the arena starts one.
  const match = await db.query<{ id: string }>(
    `INSERT INTO matches (challenge_id, weight_class_id, kind, status, rated, origin, started_at, ends_at)
     VALUES ($1, 'open', 'bout', 'running', false, 'exhibition', clock_timestamp() - interval '1 second',
             clock_timestamp() + interval '12 minutes') RETURNING id`,
    [ada.challengeId],
  );
  const matchId = match.rows[0].id;
  for (const [i, a] of [ada, bob].entries())
    await db.query(
      `INSERT INTO match_participants (match_id, agent_id, seat, owner_user_id)
       SELECT $1, a.id, $3, a.owner_user_id FROM agents a WHERE a.id = $2`,
      [matchId, a.agentId, i + 1],
    );
  // Its workflow, as the arena starts one: the worker's match sweeper voids a running match whose
  // workflow is gone, which would end this one (and stop its events showing) mid-test.
  await startMatchWorkflow(server.deps, {
    id: matchId,
    challengeId: ada.challengeId,
    agentIds: [ada.agentId, bob.agentId],
  });

  const viewer = await person(browser, { bypassCSP: true });
  const { page } = viewer;
  await page.goto(`${server.baseUrl}/matches/${matchId}`);
  const sent = events();
  for (const event of sent) {
    expect((await postEvent(server, ada, ada.challengeId, event)).status).toBe(200);
    expect((await postEvent(server, bob, ada.challengeId, event)).status).toBe(200);
  }
  await page.waitForFunction(
    (n) => document.querySelectorAll('.side ol.events li:not(.none):not(.sep)').length >= n,
    2 * sent.length,
  );

  const violations = [
    ...(await auditPage(browser, viewer.context, page, 'match-streaming', {
      from: 'live',
      name: 'match 1280',
    })),
    ...(await axeViolations(browser, viewer.context, page, { from: 'live', width: 390, name: 'match 390' })),
  ];
  expect(violations).toEqual([]);
  expect(viewer.problems).toEqual([]);
  await viewer.context.close();
}, 180_000);
