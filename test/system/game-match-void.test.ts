/**
 * Voiding a running game match stops its game (issue 30/31): an operator's void reaches the
 * referee mid-game, the players' sandboxes are killed, the match's row leaves the judging queue,
 * the workflow ends `void` and nothing is rated. Before this was built the players kept running
 * until the match's games ended on their own (minutes here).
 *
 * The slow player passes its self-play validation quickly: against itself it stacks the left
 * columns and never sees a disc in column 3 or beyond; against the baseline bot (which opens in
 * the centre) it sleeps 6 s each turn, well within the turn's wall cap (sleep uses no CPU), so a
 * match of 9 games lasts minutes. It renames its process (its comm) to a marker of this run, so
 * the test finds its sandboxed processes on the host.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { connectFour } from '../../src/judging/games/connect-four';
import { eventually, type TestUser } from '../helpers/factories';
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

const MARKER = `gv${randomBytes(5).toString('hex')}`;

const SLOW = `import json, sys, time
try:
    with open("/proc/self/comm", "w") as comm:
        comm.write("${MARKER}")
except OSError:
    pass
for line in sys.stdin:
    message = json.loads(line)
    if message.get("done"):
        break
    observation = message["observation"]
    if any(row[c] != 0 for row in observation["board"] for c in range(3, len(row))):
        time.sleep(6)
    print(json.dumps({"action": observation["legal_actions"][0]}), flush=True)
`;

/** The host's processes whose name is this run's marker (the slow player's, in its sandbox). */
async function markedProcesses(): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const comm = await readFile(`/proc/${entry}/comm`, 'utf8').catch(() => '');
    if (comm.trim() === MARKER) pids.push(Number(entry));
  }
  return pids;
}

async function queueRow(matchId: string): Promise<{ state: string } | undefined> {
  const res = await server.deps.db.query<{ state: string }>(
    'SELECT state FROM judging_queue WHERE work_key = $1',
    [`game-match:${matchId}`],
  );
  return res.rows[0];
}

it('a void mid-game stops the referee, kills the players, releases the slots and rates nothing', async () => {
  const weightClass = `wc-${randomUUID().slice(0, 8)}`;
  const created = await server.request('POST', '/api/v1/admin/challenges', {
    auth: admin.jwt,
    body: challengeBody({
      format: 'game',
      weight_class_id: weightClass,
      judge: {
        kind: 'game',
        game: 'connect-four',
        turn_ms: 4_000,
        bank_ms: 0,
        memory_mb: 128,
        games_per_match: 9,
      },
      max_submissions_per_session: 10,
      match: { every_minutes: 1440, rematch_after_minutes: 0 },
    }),
  });
  expect(created.status).toBe(201);
  const challengeId = created.body.data.id;
  expect(
    (await server.request('POST', `/api/v1/admin/challenges/${challengeId}/publish`, { auth: admin.jwt }))
      .status,
  ).toBe(200);
  const [slow, boss] = (
    await Promise.all([
      validatedGamePlayer(server, challengeId, { path: 'main.py', content: SLOW }),
      validatedGamePlayer(server, challengeId, { path: 'main.py', content: connectFour.boss.source }),
    ])
  ).map((validated) => validated.agent);

  const started = await server.request('POST', `/api/v1/admin/challenges/${challengeId}/matches`, {
    auth: admin.jwt,
    body: { agent_ids: [slow.agentId, boss.agentId], rated: true },
  });
  expect(started.status).toBe(201);
  const matchId: string = started.body.data.id;
  expect(started.body.data).toMatchObject({ kind: 'game', rated: true });

  // Mid-game: the match holds its slots in the queue and the slow player's sandbox runs.
  await eventually(
    async () => ((await queueRow(matchId))?.state === 'running' ? true : undefined),
    300_000,
    200,
  );
  const before = await eventually(
    async () => {
      const pids = await markedProcesses();
      return pids.length > 0 ? pids : undefined;
    },
    300_000,
    200,
  );
  expect(before.length).toBeGreaterThan(0);
  expect((await server.request('GET', `/api/v1/matches/${matchId}`)).body.data.status).toBe('running');

  const voided = await server.request('POST', `/api/v1/admin/matches/${matchId}/void`, {
    auth: admin.jwt,
    body: { reason: 'stopping a long game' },
  });
  expect(voided.status).toBe(200);
  expect(voided.body.data.status).toBe('void');

  // The players' processes are gone and the queue's row released, long before the games could end.
  await eventually(async () => ((await markedProcesses()).length === 0 ? true : undefined), 60_000, 200);
  await eventually(async () => ((await queueRow(matchId)) === undefined ? true : undefined), 60_000, 200);

  // The workflow ends void; the match stays void with no placements, ratings or replay.
  const client = await server.deps.temporal();
  await expect(client.workflow.getHandle(`match-${matchId}`).result()).resolves.toBe('void');
  const match = (await server.request('GET', `/api/v1/matches/${matchId}`)).body.data;
  expect(match.status).toBe('void');
  for (const p of match.participants) expect(p).toMatchObject({ rating_before: null, rating_after: null });
  const ratings = await server.request('GET', `/api/v1/ratings?weight_class_id=${weightClass}`);
  expect(ratings.status).toBe(200);
  expect(ratings.body.data).toEqual([]);
  expect(
    (await server.deps.db.query('SELECT 1 FROM match_replays WHERE match_id = $1', [matchId])).rowCount,
  ).toBe(0);
  expect((await markedProcesses()).length).toBe(0);

  await server.request('POST', `/api/v1/admin/challenges/${challengeId}/quarantine`, {
    auth: admin.jwt,
    body: { reason: 'test over' },
  });
});
