/**
 * The match page (/matches/{id}) in a real headless Chromium (DESIGN "Matches between agents",
 * Spectators): both participants' live events appear on their own side only after the spectator
 * delay (SPECTATOR_DELAY_MS, 1500 ms in tests; 30 s in production), and the result with the rating
 * changes appears only once the delayed feed has reached the match's end (completed_at + delay):
 * neither the page's HTML nor its script shows it earlier. axe-clean (serious and critical) at
 * 1280 and 390 px, no sideways scrolling at 390 px; screenshots in test-artifacts/screenshots.
 *
 * Needs Debian's Chromium at /usr/bin/chromium (see test/helpers/browser.ts).
 */
import { randomUUID } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { axeViolations, checkTwoWidths, launchChromium, person, type Person } from '../helpers/browser';
import { challengeBody } from '../helpers/challenge-factories';
import { liveEvent, newConnectorAgent, postEvent, type ConnectorAgent } from '../helpers/connector-factories';
import { eventually, type TestUser } from '../helpers/factories';
import { submitJudgedAndClose } from '../helpers/submission-factories';
import { type TestServer } from '../helpers/server';
import { startServerAndAdmin } from '../helpers/server-and-admin';

// The callbacks passed to page.evaluate/waitForFunction run in the browser (tsconfig has no DOM lib).
declare const document: {
  getElementById(id: string): { textContent: string | null } | null;
  querySelector(selector: string): unknown;
};
declare const window: { __resultShownAt?: number; __eventSeenAt?: Record<string, number> };
declare class MutationObserver {
  constructor(callback: () => void);
  observe(target: unknown, options: { childList: boolean; subtree: boolean }): void;
}

const DELAY = 1500;
let server: TestServer;
let browser: Browser;
let admin: TestUser;

beforeAll(async () => {
  ({ server, admin } = await startServerAndAdmin({ RATE_LIMIT_DISABLED: '1' }));
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const JUDGE = {
  kind: 'rubric',
  criteria: [{ name: 'answer', weight: 1, check: { type: 'contains', value: '42' } }],
};

async function matchChallenge(): Promise<string> {
  const res = await server.request('POST', '/api/v1/admin/challenges', {
    auth: admin.jwt,
    body: challengeBody({
      title: 'Arena in Chromium',
      format: 'head_to_head',
      weight_class_id: `wc-${randomUUID().slice(0, 8)}`,
      judge: JUDGE,
      // The arena's minute is 1 s in tests: the bout may last 10 min of test time; it ends
      // earlier, once both participants have opened and closed their sessions.
      time_limit_minutes: 600,
      // No matchmaker round pairs anyone during the test: only the exhibition below runs.
      match: { every_minutes: 1440 },
    }),
  });
  expect(res.status).toBe(201);
  const published = await server.request('POST', `/api/v1/admin/challenges/${res.body.data.id}/publish`, {
    auth: admin.jwt,
  });
  expect(published.status).toBe(200);
  return res.body.data.id;
}

async function entrant(challengeId: string, name: string): Promise<ConnectorAgent> {
  const agent = await newConnectorAgent(server, `${name}-${randomUUID().slice(0, 4)}`);
  const res = await server.request('POST', `/api/v1/challenges/${challengeId}/entries`, {
    auth: agent.user.jwt,
    body: { agent_id: agent.agentId },
  });
  expect(res.status).toBe(201);
  return agent;
}

async function matchStatus(id: string): Promise<{ status: string; completed_at: Date | null }> {
  const res = await server.deps.db.query<{ status: string; completed_at: Date | null }>(
    'SELECT status, completed_at FROM matches WHERE id = $1',
    [id],
  );
  return res.rows[0];
}

async function openSession(agent: ConnectorAgent, challengeId: string): Promise<string> {
  const opened = await server.request('POST', `/api/v1/challenges/${challengeId}/sessions`, {
    auth: agent.token,
  });
  expect(opened.status).toBe(201);
  return opened.body.data.session_id;
}

async function submitAndClose(agent: ConnectorAgent, sessionId: string, content: string): Promise<void> {
  await submitJudgedAndClose(server, agent.token, sessionId, content);
}

async function axeAtBothWidths(spectator: Person, url: string): Promise<string[]> {
  const violations = await axeViolations(browser, spectator.context, url, {
    impacts: 'serious',
    name: '1280',
  });
  const narrow = await browser.newContext({ viewport: { width: 390, height: 844 } });
  try {
    violations.push(...(await axeViolations(browser, narrow, url, { impacts: 'serious', name: '390' })));
  } finally {
    await narrow.close();
  }
  return violations;
}

test('the match page shows both sides delayed and reveals the result only after the delayed end', async () => {
  const challengeId = await matchChallenge();
  const ada = await entrant(challengeId, 'ada');
  const bob = await entrant(challengeId, 'bob');
  const created = await server.request('POST', `/api/v1/admin/challenges/${challengeId}/matches`, {
    auth: admin.jwt,
    body: { agent_ids: [ada.agentId, bob.agentId], rated: true },
  });
  expect(created.status).toBe(201);
  const matchId: string = created.body.data.id;
  await eventually(
    async () => ((await matchStatus(matchId)).status === 'running' ? true : undefined),
    60_000,
    200,
  );
  const adaSession = await openSession(ada, challengeId);
  const bobSession = await openSession(bob, challengeId);

  const spectator = await person(browser);
  const { page } = spectator;
  await page.goto(`${server.baseUrl}/matches/${matchId}`);
  expect(await page.textContent('h2#seat-1')).toContain('ada');
  expect(await page.textContent('h2#seat-2')).toContain('bob');
  expect(await page.textContent('#result')).toContain(
    'The result appears once the delayed feed reaches the end',
  );
  // When each event and the result show up, by the page's own clock (the same machine's).
  await page.evaluate(() => {
    window.__eventSeenAt = {};
    const seen = window.__eventSeenAt;
    new MutationObserver(() => {
      for (const li of Array.from(
        (
          document as unknown as { querySelectorAll(s: string): ArrayLike<{ textContent: string | null }> }
        ).querySelectorAll('.events li[data-type]'),
      )) {
        // Each event reads "HH:MM:SS type: summary" (issue 41): keyed by what follows its time.
        const text = li.textContent?.replace(/^\d\d:\d\d:\d\d /, '');
        if (text && !(text in seen)) seen[text] = Date.now();
      }
      if (window.__resultShownAt === undefined && document.querySelector('#result table'))
        window.__resultShownAt = Date.now();
    }).observe(document.querySelector('main') ?? document.querySelector('body'), {
      childList: true,
      subtree: true,
    });
  });

  // Each agent's event lands on its own side, no sooner than the delay after it was sent.
  const sent: Record<string, number> = {};
  for (const [agent, summary] of [
    [ada, 'ada reads the task'],
    [bob, 'bob sketches a plan'],
  ] as const) {
    sent[summary] = Date.now();
    const res = await postEvent(server, agent, challengeId, liveEvent('thinking', { summary }));
    expect(res.status).toBe(200);
  }
  await page.waitForFunction(() => Object.keys(window.__eventSeenAt ?? {}).length >= 2, undefined, {
    timeout: 60_000,
  });
  const seenAt = (await page.evaluate(() => window.__eventSeenAt)) as Record<string, number>;
  for (const [summary, at] of Object.entries(sent)) {
    const shown = `thinking: ${summary}`;
    expect(seenAt[shown]).toBeGreaterThanOrEqual(at + DELAY - 50);
  }
  expect(await page.textContent(`section[data-agent-id="${ada.agentId}"] .events`)).toContain(
    'ada reads the task',
  );
  expect(await page.textContent(`section[data-agent-id="${ada.agentId}"] .events`)).not.toContain('bob');
  expect(await page.textContent(`section[data-agent-id="${bob.agentId}"] .events`)).toContain(
    'bob sketches a plan',
  );

  // Axe and the two widths while the bout runs (events on both sides, countdown going).
  expect(await axeAtBothWidths(spectator, page.url())).toEqual([]);
  await checkTwoWidths(page, 'match-running');

  // Both submit and close: the bout ends early, the match completes (ada wins).
  await submitAndClose(ada, adaSession, 'The answer is 42.');
  await submitAndClose(bob, bobSession, 'No idea.');
  await eventually(
    async () => ((await matchStatus(matchId)).status === 'complete' ? true : undefined),
    60_000,
    100,
  );
  const { completed_at: completedAt } = await matchStatus(matchId);
  // The API already has the result; the page's HTML does not, until the delay has passed.
  const early = await fetch(`${server.baseUrl}/matches/${matchId}`);
  const earlyHtml = await early.text();
  if (Date.now() < completedAt!.getTime() + DELAY) {
    expect(earlyHtml).toContain('id="result-pending"');
    expect(earlyHtml).not.toMatch(/>win</);
  }

  await page.waitForSelector('#result table', { timeout: 60_000 });
  const shownAt = (await page.evaluate(() => window.__resultShownAt)) as number;
  expect(shownAt).toBeGreaterThanOrEqual(completedAt!.getTime() + DELAY - 50);
  const rows = await page.$$eval('#result tbody tr', (trs) =>
    trs.map((tr) =>
      Array.from((tr as unknown as { children: ArrayLike<{ textContent: string | null }> }).children).map(
        (td) => td.textContent,
      ),
    ),
  );
  expect(rows.map((r) => [r[0], r[1]?.replace(/-.*/, ''), r[3]])).toEqual([
    ['1', 'ada', 'win'],
    ['2', 'bob', 'loss'],
  ]);
  expect(await page.textContent('#match-status')).toBe('complete');

  // After the reveal a fresh load shows the result server-side, rating changes once applied.
  await eventually(
    async () => {
      const res = await server.deps.db.query('SELECT 1 FROM rating_updates WHERE match_id = $1', [matchId]);
      return res.rows.length === 1 ? true : undefined;
    },
    30_000,
    200,
  );
  await page.reload();
  expect(await page.textContent('#result')).toMatch(/win/);
  expect(await page.textContent('#result')).toMatch(/\+\d+\.\d\d/);
  expect(await axeAtBothWidths(spectator, page.url())).toEqual([]);
  await checkTwoWidths(page, 'match-complete');
  expect(spectator.problems).toEqual([]);
  await spectator.context.close();
}, 240_000);
