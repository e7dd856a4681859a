import { randomUUID } from 'node:crypto';
import { withTransaction } from '../../src/db/pool';
import { refreshLeaderboardEntry } from '../../src/db/queries/leaderboard';
import { newAdmin, newAgent, newUser } from '../helpers/factories';
import { newChallenge, sessionFor, submit, waitForSubmission } from '../helpers/submission-factories';
import { expectError, startTestServer, type ApiResponse, type TestServer } from '../helpers/server';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

/**
 * Seeds `scores.length` agents with one scored result each straight into the tables (the judged
 * path is covered by the submissions suite), then refreshes their leaderboard rows as the judge would.
 */
async function seedBoard(
  challengeId: string,
  rows: { score: number; name?: string; at: Date; sandbox?: boolean }[],
): Promise<string[]> {
  const db = server.deps.db;
  const owner = await db.query<{ id: string }>(
    `INSERT INTO users (subject, name) VALUES ($1, 'seed') RETURNING id`,
    [`seed|${randomUUID()}`],
  );
  const agentIds: string[] = [];
  for (const [i, row] of rows.entries()) {
    await withTransaction(db, async (tx) => {
      const agent = await tx.query<{ id: string }>(
        'INSERT INTO agents (owner_user_id, name) VALUES ($1, $2) RETURNING id',
        [owner.rows[0].id, row.name ?? `seed-${i}`],
      );
      const agentId = agent.rows[0].id;
      const entry = await tx.query<{ id: string }>(
        'INSERT INTO entries (challenge_id, agent_id, sandbox) VALUES ($1, $2, $3) RETURNING id',
        [challengeId, agentId, row.sandbox ?? false],
      );
      const session = await tx.query<{ id: string }>(
        `INSERT INTO sessions (challenge_id, agent_id, entry_id, sandbox, status) VALUES ($1, $2, $3, $4, 'closed') RETURNING id`,
        [challengeId, agentId, entry.rows[0].id, row.sandbox ?? false],
      );
      const submission = await tx.query<{ id: string }>(
        `INSERT INTO submissions (session_id, challenge_id, agent_id, content, status, sandbox, submitted_at, workflow_started_at)
         VALUES ($1, $2, $3, 'seed', 'complete', $4, $5, now()) RETURNING id`,
        [session.rows[0].id, challengeId, agentId, row.sandbox ?? false, row.at],
      );
      await tx.query(
        `INSERT INTO results (submission_id, challenge_id, agent_id, run, final_score, result_state, judge, breakdown, sandbox, submitted_at)
         VALUES ($1, $2, $3, 0, $4, 'scored', 'rubric', '{}', $5, $6)`,
        [submission.rows[0].id, challengeId, agentId, row.score, row.sandbox ?? false, row.at],
      );
      await refreshLeaderboardEntry(tx, challengeId, agentId);
      agentIds.push(agentId);
    });
  }
  return agentIds;
}

describe('leaderboard', () => {
  test('judged submissions rank by best score; ties by who reached it first; sandbox excluded', async () => {
    const challengeId = await newChallenge(server);
    const early = await newAgent(server, { name: 'early' });
    const late = await newAgent(server, { name: 'late' });
    const low = await newAgent(server, { name: 'low' });
    const sandbox = await newAgent(server, { name: 'sandbox', sandbox: true });
    const judged = async (agent: typeof early, content: string) => {
      const res = await submit(server, agent.token, await sessionFor(server, agent, challengeId), {
        content,
      });
      return waitForSubmission(server, agent.token, res.body.data.id);
    };
    const earlyBest = await judged(early, 'The answer is 42'); // 100
    await judged(late, 'The answer is 42'); // 100, later
    await judged(low, 'answer 42'); // 80
    await judged(low, 'nothing'); // 20: the best stays 80
    await judged(sandbox, 'The answer is 42');

    const board = await server.request('GET', `/api/v1/leaderboards/${challengeId}`);
    expect(board.status).toBe(200);
    expect(board.body.data.map((e: any) => [e.rank, e.agent_name, e.best_score, e.submission_count])).toEqual(
      [
        [1, 'early', 100, 1],
        [2, 'late', 100, 1],
        [3, 'low', 80, 2],
      ],
    );
    expect(board.body.data[0].best_submission_id).toBe(earlyBest.id);
    expect(board.body.pagination).toMatchObject({ limit: 50, has_more: false, next_cursor: null, total: 3 });
  });

  test('keyset pages: ranks continue across pages, no row is skipped or repeated', async () => {
    const challengeId = await newChallenge(server);
    const base = Date.now() - 3_600_000;
    // 23 agents, many ties (scores repeat every 5), each reaching their score at a distinct time.
    const seeded = Array.from({ length: 23 }, (_, i) => ({
      score: 50 + (i % 5) * 10.25,
      at: new Date(base + i * 1000),
    }));
    await seedBoard(challengeId, [...seeded, { score: 99, at: new Date(base), sandbox: true }]);
    const expected = [...seeded.keys()].sort(
      (a, b) => seeded[b].score - seeded[a].score || seeded[a].at.getTime() - seeded[b].at.getTime(),
    );

    const seen: any[] = [];
    let cursor: string | null = null;
    do {
      const res: ApiResponse = await server.request(
        'GET',
        `/api/v1/leaderboards/${challengeId}?limit=5${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(res.status).toBe(200);
      expect(res.body.data.length).toBeLessThanOrEqual(5);
      expect(res.body.pagination.total).toBe(23);
      seen.push(...res.body.data);
      cursor = res.body.pagination.has_more ? res.body.pagination.next_cursor : null;
    } while (cursor);
    expect(seen.map((e) => e.rank)).toEqual(Array.from({ length: 23 }, (_, i) => i + 1));
    expect(seen.map((e) => e.agent_name)).toEqual(expected.map((i) => `seed-${i}`));
  });

  test('404 for unknown and draft challenges (except operators); 400 for a bad cursor or limit', async () => {
    expectError(await server.request('GET', `/api/v1/leaderboards/${randomUUID()}`), 404, 'NOT_FOUND');
    const draft = await newChallenge(server, { status: 'draft' });
    expectError(await server.request('GET', `/api/v1/leaderboards/${draft}`), 404, 'NOT_FOUND');
    const admin = await newAdmin(server);
    expect((await server.request('GET', `/api/v1/leaderboards/${draft}`, { auth: admin.jwt })).status).toBe(
      200,
    );
    const active = await newChallenge(server);
    expectError(
      await server.request('GET', `/api/v1/leaderboards/${active}?cursor=not-a-cursor`),
      400,
      'VALIDATION_ERROR',
    );
    const forged = Buffer.from(JSON.stringify(['1000', 'x', 'y'])).toString('base64url');
    expectError(
      await server.request('GET', `/api/v1/leaderboards/${active}?cursor=${forged}`),
      400,
      'VALIDATION_ERROR',
    );
    expectError(
      await server.request('GET', `/api/v1/leaderboards/${active}?limit=101`),
      400,
      'VALIDATION_ERROR',
    );
    expectError(
      await server.request('GET', `/api/v1/leaderboards/${active}?limit=0`),
      400,
      'VALIDATION_ERROR',
    );
  });

  test('public, but a token needs leaderboard:read', async () => {
    const challengeId = await newChallenge(server);
    const noScope = await newAgent(server, { scopes: ['challenge:read'] });
    expectError(
      await server.request('GET', `/api/v1/leaderboards/${challengeId}`, { auth: noScope.token }),
      403,
      'FORBIDDEN',
    );
    const user = await newUser(server);
    expect(
      (await server.request('GET', `/api/v1/leaderboards/${challengeId}`, { auth: user.jwt })).status,
    ).toBe(200);
  });

  test('CSV export streams every row with proper escaping', async () => {
    const challengeId = await newChallenge(server);
    const base = Date.now() - 60_000;
    const ids = await seedBoard(challengeId, [
      { score: 90, name: 'Smith, "Agent" 1', at: new Date(base) },
      { score: 80, name: '=HYPERLINK("x")', at: new Date(base + 1) },
      { score: 70, name: 'multi\nline', at: new Date(base + 2) },
    ]);
    const res = await server.request('GET', `/api/v1/leaderboards/${challengeId}/export.csv`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(res.headers.get('content-disposition')).toContain(`leaderboard-${challengeId}.csv`);
    const lines = res.text.split('\r\n');
    expect(lines[0]).toBe(
      'rank,agent_id,agent_name,best_score,best_submission_id,submission_count,last_submitted_at',
    );
    expect(lines[1]).toMatch(new RegExp(`^1,${ids[0]},"Smith, ""Agent"" 1",90,[0-9a-f-]{36},1,\\S+Z$`));
    expect(lines[2]).toMatch(new RegExp(`^2,${ids[1]},"'=HYPERLINK\\(""x""\\)",80,`));
    expect(res.text).toContain(`3,${ids[2]},"multi\nline",70,`);
    expect(res.text.endsWith('\r\n')).toBe(true);
    expectError(
      await server.request('GET', `/api/v1/leaderboards/${randomUUID()}/export.csv`),
      404,
      'NOT_FOUND',
    );
  });
});
