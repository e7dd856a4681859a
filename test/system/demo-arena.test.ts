/**
 * The demo's arena (`npm start`): the seeded head-to-head challenge's definition, published through
 * the operator API (so its matchmaker runs), and the two demo agents set up like
 * src/dev/demo-agent.ts does and online: the matchmaker pairs them, both play the bout
 * (src/connector-client/demo-arena.ts: events, one judged submission, the session closed) and the
 * match completes with placements and one rating update. The arena's minute is 1 s in tests, so
 * `every_minutes: 3` is 3 s here.
 */
import { randomUUID } from 'node:crypto';
import type { DemoPersona } from '../../src/connector-client/demo';
import { playArenaBouts } from '../../src/connector-client/demo-arena';
import { DEMO_CHALLENGE_IDS, demoChallenges } from '../../src/dev/seed';
import { demoAgent } from '../helpers/demo-agents';
import { eventually, newAdmin } from '../helpers/factories';
import { startTestServer, type TestServer } from '../helpers/server';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ RATE_LIMIT_DISABLED: '1' });
});
afterAll(() => server.close());

test('the demo agents meet in the seeded arena: matched, both play, the match completes and is rated once', async () => {
  const admin = await newAdmin(server);
  const demo = demoChallenges().find((c) => c.id === DEMO_CHALLENGE_IDS.arena)!;
  const body = demo.body as { format: string; match: Record<string, unknown>; weight_class_id: string };
  expect(body.format).toBe('head_to_head');
  const weightClass = `arena-demo-${randomUUID().slice(0, 6)}`;
  const created = await server.request('POST', '/api/v1/admin/challenges', {
    auth: admin.jwt,
    // A weight class of this test's own; everything else as seeded (the tests judge, the match settings).
    body: { ...body, weight_class_id: weightClass, time_limit_minutes: 120 },
  });
  expect(created.status).toBe(201);
  const challengeId: string = created.body.data.id;
  expect(
    (await server.request('POST', `/api/v1/admin/challenges/${challengeId}/publish`, { auth: admin.jwt }))
      .status,
  ).toBe(200);

  const stop = new AbortController();
  const agents: Record<string, string> = {};
  const playing: Promise<void>[] = [];
  try {
    for (const [persona, r] of [
      ['ada', 0], // the fixed solution: 100
      ['basil', 0.5], // words reversed: 60
    ] as [DemoPersona, number][]) {
      const { identity, client } = await demoAgent(server, challengeId, persona, 'demo-arena');
      agents[persona] = identity.agentId;
      await client.heartbeat(); // online (the demo's runner keeps heartbeating)
      playing.push(
        playArenaBouts({
          client,
          apiToken: identity.apiToken,
          challengeId,
          persona,
          signal: stop.signal,
          pollMs: 300,
          paceMs: 50,
          random: () => r,
        }),
      );
    }

    const match = await eventually(
      async () => {
        const res = await server.request('GET', `/api/v1/challenges/${challengeId}/matches?status=complete`);
        return res.body.data.length > 0 ? res.body.data[0] : undefined;
      },
      180_000,
      500,
    );
    const byAgent = new Map(match.participants.map((p: { agent_id: string }) => [p.agent_id, p]));
    expect(byAgent.get(agents.ada)).toMatchObject({ rank: 1, outcome: 'win', score: 100 });
    expect(byAgent.get(agents.basil)).toMatchObject({ rank: 2, outcome: 'loss', score: 60 });
    expect(match.rated).toBe(true);
    await eventually(
      async () => {
        const res = await server.request('GET', `/api/v1/ratings?weight_class_id=${weightClass}`);
        return res.body.data.length === 2 ? res.body.data : undefined;
      },
      30_000,
      300,
    );
    const updates = await server.deps.db.query('SELECT 1 FROM rating_updates WHERE match_id = $1', [
      match.id,
    ]);
    expect(updates.rows).toHaveLength(1);
    // Each agent streamed its bout's events (the match page's two sides).
    const events = await server.deps.db.query<{ agent_id: string; n: number }>(
      `SELECT agent_id, count(*)::int AS n FROM live_events WHERE challenge_id = $1 GROUP BY agent_id`,
      [challengeId],
    );
    expect(events.rows.map((r) => r.agent_id).sort()).toEqual([agents.ada, agents.basil].sort());
  } finally {
    stop.abort();
    await Promise.all(playing);
  }
}, 300_000);
