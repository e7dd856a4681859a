import { randomUUID } from 'node:crypto';
/**
 * The demo `npm start` runs tells the truth: two differently named agents compete in the seeded
 * "Reverse a string" challenge, whose tests judge really scores what they submit; Ada fails first,
 * corrects herself and wins; every score the feed mentions is a score the judge gave, and the
 * leaderboard agrees with the last judged score each agent's feed shows.
 */
import { mintSessionJwt } from '../../src/auth/jwt';
import { ConnectorClient } from '../../src/connector-client/client';
import {
  bootstrapDemoAgent,
  DEMO_AGENT_NAMES,
  runDemo,
  type DemoOutcome,
  type DemoPersona,
} from '../../src/connector-client/demo';
import { createChallengeBody } from '../../src/api/schemas/challenges';
import { updateChallenge } from '../../src/db/queries/challenges';
import { createChallenge } from '../../src/domain/challenges/lifecycle';
import { DEMO_CHALLENGE_IDS, demoChallenges } from '../../src/dev/seed';
import { startTestServer, type TestServer } from '../helpers/server';

let server: TestServer;
let challengeId: string;
beforeAll(async () => {
  server = await startTestServer({ RATE_LIMIT_DISABLED: '1' });
  // The seeded challenge's definition under a fresh id (the fixed demo ids belong to the seed's own test).
  const demo = demoChallenges().find((c) => c.id === DEMO_CHALLENGE_IDS.reverse)!;
  const row = await createChallenge(server.deps.db, null, createChallengeBody.parse(demo.body), randomUUID());
  challengeId = row!.id;
  await updateChallenge(server.deps.db, challengeId, { status: 'active', published_at: new Date() });
});
afterAll(() => server.close());

async function run(persona: DemoPersona): Promise<{ agentId: string; outcome: DemoOutcome }> {
  const jwt = await mintSessionJwt(server.config.AUTH_JWT_SECRET, {
    sub: `demo-test|${persona}|${Date.now()}`,
  });
  const identity = await bootstrapDemoAgent({
    baseUrl: server.baseUrl,
    jwt,
    challengeId,
    agentName: DEMO_AGENT_NAMES[persona],
  });
  const outcome = await runDemo({
    client: new ConnectorClient({
      baseUrl: server.baseUrl,
      agentKey: identity.agentKey,
      apiToken: identity.apiToken,
    }),
    challengeId: identity.challengeId,
    persona,
    paceMs: 10,
    judgePollMs: 100,
    exitWhenDone: true,
  });
  return { agentId: identity.agentId, outcome };
}

async function feedOf(agentId: string): Promise<{ type: string; text: string }[]> {
  const res = await server.deps.db.query<{
    event: { type: string; summary?: string; error_summary?: string };
  }>('SELECT event FROM live_events WHERE agent_id = $1 ORDER BY seq_num', [agentId]);
  return res.rows.map((r) => ({ type: r.event.type, text: r.event.error_summary ?? r.event.summary ?? '' }));
}

const scoresIn = (feed: { text: string }[]) =>
  feed.flatMap((e) => [...e.text.matchAll(/score (\d+\.\d\d)/g)].map((m) => Number(m[1])));

test('two named agents: Ada fails, self-corrects and wins; the feed, the judge and the leaderboard agree', async () => {
  const basil = await run('basil');
  const ada = await run('ada');

  // The judge's real scores: Ada's copying draft passes 2 of 5 tests, her fix all 5; Basil's word reversal 3 of 5.
  expect(ada.outcome.submissions.map((s) => [s.label, s.status, s.score])).toEqual([
    ['first draft', 'complete', 40],
    ['fixed version', 'complete', 100],
  ]);
  expect(basil.outcome.submissions.map((s) => [s.label, s.status, s.score])).toEqual([
    ['quick draft', 'complete', 60],
  ]);

  // The feeds say what happened, in order: Ada's failure, her correction, then her win.
  const adaFeed = await feedOf(ada.agentId);
  const failure = adaFeed.findIndex((e) => e.type === 'error_hit');
  const correction = adaFeed.findIndex((e) => e.type === 'self_correct');
  const win = adaFeed.findIndex((e) => e.type === 'tool_call' && e.text.includes('score 100.00'));
  expect(failure).toBeGreaterThan(-1);
  expect(adaFeed[failure].text).toContain('score 40.00');
  expect(adaFeed[failure].text).toContain('reverses a word');
  expect(failure).toBeLessThan(correction);
  expect(correction).toBeLessThan(win);
  expect(adaFeed.at(-1)?.type).toBe('submitted');
  expect(scoresIn(adaFeed)).toEqual([40, 100]);
  expect(scoresIn(await feedOf(basil.agentId))).toEqual([60]);

  // The leaderboard: different names, distinct ranks, each best score the best the agent's feed reported.
  const board = await server.request('GET', `/api/v1/leaderboards/${challengeId}?limit=100`);
  const rows = board.body.data.filter((r: { agent_id: string }) =>
    [ada.agentId, basil.agentId].includes(r.agent_id),
  );
  expect(rows.map((r: { agent_name: string; best_score: number }) => [r.agent_name, r.best_score])).toEqual([
    [DEMO_AGENT_NAMES.ada, 100],
    [DEMO_AGENT_NAMES.basil, 60],
  ]);
  expect(rows[0].rank).toBeLessThan(rows[1].rank);
  expect(DEMO_AGENT_NAMES.ada).not.toBe(DEMO_AGENT_NAMES.basil);
}, 120_000);
