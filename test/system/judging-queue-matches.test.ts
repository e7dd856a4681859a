/**
 * Game matches in the judging queue (issue 37 finding 4; DESIGN "Whatever a program writes is
 * data", Judging queue): a matchmaker's game match holds one slot per seat, each counted against
 * that seat's owner, so a solo submission of an owner with nothing else queued starts before the
 * queued matches of owners with more. The code before counted a game match against no owner, so
 * every queued match sorted before every solo submission (a victim's 277 ms judging waited 41 s
 * behind 3 matches).
 *
 * Two owners with three validated agents each; while a row of the test's own holds every slot,
 * one matchmaker round schedules their 3 matches (every owner has three seats queued) and a third
 * owner's quick submission arrives last. Two owners, not three with two agents each: agents of one
 * owner never meet, so each pairing takes one agent of each and the round always makes 3 matches
 * (with three owners the greedy round left two agents of one owner unpaired in about 1 round of 5). Then the slots free: what is compared is when the queue
 * granted each piece its slots (the queue's own `granted_at`), not how long anything took.
 */
import { randomUUID } from 'node:crypto';
import { removeWork } from '../../src/db/queries/judging-queue';
import { lastRoundNo } from '../../src/db/queries/matchmaking-rounds';
import { createMatchmakingSteps } from '../../src/domain/matches/matchmaking';
import { eventually, newAgent, newUser, type TestAgent, type TestUser } from '../helpers/factories';
import { challengeBody } from '../helpers/challenge-factories';
import { type TestServer } from '../helpers/server';
import { newChallenge, sessionFor, submit, waitForSubmission } from '../helpers/submission-factories';
import { startServerAndAdmin } from '../helpers/server-and-admin';

jest.setTimeout(600_000);

let server: TestServer;
let admin: TestUser;
beforeAll(async () => ({ server, admin } = await startServerAndAdmin()));
afterAll(async () => {
  await server?.close();
});

/** Plays the first legal column; validates in self-play and plays a match in a second or two. */
const STACKER = `import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if message.get("done"):
        break
    print(json.dumps({"action": message["observation"]["legal_actions"][0]}), flush=True)
`;
const QUICK = `export function add(a: number, b: number): number {\n  return a + b;\n}`;

async function validate(agent: TestAgent, challengeId: string): Promise<void> {
  const res = await submit(server, agent.token, await sessionFor(server, agent, challengeId), {
    content: 'stacker',
    files: [{ path: 'main.py', content: STACKER }],
  });
  expect(res.status).toBe(201);
  const judged = await waitForSubmission(
    server,
    agent.token,
    res.body.data.id,
    ['complete', 'failed'],
    300_000,
  );
  expect(judged.submission_status).toBe('complete');
}

test("a lone owner's solo submission starts before 3 queued game matches of owners with more", async () => {
  const created = await server.request('POST', '/api/v1/admin/challenges', {
    auth: admin.jwt,
    body: challengeBody({
      format: 'game',
      weight_class_id: `wc-${randomUUID().slice(0, 8)}`,
      judge: {
        kind: 'game',
        game: 'connect-four',
        turn_ms: 200,
        bank_ms: 1_000,
        memory_mb: 128,
        games_per_match: 1,
      },
      max_submissions_per_session: 10,
      // One round at publish (nobody validated yet), the next a day later: this test runs the
      // round that schedules the matches itself, once every agent is validated.
      match: { every_minutes: 1440, rematch_after_minutes: 0 },
    }),
  });
  expect(created.status).toBe(201);
  const gameId: string = created.body.data.id;
  const published = await server.request('POST', `/api/v1/admin/challenges/${gameId}/publish`, {
    auth: admin.jwt,
  });
  expect(published.status).toBe(200);
  await eventually(async () => ((await lastRoundNo(server.deps.db, gameId)) >= 1 ? true : undefined), 60_000);

  const players: TestAgent[] = [];
  for (let owner = 0; owner < 2; owner++) {
    const user = await newUser(server);
    for (let seat = 0; seat < 3; seat++) players.push(await newAgent(server, { user }));
  }
  await Promise.all(players.map((agent) => validate(agent, gameId)));

  const quickId = await newChallenge(server, {
    judge: { kind: 'tests', tests: [{ name: 'adds', export: 'add', args: [2, 3], expected: 5 }] },
  });
  const victim = await newAgent(server);
  const victimSession = await sessionFor(server, victim, quickId);

  // Every slot held by the test's own row while the matches and the victim queue up.
  const blocker = `test-blocker:${randomUUID()}`;
  await server.deps.db.query(
    `INSERT INTO judging_queue (work_key, kind, priority, slots, state, granted_at, expires_at)
     VALUES ($1, 'dry_run', 0, 64, 'running', now(), now() + interval '10 minutes')`,
    [blocker],
  );
  const sampled = new Map<string, number>();
  let sampling = false;
  let sampler: Promise<void> = Promise.resolve();
  try {
    const round = await createMatchmakingSteps(server.deps).matchmakingRound({
      challengeId: gameId,
      round: (await lastRoundNo(server.deps.db, gameId)) + 1,
    });
    expect(round.matchIds).toHaveLength(3);
    const matchKeys = round.matchIds.map((id) => `game-match:${id}`);
    const waiting = async (keys: string[]) => {
      const rows = await server.deps.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM judging_queue WHERE work_key = ANY($1) AND state = 'waiting'`,
        [keys],
      );
      return rows.rows[0].n === keys.length ? true : undefined;
    };
    await eventually(() => waiting(matchKeys), 60_000);

    const posted = await submit(server, victim.token, victimSession, {
      content: 'victim',
      files: [{ path: 'index.ts', content: QUICK }],
    });
    expect(posted.status).toBe(201);
    const victimId: string = posted.body.data.id;
    const victimKey = `submission:${victimId}:0`;
    await eventually(() => waiting([victimKey]), 60_000);

    // The queue's grant of each piece, read while its row lives (a running row lives until its
    // judging ends: the victim's for its judging, a match's for its games).
    const keys = [victimKey, ...matchKeys];
    sampling = true;
    sampler = (async () => {
      while (sampling) {
        const rows = await server.deps.db.query<{ work_key: string; granted_at: Date | null }>(
          `SELECT work_key, granted_at FROM judging_queue WHERE work_key = ANY($1)`,
          [keys],
        );
        for (const row of rows.rows)
          if (row.granted_at !== null && !sampled.has(row.work_key))
            sampled.set(row.work_key, row.granted_at.getTime());
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    await removeWork(server.deps.db, blocker);

    const judged = await waitForSubmission(server, victim.token, victimId, ['complete', 'failed'], 120_000);
    expect(judged.submission_status).toBe('complete');
    await eventually(async () => {
      const rows = await server.deps.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM matches WHERE id = ANY($1::uuid[]) AND status IN ('complete', 'void')`,
        [round.matchIds],
      );
      return rows.rows[0].n === round.matchIds.length ? true : undefined;
    }, 300_000);
    sampling = false;
    await sampler;

    expect(keys.filter((key) => !sampled.has(key))).toEqual([]);
    const victimGranted = sampled.get(victimKey)!;
    // Granted no later than any of the matches (in the same pass at most, ahead of them in it);
    // the code before granted all three matches first, each in a pass before the victim's.
    expect(matchKeys.filter((key) => sampled.get(key)! < victimGranted)).toEqual([]);
  } finally {
    sampling = false;
    await sampler;
    await removeWork(server.deps.db, blocker);
    await server.request('POST', `/api/v1/admin/challenges/${gameId}/quarantine`, {
      auth: admin.jwt,
      body: { reason: 'test over' },
    });
  }
});
