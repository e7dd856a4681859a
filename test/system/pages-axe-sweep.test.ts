/**
 * Every HTML page at 1280 and 390 px (issue 41, "axe 0 serious and 0 critical on every page"), in
 * real Chromium: the page routes come from the route table (`allRoutes()` + `isPageRoute`), each
 * visited with path parameters filled from rows this file seeds, as the audience it is for
 * (anonymous, a signed-in competitor, an operator). Each visit asserts axe finds nothing serious
 * or critical at either width, the page does not scroll sideways at 390 px, and every box that
 * scrolls sideways is a named region a keyboard can focus. A page route added without a visit
 * here fails the first test (the exclusions below say why each is left out).
 *
 * The seed: a challenge of each format (an active solo board, a code challenge judged by program
 * tests, a completed contest with its final board, a head-to-head with two rated bouts and a
 * ladder, a game with a replay and its owner's stderr, a draft), an agent with a 100-character
 * name in all of them (agent menus, cards, boards, rating history), a submission with a compile
 * error and one with stderr, clarifications, a rejudge, a webhook with a dead letter.
 *
 * One browser; one page per audience, reused (axe runs in the page: its context bypasses the CSP).
 * Needs Debian's Chromium at /usr/bin/chromium (see test/helpers/browser.ts).
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { mintSessionJwt } from '../../src/auth/jwt';
import { isPageRoute } from '../../src/api/route';
import { launchChromium, person, SCREENSHOTS, signInOnPage, type Person } from '../helpers/browser';
import { challengeBody, createActive, createDraft, inSeconds } from '../helpers/challenge-factories';
import { insertEntry, liveEvent, postEvent } from '../helpers/connector-factories';
import { eventually, newAgent, newAgentKey, type TestAgent, type TestUser } from '../helpers/factories';
import { boutChallenge, storedMatch, storeReplay } from '../helpers/match-factories';
import { matchRoute, ROUTES } from '../helpers/route-table';
import { startServerAndAdmin } from '../helpers/server-and-admin';
import type { TestServer } from '../helpers/server';
import { sessionFor, submit, waitForSubmission } from '../helpers/submission-factories';
import {
  createWebhook,
  deadLetteredDelivery,
  emitResultFinalized,
  startReceiver,
  userIdOf,
  type TestReceiver,
} from '../helpers/webhook-factories';

jest.setTimeout(900_000);

const run = randomUUID().slice(0, 6);
const COMPETITOR = `ada-sweep-${run}`;
const OPERATOR = `ops|sweep-${run}`;
/** The name issue 41.9 reported pushing the take-part page sideways at 390 px. */
const LONG_NAME = `Agent${'x'.repeat(95)}`;
const AXE_SOURCE_PATH = require.resolve('axe-core/axe.min.js');

type Audience = 'anonymous' | 'competitor' | 'operator';

/**
 * Page routes that are not pages to visit: POST routes are forms (their answer is a redirect to a
 * page visited here, or the form's own page again with its errors, which its GET renders); the
 * CSV is a download.
 */
const EXCLUDED: Record<string, string> = {
  consoleChallengeSubmissionsCsv: 'a CSV download, not a page',
};
const isForm = (method: string) => method !== 'get';

/** The rows the visits need, by role. */
interface Seeded {
  solo: string;
  fresh: string;
  code: string;
  contest: string;
  h2h: string;
  game: string;
  draft: string;
  weightClass: string;
  longAgent: string;
  bout: string;
  /** A bout whose result the page's script reveals while it is open (its hold is moved to end then). */
  revealedBout: string;
  gameMatch: string;
  compileError: string;
  withStderr: string;
  rubricSubmission: string;
  rejudge: string;
  webhook: string;
  delivery: string;
}

interface Visit {
  name: string;
  path: string;
  as: Audience;
  /** What the page shows once its script has done its part (events streamed, the replay loaded). */
  ready?: string[];
  /** The answer's status when it is not 200 (an error page is a page too). */
  status?: number;
  /** Run just before the page is opened. */
  before?: () => Promise<void>;
  /** A path no route answers (the HTML 404 page): not counted as a route's visit. */
  unrouted?: true;
}

const TEMPLATES = ['solo', 'text', 'code', 'program', 'head_to_head', 'game'];

function plan(s: Seeded): Visit[] {
  return [
    // Anyone.
    { name: 'home', path: '/', as: 'anonymous' },
    { name: 'api-reference', path: '/api/v1/docs', as: 'anonymous' },
    { name: 'sign-in', path: '/login', as: 'anonymous' },
    { name: 'sign-in-callback-without-state', path: '/auth/callback', as: 'anonymous', status: 400 },
    // Error pages are pages too (moved from web-reliability's page list).
    { name: 'error-404', path: '/no/such/page', as: 'anonymous', status: 404, unrouted: true },
    { name: 'error-400', path: '/challenges/not-a-uuid', as: 'anonymous', status: 400 },
    { name: 'games', path: '/games', as: 'anonymous' },
    { name: 'game-connect-four', path: '/games/connect-four', as: 'anonymous' },
    { name: 'game-light-cycles', path: '/games/light-cycles', as: 'anonymous' },
    {
      name: 'challenge-solo',
      path: `/challenges/${s.solo}`,
      as: 'anonymous',
      // The board as the page's script re-renders it from the API.
      ready: ['#leaderboard[data-last-status="200"] table'],
    },
    { name: 'challenge-code', path: `/challenges/${s.code}`, as: 'anonymous' },
    { name: 'challenge-contest-complete', path: `/challenges/${s.contest}`, as: 'anonymous' },
    { name: 'challenge-head-to-head', path: `/challenges/${s.h2h}`, as: 'anonymous' },
    { name: 'challenge-game', path: `/challenges/${s.game}`, as: 'anonymous' },
    {
      name: 'watch-solo',
      path: `/challenges/${s.solo}/watch`,
      as: 'anonymous',
      ready: ['#conn[data-state="live"]', 'li.event', 'aside #leaderboard table'],
    },
    {
      name: 'match-bout',
      path: `/matches/${s.bout}`,
      as: 'anonymous',
      // The result (past its hold) and the 100-character agent's events of this match.
      ready: ['#result table', '.side ol.events li[data-type]'],
    },
    {
      name: 'match-game',
      path: `/matches/${s.gameMatch}`,
      as: 'anonymous',
      ready: ['#replay-viewer:not([hidden])'],
    },
    { name: 'agent-long-name', path: `/agents/${s.longAgent}`, as: 'anonymous' },
    { name: 'ladder', path: `/weight-classes/${s.weightClass}/ladder`, as: 'anonymous' },
    // The competitor (owner of the 100-character agent).
    { name: 'challenge-solo-signed-in', path: `/challenges/${s.solo}`, as: 'competitor' },
    {
      name: 'match-game-owner',
      path: `/matches/${s.gameMatch}`,
      as: 'competitor',
      ready: ['#replay-viewer:not([hidden])'],
    },
    { name: 'unsent-nothing-kept', path: '/unsent', as: 'competitor' },
    { name: 'my-agents', path: '/me/agents', as: 'competitor' },
    { name: 'my-tokens', path: '/me/tokens', as: 'competitor' },
    { name: 'take-part-solo', path: `/me/challenges/${s.solo}`, as: 'competitor' },
    { name: 'take-part-not-entered', path: `/me/challenges/${s.fresh}`, as: 'competitor' },
    { name: 'take-part-code', path: `/me/challenges/${s.code}`, as: 'competitor' },
    { name: 'take-part-contest-complete', path: `/me/challenges/${s.contest}`, as: 'competitor' },
    { name: 'take-part-head-to-head', path: `/me/challenges/${s.h2h}`, as: 'competitor' },
    { name: 'take-part-game', path: `/me/challenges/${s.game}`, as: 'competitor' },
    { name: 'result-compile-error', path: `/me/submissions/${s.compileError}`, as: 'competitor' },
    { name: 'result-stderr', path: `/me/submissions/${s.withStderr}`, as: 'competitor' },
    { name: 'result-rubric', path: `/me/submissions/${s.rubricSubmission}`, as: 'competitor' },
    { name: 'history', path: '/me', as: 'competitor' },
    { name: 'my-webhooks', path: '/me/webhooks', as: 'competitor' },
    { name: 'my-webhook', path: `/me/webhooks/${s.webhook}`, as: 'competitor' },
    {
      name: 'my-webhook-delivery',
      path: `/me/webhooks/${s.webhook}/deliveries/${s.delivery}`,
      as: 'competitor',
    },
    // Operators.
    { name: 'console', path: '/admin', as: 'operator' },
    { name: 'console-challenges', path: '/admin/challenges', as: 'operator' },
    { name: 'console-new', path: '/admin/challenges/new', as: 'operator' },
    ...TEMPLATES.map((t) => ({
      name: `console-new-${t}`,
      path: `/admin/challenges/new?template=${t}`,
      as: 'operator' as const,
    })),
    ...(['solo', 'code', 'contest', 'h2h', 'game', 'draft'] as const).map((k) => ({
      name: `console-challenge-${k}`,
      path: `/admin/challenges/${s[k]}`,
      as: 'operator' as const,
    })),
    { name: 'console-confirm-publish', path: `/admin/challenges/${s.draft}/publish`, as: 'operator' },
    { name: 'console-confirm-quarantine', path: `/admin/challenges/${s.solo}/quarantine`, as: 'operator' },
    { name: 'console-confirm-retire', path: `/admin/challenges/${s.solo}/retire`, as: 'operator' },
    { name: 'console-confirm-rejudge-all', path: `/admin/challenges/${s.solo}/rejudge`, as: 'operator' },
    { name: 'console-rejudge', path: `/admin/rejudges/${s.rejudge}`, as: 'operator' },
    { name: 'console-exhibition', path: `/admin/challenges/${s.h2h}/exhibition`, as: 'operator' },
    { name: 'console-confirm-void', path: `/admin/matches/${s.bout}/void`, as: 'operator' },
    { name: 'console-submissions-code', path: `/admin/challenges/${s.code}/submissions`, as: 'operator' },
    {
      name: 'console-submissions-contest',
      path: `/admin/challenges/${s.contest}/submissions`,
      as: 'operator',
    },
    { name: 'console-submission-stderr', path: `/admin/submissions/${s.withStderr}`, as: 'operator' },
    { name: 'console-confirm-rejudge', path: `/admin/submissions/${s.withStderr}/rejudge`, as: 'operator' },
    { name: 'console-audit', path: '/admin/audit', as: 'operator' },
    { name: 'console-clarifications', path: '/admin/clarifications', as: 'operator' },
    { name: 'console-deliveries', path: '/admin/deliveries', as: 'operator' },
    { name: 'console-delivery', path: `/admin/deliveries/${s.delivery}`, as: 'operator' },
    {
      name: 'match-bout-operator',
      path: `/matches/${s.bout}`,
      as: 'operator',
      ready: ['#result table'],
    },
    {
      // Held when the page is rendered; the page's script shows the result once the hold ends.
      name: 'match-bout-revealed-by-script',
      path: `/matches/${s.revealedBout}`,
      as: 'anonymous',
      before: async () => {
        await server.deps.db.query(
          `UPDATE matches SET completed_at = clock_timestamp() + interval '8 seconds',
                              bout_ended_at = clock_timestamp() + interval '8 seconds' WHERE id = $1`,
          [s.revealedBout],
        );
      },
      ready: ['#result-pending', '#result table'],
    },
  ];
}

const pageRoutes = ROUTES.filter((r) => isPageRoute(r));

test('every page route of the route table is visited, or excluded with its reason', () => {
  const placeholders = Object.fromEntries(
    [
      'solo',
      'fresh',
      'code',
      'contest',
      'h2h',
      'game',
      'draft',
      'longAgent',
      'bout',
      'revealedBout',
      'gameMatch',
      'compileError',
      'withStderr',
      'rubricSubmission',
      'rejudge',
      'webhook',
      'delivery',
    ].map((k) => [k, randomUUID()]),
  ) as unknown as Seeded;
  placeholders.weightClass = 'wc-placeholder';
  const visited = new Set(
    plan(placeholders)
      .filter((v) => !v.unrouted)
      .map((v) => {
        const route = matchRoute('GET', v.path);
        if (!route || !isPageRoute(route)) throw new Error(`${v.name}: ${v.path} is not a page route`);
        return route.operationId;
      }),
  );
  const unvisited = pageRoutes
    .filter((r) => !isForm(r.method) && !(r.operationId in EXCLUDED) && !visited.has(r.operationId))
    .map((r) => `${r.method.toUpperCase()} ${r.path} (${r.operationId})`);
  expect(unvisited).toEqual([]);
  // The exclusions name routes that exist.
  for (const id of Object.keys(EXCLUDED)) expect(pageRoutes.map((r) => r.operationId)).toContain(id);
});

// ---- the seed ------------------------------------------------------------------------------------

let server: TestServer;
let admin: TestUser;
let browser: Browser;
let receiver: TestReceiver;
let webhookId: string | undefined;

beforeAll(async () => {
  ({ server, admin } = await startServerAndAdmin({
    RATE_LIMIT_DISABLED: '1',
    AUTH_OPERATOR_SUBJECTS: OPERATOR,
    // Finished matches show their result at once (the hold is the spectator delay).
    SPECTATOR_DELAY_MS: '200',
  }));
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  if (webhookId)
    await server?.deps.db.query(`UPDATE webhook_subscriptions SET status = 'inactive' WHERE id = $1`, [
      webhookId,
    ]);
  await receiver?.close();
  await browser?.close();
  await server?.close();
});

const dbNow = async () =>
  (await server.deps.db.query<{ now: Date }>('SELECT clock_timestamp() AS now')).rows[0].now;

async function judged(agent: TestAgent, challengeId: string, body: unknown): Promise<string> {
  const res = await submit(server, agent.token, await sessionFor(server, agent, challengeId), body);
  if (res.status !== 201) throw new Error(`submit: ${res.status} ${res.text}`);
  const done = await waitForSubmission(
    server,
    agent.token,
    res.body.data.id,
    ['complete', 'failed'],
    300_000,
  );
  expect(done.submission_status).toBe('complete');
  return res.body.data.id;
}

const RUBRIC = {
  kind: 'rubric',
  criteria: [
    { name: 'greets', weight: 1, check: { type: 'contains', value: 'hello' } },
    { name: 'heldout', weight: 1, private: true, check: { type: 'contains', value: '42' } },
  ],
};
const SUM_JUDGE = {
  kind: 'program',
  time_limit_ms: 2000,
  memory_mb: 128,
  tests: [
    { name: 'small', stdin: '1 2\n', expected_stdout: '3\n' },
    { name: 'big', stdin: '1000000 2345678\n', expected_stdout: '3345678\n' },
  ],
};
const STDERR_PROGRAM = `import sys
print("reading two numbers from stdin; a long diagnostic line " + "x" * 120, file=sys.stderr)
a, b = map(int, sys.stdin.read().split())
print(a + b + 1)
`;

async function seed(competitor: TestUser): Promise<Seeded> {
  const db = server.deps.db;
  const long = await newAgent(server, { user: competitor, name: LONG_NAME });
  const short = await newAgent(server, { user: competitor, name: `Ada short ${run}` });
  const rival = await newAgent(server, { name: `Bob rival ${run}` });
  const longKey = await newAgentKey(server, long);

  // Solo formats: an active board, one nobody of ours entered, a code challenge, a contest.
  const solo = (await createActive(server, { title: `Greetings ${run}`, judge: RUBRIC }, admin)).id as string;
  const fresh = (await createActive(server, { title: `Fresh ${run}` }, admin)).id as string;
  const code = (
    await createActive(server, { title: `Sum two numbers ${run}`, format: 'code', judge: SUM_JUDGE }, admin)
  ).id as string;
  const contest = (
    await createActive(
      server,
      { title: `Closed contest ${run}`, judge: RUBRIC, ends_at: inSeconds(3600) },
      admin,
    )
  ).id as string;
  const draft = (await createDraft(server, { title: `Draft ${run}` }, admin)).id as string;

  const rubricSubmission = await judged(long, solo, { content: 'hello there, the answer is 42' });
  await judged(short, solo, { content: 'hello' });
  await judged(rival, solo, { content: 'nothing to say' });
  const selected = await server.request('POST', `/api/v1/submissions/${rubricSubmission}/select`, {
    auth: long.token,
  });
  expect(selected.status).toBe(200);
  const compileError = await judged(long, code, {
    content: 'main.c',
    files: [{ path: 'main.c', content: 'int main( {\n  return 0\n}\n' }],
  });
  const withStderr = await judged(long, code, {
    content: 'main.py',
    files: [{ path: 'main.py', content: STDERR_PROGRAM }],
  });
  // The 100-character agent's card on the watch page, with a code block wider than any box.
  for (const event of [
    liveEvent('thinking', { summary: `${LONG_NAME} reads the rubric` }),
    liveEvent('command_run', { command: `grep -r ${'hello'.repeat(40)} .`, exit_code: 1 }),
  ])
    expect((await postEvent(server, { key: longKey, agentId: long.agentId }, solo, event)).status).toBe(200);
  await judged(long, contest, { content: 'hello, the answer is 42' });
  await judged(rival, contest, { content: 'hello there' });

  // Clarifications on the solo challenge: one answered publicly, one waiting, an announcement.
  const asked: string[] = [];
  for (const question of [
    `Is ${LONG_NAME} allowed to greet in French?`,
    'May an answer be longer than 200 characters?',
  ]) {
    const res = await server.request('POST', `/api/v1/challenges/${solo}/clarifications`, {
      auth: competitor.jwt,
      body: { question },
    });
    expect(res.status).toBe(201);
    asked.push(res.body.data.id);
  }
  expect(
    (
      await server.request('POST', `/api/v1/admin/clarifications/${asked[0]}/answer`, {
        auth: admin.jwt,
        body: { answer: 'Yes: any language counts.', public: true },
      })
    ).status,
  ).toBe(200);
  expect(
    (
      await server.request('POST', `/api/v1/admin/challenges/${solo}/announcements`, {
        auth: admin.jwt,
        body: { text: 'The rubric is case-insensitive from now on.' },
      })
    ).status,
  ).toBe(201);

  // The contest closes; its final board once the private passes are done.
  const ended = await server.request('PATCH', `/api/v1/admin/challenges/${contest}`, {
    auth: admin.jwt,
    body: { ends_at: new Date(Date.now() - 1000).toISOString() },
  });
  expect(ended.status).toBe(200);

  // Head to head: two rated bouts with events in the first, ratings on the ladder.
  const { challengeId: h2h, weightClassId: weightClass } = await boutChallenge(server, admin, `Bouts ${run}`);
  await insertEntry(server, h2h, long.agentId);
  await insertEntry(server, h2h, rival.agentId);
  const earlierStart = await dbNow();
  await storedMatch(server, {
    challengeId: h2h,
    weightClass,
    kind: 'bout',
    startedAt: earlierStart,
    completedAt: await dbNow(),
    seats: [
      { agentId: long.agentId, outcome: 'loss', before: 0, after: -1.5 },
      { agentId: rival.agentId, outcome: 'win', before: 0, after: 1.5 },
    ],
  });
  const boutStart = await dbNow();
  for (const event of [
    liveEvent('thinking', { summary: `${LONG_NAME} reads the question` }),
    liveEvent('code_write', {
      filename: 'answer.txt',
      summary: 'a draft',
      snippet: `The answer is ${'42'.repeat(60)}`,
    }),
    liveEvent('submitted', { summary: 'sent' }),
  ])
    expect((await postEvent(server, { key: longKey, agentId: long.agentId }, h2h, event)).status).toBe(200);
  const bout = await storedMatch(server, {
    challengeId: h2h,
    weightClass,
    kind: 'bout',
    startedAt: boutStart,
    completedAt: await dbNow(),
    seats: [
      { agentId: long.agentId, outcome: 'win', before: -1.5, after: 2.25 },
      { agentId: rival.agentId, outcome: 'loss', before: 1.5, after: -0.75 },
    ],
  });
  const revealedBout = await storedMatch(server, {
    challengeId: h2h,
    weightClass,
    kind: 'bout',
    startedAt: await dbNow(),
    completedAt: await dbNow(),
    seats: [
      { agentId: long.agentId, outcome: 'win', before: 2.25, after: 2.25 },
      { agentId: rival.agentId, outcome: 'loss', before: -0.75, after: -0.75 },
    ],
  });
  for (const [agentId, ordinal, w, l] of [
    [long.agentId, 2.25, 1, 1],
    [rival.agentId, -0.75, 1, 1],
  ] as const)
    await db.query(
      `INSERT INTO ratings (weight_class_id, agent_id, mu, sigma, ordinal, matches, wins, draws, losses, last_match_at)
       VALUES ($1, $2, $3, 8.1, $4, 2, $5, 0, $6, now())`,
      [weightClass, agentId, ordinal + 25, ordinal, w, l],
    );

  // A game challenge: a rated match with its replay and each seat's stderr.
  const gameRes = await server.request('POST', '/api/v1/admin/challenges', {
    auth: admin.jwt,
    body: challengeBody({
      title: `Stacking ${run}`,
      format: 'game',
      weight_class_id: `wc-game-${run}`,
      judge: {
        kind: 'game',
        game: 'connect-four',
        turn_ms: 1000,
        bank_ms: 2000,
        memory_mb: 128,
        games_per_match: 1,
      },
      match: { every_minutes: 1440, rematch_after_minutes: 0, players: 2 },
    }),
  });
  expect(gameRes.status).toBe(201);
  const game = gameRes.body.data.id as string;
  expect(
    (await server.request('POST', `/api/v1/admin/challenges/${game}/publish`, { auth: admin.jwt })).status,
  ).toBe(200);
  await insertEntry(server, game, long.agentId);
  await insertEntry(server, game, rival.agentId);
  const gameStart = await dbNow();
  const gameMatch = await storedMatch(server, {
    challengeId: game,
    weightClass: `wc-game-${run}`,
    kind: 'game',
    startedAt: gameStart,
    completedAt: await dbNow(),
    seats: [
      {
        agentId: long.agentId,
        outcome: 'win',
        before: 0,
        after: 1,
        stderr: `turn 1: ${'thinking about the centre column '.repeat(8)}\n${'#'.repeat(300)}`,
      },
      { agentId: rival.agentId, outcome: 'loss', before: 0, after: -1, stderr: 'rival debug' },
    ],
  });
  await storeReplay(server, gameMatch, [long.agentId, rival.agentId]);

  // A rejudge of the solo board (its page lists each submission's old → new score).
  const rejudge = await server.request('POST', `/api/v1/admin/challenges/${solo}/rejudge`, {
    auth: admin.jwt,
    body: {},
  });
  expect(rejudge.status).toBe(202);

  // A webhook whose receiver keeps failing: a dead letter for the subscriber's and support's pages.
  receiver = await startReceiver();
  receiver.setDefault({ status: 500, body: `receiver exploded: ${'stack frame '.repeat(40)}` });
  const hook = await createWebhook(server, competitor.jwt, {
    url: receiver.url,
    events: ['result.finalized'],
  });
  webhookId = hook.id;
  const delivery = await deadLetteredDelivery(
    db,
    await emitResultFinalized(db, await userIdOf(db, competitor.subject)),
  );

  await eventually(async () => {
    const res = await server.request('GET', `/api/v1/leaderboards/${contest}?board=final`);
    return res.status === 200 && res.body.pending === 0 && res.body.data.length === 2;
  }, 120_000);

  return {
    solo,
    fresh,
    code,
    contest,
    h2h,
    game,
    draft,
    weightClass,
    longAgent: long.agentId,
    bout,
    revealedBout,
    gameMatch,
    compileError,
    withStderr,
    rubricSubmission,
    rejudge: rejudge.body.data.rejudge_id,
    webhook: hook.id,
    delivery,
  };
}

// ---- the sweep -----------------------------------------------------------------------------------

// Run in the browser (tsconfig has no DOM lib): what pushes the page sideways at this width, and
// every box that scrolls sideways without being a named, focusable region.
const LAYOUT_JS = `(() => {
  const doc = document.documentElement;
  const width = doc.clientWidth;
  const describe = (el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') +
    (typeof el.className === 'string' && el.className.trim() ? '.' + el.className.trim().split(/\\s+/).join('.') : '');
  const where = (el) => {
    const parts = [];
    for (let e = el; e && e !== document.body && parts.length < 4; e = e.parentElement) parts.unshift(describe(e));
    return parts.join(' > ');
  };
  const clipped = (el) => {
    for (let a = el.parentElement; a && a !== document.body; a = a.parentElement)
      if (getComputedStyle(a).overflowX !== 'visible') return true;
    return false;
  };
  const wide = [];
  for (const el of document.body.querySelectorAll('*')) {
    const r = el.getBoundingClientRect();
    if ((r.width === 0 && r.height === 0) || r.right <= width + 1 || clipped(el)) continue;
    if (wide.some((w) => w.contains(el))) continue;
    wide.push(el);
  }
  const regions = [];
  for (const el of document.body.querySelectorAll('*')) {
    if (['TEXTAREA', 'SELECT', 'INPUT'].includes(el.tagName)) continue;
    const overflowX = getComputedStyle(el).overflowX;
    if ((overflowX !== 'auto' && overflowX !== 'scroll') || el.scrollWidth <= el.clientWidth + 1) continue;
    const focusable = el.tabIndex >= 0;
    const named = el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby');
    if (!focusable || !named)
      regions.push(where(el) + (focusable ? '' : ' (not focusable)') + (named ? '' : ' (no name)'));
  }
  // A table's width depends on its data (names, figures): each sits in a box of its own that scrolls.
  const tables = [];
  for (const table of document.body.querySelectorAll('table')) {
    if (table.getClientRects().length === 0) continue;
    let box = table.parentElement;
    while (box && box !== document.body && !['auto', 'scroll'].includes(getComputedStyle(box).overflowX)) box = box.parentElement;
    const region = box && box !== document.body && box.tabIndex >= 0 &&
      (box.hasAttribute('aria-label') || box.hasAttribute('aria-labelledby'));
    if (!region) tables.push(where(table));
  }
  return {
    tables,
    scrollWidth: doc.scrollWidth,
    clientWidth: width,
    wide: wide.slice(0, 5).map((el) => where(el) + ' (right edge ' + Math.round(el.getBoundingClientRect().right) + ')'),
    regions,
  };
})()`;

interface AxeRun {
  violations: { id: string; impact: string | null; nodes: { target: unknown[] }[] }[];
}

async function axeFindings(page: Page, label: string): Promise<string[]> {
  const results = (await page.evaluate(`axe.run(document, { resultTypes: ['violations'] })`)) as AxeRun;
  return (
    results.violations
      // Serious and critical, and two landmarks of one name (moderate, but a screen reader's
      // landmark list then offers the same name twice: a section and the table region inside it).
      .filter((v) => v.impact === 'serious' || v.impact === 'critical' || v.id === 'landmark-unique')
      .map((v) => `${label}: axe ${v.id} [${v.impact}] ${JSON.stringify(v.nodes.map((n) => n.target))}`)
  );
}

/** One visit: the page at 1280 (axe), then at 390 (axe, no sideways scrolling, named scroll regions). */
async function sweep(who: Person, baseUrl: string, visit: Visit): Promise<string[]> {
  const { page } = who;
  const findings: string[] = [];
  await page.setViewportSize({ width: 1280, height: 860 });
  await visit.before?.();
  const res = await page.goto(baseUrl + visit.path);
  const status = res?.status() ?? 0;
  if (status !== (visit.status ?? 200)) return [`${visit.name}: ${visit.path} answered ${status}`];
  for (const selector of visit.ready ?? []) await page.waitForSelector(selector, { timeout: 60_000 });
  // Every page, error pages included, has a way back (moved from web-reliability).
  if ((await page.locator('a[href="/"]').count()) === 0) findings.push(`${visit.name}: no link back home`);
  await page.addScriptTag({ path: AXE_SOURCE_PATH });
  findings.push(...(await axeFindings(page, `${visit.name} @1280`)));
  await page.setViewportSize({ width: 390, height: 844 });
  const layout = (await page.evaluate(LAYOUT_JS)) as {
    scrollWidth: number;
    clientWidth: number;
    wide: string[];
    regions: string[];
    tables: string[];
  };
  if (layout.scrollWidth > layout.clientWidth) {
    findings.push(
      `${visit.name} @390: scrolls sideways (${layout.scrollWidth} > ${layout.clientWidth}): ${layout.wide.join('; ')}`,
    );
    await page.screenshot({ path: path.join(SCREENSHOTS, `sweep-${visit.name}-390.png`), fullPage: true });
  }
  for (const r of layout.regions) findings.push(`${visit.name} @390: scrolls sideways in ${r}`);
  for (const t of layout.tables)
    findings.push(`${visit.name}: ${t} is not in a named, focusable scroll region`);
  findings.push(...(await axeFindings(page, `${visit.name} @390`)));
  return findings;
}

test('every page, as its audience, at 1280 and 390 px: axe clean, no sideways page, named scroll regions', async () => {
  const competitorJwt = await mintSessionJwt(server.config.AUTH_JWT_SECRET, {
    sub: COMPETITOR,
    name: 'Ada',
    role: 'user',
  });
  const people: Record<Audience, Person> = {
    anonymous: await person(browser, { bypassCSP: true }),
    competitor: await person(browser, { bypassCSP: true }),
    operator: await person(browser, { bypassCSP: true }),
  };
  // Signed in first: the competitor's user row, then their agents.
  await signInOnPage(people.competitor.page, server.baseUrl, COMPETITOR, '/me');
  await signInOnPage(people.operator.page, server.baseUrl, OPERATOR, '/admin');
  const seeded = await seed({ subject: COMPETITOR, jwt: competitorJwt });

  const findings: string[] = [];
  for (const visit of plan(seeded)) {
    const who = people[visit.as];
    who.problems.length = 0;
    findings.push(...(await sweep(who, server.baseUrl, visit)));
    // An error page's own answer is logged by the browser as a failed load: expected there.
    const expected = `the server responded with a status of ${visit.status}`;
    findings.push(
      ...who.problems
        .filter((p) => !(visit.status && p.includes(expected)))
        .map((p) => `${visit.name}: ${p}`),
    );
  }
  for (const who of Object.values(people)) await who.context.close();
  expect(findings).toEqual([]);
});
