/**
 * `matches list|get|watch` and `ratings` against the real API over HTTP (runCli in process, the
 * global fetch, a test server): a rated exhibition between two agents, played to the end, then
 * read by a participant (API token: its own matches, its row marked), an operator (a JWT with role
 * admin: the matchmaker's last round) and the public.
 */
import { randomUUID } from 'node:crypto';
import { challengeBody } from '../helpers/challenge-factories';
import { newConnectorAgent, type ConnectorAgent } from '../helpers/connector-factories';
import { eventually, type TestUser } from '../helpers/factories';
import { submitJudgedAndClose } from '../helpers/submission-factories';
import { cliInProcess } from '../helpers/cli';
import { type TestServer } from '../helpers/server';
import { startServerAndAdmin } from '../helpers/server-and-admin';

let server: TestServer;
const cli = (argv: string[], env?: NodeJS.ProcessEnv) => cliInProcess(server)(argv, env);
let admin: TestUser;
let challengeId: string;
let weightClass: string;
let matchId: string;
let ada: ConnectorAgent & { name: string };
let bob: ConnectorAgent & { name: string };

async function play(agent: ConnectorAgent, content: string): Promise<void> {
  const opened = await server.request('POST', `/api/v1/challenges/${challengeId}/sessions`, {
    auth: agent.token,
  });
  expect(opened.status).toBe(201);
  const session = opened.body.data.session_id;
  await submitJudgedAndClose(server, agent.token, session, content);
}

beforeAll(async () => {
  ({ server, admin } = await startServerAndAdmin({ RATE_LIMIT_DISABLED: '1' }));
  weightClass = `wc-${randomUUID().slice(0, 8)}`;
  const created = await server.request('POST', '/api/v1/admin/challenges', {
    auth: admin.jwt,
    body: challengeBody({
      title: 'CLI arena',
      format: 'head_to_head',
      weight_class_id: weightClass,
      judge: {
        kind: 'rubric',
        criteria: [{ name: 'answer', weight: 1, check: { type: 'contains', value: '42' } }],
      },
      time_limit_minutes: 600,
      match: { every_minutes: 1, rematch_after_minutes: 0, max_per_agent_per_hour: 1 },
    }),
  });
  expect(created.status).toBe(201);
  challengeId = created.body.data.id;
  expect(
    (await server.request('POST', `/api/v1/admin/challenges/${challengeId}/publish`, { auth: admin.jwt }))
      .status,
  ).toBe(200);
  for (const who of ['ada', 'bob'] as const) {
    const name = `cli-${who}-${randomUUID().slice(0, 4)}`;
    const agent = { ...(await newConnectorAgent(server, name)), name };
    if (who === 'ada') ada = agent;
    else bob = agent;
  }
  for (const agent of [ada, bob])
    expect(
      (
        await server.request('POST', `/api/v1/challenges/${challengeId}/entries`, {
          auth: agent.user.jwt,
          body: { agent_id: agent.agentId },
        })
      ).status,
    ).toBe(201);
  const match = await server.request('POST', `/api/v1/admin/challenges/${challengeId}/matches`, {
    auth: admin.jwt,
    body: { agent_ids: [ada.agentId, bob.agentId], rated: true },
  });
  expect(match.status).toBe(201);
  matchId = match.body.data.id;
  await eventually(
    async () => {
      const res = await server.deps.db.query('SELECT status FROM matches WHERE id = $1', [matchId]);
      return res.rows[0]?.status === 'running' ? true : undefined;
    },
    60_000,
    200,
  );
}, 120_000);
afterAll(() => server.close());

test('watch follows a bout to its end and prints the placements with the rating changes', async () => {
  const watching = cli(['matches', 'watch', matchId, '--timeout', '300']);
  await play(ada, 'The answer is 42.');
  await play(bob, 'No idea.');
  const run = await watching;
  expect(run.code).toBe(0);
  expect(run.err).toMatch(/status: running \(bout ends /);
  expect(run.err).toMatch(/status: complete/);
  expect(run.out).toContain(`${matchId}  complete  bout  rated`);
  expect(run.out).toMatch(
    new RegExp(
      `1\\s+${ada.name}\\s+1\\s+win\\s+100\\.00\\s+0\\.00 \\(μ 25\\.00 σ 8\\.33\\)\\s+\\S+ \\(μ [\\d.]+ σ [\\d.]+\\)\\s+\\+\\d+\\.\\d\\d`,
    ),
  );
  expect(run.out).toMatch(new RegExp(`2\\s+${bob.name}\\s+2\\s+loss\\s+0\\.00\\s+.*-\\d+\\.\\d\\d`));
}, 300_000);

test("a participant's token lists its agent's matches with a YOU column and marks its ratings row", async () => {
  const list = await cli(['matches', 'list', '--token', ada.token]);
  expect(list.code).toBe(0);
  const lines = list.out.trim().split('\n');
  expect(lines[0].split(/\s+/)).toEqual(['SCHEDULED', 'ID', 'STATUS', 'RATED', 'PARTICIPANTS', 'YOU']);
  expect(lines[1]).toContain(matchId);
  expect(lines[1]).toMatch(/win \+\d+\.\d\d$/);

  const ratings = await cli(['ratings', '--weight-class', weightClass], { CCS_TOKEN: bob.token });
  expect(ratings.code).toBe(0);
  expect(ratings.out).toContain(`weight class ${weightClass}`);
  expect(ratings.out).toMatch(new RegExp(`\\*\\s+2\\s+${bob.name}\\s+-`));
  expect(ratings.out).toMatch(
    new RegExp(
      `you \\(${bob.name}\\): rank 2, ordinal -\\d+\\.\\d\\d, provisional \\(1 of 5 rated matches\\)`,
    ),
  );
});

test("an operator reads a challenge's matches and, with ratings --challenge-id, the matchmaker's last round", async () => {
  const list = await cli(['matches', 'list', challengeId, '--status', 'complete', '--json'], {
    API_JWT: admin.jwt,
  });
  expect(list.code).toBe(0);
  expect(JSON.parse(list.out).data.map((m: { id: string }) => m.id)).toEqual([matchId]);
  const ratings = await cli(['ratings', '--challenge-id', challengeId], { API_JWT: admin.jwt });
  expect(ratings.code).toBe(0);
  expect(ratings.out).toContain(`weight class ${weightClass}`);
  expect(ratings.out).toMatch(/matchmaker: (no round yet|round \d+ at )/);
  // Without a credential, the public views (no matchmaker section for anyone else).
  const publicGet = await cli(['matches', 'get', matchId, '--json', '--jwt', ada.user.jwt]);
  expect(publicGet.code).toBe(0);
  expect(JSON.parse(publicGet.out).participants).toHaveLength(2);
  const userRatings = await cli(['ratings', '--challenge-id', challengeId, '--jwt', ada.user.jwt]);
  expect(userRatings.out).not.toContain('matchmaker:');
});

test('an operator starts an exhibition with `matches create` and voids it with `matches void` (issue 41)', async () => {
  const created = await cli(
    ['matches', 'create', challengeId, '--agent-id', ada.agentId, '--agent-id', bob.agentId, '--json'],
    { API_JWT: admin.jwt },
  );
  expect(created.code).toBe(0);
  const match = JSON.parse(created.out);
  expect(match).toMatchObject({ challenge_id: challengeId, rated: false });
  expect(match.participants.map((p: { agent_id: string }) => p.agent_id).sort()).toEqual(
    [ada.agentId, bob.agentId].sort(),
  );

  const voided = await cli(['matches', 'void', match.id, '--reason', 'operator check'], {
    API_JWT: admin.jwt,
  });
  expect(voided.code).toBe(0);
  expect(voided.out).toContain(`${match.id}  void (operator check)`);
  const stored = await server.deps.db.query('SELECT status, reason FROM matches WHERE id = $1', [match.id]);
  expect(stored.rows[0]).toMatchObject({ status: 'void', reason: 'operator check' });

  const again = await cli(['matches', 'void', match.id, '--reason', 'twice'], { API_JWT: admin.jwt });
  expect(again.code).toBe(1);
  expect(again.err).toMatch(/void|409|CONFLICT/i);
  // A participant's credential is no operator's: refused, nothing created.
  const refused = await cli(
    ['matches', 'create', challengeId, '--agent-id', ada.agentId, '--agent-id', bob.agentId],
    {
      API_JWT: ada.user.jwt,
    },
  );
  expect(refused.code).toBe(1);
});
