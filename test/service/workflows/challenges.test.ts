/**
 * The challenge workflows (lifecycle, dry run) in a Temporal test environment
 * (test/helpers/workflow-env.ts) over scripted activities typed against the real ones. The
 * lifecycle's timers are its schedule (absolute times in the input), so the tests give times a few
 * hundred milliseconds ahead; the steps' database side is test/system/challenges-lifecycle.test.ts.
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { LifecycleSteps } from '../../../src/domain/challenges/lifecycle';
import {
  CHALLENGE_LIFECYCLE_MAX_SIGNALS_PER_RUN,
  CHALLENGE_LIFECYCLE_STATE_QUERY,
  CHALLENGE_SCHEDULE_SIGNAL,
  CHALLENGE_STOP_SIGNAL,
  type ChallengeLifecycleSnapshot,
  type ChallengeLifecycleState,
  type ChallengeSchedule,
  type DryRunSteps,
} from '../../../src/domain/challenges/contract';
import type { AdminBreakdown } from '../../../src/judging/breakdown';
import { ChallengeIdKey } from '../../../src/temporal-client/search-attributes';
import { startWorkflowKit, until, type WorkflowKit } from '../../helpers/workflow-env';

jest.setTimeout(120_000);

/** The scripted database: one row per challenge, the events its steps emitted and when. */
interface Row {
  status: ChallengeLifecycleSnapshot['status'];
  startsAt: string | null;
  endsAt: string | null;
  startedEventAt: string | null;
  events: { type: 'started' | 'ended'; at: number }[];
}
const rows = new Map<string, Row>();
const snapshot = (row: Row, emitted: boolean): ChallengeLifecycleSnapshot => ({
  status: row.status,
  startsAt: row.startsAt,
  endsAt: row.endsAt,
  startedEventAt: row.startedEventAt,
  emitted,
});
const due = (at: string | null) => at === null || Date.parse(at) <= Date.now();

const dryRuns: { step: string; input: unknown; taskQueue: string }[] = [];

const activities: Pick<LifecycleSteps, 'challengeStartReached' | 'challengeEndReached'> & DryRunSteps = {
  async challengeStartReached({ challengeId }) {
    const row = rows.get(challengeId)!;
    const emit = row.status === 'active' && row.startedEventAt === null && due(row.startsAt);
    if (emit) {
      row.startedEventAt = new Date().toISOString();
      row.events.push({ type: 'started', at: Date.now() });
    }
    return snapshot(row, emit);
  },
  async challengeEndReached({ challengeId }) {
    const row = rows.get(challengeId)!;
    const emit = row.status === 'active' && row.endsAt !== null && due(row.endsAt);
    if (emit) {
      row.status = 'complete';
      row.events.push({ type: 'ended', at: Date.now() });
    }
    return snapshot(row, emit);
  },
  async waitForDryRunSlots(input) {
    dryRuns.push({ step: 'waitForDryRunSlots', input, taskQueue: Context.current().info.taskQueue });
    return { slots: 2 };
  },
  async judgeDryRun(input) {
    dryRuns.push({ step: 'judgeDryRun', input, taskQueue: Context.current().info.taskQueue });
    if ((input.judge as { kind: string }).kind === 'broken') {
      throw ApplicationFailure.create({ type: 'InvalidJudgeConfigError', message: 'tests: required' });
    }
    return { audience: 'admin', summary: `judged ${input.submission.content}` } as AdminBreakdown;
  },
};

let kit: WorkflowKit;
beforeAll(async () => {
  kit = await startWorkflowKit(activities);
}, 180_000);
afterAll(() => kit?.close());

const inMs = (ms: number) => new Date(Date.now() + ms).toISOString();

async function startLifecycle(schedule: ChallengeSchedule, status: Row['status'] = 'active') {
  const challengeId = kit.id('challenge');
  const row: Row = { status, ...schedule, startedEventAt: null, events: [] };
  rows.set(challengeId, row);
  const handle = await kit.client.workflow.start('challengeLifecycleWorkflow', {
    taskQueue: kit.taskQueue,
    workflowId: `challenge-lifecycle-${challengeId}`,
    args: [{ challengeId, schedule }],
  });
  const state = () => handle.query<ChallengeLifecycleState>(CHALLENGE_LIFECYCLE_STATE_QUERY);
  return { challengeId, row, handle, state };
}

describe('challengeLifecycleWorkflow', () => {
  test('started at starts_at, complete at ends_at, never early; the run carries ChallengeId', async () => {
    const schedule = { startsAt: inMs(400), endsAt: inMs(900) };
    const { challengeId, row, handle } = await startLifecycle(schedule);
    expect(await handle.result()).toBe('completed');
    expect(row.events.map((e) => e.type)).toEqual(['started', 'ended']);
    expect(row.events[0]!.at).toBeGreaterThanOrEqual(Date.parse(schedule.startsAt));
    expect(row.events[1]!.at).toBeGreaterThanOrEqual(Date.parse(schedule.endsAt));
    expect((await handle.describe()).typedSearchAttributes.get(ChallengeIdKey)).toBe(challengeId);
  });

  test('without starts_at it starts at once; open-ended it waits for edits; a stop signal ends it', async () => {
    const { row, handle, state } = await startLifecycle({ startsAt: null, endsAt: null });
    await until(async () => (await state()).phase === 'open_ended');
    expect(row.events.map((e) => e.type)).toEqual(['started']);
    expect(await state()).toMatchObject({ startedDone: true });
    await handle.signal(CHALLENGE_STOP_SIGNAL, { reason: 'retired' });
    expect(await handle.result()).toBe('stopped');
  });

  test('an edit re-plans the timers: a later end keeps it waiting, an end in the past completes it at once', async () => {
    const far = { startsAt: inMs(3_600_000), endsAt: inMs(7_200_000) };
    const { row, handle, state } = await startLifecycle(far);
    await until(async () => (await state()).phase === 'waiting_start');
    // Moved later than the old end... (the database holds what the edit wrote, then the signal follows)
    const later = { startsAt: null, endsAt: inMs(3_600_000) };
    Object.assign(row, later);
    await handle.signal(CHALLENGE_SCHEDULE_SIGNAL, later);
    await until(async () => {
      const s = await state();
      return s.phase === 'waiting_end' && s.schedule.endsAt === later.endsAt;
    });
    expect(row.events.map((e) => e.type)).toEqual(['started']);
    // ...then ended now: an end in the past completes it at once.
    const now = { startsAt: null, endsAt: inMs(-1000) };
    Object.assign(row, now);
    await handle.signal(CHALLENGE_SCHEDULE_SIGNAL, now);
    expect(await handle.result()).toBe('completed');
    expect(row.events.map((e) => e.type)).toEqual(['started', 'ended']);
  });

  test('an edit moving both times earlier is started and completed at the new times', async () => {
    const { row, handle, state } = await startLifecycle({
      startsAt: inMs(3_600_000),
      endsAt: inMs(7_200_000),
    });
    await until(async () => (await state()).phase === 'waiting_start');
    const earlier = { startsAt: inMs(200), endsAt: inMs(400) };
    Object.assign(row, earlier);
    await handle.signal(CHALLENGE_SCHEDULE_SIGNAL, earlier);
    expect(await handle.result()).toBe('completed');
    expect(row.events.map((e) => e.type)).toEqual(['started', 'ended']);
    expect(row.events[1]!.at).toBeGreaterThanOrEqual(Date.parse(earlier.endsAt));
  });

  test('a challenge the database no longer holds active ends the run as inactive', async () => {
    const { handle } = await startLifecycle({ startsAt: null, endsAt: null }, 'archived');
    expect(await handle.result()).toBe('inactive');
  });

  test(`after ${CHALLENGE_LIFECYCLE_MAX_SIGNALS_PER_RUN} signals it continues as new with its plan`, async () => {
    const far = { startsAt: inMs(3_600_000), endsAt: inMs(7_200_000) };
    const { challengeId, handle, state } = await startLifecycle(far);
    await Promise.all(
      Array.from({ length: CHALLENGE_LIFECYCLE_MAX_SIGNALS_PER_RUN }, () =>
        handle.signal(CHALLENGE_SCHEDULE_SIGNAL, far),
      ),
    );
    const next = await until(async () => {
      const d = await handle.describe();
      return d.runId !== handle.firstExecutionRunId && d.status.name === 'RUNNING' && d;
    });
    expect(next.typedSearchAttributes.get(ChallengeIdKey)).toBe(challengeId);
    expect(await state()).toMatchObject({
      schedule: far,
      startedDone: false,
      phase: 'waiting_start',
      signalsThisRun: 0,
    });
    await handle.signal(CHALLENGE_STOP_SIGNAL, { reason: 'retired' });
    expect(await kit.client.workflow.getHandle(handle.workflowId).result()).toBe('stopped');
  });
});

describe('challengeDryRunWorkflow', () => {
  const submission = { content: 'print(1)', files: [] };

  test('a sandboxed judge waits in the judging queue, then judges in the slots on the judging task queue', async () => {
    const workflowId = kit.id('challenge-dry-run');
    const judge = { kind: 'tests', tests: [] };
    const result = await kit.client.workflow.execute('challengeDryRunWorkflow', {
      taskQueue: kit.taskQueue,
      workflowId,
      args: [{ judge, submission }],
    });
    expect(result).toEqual({ audience: 'admin', summary: 'judged print(1)' });
    const queueKey = `dry-run:${workflowId}`;
    expect(dryRuns.filter((d) => JSON.stringify(d.input).includes(workflowId))).toEqual([
      { step: 'waitForDryRunSlots', input: { queueKey, judge }, taskQueue: kit.taskQueue },
      { step: 'judgeDryRun', input: { judge, submission, queueKey }, taskQueue: `${kit.taskQueue}-judging` },
    ]);
  });

  test('a judge without a sandbox is judged at once; a config the judge refuses fails the run without a retry', async () => {
    const rubric = { kind: 'rubric', marker: kit.id('m') };
    await kit.client.workflow.execute('challengeDryRunWorkflow', {
      taskQueue: kit.taskQueue,
      workflowId: kit.id('challenge-dry-run'),
      args: [{ judge: rubric, submission }],
    });
    expect(dryRuns.filter((d) => JSON.stringify(d.input).includes(rubric.marker)).map((d) => d.step)).toEqual(
      ['judgeDryRun'],
    );

    const broken = { kind: 'broken', marker: kit.id('m') };
    await expect(
      kit.client.workflow.execute('challengeDryRunWorkflow', {
        taskQueue: kit.taskQueue,
        workflowId: kit.id('challenge-dry-run'),
        args: [{ judge: broken, submission }],
      }),
    ).rejects.toMatchObject({ cause: { cause: { type: 'InvalidJudgeConfigError' } } });
    expect(dryRuns.filter((d) => JSON.stringify(d.input).includes(broken.marker))).toHaveLength(1);
  });
});
