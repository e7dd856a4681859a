/**
 * Game matches on the real stack (DESIGN "Games" and "Matches between agents"): the matchmaker
 * pairs the latest validated programs of two agents (Python and C), the match plays
 * `games_per_match` games in the wall with alternating seats and server-chosen seeds, the result
 * feeds the ratings, and the replay (public once complete) re-simulates to itself. A program that
 * prints garbage, one that sleeps past its bank and one that crashes each lose the games they
 * fault in while their match completes. Stderr logs reach only their owner and operators.
 *
 * The faulty programs pass their self-play validation: against themselves they stack the left
 * columns and never see a disc in column 3 or beyond; the baseline bot opens in the centre.
 */
import { randomUUID } from 'node:crypto';
import { connectFour } from '../../src/judging/games/connect-four';
import { findGame } from '../../src/judging/games/catalog';
import { resimulate, type GameRecord } from '../../src/judging/games/game-run';
import { eventually, newAgent, type TestUser } from '../helpers/factories';
import { challengeBody } from '../helpers/challenge-factories';
import { expectError, type TestServer } from '../helpers/server';
import { sessionFor, validatedGamePlayer } from '../helpers/submission-factories';
import { startServerAndAdmin } from '../helpers/server-and-admin';

let server: TestServer;
let admin: TestUser;

beforeAll(async () => ({ server, admin } = await startServerAndAdmin()));
afterAll(async () => {
  await server?.close();
});

jest.setTimeout(900_000);

const JUDGE = {
  kind: 'game',
  game: 'connect-four',
  turn_ms: 100,
  bank_ms: 300,
  memory_mb: 128,
  games_per_match: 2,
};

/** Plays the first legal column (C); writes a line to stderr each turn. */
const C_STACKER = `#include <stdio.h>
#include <string.h>
int main(void) {
  static char line[65536];
  while (fgets(line, sizeof line, stdin)) {
    if (strstr(line, "\\"done\\"")) break;
    int action = 0;
    char *p = strstr(line, "\\"legal_actions\\"");
    if (p && (p = strchr(p, '['))) sscanf(p + 1, "%d", &action);
    fprintf(stderr, "c stacker plays %d\\n", action);
    printf("{\\"action\\": %d}\\n", action);
    fflush(stdout);
  }
  return 0;
}
`;

/** Plays the first legal column (Python); `fault` runs once a disc stands in column 3 or beyond. */
function faulty(fault: string): string {
  return `import json, sys, time
for line in sys.stdin:
    message = json.loads(line)
    if message.get("done"):
        break
    observation = message["observation"]
    if any(row[c] != 0 for row in observation["board"] for c in range(3, len(row))):
${fault
  .split('\n')
  .map((l) => `        ${l}`)
  .join('\n')}
    print(json.dumps({"action": observation["legal_actions"][0]}), flush=True)
`;
}

const GARBAGE = faulty('print("garbage, not JSON", flush=True)');
const SLEEPER = faulty('time.sleep(60)');
const CRASHER = faulty('sys.stderr.write("crashing now\\n")\nsys.stderr.flush()\nsys.exit(3)');

async function gameChallenge(match: Record<string, unknown>): Promise<{ id: string; weightClass: string }> {
  const weightClass = `wc-${randomUUID().slice(0, 8)}`;
  const res = await server.request('POST', '/api/v1/admin/challenges', {
    auth: admin.jwt,
    body: challengeBody({
      format: 'game',
      weight_class_id: weightClass,
      judge: JUDGE,
      max_submissions_per_session: 10,
      match: { rematch_after_minutes: 0, ...match },
    }),
  });
  expect(res.status).toBe(201);
  const published = await server.request('POST', `/api/v1/admin/challenges/${res.body.data.id}/publish`, {
    auth: admin.jwt,
  });
  expect(published.status).toBe(200);
  return { id: res.body.data.id, weightClass };
}

async function untilDone(matchId: string, timeoutMs = 600_000): Promise<any> {
  await eventually(
    async () => {
      const res = await server.deps.db.query<{ status: string }>('SELECT status FROM matches WHERE id = $1', [
        matchId,
      ]);
      return ['complete', 'void'].includes(res.rows[0]?.status) ? true : undefined;
    },
    timeoutMs,
    500,
  );
  const res = await server.request('GET', `/api/v1/matches/${matchId}`);
  expect(res.status).toBe(200);
  return res.body.data;
}

function expectResimulates(games: GameRecord[]): void {
  const engine = findGame('connect-four')!;
  for (const game of games) expect(resimulate(engine, game, engine.defaultMaxTurns)).toEqual(game);
}

describe('the matchmaker plays the latest validated programs of two agents', () => {
  it('plays a full match between a Python and a C program; replay, ratings and logs follow', async () => {
    const challenge = await gameChallenge({ every_minutes: 2, max_per_agent_per_hour: 1 });
    // Validated side by side: two judgings of independent agents (the wall has a slot for each).
    const [python, c] = await Promise.all([
      validatedGamePlayer(server, challenge.id, { path: 'main.py', content: connectFour.boss.source }),
      validatedGamePlayer(server, challenge.id, { path: 'main.c', content: C_STACKER }),
    ]);

    const matchId = await eventually(
      async () => {
        const res = await server.deps.db.query<{ id: string }>(
          "SELECT id FROM matches WHERE challenge_id = $1 AND origin = 'matchmaker' ORDER BY scheduled_at LIMIT 1",
          [challenge.id],
        );
        return res.rows[0]?.id;
      },
      120_000,
      500,
    );
    const match = await untilDone(matchId);
    expect(match).toMatchObject({ kind: 'game', status: 'complete', rated: true });
    const byAgent = new Map<string, any>(match.participants.map((p: any) => [p.agent_id, p]));
    const py = byAgent.get(python.agent.agentId);
    const cc = byAgent.get(c.agent.agentId);
    expect(py.submission_id).toBe(python.submissionId);
    expect(cc.submission_id).toBe(c.submissionId);

    const replayRes = await server.request('GET', `/api/v1/matches/${matchId}/replay`);
    expect(replayRes.status).toBe(200);
    const replay = replayRes.body.data;
    expect(replay).toMatchObject({ schema_version: 1, game: 'connect-four', match_id: matchId });
    expect(replay.games).toHaveLength(2);
    // Seats alternate; each game has its own server-chosen seed; nobody faulted.
    expect(replay.games[1].seats).toEqual([...replay.games[0].seats].reverse());
    for (const game of replay.games) {
      expect(Number.isInteger(game.seed)).toBe(true);
      for (const status of game.statuses) expect(status).toBe('done');
      expect(game.steps[0]).toHaveLength(2);
    }
    expectResimulates(replay.games);
    // The outcome is the sum of the game rewards; placements follow it.
    const total = (agentId: string) =>
      replay.games.reduce((sum: number, g: any) => sum + g.rewards[g.seats.indexOf(agentId)], 0);
    expect(py.score).toBe(total(python.agent.agentId));
    expect(cc.score).toBe(total(c.agent.agentId));
    expect(py.outcome).toBe(py.score > cc.score ? 'win' : py.score < cc.score ? 'loss' : 'draw');

    // Ratings: the rated match updates both agents once.
    await eventually(async () => {
      const m = await server.request('GET', `/api/v1/matches/${matchId}`);
      return m.body.data.participants.every((p: any) => p.rating_after !== null) ? true : undefined;
    }, 60_000);
    const ratings = await server.request('GET', `/api/v1/ratings?weight_class_id=${challenge.weightClass}`);
    expect(ratings.status).toBe(200);
    expect(ratings.body.data.map((r: any) => r.agent_id).sort()).toEqual(
      [python.agent.agentId, c.agent.agentId].sort(),
    );
    for (const row of ratings.body.data) expect(row.matches).toBe(1);

    // Logs: the owner and operators; the opponent's owner and anyone else get 404.
    const own = await server.request('GET', `/api/v1/matches/${matchId}/logs/${c.agent.agentId}`, {
      auth: c.agent.token,
    });
    expect(own.status).toBe(200);
    expect(own.body.data.games).toHaveLength(2);
    expect(own.body.data.games[0].stderr).toContain('c stacker plays');
    expect(own.body.data.games.map((g: any) => g.seat)).toEqual(
      replay.games.map((g: any) => g.seats.indexOf(c.agent.agentId) + 1),
    );
    const byOperator = await server.request('GET', `/api/v1/matches/${matchId}/logs/${c.agent.agentId}`, {
      auth: admin.jwt,
    });
    expect(byOperator.status).toBe(200);
    expectError(
      await server.request('GET', `/api/v1/matches/${matchId}/logs/${c.agent.agentId}`, {
        auth: python.agent.token,
      }),
      404,
      'NOT_FOUND',
    );
    expectError(
      await server.request('GET', `/api/v1/matches/${matchId}/logs/${c.agent.agentId}`, {
        auth: python.agent.user.jwt,
      }),
      404,
      'NOT_FOUND',
    );
    expect((await server.request('GET', `/api/v1/matches/${matchId}/logs/${c.agent.agentId}`)).status).toBe(
      401,
    );
    // The replay carries no stderr of anyone.
    expect(JSON.stringify(replay)).not.toContain('c stacker plays');

    // A person finds the match from the challenge's page, and the game's rules from both.
    const page = async (path: string) => {
      const res = await fetch(`${server.baseUrl}${path}`);
      return { status: res.status, text: await res.text() };
    };
    // Pages hold the match's outcome (its ratings included) until completed_at + the spectators'
    // delay (docs/decisions/arena.md); the rating board below is read once the hold has ended.
    const finished = await server.request('GET', `/api/v1/matches/${matchId}`);
    const holdEnds = Date.parse(finished.body.data.completed_at) + server.config.SPECTATOR_DELAY_MS;
    await eventually(async () => (Date.now() > holdEnds ? true : undefined), 60_000);
    const challengePage = await page(`/challenges/${challenge.id}`);
    expect(challengePage.status).toBe(200);
    expect(challengePage.text).toContain('<a href="/games/connect-four" id="game-link">');
    expect(challengePage.text).toContain(`<a href="/weight-classes/${challenge.weightClass}/ladder">`);
    const listed = /<table id="recent-matches">[\s\S]*?<\/table>/.exec(challengePage.text)?.[0] ?? '';
    expect(listed).toContain(`<a href="/matches/${matchId}">`);
    // No outcome on the listing: the match page reveals it after the spectators' delay.
    expect(listed).not.toMatch(/\b(win|loss|draw)\b/);
    expect((await page(`/matches/${matchId}`)).status).toBe(200);
    // Its leaderboard is the rating board, in the API's order (the page's script refreshes from it).
    const board = /<table id="leaderboard-table" data-board="rating">[\s\S]*?<\/table>/.exec(
      challengePage.text,
    )?.[0];
    expect(board).toContain('<th scope="col" class="num">Rating</th>');
    const api = await server.request('GET', `/api/v1/leaderboards/${challenge.id}`);
    expect([...board!.matchAll(/data-agent-id="([^"]+)"/g)].map((m) => m[1])).toEqual(
      api.body.data.map((r: { agent_id: string }) => r.agent_id),
    );
    for (const r of api.body.data) {
      expect(board).toContain(`<td class="num">${r.rating.ordinal.toFixed(2)}</td>`);
      expect(board).toContain(`<td class="num">${r.wins}–${r.draws}–${r.losses}</td>`);
    }
    const rules = await page('/games/connect-four');
    expect(rules.status).toBe(200);
    expect(rules.text).toContain('<h2>Connect Four</h2>');
    expect(rules.text).toContain('play --game connect-four boss main.py');
    expect((await page('/games')).text).toContain('<a href="/games/light-cycles">');
    const missing = await page('/games/nope');
    expect(missing.status).toBe(404);
    expect(missing.text).toContain('Game not found');

    // Stop the matchmaker (the challenge is no longer active).
    await server.request('POST', `/api/v1/admin/challenges/${challenge.id}/quarantine`, {
      auth: admin.jwt,
      body: { reason: 'test over' },
    });
  });
});

describe('faults lose the game they happen in; the match completes', () => {
  let challengeId: string;
  beforeAll(async () => {
    challengeId = (await gameChallenge({ every_minutes: 1440, rated: false })).id;
  });

  it('garbage, a sleeper and a crasher each lose both games against the baseline bot', async () => {
    const cases = [
      { name: 'garbage', source: GARBAGE, fault: 'invalid' },
      { name: 'sleeper', source: SLEEPER, fault: 'timeout' },
      { name: 'crasher', source: CRASHER, fault: 'error' },
    ];
    // Six independent validations at once: the judging queue orders them, the test waits once.
    const players = await Promise.all(
      cases.map(async (c) => {
        const [bad, boss] = await Promise.all([
          validatedGamePlayer(server, challengeId, { path: 'main.py', content: c.source }),
          validatedGamePlayer(server, challengeId, { path: 'main.py', content: connectFour.boss.source }),
        ]);
        return { ...c, bad, boss };
      }),
    );
    const matchIds: string[] = [];
    for (const p of players) {
      const res = await server.request('POST', `/api/v1/admin/challenges/${challengeId}/matches`, {
        auth: admin.jwt,
        body: { agent_ids: [p.bad.agent.agentId, p.boss.agent.agentId] },
      });
      expect(res.status).toBe(201);
      expect(res.body.data.kind).toBe('game');
      matchIds.push(res.body.data.id);
    }
    for (const [i, p] of players.entries()) {
      const match = await untilDone(matchIds[i]);
      expect(match.status).toBe('complete');
      const bad = match.participants.find((x: any) => x.agent_id === p.bad.agent.agentId);
      const boss = match.participants.find((x: any) => x.agent_id === p.boss.agent.agentId);
      expect([p.name, bad]).toEqual([
        p.name,
        expect.objectContaining({ outcome: 'loss', score: -2, rank: 2 }),
      ]);
      expect(boss).toMatchObject({ outcome: 'win', score: 2, rank: 1 });

      const replay = (await server.request('GET', `/api/v1/matches/${matchIds[i]}/replay`)).body.data;
      for (const game of replay.games) {
        const seat = game.seats.indexOf(p.bad.agent.agentId);
        expect([p.name, game.statuses[seat], game.rewards[seat]]).toEqual([p.name, p.fault, -1]);
        expect(game.statuses[1 - seat]).toBe('done');
      }
      expectResimulates(replay.games);

      const logs = await server.request('GET', `/api/v1/matches/${matchIds[i]}/logs/${p.bad.agent.agentId}`, {
        auth: p.bad.agent.token,
      });
      expect(logs.status).toBe(200);
      for (const game of logs.body.data.games) expect(game.fault).toMatchObject({ kind: p.fault });
      if (p.name === 'crasher') expect(logs.body.data.games[0].stderr).toContain('crashing now');
    }
  });

  it('refuses an exhibition with an agent that has no validated program; a void match has no replay', async () => {
    const [boss, other] = await Promise.all([
      validatedGamePlayer(server, challengeId, { path: 'main.py', content: connectFour.boss.source }),
      validatedGamePlayer(server, challengeId, { path: 'main.c', content: C_STACKER }),
    ]);
    const fresh = await newAgent(server);
    await sessionFor(server, fresh, challengeId);
    const refused = await server.request('POST', `/api/v1/admin/challenges/${challengeId}/matches`, {
      auth: admin.jwt,
      body: { agent_ids: [boss.agent.agentId, fresh.agentId] },
    });
    expectError(refused, 400, 'VALIDATION_ERROR');
    expect(refused.body.error.message).toContain(fresh.agentId);

    const created = await server.request('POST', `/api/v1/admin/challenges/${challengeId}/matches`, {
      auth: admin.jwt,
      body: { agent_ids: [boss.agent.agentId, other.agent.agentId] },
    });
    expect(created.status).toBe(201);
    const id = created.body.data.id;
    expectError(await server.request('GET', `/api/v1/matches/${id}/replay`), 404, 'NOT_FOUND');
    const voided = await server.request('POST', `/api/v1/admin/matches/${id}/void`, {
      auth: admin.jwt,
      body: { reason: 'testing the void' },
    });
    expect(voided.status).toBe(200);
    // Whatever the games were doing, nothing is stored for a void match.
    await eventually(
      async () => {
        const q = await server.deps.db.query('SELECT 1 FROM judging_queue WHERE work_key = $1', [
          `game-match:${id}`,
        ]);
        return q.rowCount === 0 ? true : undefined;
      },
      300_000,
      500,
    );
    expectError(await server.request('GET', `/api/v1/matches/${id}/replay`), 404, 'NOT_FOUND');
    expect(
      (await server.deps.db.query('SELECT 1 FROM match_replays WHERE match_id = $1', [id])).rowCount,
    ).toBe(0);
    expectError(await server.request('GET', `/api/v1/matches/${randomUUID()}/replay`), 404, 'NOT_FOUND');
  });
});
