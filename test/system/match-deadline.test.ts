/**
 * Issue 37 through the API, on the real stack:
 * - a validated player that sends a 6,000-deep action, or a lone surrogate, in a match loses the
 *   games it does it in and the match completes (before: the referee threw RangeError, the match
 *   stayed running past its cap; the surrogate broke the replay's insert);
 * - a running match whose workflow is gone is voided by the sweeper with its reason (audit
 *   `match.void` by `system`), and its players can enter another match at once (before: the match
 *   stayed running and every later match of its players was refused).
 *
 * The hostile and slow players pass their self-play validation: against themselves they stack the
 * left columns and never see a disc in column 3 or beyond; the baseline bot opens in the centre.
 */
import { randomUUID } from 'node:crypto';
import { connectFour } from '../../src/judging/games/connect-four';
import { eventually, type TestUser } from '../helpers/factories';
import { challengeBody } from '../helpers/challenge-factories';
import { type TestServer } from '../helpers/server';
import { validatedGamePlayer } from '../helpers/submission-factories';
import { startServerAndAdmin } from '../helpers/server-and-admin';

let server: TestServer;
let admin: TestUser;
let challengeId: string;
let boss: { agentId: string };

jest.setTimeout(900_000);

/** Plays the first legal column until it sees a disc in column 3 or beyond, then sends `bomb`. */
const bomber = (bomb: string) => `import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if message.get("done"):
        break
    observation = message["observation"]
    if any(row[c] != 0 for row in observation["board"] for c in range(3, len(row))):
        sys.stdout.write(${JSON.stringify(bomb)} + "\\n")
        sys.stdout.flush()
        continue
    print(json.dumps({"action": observation["legal_actions"][0]}), flush=True)
`;

const DEEP = `{"action": ${'['.repeat(6000)}${']'.repeat(6000)}}`;
const SURROGATE = '{"action": "\\ud800"}';

/** Sleeps 4 s a turn against the baseline bot (within its wall cap): a match that lasts minutes. */
const SLOW = `import json, sys, time
for line in sys.stdin:
    message = json.loads(line)
    if message.get("done"):
        break
    observation = message["observation"]
    if any(row[c] != 0 for row in observation["board"] for c in range(3, len(row))):
        time.sleep(4)
    print(json.dumps({"action": observation["legal_actions"][0]}), flush=True)
`;

beforeAll(async () => {
  ({ server, admin } = await startServerAndAdmin());
  const created = await server.request('POST', '/api/v1/admin/challenges', {
    auth: admin.jwt,
    body: challengeBody({
      format: 'game',
      weight_class_id: `wc-${randomUUID().slice(0, 8)}`,
      judge: {
        kind: 'game',
        game: 'connect-four',
        turn_ms: 3_000,
        bank_ms: 0,
        memory_mb: 128,
        games_per_match: 2,
      },
      max_submissions_per_session: 10,
      match: { every_minutes: 1440, rematch_after_minutes: 0 },
    }),
  });
  expect(created.status).toBe(201);
  challengeId = created.body.data.id;
  const published = await server.request('POST', `/api/v1/admin/challenges/${challengeId}/publish`, {
    auth: admin.jwt,
  });
  expect(published.status).toBe(200);
  boss = (
    await validatedGamePlayer(server, challengeId, { path: 'main.py', content: connectFour.boss.source })
  ).agent;
});

afterAll(async () => {
  if (challengeId)
    await server?.request('POST', `/api/v1/admin/challenges/${challengeId}/quarantine`, {
      auth: admin.jwt,
      body: { reason: 'test over' },
    });
  await server?.close();
});

async function exhibition(agentIds: string[]) {
  return server.request('POST', `/api/v1/admin/challenges/${challengeId}/matches`, {
    auth: admin.jwt,
    body: { agent_ids: agentIds, rated: false },
  });
}

async function finished(matchId: string) {
  return eventually(
    async () => {
      const res = await server.request('GET', `/api/v1/matches/${matchId}`, { auth: admin.jwt });
      return ['complete', 'void'].includes(res.body.data.status) ? res.body.data : undefined;
    },
    600_000,
    500,
  );
}

it.each([
  ['a 6,000-deep action', DEEP],
  ['a lone surrogate', SURROGATE],
])('a validated player that sends %s in a match loses it; the match completes', async (_what, bomb) => {
  const hostile = (await validatedGamePlayer(server, challengeId, { path: 'main.py', content: bomber(bomb) }))
    .agent;
  const started = await exhibition([hostile.agentId, boss.agentId]);
  expect(started.status).toBe(201);
  const match = await finished(started.body.data.id);
  expect(match.status).toBe('complete');
  const byAgent = new Map<string, { outcome: string }>(
    match.participants.map((p: { agent_id: string; outcome: string }) => [p.agent_id, p]),
  );
  expect(byAgent.get(hostile.agentId)).toMatchObject({ outcome: 'loss' });
  expect(byAgent.get(boss.agentId)).toMatchObject({ outcome: 'win' });
  // Each game it lost is an `invalid` step with action null in the stored replay.
  const replay = await server.request('GET', `/api/v1/matches/${match.id}/replay`, { auth: admin.jwt });
  expect(replay.status).toBe(200);
  const hostileSteps = replay.body.data.games.flatMap(
    (game: { seats: string[]; steps: { action: unknown; status: string }[][] }) =>
      game.steps.map((step) => step[game.seats.indexOf(hostile.agentId)]),
  );
  expect(hostileSteps).toContainEqual(expect.objectContaining({ action: null, status: 'invalid' }));
});

it('a running match whose workflow is gone is voided by the sweeper; its players play again at once', async () => {
  const slow = (await validatedGamePlayer(server, challengeId, { path: 'main.py', content: SLOW })).agent;
  const started = await exhibition([slow.agentId, boss.agentId]);
  expect(started.status).toBe(201);
  const matchId: string = started.body.data.id;
  // Its games are under way: the match holds its slots.
  await eventually(
    async () => {
      const res = await server.deps.db.query<{ state: string }>(
        'SELECT state FROM judging_queue WHERE work_key = $1',
        [`game-match:${matchId}`],
      );
      return res.rows[0]?.state === 'running' ? true : undefined;
    },
    300_000,
    200,
  );
  // Its workflow is gone (an operator terminated it, a bug failed it).
  const client = await server.deps.temporal();
  await client.workflow.getHandle(`match-${matchId}`).terminate('test: the workflow is gone');

  const voided = await finished(matchId);
  expect(voided).toMatchObject({ status: 'void' });
  const audit = await server.deps.db.query<{
    actor: string;
    actor_user_id: string | null;
    detail: { reason: string };
  }>(
    "SELECT actor, actor_user_id, detail FROM audit_records WHERE action = 'match.void' AND target_id = $1",
    [matchId],
  );
  expect(audit.rows).toEqual([
    {
      actor: 'system',
      actor_user_id: null,
      detail: expect.objectContaining({ reason: expect.stringMatching(/workflow is terminated/) }),
    },
  ]);
  const stored = await server.deps.db.query<{ reason: string }>('SELECT reason FROM matches WHERE id = $1', [
    matchId,
  ]);
  expect(stored.rows[0].reason).toMatch(/workflow is terminated/);

  // Its players are free: another match of the same two starts.
  const again = await exhibition([slow.agentId, boss.agentId]);
  expect(again.status).toBe(201);
  const voidAgain = await server.request('POST', `/api/v1/admin/matches/${again.body.data.id}/void`, {
    auth: admin.jwt,
    body: { reason: 'test over' },
  });
  expect(voidAgain.status).toBe(200);
});
