/**
 * The demo's game (`npm start`): the seeded connect-four challenge's definition, published through
 * the operator API, and the two demo agents set up as src/dev/demo-agent.ts does, each submitting
 * its program (src/connector-client/demo-game.ts: Python and JavaScript). Both programs pass the
 * self-play validation, and the matchmaker plays them against each other in the wall: a complete
 * match whose replay has no fault, so what a person first watches is a real game, not a forfeit.
 * The arena's minute is 1 s in tests, so `every_minutes: 3` is 3 s here.
 */
import { randomUUID } from 'node:crypto';
import type { DemoPersona } from '../../src/connector-client/demo';
import { submitDemoGameProgram } from '../../src/connector-client/demo-game';
import { DEMO_CHALLENGE_IDS, demoChallenges } from '../../src/dev/seed';
import { demoAgent } from '../helpers/demo-agents';
import { eventually, newAdmin } from '../helpers/factories';
import { startTestServer, type TestServer } from '../helpers/server';
import { waitForSubmission } from '../helpers/submission-factories';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ RATE_LIMIT_DISABLED: '1' });
});
afterAll(() => server.close());

interface ReplayGame {
  seats: string[];
  statuses: string[];
  rewards: number[];
}

test('the demo agents’ programs are validated and play each other in the seeded game, without a fault', async () => {
  const admin = await newAdmin(server);
  const demo = demoChallenges().find((c) => c.id === DEMO_CHALLENGE_IDS.game)!;
  const body = demo.body as { format: string; weight_class_id: string };
  expect(body.format).toBe('game');
  const weightClass = `game-demo-${randomUUID().slice(0, 6)}`;
  // A weight class of this test's own; everything else as seeded (the game judge, the match settings).
  const created = await server.request('POST', '/api/v1/admin/challenges', {
    auth: admin.jwt,
    body: { ...body, weight_class_id: weightClass },
  });
  expect(created.status).toBe(201);
  const challengeId: string = created.body.data.id;
  const published = await server.request('POST', `/api/v1/admin/challenges/${challengeId}/publish`, {
    auth: admin.jwt,
  });
  expect(published.status).toBe(200);

  const agents: Record<string, string> = {};
  for (const persona of ['ada', 'basil'] as DemoPersona[]) {
    const { identity, client } = await demoAgent(server, challengeId, persona, 'demo-game');
    agents[persona] = identity.agentId;
    const { submissionId } = await submitDemoGameProgram({ client, challengeId, persona });
    const judged = await waitForSubmission(
      server,
      identity.apiToken,
      submissionId,
      ['complete', 'failed'],
      300_000,
    );
    // Validated by a game against itself: accepted, score 100.
    expect([persona, judged.submission_status, judged.result?.final_score]).toEqual([
      persona,
      'complete',
      100,
    ]);
  }

  const match = await eventually(
    async () => {
      const res = await server.request('GET', `/api/v1/challenges/${challengeId}/matches?status=complete`);
      return res.body.data.length > 0 ? res.body.data[0] : undefined;
    },
    300_000,
    500,
  );
  expect(match.participants.map((p: { agent_id: string }) => p.agent_id).sort()).toEqual(
    [agents.ada, agents.basil].sort(),
  );
  const replay = await server.request('GET', `/api/v1/matches/${match.id}/replay`);
  expect(replay.status).toBe(200);
  const games: ReplayGame[] = replay.body.data.games;
  expect(games).toHaveLength(2);
  // Both programs finished every game they played: nobody timed out, crashed or answered garbage.
  for (const game of games) expect(game.statuses).toEqual(['done', 'done']);
  // Stop the matchmaker: it would pair the two every 3 s for the rest of the run.
  await server.request('POST', `/api/v1/admin/challenges/${challengeId}/quarantine`, {
    auth: admin.jwt,
    body: { reason: 'test over' },
  });
}, 600_000);
