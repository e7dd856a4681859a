/**
 * Private tests run in a pass of their own after the public result (DESIGN, "Fifth-round
 * extensions" → "Whatever a program writes is data"; issue 38, finding 1): a program that sleeps
 * only on a private test's input cannot learn it from anything a competitor reads. Each private
 * test below sleeps (Atomics.wait: no CPU) so that the private pass is still running while the
 * competitor's view says `complete`; what is asserted is the ORDER of what happened, never a sleep.
 */
import { createActive, inSeconds } from '../helpers/challenge-factories';
import { eventually, newAgent, type TestAgent, type TestUser } from '../helpers/factories';
import {
  getWithinLimits,
  outboxEventsFor,
  sessionFor,
  submit,
  waitForSubmission,
} from '../helpers/submission-factories';
import { type TestServer } from '../helpers/server';
import { startServerAndAdmin } from '../helpers/server-and-admin';

jest.setTimeout(900_000);

let server: TestServer;
let admin: TestUser;
beforeAll(async () => ({ server, admin } = await startServerAndAdmin()));
afterAll(() => server.close());

const WAIT = 120_000;
/**
 * A private pass waits in the judging queue at low priority, behind every normal judging of the
 * tier's other files on the worker's 2 slots (by design: it never delays anyone's next
 * submission). In the quiet CI of 29 Nov 2026 one waited 127 s, past WAIT. This bound only
 * guards against a pass that never ends.
 */
const PRIVATE_WAIT = 600_000;
/**
 * How often a long wait polls as the operator: the admin's reads budget is 200 a minute and a 429
 * waits its Retry-After (up to a minute), longer than the windows this file observes. At the
 * default 100 ms a pass that waited ~2 minutes in the queue spent the budget, and the busy CI of
 * 29 Nov 2026 then looked at the rejudge's result only after its 20 s pending window had passed.
 */
const POLL_MS = 1_000;
/** Each private test sleeps this long on its own input only. */
const PRIVATE_SLEEP_MS = 4_000;
const PROGRAM =
  `export function answer(input: string): string {\n` +
  `  if (input.startsWith('secret')) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ${PRIVATE_SLEEP_MS});\n` +
  `  return input.toUpperCase();\n}`;

/** Two public tests; `privateTests` private ones, each with an input only they have (and that sleeps). */
function judgeWith(privateTests: number) {
  return {
    kind: 'tests',
    timeout_ms_per_test: 10_000,
    tests: [
      { name: 'one', export: 'answer', args: ['one'], expected: 'ONE' },
      { name: 'two', export: 'answer', args: ['two'], expected: 'TWO' },
      ...Array.from({ length: privateTests }, (_, i) => ({
        name: `held-${i}`,
        export: 'answer',
        args: [`secret-${i}`],
        expected: `SECRET-${i}`,
        private: true,
      })),
    ],
  };
}

async function submitProgram(agent: TestAgent, sessionId: string): Promise<string> {
  const res = await submit(server, agent.token, sessionId, {
    content: 'program',
    files: [{ path: 'index.ts', content: PROGRAM }],
  });
  expect(res.status).toBe(201);
  return res.body.data.id;
}

/** The operators' view of the submission's current result. */
async function operatorResult(submissionId: string): Promise<Record<string, unknown>> {
  const res = await getWithinLimits(server, `/api/v1/results/${submissionId}`, admin.jwt);
  expect(res.status).toBe(200);
  return res.body.data;
}

test('the competitor sees `complete` (and its events are written) while the private pass is still pending', async () => {
  // Five private tests, one after the other: a public pass that ran them would take their five
  // sleeps (20 s), several times what the public pass takes on a busy machine (5.8 s seen).
  const privateTests = 5;
  const challenge = await createActive(
    server,
    { judge: judgeWith(privateTests), ends_at: inSeconds(3600) },
    admin,
  );
  const agent = await newAgent(server);
  const sessionId = await sessionFor(server, agent, challenge.id);
  const id = await submitProgram(agent, sessionId);

  const done = await waitForSubmission(server, agent.token, id, ['complete', 'failed'], WAIT);
  expect(done.submission_status).toBe('complete');
  expect(done.result.final_score).toBe(100);
  // Right then the private test is still sleeping: the operator sees the pass pending, no score.
  const during = await operatorResult(id);
  expect(during).toMatchObject({ final_score: 100, private_state: 'pending', private_score: null });
  const events = await outboxEventsFor(server, id);
  expect(events.map((e) => e.event_type)).toEqual(
    expect.arrayContaining(['submission.completed', 'result.finalized']),
  );

  const after = await eventually(
    async () => {
      const result = await operatorResult(id);
      return result.private_state === 'done' ? result : undefined;
    },
    PRIVATE_WAIT,
    POLL_MS,
  );
  expect(after).toMatchObject({ final_score: 100, private_score: 100, private_reason: null });
  // Every competitor-visible timestamp of the run precedes the private pass's end.
  const history = await getWithinLimits(server, `/api/v1/submissions/${id}`, agent.token);
  const completeAt = Date.parse(
    history.body.data.events.find((e: { status: string }) => e.status === 'complete').created_at,
  );
  expect(completeAt).toBeLessThan(Date.parse(String(after.private_judged_at)));
  // The judging → complete span holds nothing of the private test's sleep.
  const judgingAt = Date.parse(
    history.body.data.events.find((e: { status: string }) => e.status === 'judging').created_at,
  );
  expect(completeAt - judgingAt).toBeLessThan(privateTests * PRIVATE_SLEEP_MS);
  // The competitor still sees no trace of the pass while the challenge runs.
  const own = await getWithinLimits(server, `/api/v1/results/${id}`, agent.token);
  expect(own.text).not.toMatch(/private|held-/);
});

test('?board=final at completion answers pending: n and no rows until the private passes are done', async () => {
  // Three private tests of 4 s each, one after the other: the pass outlasts the challenge's end.
  const challenge = await createActive(server, { judge: judgeWith(3), ends_at: inSeconds(3600) }, admin);
  const agent = await newAgent(server);
  const sessionId = await sessionFor(server, agent, challenge.id);
  const id = await submitProgram(agent, sessionId);
  await waitForSubmission(server, agent.token, id, ['complete'], WAIT);
  expect((await operatorResult(id)).private_state).toBe('pending');

  const ended = await server.request('PATCH', `/api/v1/admin/challenges/${challenge.id}`, {
    auth: admin.jwt,
    body: { ends_at: new Date(Date.now() - 1000).toISOString() },
  });
  expect(ended.status).toBe(200);
  await eventually(async () => {
    const res = await server.request('GET', `/api/v1/challenges/${challenge.id}`);
    return res.body.data.status === 'complete';
  }, WAIT);

  // The three sleeps outlast the challenge's end: the board waits for the pass.
  const waiting = await server.request('GET', `/api/v1/leaderboards/${challenge.id}?board=final`);
  expect(waiting.status).toBe(200);
  expect(waiting.body).toMatchObject({ pending: 1, data: [] });
  // Polled as a well-behaved client (a 429 waits for its Retry-After).
  const final = await eventually(async () => {
    const res = await getWithinLimits(
      server,
      `/api/v1/leaderboards/${challenge.id}?board=final`,
      agent.token,
    );
    return res.status === 200 && res.body.pending === 0 ? res.body : undefined;
  }, PRIVATE_WAIT);
  expect(final.data).toEqual([
    expect.objectContaining({
      agent_id: agent.agentId,
      submission_id: id,
      final_score: 100,
      private_score: 100,
    }),
  ]);
});

test("a rejudge runs both passes; its item's new_private_score is set once the private pass is done", async () => {
  // Five private tests: the pass is pending for at least 20 s of sleeps after the rejudge's public
  // result lands. With one (4 s), the busy CI of 29 Nov 2026 (load 15) first looked after the pass
  // had already finished.
  const challenge = await createActive(server, { judge: judgeWith(5), ends_at: inSeconds(3600) }, admin);
  const agent = await newAgent(server);
  const sessionId = await sessionFor(server, agent, challenge.id);
  const id = await submitProgram(agent, sessionId);
  await waitForSubmission(server, agent.token, id, ['complete'], WAIT);
  await eventually(async () => (await operatorResult(id)).private_state === 'done', PRIVATE_WAIT, POLL_MS);

  const started = await server.request('POST', `/api/v1/admin/challenges/${challenge.id}/rejudge`, {
    auth: admin.jwt,
    body: {},
  });
  expect(started.status).toBe(202);
  const rejudgeId = started.body.data.rejudge_id as string;
  // The rejudge's public result lands first: the run is complete, the item not yet done.
  const during = await eventually(
    async () => {
      const result = await operatorResult(id);
      return result.run === 1 && result.current ? result : undefined;
    },
    PRIVATE_WAIT,
    POLL_MS / 2,
  ); // a rejudge is low priority too
  expect(during.private_state).toBe('pending');
  const progress = await server.request('GET', `/api/v1/admin/rejudges/${rejudgeId}`, { auth: admin.jwt });
  expect(progress.body.data.items[0]).toMatchObject({ submission_id: id, new_score: null, done: false });
  expect(progress.body.data.items[0].new_private_score).toBeNull();

  const item = await eventually(
    async () => {
      const res = await server.request('GET', `/api/v1/admin/rejudges/${rejudgeId}`, { auth: admin.jwt });
      return res.body.data.items[0]?.done ? res.body.data.items[0] : undefined;
    },
    PRIVATE_WAIT,
    POLL_MS,
  );
  expect(item).toMatchObject({
    old_score: 100,
    new_score: 100,
    old_private_score: 100,
    new_private_score: 100,
  });
  // Recorded, not sampled: the rejudge's public result was stored before its private pass, and the
  // rejudge finished only once that pass was stored.
  const rejudged = await operatorResult(id);
  const privateAt = Date.parse(String(rejudged.private_judged_at));
  expect(Date.parse(String(rejudged.judged_at))).toBeLessThan(privateAt);
  const finished = await eventually(
    async () => {
      const res = await server.request('GET', `/api/v1/admin/rejudges/${rejudgeId}`, { auth: admin.jwt });
      return res.body.data.finished_at ? res.body.data : undefined;
    },
    WAIT,
    POLL_MS,
  );
  expect(Date.parse(finished.finished_at)).toBeGreaterThanOrEqual(privateAt);
});

test('a private pass its workflow left pending is stored as 0 with its reason by the sweeper, never left pending', async () => {
  const challenge = await createActive(server, { judge: judgeWith(1), ends_at: inSeconds(3600) }, admin);
  const agent = await newAgent(server);
  const id = await submitProgram(agent, await sessionFor(server, agent, challenge.id));
  await waitForSubmission(server, agent.token, id, ['complete'], WAIT);
  await eventually(async () => (await operatorResult(id)).private_state === 'done', PRIVATE_WAIT, POLL_MS);
  // The state a terminated or lost workflow leaves behind: its run's public result stored, the
  // private pass pending, and no workflow that will ever finish it (this run's has completed).
  // Made old at once, as the sweeper only looks at passes idle past its stall delay.
  await server.deps.db.query(
    `UPDATE results SET private_state = 'pending', private_score = NULL, private_judged_at = NULL,
                        judged_at = now() - interval '1 hour'
      WHERE submission_id = $1 AND superseded_at IS NULL`,
    [id],
  );
  const closed = await eventually(async () => {
    const result = await operatorResult(id);
    return result.private_state === 'done' ? result : undefined;
  }, WAIT);
  expect(closed).toMatchObject({
    private_score: 0,
    private_reason: 'private pass did not finish: the workflow is completed',
  });
  // The competitor's public result is untouched.
  expect(closed.final_score).toBe(100);
});
