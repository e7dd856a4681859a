/**
 * The judging queue on the real stack (docs/decisions/judging.md, "One queue for all judging work").
 * The order itself (DOMjudge's fair rule, priorities, caps, slots) is proved on its pure functions
 * in test/unit/domain/judging-queue/order.test.ts, the 150 s flood of sleepers this file used to
 * judge included (simulated for every capacity and arrival). Here: one short run showing that the
 * real queue grants in that order, and the queue's bookkeeping around real judgings.
 */
import { eventually, newAdmin, newAgent, type TestAgent } from '../helpers/factories';
import { newChallenge, sessionFor, submit, waitForSubmission } from '../helpers/submission-factories';
import { startTestServer, type TestServer } from '../helpers/server';
import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { scratchDatabase } from '../helpers/scratch-database';
import { liveWorkerSlots, lockJudgingQueue, removeWork } from '../../src/db/queries/judging-queue';
import {
  enqueue,
  queueCapacity,
  runQueuePass,
  tryAdmit,
  waitForSlots,
} from '../../src/domain/judging-queue/queue';

// A safety net for a machine far busier than its cores.
jest.setTimeout(300_000);

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
});

/**
 * Each flood judging holds its slot this long, sleeping (two sleepers do not take a 2-core
 * machine's CPU): long beside the victim's way into the queue, so no slot frees in between.
 */
const SLEEP_MS = 5_000;
const SLEEPER =
  `export function slowAdd(a: number, b: number): number {\n` +
  `  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ${SLEEP_MS});\n  return a + b;\n}`;
const QUICK = `export function add(a: number, b: number): number {\n  return a + b;\n}`;

/** The queue's row of one piece of work, by its key; undefined once it is gone. */
async function queueRow(workKey: string): Promise<Record<string, unknown> | undefined> {
  return (await server.deps.db.query(`SELECT * FROM judging_queue WHERE work_key = $1`, [workKey])).rows[0];
}

async function statusesOf(ids: string[]): Promise<Record<string, number>> {
  const rows = await server.deps.db.query<{ status: string; n: number }>(
    `SELECT status, count(*)::int AS n FROM submissions WHERE id = ANY($1::uuid[]) GROUP BY status`,
    [ids],
  );
  return Object.fromEntries(rows.rows.map((row) => [row.status, row.n]));
}

test("the real queue grants a lone owner's submission before the waiting pieces of two flooding owners", async () => {
  const db = server.deps.db;
  const challengeId = await newChallenge(server, {
    judge: { kind: 'tests', tests: [{ name: 'adds', export: 'add', args: [2, 3], expected: 5 }] },
  });
  // Enough flood that one pass cannot grant it all beside the victim, and at least two pieces per
  // flooding owner (with one each, a flooder would tie with the victim and win on arrival).
  const capacity = await queueCapacity(db, server.config);
  const perOwner = Math.max(2, Math.ceil(capacity / 2));
  expect(perOwner).toBeLessThanOrEqual(server.config.JUDGE_MAX_IN_FLIGHT_PER_USER);
  const flooders: TestAgent[] = [];
  for (let owner = 0; owner < 2; owner++) {
    const first = await newAgent(server);
    flooders.push(first, await newAgent(server, { user: first.user }));
  }
  const victim = await newAgent(server);
  const sessions = await Promise.all(
    [...flooders, victim].map((agent) => sessionFor(server, agent, challengeId)),
  );
  const program = (label: string) => ({
    content: label,
    files: [{ path: 'index.ts', content: `// ${label}\n${QUICK}` }],
  });
  const keyOf = (id: string) => `submission:${id}:0`;
  const waitingKeys = async (ids: string[]) =>
    (
      await db.query<{ work_key: string }>(
        `SELECT work_key FROM judging_queue WHERE work_key = ANY($1) AND state = 'waiting'`,
        [ids.map(keyOf)],
      )
    ).rows.length;

  // No pass grants anything while the test holds the queue's lock: every piece is in the queue,
  // waiting, before the first pass that sees any of them.
  const lock = await db.connect();
  let flood: string[] = [];
  let victimId = '';
  try {
    await lock.query('BEGIN');
    await lockJudgingQueue(lock, true);
    // Owner o's pieces alternate between its two agents (within the agent cap of 2).
    const accepted = await Promise.all(
      Array.from({ length: 2 * perOwner }, (_, i) => {
        const agent = (i % 2) * 2 + (Math.floor(i / 2) % 2);
        return submit(server, flooders[agent].token, sessions[agent], program(`flood ${i}`));
      }),
    );
    expect(accepted.map((res) => res.status)).toEqual(accepted.map(() => 201));
    flood = accepted.map((res) => res.body.data.id);
    await eventually(async () => (await waitingKeys(flood)) === flood.length, 120_000);
    const single = await submit(server, victim.token, sessions[4], program('victim'));
    expect(single.status).toBe(201);
    victimId = single.body.data.id;
    await eventually(async () => (await waitingKeys([victimId])) === 1, 120_000);
  } finally {
    await lock.query('COMMIT').catch(() => undefined);
    lock.release();
  }

  // Each snapshot of the queue (one statement: a pass's grants are one transaction, seen all or
  // none): while the victim waits, no flood piece may have been granted (running, or done and gone).
  const violations: string[] = [];
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const rows = await db.query<{ work_key: string; state: string }>(
        `SELECT work_key, state FROM judging_queue WHERE work_key = ANY($1)`,
        [[...flood, victimId].map(keyOf)],
      );
      const state = new Map(rows.rows.map((row) => [row.work_key, row.state]));
      const floodGranted = flood.filter((id) => state.get(keyOf(id)) !== 'waiting');
      if (state.get(keyOf(victimId)) === 'waiting' && floodGranted.length > 0)
        violations.push(`${floodGranted.length} flood piece(s) granted while the victim waited`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  try {
    const judged = await waitForSubmission(server, victim.token, victimId, ['complete', 'failed'], 120_000);
    expect(judged.submission_status).toBe('complete');
    expect(judged.result.final_score).toBe(100);
    await eventually(async () => {
      const byStatus = await statusesOf(flood);
      return (byStatus.complete ?? 0) + (byStatus.failed ?? 0) === flood.length;
    }, 240_000);
  } finally {
    sampling = false;
    await sampler;
  }
  expect(await statusesOf(flood)).toEqual({ complete: flood.length });
  expect(violations).toEqual([]);
});

test("an operator's dry run of a sandboxed judge waits in the queue, runs in its slot and gives it back", async () => {
  const admin = await newAdmin(server);
  const res = await server.request('POST', '/api/v1/admin/challenges/dry-run', {
    auth: admin.jwt,
    body: {
      judge: { kind: 'tests', tests: [{ name: 'adds', export: 'add', args: [2, 3], expected: 5 }] },
      submission: { content: 'dry run', files: [{ path: 'index.ts', content: QUICK }] },
    },
  });
  expect(res.status).toBe(200);
  expect(res.body.data.breakdown).toMatchObject({ final_score: 100 });
  const client = await server.deps.temporal();
  const history = await client.workflow.getHandle(res.body.data.workflow_id).fetchHistory();
  const activities = (history.events ?? [])
    .map((event) => event.activityTaskScheduledEventAttributes?.activityType?.name)
    .filter(Boolean);
  expect(activities).toEqual(['waitForDryRunSlots', 'judgeDryRun']);
  expect(await queueRow(`dry-run:${res.body.data.workflow_id}`)).toBeUndefined();
});

test('a program judging holds JUDGE_PROGRAM_SLOTS slots (never more than its tests) and gives them back', async () => {
  const challengeId = await newChallenge(server, {
    judge: {
      kind: 'program',
      time_limit_ms: 1000,
      memory_mb: 64,
      languages: ['python'],
      tests: ['1 2', '3 4', '5 6'].map((stdin, i) => ({
        name: `sum ${i}`,
        stdin: `${stdin}\n`,
        expected_stdout: `${stdin.split(' ').reduce((a, b) => a + Number(b), 0)}\n`,
      })),
    } as never,
  });
  const agent = await newAgent(server);
  const res = await submit(server, agent.token, await sessionFor(server, agent, challengeId), {
    content: 'program',
    files: [
      {
        path: 'main.py',
        content: 'import time\ntime.sleep(1.5)\na, b = map(int, input().split())\nprint(a + b)\n',
      },
    ],
  });
  expect(res.status).toBe(201);
  const workKey = `submission:${res.body.data.id}:0`;
  // The row while it runs: granted, with the program judge's slots.
  const held = await eventually(
    async () => {
      const row = await queueRow(workKey);
      return row?.state === 'running' ? { state: row.state, slots: row.slots, kind: row.kind } : undefined;
    },
    60_000,
    20,
  );
  const capacity = server.config.JUDGE_QUEUE_SLOTS ?? (await liveWorkerSlots(server.deps.db, 30));
  expect(held).toEqual({
    state: 'running',
    kind: 'submission',
    slots: Math.min(
      server.config.JUDGE_PROGRAM_SLOTS,
      3,
      capacity,
      server.config.JUDGE_MAX_IN_FLIGHT_PER_AGENT,
    ),
  });
  const judged = await waitForSubmission(
    server,
    agent.token,
    res.body.data.id,
    ['complete', 'failed'],
    120_000,
  );
  expect(judged.submission_status).toBe('complete');
  expect(judged.result.final_score).toBe(100);
  expect(await queueRow(workKey)).toBeUndefined();
});

test('a rejudge waits at low priority, counted against no owner, and is judged', async () => {
  const challengeId = await newChallenge(server, {
    judge: {
      kind: 'tests',
      timeout_ms_per_test: 10_000,
      tests: [{ name: 'adds', export: 'slowAdd', args: [2, 3], expected: 5 }],
    },
  });
  const agent = await newAgent(server);
  const first = await submit(server, agent.token, await sessionFor(server, agent, challengeId), {
    content: 'to rejudge',
    files: [{ path: 'index.ts', content: SLEEPER.replace(String(SLEEP_MS), '1500') }],
  });
  expect(first.status).toBe(201);
  const id = first.body.data.id;
  await waitForSubmission(server, agent.token, id, ['complete'], 60_000);
  const admin = await newAdmin(server);
  const rejudge = await server.request('POST', `/api/v1/admin/submissions/${id}/rejudge`, {
    auth: admin.jwt,
  });
  expect(rejudge.status).toBe(202);
  const row = await eventually(() => queueRow(`submission:${id}:${rejudge.body.data.run}`), 30_000, 20);
  expect(row).toMatchObject({ kind: 'rejudge', priority: 1, owner_user_id: null, agent_id: null });
  await eventually(async () => {
    const rows = await server.deps.db.query<{ judge_run: number; status: string }>(
      `SELECT judge_run, status FROM submissions WHERE id = $1`,
      [id],
    );
    return rows.rows[0].judge_run === rejudge.body.data.run && rows.rows[0].status === 'complete';
  }, 60_000);
});

// On a database of its own: the shared one's queue holds the other suites' judgings, which
// would take this describe's single slot (capacity 1) whenever one runs at the same moment.
describe('the queue in the database', () => {
  const scratch = scratchDatabase('queue');
  let db: Pool;
  beforeAll(async () => {
    await scratch.create();
    db = new Pool({ connectionString: scratch.url, max: 2 });
  });
  afterAll(async () => {
    await db?.end();
    await scratch.drop();
  });
  const config = {
    JUDGE_QUEUE_SLOTS: 1,
    JUDGE_MAX_IN_FLIGHT_PER_USER: 4,
    JUDGE_MAX_IN_FLIGHT_PER_AGENT: 2,
    JUDGE_QUEUE_POLL_MS: 20,
  };
  const ownerless = (key: string) => ({
    workKey: key,
    kind: 'dry_run' as const,
    priority: 0,
    ownerUserId: null,
    agentId: null,
    submissionId: null,
    run: null,
    slots: 1,
  });
  const stateOf = async (key: string) => {
    const row = (await db.query(`SELECT * FROM judging_queue WHERE work_key = $1`, [key])).rows[0];
    return row && { state: row.state, seq: row.seq };
  };

  test('work whose holder stops refreshing it expires, and the next waiter gets its slot; a retried enqueue keeps its place', async () => {
    const tag = randomUUID();
    const [a, b] = [`test:${tag}:a`, `test:${tag}:b`];
    await enqueue(db, config, ownerless(a));
    await enqueue(db, config, ownerless(b));
    expect(await runQueuePass(db, config, true)).toEqual([a]);
    const placeOfB = (await stateOf(b))?.seq;
    expect(placeOfB).toBeDefined();
    await enqueue(db, config, ownerless(b)); // a retried waiter
    expect(await stateOf(b)).toEqual({ state: 'waiting', seq: placeOfB });
    // a's holder died: nothing refreshes it past its expiry.
    await db.query(`UPDATE judging_queue SET expires_at = now() - interval '1 second' WHERE work_key = $1`, [
      a,
    ]);
    const waited = waitForSlots(db, config, ownerless(b));
    await expect(waited).resolves.toBe(1);
    expect(await stateOf(a)).toBeUndefined();
    expect((await stateOf(b))?.state).toBe('running');
    await removeWork(db, b);
  });

  test('an entry of several owners keeps one share per seat across retried enqueues, and its seats count in the pass', async () => {
    const tag = randomUUID();
    const users = (
      await db.query<{ id: string }>(
        `INSERT INTO users (subject, name, role)
         SELECT 'test|' || $1 || ':' || g, 'Queue owner', 'user' FROM generate_series(1, 3) g RETURNING id`,
        [tag],
      )
    ).rows.map((row) => row.id);
    const agents = (
      await db.query<{ id: string }>(
        `INSERT INTO agents (owner_user_id, name) SELECT u, 'queue-' || $2 || '-' || i
           FROM unnest($1::uuid[]) WITH ORDINALITY AS t(u, i) RETURNING id`,
        [users, tag.slice(0, 8)],
      )
    ).rows.map((row) => row.id);
    const wide = { ...config, JUDGE_QUEUE_SLOTS: 3 };
    const [blocker, matchKey, soloKey] = [`test:${tag}:blocker`, `test:${tag}:match`, `test:${tag}:solo`];
    await enqueue(db, wide, { ...ownerless(blocker), slots: 3 });
    expect(await runQueuePass(db, wide, true)).toEqual([blocker]);
    const match = {
      ...ownerless(matchKey),
      kind: 'game' as const,
      slots: 2,
      owners: [
        { ownerUserId: users[0], agentId: agents[0], slots: 1 },
        { ownerUserId: users[1], agentId: agents[1], slots: 1 },
      ],
    };
    await enqueue(db, wide, match);
    await enqueue(db, wide, match); // a retried waiter: same place, no second share per seat
    const shares = await db.query(
      `SELECT o.owner_user_id, o.agent_id, o.slots FROM judging_queue_owners o
         JOIN judging_queue q ON q.seq = o.seq WHERE q.work_key = $1 ORDER BY o.share`,
      [matchKey],
    );
    expect(shares.rows).toEqual([
      { owner_user_id: users[0], agent_id: agents[0], slots: 1 },
      { owner_user_id: users[1], agent_id: agents[1], slots: 1 },
    ]);
    // A lone owner's piece, arrived after the match: the match's owners have more queued.
    await enqueue(db, wide, { ...ownerless(soloKey), ownerUserId: users[2], agentId: agents[2] });
    await removeWork(db, blocker);
    expect(await runQueuePass(db, wide, true)).toEqual([soloKey, matchKey]);
    await removeWork(db, matchKey);
    await removeWork(db, soloKey);
    // This test's agents' shares only: other files' matches queue with owners in parallel.
    const left = await db.query(
      `SELECT count(*)::int AS n FROM judging_queue_owners WHERE agent_id = ANY($1::uuid[])`,
      [agents],
    );
    expect(left.rows[0].n).toBe(0); // the shares leave with their entry
  });

  test('runs of workflows started before the queue (admission by retries) are served by the same queue', async () => {
    const tag = randomUUID();
    const [a, b] = [`test:${tag}:a`, `test:${tag}:b`];
    expect(await tryAdmit(db, config, ownerless(a))).toBe(true);
    expect(await tryAdmit(db, config, ownerless(b))).toBe(false); // capacity 1, held by a
    expect(await tryAdmit(db, config, ownerless(b))).toBe(false); // a retry: still waiting, same place
    await removeWork(db, a);
    expect(await tryAdmit(db, config, ownerless(b))).toBe(true);
    expect(await tryAdmit(db, config, ownerless(b))).toBe(true); // granted stays granted
    await removeWork(db, b);
  });
});
