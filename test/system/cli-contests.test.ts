/**
 * The fair-contest commands of the CLI, as README's "Fair contests" block runs them, against the
 * real API: ask and list clarifications, select for the final board, and the final board itself
 * (refused with the API's reason before completion, then ranked by the held-out score, as a
 * table, JSON and CSV).
 */
import { randomUUID } from 'node:crypto';
import { createActive, inSeconds } from '../helpers/challenge-factories';
import { cliInProcess } from '../helpers/cli';
import { eventually, newAgent, type TestAgent, type TestUser } from '../helpers/factories';
import { type TestServer } from '../helpers/server';
import { sessionFor, submit, waitForSubmission } from '../helpers/submission-factories';
import { startServerAndAdmin } from '../helpers/server-and-admin';

let server: TestServer;
let admin: TestUser;
const cli = (argv: string[], env?: NodeJS.ProcessEnv) => cliInProcess(server)(argv, env);

beforeAll(async () => ({ server, admin } = await startServerAndAdmin({ RATE_LIMIT_DISABLED: '1' })));
afterAll(() => server.close());

/** Public: "42". Held out: "seven". */
const JUDGE = {
  kind: 'rubric',
  criteria: [
    { name: 'answer', weight: 1, check: { type: 'contains', value: '42' } },
    { name: 'heldout', weight: 1, private: true, check: { type: 'contains', value: 'seven' } },
  ],
};

async function judged(agent: TestAgent, challengeId: string, content: string): Promise<string> {
  const res = await submit(server, agent.token, await sessionFor(server, agent, challengeId), { content });
  expect(res.status).toBe(201);
  expect((await waitForSubmission(server, agent.token, res.body.data.id)).submission_status).toBe('complete');
  return res.body.data.id;
}

test('ask, list, select, and the final board before and after completion', async () => {
  const challenge = await createActive(
    server,
    { judge: JUDGE, ends_at: inSeconds(3600), final_submissions: 1 },
    admin,
  );
  const ada = await newAgent(server, { name: 'ada-cli-contest' });
  const bob = await newAgent(server, { name: 'bob-cli-contest' });
  const adaEnv = { CCS_TOKEN: ada.token };

  // A question is the asker's (and the operators') until answered publicly.
  const asked = await cli(['clarifications', 'ask', challenge.id, 'Is', 'case', 'significant?'], adaEnv);
  expect(asked.code).toBe(0);
  expect(asked.out).toMatch(/^asked: [0-9a-f-]{36} /);
  const [own, other] = await Promise.all([
    cli(['clarifications', 'list', challenge.id], adaEnv),
    cli(['clarifications', 'list', challenge.id], { CCS_TOKEN: bob.token }),
  ]);
  expect(own.out).toContain('private] Is case significant?');
  expect(own.out).toContain('answer: (not answered yet)');
  expect(other.out).not.toContain('Is case significant?');

  // Ada's second submission scores lower publicly but holds the held-out test: she selects it.
  await judged(ada, challenge.id, 'the answer is 42');
  const heldOut = await judged(ada, challenge.id, 'seven');
  await judged(bob, challenge.id, '42');
  const selected = await cli(['submissions', 'select', heldOut], adaEnv);
  expect(selected.code).toBe(0);
  expect(selected.out).toContain(`${heldOut} selected for the final board`);

  // Before completion: the API's reason, exit 1, not a usage error; the CSV the same way.
  for (const argv of [
    ['leaderboard', 'final', challenge.id],
    ['leaderboard', 'final', challenge.id, '--csv'],
  ]) {
    const early = await cli(argv, adaEnv);
    expect(early.code).toBe(1);
    expect(early.err).toMatch(/404 NOT_FOUND: the final board is shown once the challenge is complete/);
    expect(early.err).not.toContain('usage:');
    expect(early.out).toBe('');
  }

  const ended = await server.request('PATCH', `/api/v1/admin/challenges/${challenge.id}`, {
    auth: admin.jwt,
    body: { ends_at: new Date(Date.now() - 1000).toISOString() },
  });
  expect(ended.status).toBe(200);
  await eventually(
    async () =>
      (await server.request('GET', `/api/v1/challenges/${challenge.id}`)).body.data.status === 'complete',
    30_000,
  );

  // The final board waits for the private passes (HTTP 200, `pending: n`, no rows): wait for them.
  await eventually(async () => {
    const board = await server.request('GET', `/api/v1/leaderboards/${challenge.id}?board=final`);
    return board.status === 200 && !board.body.pending && board.body.data.length === 2 ? true : undefined;
  }, 60_000);

  // After: ranked by the held-out score of the selected submission; anyone may read it.
  const [table, json, csv] = await Promise.all([
    cli(['leaderboard', 'final', challenge.id]),
    cli(['leaderboard', 'final', challenge.id, '--json']),
    cli(['leaderboard', 'final', challenge.id, '--csv']),
  ]);
  expect(table.code).toBe(0);
  const rows = JSON.parse(json.out);
  expect(
    rows.map((r: { agent_name: string; private_score: number }) => [r.agent_name, r.private_score]),
  ).toEqual([
    ['ada-cli-contest', 100],
    ['bob-cli-contest', 0],
  ]);
  expect(rows[0].submission_id).toBe(heldOut);
  expect(table.out.indexOf('ada-cli-contest')).toBeLessThan(table.out.indexOf('bob-cli-contest'));
  expect(csv.code).toBe(0);
  const csvLines = csv.out.trim().split('\n');
  expect(csvLines[0]).toContain('private_score');
  expect(csvLines[1]).toContain(heldOut);
  expect(csvLines).toHaveLength(3);
}, 120_000);

test("the public board's CSV of an unknown challenge is the API's 404, exit 1", async () => {
  const run = await cli(['leaderboard', 'show', randomUUID(), '--csv']);
  expect(run.code).toBe(1);
  expect(run.err).toMatch(/404 NOT_FOUND: .*not found/);
  expect(run.err).not.toContain('usage:');
});
