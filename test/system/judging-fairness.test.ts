/**
 * Fair share of the judges: one user floods 100 `tests` submissions from four agents; another
 * user's single submission, sent right after, is judged without waiting for the flood.
 */
import { eventually, newAgent, type TestAgent } from '../helpers/factories';
import { newChallenge, sessionFor, submit, waitForSubmission } from '../helpers/submission-factories';
import { startTestServer, type TestServer } from '../helpers/server';
import { loadConfig } from '../../src/config';
import { defaultJudgeSlots } from '../../src/judging/sandbox/sandbox-runtime';

// A safety net: a hundred judgings on a machine far busier than its cores take minutes.
jest.setTimeout(600_000);

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
});

/**
 * Each test case keeps its judging slot for 300 ms, so the flood lasts well past the single
 * submission. It waits rather than spins: two spinning sandboxes take both cores of a 2-core
 * machine, and the worker's own workflow tasks then wait for CPU (up to a second before the single
 * was even admitted), which is not what this test is about.
 */
const SLOW_SOLUTION = (index: number) =>
  `// attempt ${index}\nexport function slowAdd(a: number, b: number): number {\n` +
  `  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 300);\n  return a + b;\n}`;

async function completedAt(submissionIds: string[]): Promise<Map<string, number>> {
  const rows = await server.deps.db.query<{ submission_id: string; judged_at: Date }>(
    `SELECT submission_id, judged_at FROM results WHERE submission_id = ANY($1::uuid[])`,
    [submissionIds],
  );
  return new Map(rows.rows.map((row) => [row.submission_id, row.judged_at.getTime()]));
}

test('a flooding user cannot keep another user waiting behind the whole flood', async () => {
  const config = loadConfig(process.env);
  const cap = config.JUDGE_MAX_IN_FLIGHT_PER_USER;
  const slots = config.JUDGE_SLOTS ?? defaultJudgeSlots();
  const challengeId = await newChallenge(server, {
    max_submissions_per_session: 100,
    judge: {
      kind: 'tests',
      timeout_ms_per_test: 5000,
      tests: [{ name: 'adds', export: 'slowAdd', args: [2, 3], expected: 5 }],
    },
  });

  const flooder = await newAgent(server);
  // Four agents of one user: 25 submissions each stay under the per-agent submission rate.
  const flooderAgents: TestAgent[] = [flooder];
  for (let i = 1; i < 4; i++) flooderAgents.push(await newAgent(server, { user: flooder.user }));
  const sessions = await Promise.all(flooderAgents.map((agent) => sessionFor(server, agent, challengeId)));
  const flood: string[] = [];
  for (let batch = 0; batch < 10; batch++) {
    const accepted = await Promise.all(
      Array.from({ length: 10 }, (_, i) => {
        const index = batch * 10 + i;
        const which = index % flooderAgents.length;
        return submit(server, flooderAgents[which].token, sessions[which], {
          content: 'flood',
          files: [{ path: 'index.ts', content: SLOW_SOLUTION(index) }],
        });
      }),
    );
    for (const res of accepted) {
      expect(res.status).toBe(201);
      flood.push(res.body.data.id);
    }
  }

  // Sample the slots the flooder holds in the judging queue while the flood is judged: never more
  // than its caps at once (caps count slots; a `tests` judging holds one).
  let sampling = true;
  let maxUserLeases = 0;
  let maxAgentLeases = 0;
  const sampler = (async () => {
    while (sampling) {
      const rows = await server.deps.db.query<{ agent_id: string; n: number }>(
        `SELECT agent_id, sum(slots)::int AS n FROM judging_queue
          WHERE agent_id = ANY($1::uuid[]) AND state = 'running' AND expires_at > now() GROUP BY agent_id`,
        [flooderAgents.map((agent) => agent.agentId)],
      );
      maxUserLeases = Math.max(
        maxUserLeases,
        rows.rows.reduce((sum, row) => sum + row.n, 0),
      );
      maxAgentLeases = Math.max(maxAgentLeases, ...rows.rows.map((row) => row.n), 0);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();

  const other = await newAgent(server);
  const single = await submit(server, other.token, await sessionFor(server, other, challengeId), {
    content: 'one',
    files: [{ path: 'index.ts', content: SLOW_SOLUTION(-1) }],
  });
  expect(single.status).toBe(201);
  const floodDoneWhenSingleAccepted = (await completedAt(flood)).size;

  const judged = await waitForSubmission(
    server,
    other.token,
    single.body.data.id,
    ['complete', 'failed'],
    120_000,
  );
  expect(judged.submission_status).toBe('complete');
  expect(judged.result.final_score).toBe(100);

  // The rest of the flood, read from the database: a hundred polls over the API would only spend
  // the flooder's read budget (and wait out its 429s) on a busy machine.
  const floodStatuses = await eventually(async () => {
    const rows = await server.deps.db.query<{ status: string; n: number }>(
      `SELECT status, count(*)::int AS n FROM submissions WHERE id = ANY($1::uuid[]) GROUP BY status`,
      [flood],
    );
    const byStatus = Object.fromEntries(rows.rows.map((row) => [row.status, row.n]));
    return (byStatus.complete ?? 0) + (byStatus.failed ?? 0) === flood.length ? byStatus : undefined;
  }, 480_000);
  expect(floodStatuses).toEqual({ complete: flood.length });
  sampling = false;
  await sampler;
  expect(maxUserLeases).toBeGreaterThan(0);
  expect(maxUserLeases).toBeLessThanOrEqual(cap);
  expect(maxAgentLeases).toBeLessThanOrEqual(config.JUDGE_MAX_IN_FLIGHT_PER_AGENT);

  const finished = await completedAt([...flood, single.body.data.id]);
  const singleAt = finished.get(single.body.data.id)!;
  const floodTimes = flood.map((id) => finished.get(id)!);
  expect(floodTimes.every((time) => time !== undefined)).toBe(true);

  // The single submission is judged early in what was left of the flood: it waits behind what the
  // flooder had admitted (its cap) and what is judged while its own workflow reaches the judge
  // (its admission, then its judging task in a queue whose partitions are not strictly first in,
  // first out): 2–21 of them in 15 runs here, never behind the flood itself (without the caps, 25
  // of about 45 went first). That count is the flood's pace times a latency, not a share of the
  // flood, so the flood is large (about 100 pending) and a third of it leaves that room.
  const pending = flood.length - floodDoneWhenSingleAccepted;
  const judgedBeforeSingle =
    floodTimes.filter((time) => time <= singleAt).length - floodDoneWhenSingleAccepted;
  expect(pending).toBeGreaterThan(3 * (cap + slots)); // the scenario really had a flood in the way
  expect(judgedBeforeSingle).toBeLessThan(pending / 3);

  // Every slot was given back: nothing of the flood is still in the judging queue.
  const leases = await server.deps.db.query(
    `SELECT count(*)::int AS n FROM judging_queue WHERE agent_id = ANY($1::uuid[])`,
    [flooderAgents.map((agent) => agent.agentId)],
  );
  expect(leases.rows[0].n).toBe(0);
});
