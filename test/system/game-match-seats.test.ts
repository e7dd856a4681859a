/**
 * A game match with more players than a worker's wall has slots (a 3-player light-cycles match on
 * a 2-slot worker: each player is a sandbox of its own, at once) ends `void` saying why, instead of
 * failing its workflow with the match left `running` forever. With enough slots it is played.
 */
import { randomUUID } from 'node:crypto';
import { lightCycles } from '../../src/judging/games/light-cycles';
import { eventually, type TestAgent, type TestUser } from '../helpers/factories';
import { challengeBody } from '../helpers/challenge-factories';
import { type TestServer } from '../helpers/server';
import { validatedGamePlayer } from '../helpers/submission-factories';
import { startServerAndAdmin } from '../helpers/server-and-admin';

let server: TestServer;
let admin: TestUser;

beforeAll(async () => ({ server, admin } = await startServerAndAdmin()));
afterAll(async () => {
  await server?.close();
});

jest.setTimeout(900_000);

it('more players than the worker has slots: the match ends void naming the slots; else it is played', async () => {
  const created = await server.request('POST', '/api/v1/admin/challenges', {
    auth: admin.jwt,
    body: challengeBody({
      format: 'game',
      weight_class_id: `wc-${randomUUID().slice(0, 8)}`,
      judge: {
        kind: 'game',
        game: 'light-cycles',
        turn_ms: 1_000,
        bank_ms: 2_000,
        memory_mb: 128,
        games_per_match: 1,
      },
      max_submissions_per_session: 10,
      match: { every_minutes: 1440, rematch_after_minutes: 0, players: 3 },
    }),
  });
  expect(created.status).toBe(201);
  const challengeId = created.body.data.id;
  expect(
    (await server.request('POST', `/api/v1/admin/challenges/${challengeId}/publish`, { auth: admin.jwt }))
      .status,
  ).toBe(200);
  // Three independent validations at once (the judging queue orders them).
  const players: TestAgent[] = (
    await Promise.all(
      [0, 1, 2].map(() =>
        validatedGamePlayer(server, challengeId, { path: 'main.py', content: lightCycles.boss.source }),
      ),
    )
  ).map((validated) => validated.agent);

  const started = await server.request('POST', `/api/v1/admin/challenges/${challengeId}/matches`, {
    auth: admin.jwt,
    body: { agent_ids: players.map((a) => a.agentId) },
  });
  expect(started.status).toBe(201);
  const matchId: string = started.body.data.id;

  const client = await server.deps.temporal();
  const ended = await client.workflow.getHandle(`match-${matchId}`).result();
  const match = await eventually(async () => {
    const m = (await server.request('GET', `/api/v1/matches/${matchId}`)).body.data;
    return m.status === 'running' || m.status === 'scheduled' ? undefined : m;
  }, 60_000);
  // The worker's wall slots, as it reports them to the judging queue.
  const { rows } = await server.deps.db.query<{ slots: number }>(
    `SELECT COALESCE(max(slots), 0)::int AS slots FROM judging_workers WHERE last_seen_at > now() - interval '5 minutes'`,
  );
  if (rows[0].slots < 3) {
    expect(ended).toBe('void');
    expect(match.status).toBe('void');
    expect(match.reason).toMatch(/3 players needs 3 judging slots at once; this worker has \d/);
  } else {
    expect(ended).toBe('complete');
    expect(match.status).toBe('complete');
  }

  await server.request('POST', `/api/v1/admin/challenges/${challengeId}/quarantine`, {
    auth: admin.jwt,
    body: { reason: 'test over' },
  });
});
