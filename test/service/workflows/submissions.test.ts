/**
 * The submission workflows (submission, submission sweeper, submission outcome) in a Temporal test
 * environment (test/helpers/workflow-env.ts) over scripted activities typed against the real ones.
 * What the steps do to the database is the integration tier's (submissions, private-pass, ...);
 * here: which steps run, in which order, on which task queue, and what the run returns.
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { SubmissionActivities } from '../../../src/domain/submissions/activities';
import {
  JUDGE_MAX_ATTEMPTS,
  type RunRef,
  type SubmissionOutcomeInput,
  type SubmissionWorkflowResult,
} from '../../../src/domain/submissions/contract';
import { SubmissionStatusKey } from '../../../src/temporal-client/search-attributes';
import { startWorkflowKit, until, type WorkflowKit } from '../../helpers/workflow-env';

jest.setTimeout(120_000);

type Judge = 'tests' | 'rubric' | 'http';
interface Script {
  judgeKind: Judge;
  stale?: boolean;
  /** The public judge fails every attempt (retryable, retried at once), or refuses for good. */
  judgeFails?: 'retryable' | 'non-retryable';
  privatePending?: boolean;
  privateFails?: boolean;
}
interface Call {
  step: string;
  input: unknown;
  taskQueue: string;
  local: boolean;
}

const scripts = new Map<string, Script>();
const calls = new Map<string, Call[]>();
function record(step: string, ref: RunRef, input: unknown = ref) {
  const info = Context.current().info;
  const list = calls.get(ref.submissionId) ?? [];
  list.push({ step, input, taskQueue: info.taskQueue, local: info.isLocal });
  calls.set(ref.submissionId, list);
}
const stepsOf = (id: string) => (calls.get(id) ?? []).map((c) => c.step);
const scriptOf = (ref: RunRef) => scripts.get(ref.submissionId)!;

const activities: Pick<
  SubmissionActivities,
  | 'beginJudging'
  | 'waitForJudgingSlots'
  | 'judgeSubmission'
  | 'waitForPrivatePassSlots'
  | 'judgePrivatePass'
  | 'markPrivatePassFailed'
  | 'markSubmissionFailed'
  | 'runSubmissionSweeper'
> = {
  async beginJudging(ref) {
    record('beginJudging', ref);
    return { moved: true, judgeKind: scriptOf(ref).judgeKind };
  },
  async waitForJudgingSlots(ref) {
    record('waitForJudgingSlots', ref);
    return scriptOf(ref).stale ? { stale: true, slots: 0 } : { stale: false, slots: 2 };
  },
  async judgeSubmission(input) {
    record('judgeSubmission', input, input);
    const fails = scriptOf(input).judgeFails;
    if (fails === 'retryable') {
      // Temporal's retry policy still counts the attempts; the wait between them is the failure's own.
      throw ApplicationFailure.create({ message: 'judge crashed', nextRetryDelay: '10ms' });
    }
    if (fails === 'non-retryable') {
      throw ApplicationFailure.create({ type: 'InvalidJudgeConfigError', message: 'no tests in the config' });
    }
    return {
      resultId: `result-${input.submissionId}`,
      finalScore: 0.75,
      resultState: 'final',
      stale: false,
      privatePending: scriptOf(input).privatePending ?? false,
    };
  },
  async waitForPrivatePassSlots(ref) {
    record('waitForPrivatePassSlots', ref);
    return { done: false, slots: 1 };
  },
  async judgePrivatePass(ref) {
    record('judgePrivatePass', ref);
    if (scriptOf(ref).privateFails) {
      throw ApplicationFailure.create({ type: 'GraderRejectedError', message: 'grader said no' });
    }
    return { stored: true };
  },
  async markPrivatePassFailed(input) {
    record('markPrivatePassFailed', input, input);
    return { stored: true };
  },
  async markSubmissionFailed(input) {
    record('markSubmissionFailed', input, input);
    return true;
  },
  async runSubmissionSweeper(input) {
    const info = Context.current().info;
    sweeps.push({ runForMs: input.runForMs, runId: info.workflowExecution?.runId ?? '' });
    return { passes: 1, workflowsStarted: 0, sessionsClosed: 0, stalledFailed: 0 };
  },
};
const sweeps: { runForMs: number; runId: string }[] = [];

let kit: WorkflowKit;
beforeAll(async () => {
  kit = await startWorkflowKit(activities);
}, 180_000);
afterAll(() => kit?.close());

async function runSubmission(script: Script) {
  const submissionId = kit.id('sub');
  scripts.set(submissionId, script);
  const handle = await kit.client.workflow.start('submissionWorkflow', {
    taskQueue: kit.taskQueue,
    workflowId: `submission-${submissionId}`,
    args: [{ submissionId, challengeId: 'challenge-1', agentId: 'agent-1', run: 0 }],
  });
  const result = (await handle.result()) as SubmissionWorkflowResult;
  const status = (await handle.describe()).typedSearchAttributes.get(SubmissionStatusKey);
  return { submissionId, result, status, calls: calls.get(submissionId) ?? [] };
}

describe('submissionWorkflow', () => {
  test('a sandboxed judge waits for its slots, judges on the judging task queue, then runs the private pass', async () => {
    const {
      submissionId,
      result,
      status,
      calls: made,
    } = await runSubmission({
      judgeKind: 'tests',
      privatePending: true,
    });
    expect(result).toEqual({
      status: 'complete',
      resultId: `result-${submissionId}`,
      finalScore: 0.75,
      resultState: 'final',
    });
    expect(status).toBe('complete');
    expect(made.map((c) => c.step)).toEqual([
      'beginJudging',
      'waitForJudgingSlots',
      'judgeSubmission',
      'waitForPrivatePassSlots',
      'judgePrivatePass',
    ]);
    const queueOf = (step: string) => made.find((c) => c.step === step)!.taskQueue;
    expect(queueOf('waitForJudgingSlots')).toBe(kit.taskQueue);
    expect(queueOf('judgeSubmission')).toBe(`${kit.taskQueue}-judging`);
    expect(queueOf('judgePrivatePass')).toBe(`${kit.taskQueue}-judging`);
    // The private part is judged in its own pass (split), after the public result.
    expect(made.find((c) => c.step === 'judgeSubmission')!.input).toEqual({
      submissionId,
      run: 0,
      split: true,
    });
  });

  test('the rubric judge runs as a local activity, without the queue; no private pass when none is pending', async () => {
    const { result, calls: made } = await runSubmission({ judgeKind: 'rubric' });
    expect(result.status).toBe('complete');
    expect(made.map((c) => [c.step, c.local])).toEqual([
      ['beginJudging', true],
      ['judgeSubmission', true],
    ]);
  });

  test('a run the queue finds stale ends stale without judging', async () => {
    const { submissionId, result } = await runSubmission({ judgeKind: 'tests', stale: true });
    expect(result).toEqual({ status: 'stale' });
    expect(stepsOf(submissionId)).toEqual(['beginJudging', 'waitForJudgingSlots']);
  });

  test(`a judge failing every attempt is tried ${JUDGE_MAX_ATTEMPTS} times, then the run is failed with the reason`, async () => {
    const { submissionId, result, status } = await runSubmission({
      judgeKind: 'http',
      judgeFails: 'retryable',
    });
    const reason = `judging failed after ${JUDGE_MAX_ATTEMPTS} attempts: judge crashed`;
    expect(result).toEqual({ status: 'failed', reason });
    expect(status).toBe('failed');
    expect(stepsOf(submissionId).filter((s) => s === 'judgeSubmission')).toHaveLength(JUDGE_MAX_ATTEMPTS);
    expect(calls.get(submissionId)!.at(-1)).toMatchObject({
      step: 'markSubmissionFailed',
      input: { submissionId, run: 0, reason },
    });
  });

  test('a non-retryable judge error fails the run at once', async () => {
    const { submissionId, result } = await runSubmission({ judgeKind: 'http', judgeFails: 'non-retryable' });
    expect(result).toEqual({ status: 'failed', reason: 'judging failed: no tests in the config' });
    expect(stepsOf(submissionId)).toEqual(['beginJudging', 'judgeSubmission', 'markSubmissionFailed']);
  });

  test('a private pass that cannot finish is stored with its reason; the public result stands', async () => {
    const { submissionId, result } = await runSubmission({
      judgeKind: 'http',
      privatePending: true,
      privateFails: true,
    });
    expect(result.status).toBe('complete');
    expect(calls.get(submissionId)!.at(-1)).toMatchObject({
      step: 'markPrivatePassFailed',
      input: { submissionId, run: 0, reason: 'private pass: judging failed: grader said no' },
    });
  });
});

test('submissionSweeperWorkflow sweeps for runForMs, then continues as new with the same input', async () => {
  const workflowId = kit.id('submission-sweeper');
  const handle = await kit.client.workflow.start('submissionSweeperWorkflow', {
    taskQueue: kit.taskQueue,
    workflowId,
    args: [{ runForMs: 1234 }],
  });
  try {
    const runs = await until(() => {
      const mine = sweeps.filter((s) => s.runForMs === 1234);
      return mine.length >= 2 && mine;
    });
    expect(runs[0]!.runId).toBe(handle.firstExecutionRunId);
    expect(runs[1]!.runId).not.toBe(runs[0]!.runId);
  } finally {
    await handle.terminate('test over');
  }
});

test('submissionOutcomeWorkflow only carries its input (the failed run, for the Temporal UI)', async () => {
  const input: SubmissionOutcomeInput = {
    submissionId: 'sub-x',
    run: 1,
    status: 'failed',
    reason: 'stalled',
  };
  const result = await kit.client.workflow.execute('submissionOutcomeWorkflow', {
    taskQueue: kit.taskQueue,
    workflowId: kit.id('submission-outcome'),
    args: [input],
  });
  expect(result).toEqual(input);
});
