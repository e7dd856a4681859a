/**
 * Issue 37: no match runs forever. The match workflow (the real one, bundled from the registry)
 * over scripted steps on the test Temporal server:
 * - a game match whose games never end is voided at its deadline (counted from its slots' grant)
 *   with that reason, and its play step is cancelled;
 * - a game match whose play step throws the same RangeError every time is attempted twice, then
 *   voided with the failure (before: 5 attempts, each restarting the cap, then a failed workflow
 *   and a match left running).
 * The database side (the void, its audit, the players free) is test/system/match-deadline.test.ts.
 * The environment is test/helpers/workflow-env.ts (createLocal on the project's CLI, bundle on disk).
 */
import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import { startWorkflowKit, type WorkflowKit } from '../../helpers/workflow-env';

jest.setTimeout(120_000);

type Calls = {
  voids: { matchId: string; reason: string }[];
  plays: number;
  cancelled: number;
  released?: boolean;
};
const calls = new Map<string, Calls>();
const callsOf = (matchId: string) => {
  if (!calls.has(matchId)) calls.set(matchId, { voids: [], plays: 0, cancelled: 0 });
  return calls.get(matchId)!;
};

/** How each scripted match plays: never ends, or throws a RangeError. */
const behaviour = new Map<string, 'never-ends' | 'range-error'>();

const steps = {
  async matchStart(_input: { matchId: string }) {
    return {
      status: 'running',
      kind: 'game',
      endsAt: null,
      deadlineAt: null,
      boutOver: false,
      pollMs: 200,
      weightClassId: null,
      rated: false,
    };
  },
  async waitForGameMatchSlots(input: { matchId: string }) {
    // Slots granted now: the deadline 1 s from the grant (a minute for the failing one, whose
    // retry alone takes a second).
    const ms = behaviour.get(input.matchId) === 'never-ends' ? 1_000 : 60_000;
    return { slots: 2, deadlineAt: new Date(Date.now() + ms).toISOString() };
  },
  async playGameMatchGames(input: { matchId: string }) {
    const mine = callsOf(input.matchId);
    mine.plays += 1;
    if (behaviour.get(input.matchId) === 'range-error') {
      // What a reducer facing a 6,000-deep action threw before its parser had limits.
      throw new RangeError('Maximum call stack size exceeded');
    }
    const ctx = Context.current();
    try {
      for (;;) {
        ctx.heartbeat();
        await ctx.sleep(200);
      }
    } catch (err) {
      mine.cancelled += 1;
      throw err;
    }
  },
  async matchVoidWithReason(input: { matchId: string; reason: string }) {
    callsOf(input.matchId).voids.push(input);
    return { status: 'void' };
  },
  async releaseGameMatchSlots(input: { matchId: string }) {
    callsOf(input.matchId).released = true;
  },
  async matchApplyRatings() {
    return { applied: 0 };
  },
};

/** The service's failure classes wrap the match steps (activities/index.ts); absent before issue 37. */
function registered(): typeof steps {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { attemptedAtMostTwice } = require('../../../src/domain/matches/activities') as {
      attemptedAtMostTwice: <T extends object>(s: T) => T;
    };
    return attemptedAtMostTwice(steps);
  } catch {
    return steps;
  }
}

let kit: WorkflowKit;
beforeAll(async () => {
  kit = await startWorkflowKit(registered());
}, 180_000);
afterAll(() => kit?.close());

/** The workflow's result, or 'still running' once `ms` passed (the old code never ends). */
async function resultWithin(workflowId: string, ms: number): Promise<unknown> {
  const handle = kit.client.workflow.getHandle(workflowId);
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise((resolve) => (timer = setTimeout(() => resolve('still running'), ms)));
  try {
    return await Promise.race([handle.result().catch((err: Error) => `failed: ${err.message}`), bound]);
  } finally {
    clearTimeout(timer);
    await handle.terminate('test over').catch(() => undefined);
  }
}

it('a game match past its deadline ends void with that reason; its games are cancelled', async () => {
  const matchId = randomUUID();
  behaviour.set(matchId, 'never-ends');
  await kit.client.workflow.start('matchWorkflow', {
    taskQueue: kit.taskQueue,
    workflowId: `match-${matchId}`,
    args: [{ matchId }],
  });
  expect(await resultWithin(`match-${matchId}`, 60_000)).toBe('void');
  const mine = callsOf(matchId);
  expect(mine.voids).toEqual([{ matchId, reason: expect.stringMatching(/past its deadline/) }]);
  expect(mine.plays).toBe(1);
  expect(mine.cancelled).toBe(1);
  expect(mine.released).toBe(true);
});

it('a play step that throws the same RangeError is attempted twice, then the match is void with the failure', async () => {
  const matchId = randomUUID();
  behaviour.set(matchId, 'range-error');
  await kit.client.workflow.start('matchWorkflow', {
    taskQueue: kit.taskQueue,
    workflowId: `match-${matchId}`,
    args: [{ matchId }],
  });
  expect(await resultWithin(`match-${matchId}`, 60_000)).toBe('void');
  const mine = callsOf(matchId);
  expect(mine.plays).toBe(2);
  expect(mine.voids).toEqual([
    { matchId, reason: expect.stringMatching(/could not be played: RangeError: Maximum call stack/) },
  ]);
});
