/**
 * The webhook workflows (delivery series, first-attempt batch, subscription health) in a Temporal
 * test environment (test/helpers/workflow-env.ts) over scripted activities typed against the real
 * ones. The retry series runs in milliseconds (its delays are the workflow's input); the spec's
 * default schedule is proved on its pure function (test/unit/domain/webhooks/schedule.test.ts) and
 * reaches the activity as the default here. HTTP, the database and the receiver's view of the real
 * timing are test/system/webhooks-*.test.ts.
 */
import { ApplicationFailure } from '@temporalio/common';
import type { DeliverySteps } from '../../../src/domain/webhooks/delivery';
import {
  ATTEMPT_OUTCOME_SIGNAL,
  DEFAULT_RETRY_DELAYS_MS,
  HEALTH_STATE_QUERY,
  IN_ACTIVITY_WAIT_MAX_MS,
  TIMER_LEAD_MS,
  type AttemptOutcomeSignal,
  type DeliverAttemptInput,
  type DeliverAttemptResult,
  type FirstAttemptsActivityInput,
  type SubscriptionHealthInput,
  type SubscriptionHealthState,
  type WebhookDeliveryInput,
} from '../../../src/domain/webhooks/contract';
import { startWorkflowKit, until, type WorkflowKit } from '../../helpers/workflow-env';

jest.setTimeout(120_000);

/** What the receiver (or the database) does at each attempt of a scripted delivery. */
type Step = 'fail' | 'fail-unreported' | 'ok' | 'gone' | 'inactive' | 'superseded' | 'infra';
const scripts = new Map<string, Step[]>();
const attempts = new Map<
  string,
  { input: DeliverAttemptInput; calledAt: number; attemptedAtMs: number | null }[]
>();
const reported: { outcome: AttemptOutcomeSignal; start: SubscriptionHealthInput }[] = [];
const abandoned: { deliveryId: string; series: number; reason: string }[] = [];
const batches = new Map<string, { firstAttempts: number; handedOver: FirstAttemptsActivityInput[] }>();
const failingBatches = new Set<string>();
const health = new Map<
  string,
  { persisted: number[]; disabled: { generation: number; failureCount: number; reachedCount?: number }[] }
>();
const healthOf = (id: string) => {
  if (!health.has(id)) health.set(id, { persisted: [], disabled: [] });
  return health.get(id)!;
};

/** Retried at once: Temporal's policy still counts the attempts, the wait is the failure's own. */
const infraFailure = () =>
  ApplicationFailure.create({ message: 'database unavailable', nextRetryDelay: '10ms' });

function attemptResult(step: Step, input: DeliverAttemptInput, attemptedAtMs: number): DeliverAttemptResult {
  const last = input.attemptNumber === input.totalAttempts;
  const base = { unreportedOutcome: null, healthStart: null };
  switch (step) {
    case 'ok':
      return {
        ...base,
        attempted: true,
        ok: true,
        statusCode: 200,
        gone: false,
        final: true,
        deliveryStatus: 'delivered',
        attemptedAtMs,
      };
    case 'gone':
      return {
        ...base,
        attempted: true,
        ok: false,
        statusCode: 410,
        gone: true,
        final: true,
        deliveryStatus: 'dead_letter',
        attemptedAtMs,
      };
    case 'inactive':
      return {
        ...base,
        attempted: false,
        ok: false,
        statusCode: null,
        gone: false,
        final: true,
        deliveryStatus: 'dead_letter',
        attemptedAtMs: null,
      };
    case 'superseded':
      return {
        ...base,
        attempted: false,
        ok: false,
        statusCode: null,
        gone: false,
        final: true,
        deliveryStatus: 'superseded',
        attemptedAtMs: null,
      };
    default: {
      const failed: DeliverAttemptResult = {
        ...base,
        attempted: true,
        ok: false,
        statusCode: 503,
        gone: false,
        final: last,
        deliveryStatus: last ? 'dead_letter' : 'retrying',
        attemptedAtMs,
      };
      if (step !== 'fail-unreported') return failed;
      // The attempt could not signal the health workflow: the delivery workflow hands the outcome over.
      const outcome = {
        key: `${input.deliveryId}:0:${input.attemptNumber}`,
        subscriptionId: 'sub-1',
        generation: 1,
        success: false,
        gone: false,
      };
      return {
        ...failed,
        unreportedOutcome: outcome,
        healthStart: { subscriptionId: 'sub-1', failureCount: 0, generation: 1 },
      };
    }
  }
}

const activities: Pick<
  DeliverySteps,
  | 'deliverWebhookAttempt'
  | 'deliverFirstAttempts'
  | 'handOverBatchMembers'
  | 'reportAttemptOutcome'
  | 'persistSubscriptionFailureCount'
  | 'disableSubscriptionForFailures'
  | 'abandonWebhookDelivery'
> = {
  async deliverWebhookAttempt(input) {
    const calledAt = Date.now();
    const step = scripts.get(input.deliveryId)![input.attemptNumber - 1]!;
    const list = attempts.get(input.deliveryId) ?? [];
    attempts.set(input.deliveryId, list);
    if (step === 'infra') {
      list.push({ input, calledAt, attemptedAtMs: null });
      throw infraFailure();
    }
    // As the real step (delivery.ts): the request goes out no sooner than the schedule's moment,
    // in a loop, since a Node timer may fire a millisecond before its delay by Date.now() (CI, 29 Nov).
    const notBeforeMs = input.notBeforeMs ?? 0;
    while (Date.now() < notBeforeMs)
      await new Promise((r) => setTimeout(r, Math.max(1, notBeforeMs - Date.now())));
    const attemptedAtMs = Date.now();
    list.push({ input, calledAt, attemptedAtMs });
    return attemptResult(step, input, attemptedAtMs);
  },
  async deliverFirstAttempts(input) {
    const batch = batches.get(input.batchWorkflowId) ?? { firstAttempts: 0, handedOver: [] };
    batches.set(input.batchWorkflowId, batch);
    batch.firstAttempts++;
    if (failingBatches.has(input.batchWorkflowId)) throw infraFailure();
    return {
      deliveries: [
        { deliveryId: 'd-1', outcome: 'delivered', statusCode: 200 },
        { deliveryId: 'd-2', outcome: 'retrying', statusCode: 503 },
      ],
    };
  },
  async handOverBatchMembers(input) {
    batches.get(input.batchWorkflowId)!.handedOver.push(input);
    return 2;
  },
  async reportAttemptOutcome(input) {
    reported.push(input);
  },
  async persistSubscriptionFailureCount(input) {
    healthOf(input.subscriptionId).persisted.push(input.failureCount);
  },
  async disableSubscriptionForFailures(input) {
    healthOf(input.subscriptionId).disabled.push({
      generation: input.generation,
      failureCount: input.failureCount,
      reachedCount: input.reachedCount,
    });
    return true;
  },
  async abandonWebhookDelivery(input) {
    abandoned.push(input);
  },
};

let kit: WorkflowKit;
beforeAll(async () => {
  kit = await startWorkflowKit(activities);
}, 180_000);
afterAll(() => kit?.close());

async function deliver(steps: Step[], input: Partial<WebhookDeliveryInput> = {}) {
  const deliveryId = kit.id('delivery');
  scripts.set(deliveryId, steps);
  const handle = await kit.client.workflow.start('webhookDeliveryWorkflow', {
    taskQueue: kit.taskQueue,
    workflowId: `webhook-delivery-${deliveryId}`,
    args: [{ deliveryId, series: 0, ...input }],
  });
  const result = await handle.result();
  return { deliveryId, handle, result, made: attempts.get(deliveryId) ?? [] };
}

describe('webhookDeliveryWorkflow', () => {
  test('every attempt fails: 4 attempts, each no sooner than its delay after the previous one went out, then dead_letter', async () => {
    // One delay above IN_ACTIVITY_WAIT_MAX_MS (a Temporal timer, then the activity waits the rest), two below (the activity alone).
    const delays = [150, 1200, 300];
    expect(delays[1]!).toBeGreaterThan(IN_ACTIVITY_WAIT_MAX_MS);
    const { handle, result, made } = await deliver(['fail', 'fail', 'fail', 'fail'], {
      retryDelaysMs: delays,
      timeoutMs: 2000,
    });
    expect(result).toEqual({ status: 'dead_letter', attempts: 4 });
    expect(
      made.map((a) => [a.input.attemptNumber, a.input.totalAttempts, a.input.nextDelayMs, a.input.timeoutMs]),
    ).toEqual([
      [1, 4, 150, 2000],
      [2, 4, 1200, 2000],
      [3, 4, 300, 2000],
      [4, 4, null, 2000],
    ]);
    expect(made[0]!.input.notBeforeMs).toBeNull();
    for (let i = 1; i < 4; i++) {
      // Counted from when the previous request went out, not from when its activity ended.
      expect(made[i]!.input.notBeforeMs).toBe(made[i - 1]!.attemptedAtMs! + delays[i - 1]!);
    }
    // The long wait slept on a timer ending TIMER_LEAD_MS early, the activity waiting the rest. (The
    // short ones may start a timer too when the machine is slow: the workflow's clock is the task's
    // start, before the previous attempt went out.)
    expect(made[2]!.calledAt).toBeGreaterThanOrEqual(made[2]!.input.notBeforeMs! - TIMER_LEAD_MS);
    const timers = (await handle.fetchHistory()).events!.filter((e) => e.timerStartedEventAttributes);
    expect(timers.length).toBeGreaterThanOrEqual(1);
  });

  test('the spec schedule is the default input: 4 attempts, the next one 1 s later', async () => {
    const { result, made } = await deliver(['ok']);
    expect(result).toEqual({ status: 'delivered', attempts: 1 });
    expect(made[0]!.input).toMatchObject({
      attemptNumber: 1,
      totalAttempts: 4,
      nextDelayMs: DEFAULT_RETRY_DELAYS_MS[0],
      timeoutMs: 10_000,
    });
  });

  test('delivered at the second attempt; an outcome the attempt could not signal is reported by the workflow', async () => {
    const { deliveryId, result } = await deliver(['fail-unreported', 'ok'], { retryDelaysMs: [50, 50, 50] });
    expect(result).toEqual({ status: 'delivered', attempts: 2 });
    expect(reported.filter((r) => r.outcome.key.startsWith(deliveryId))).toEqual([
      {
        outcome: {
          key: `${deliveryId}:0:1`,
          subscriptionId: 'sub-1',
          generation: 1,
          success: false,
          gone: false,
        },
        start: { subscriptionId: 'sub-1', failureCount: 0, generation: 1 },
      },
    ]);
  });

  test('410 Gone, an inactive subscription and a superseded series end the series', async () => {
    const fast = { retryDelaysMs: [20, 20, 20] };
    expect((await deliver(['gone'], fast)).result).toEqual({ status: 'dead_letter', attempts: 1 });
    expect((await deliver(['fail', 'inactive'], fast)).result).toEqual({
      status: 'dead_letter',
      attempts: 1,
    });
    expect((await deliver(['fail', 'fail', 'superseded'], fast)).result).toEqual({
      status: 'superseded',
      attempts: 2,
    });
  });

  test('a series handed over by a batch continues after attempt 1, its delay counted from that attempt', async () => {
    const attemptedAtMs = Date.now();
    const { result, made } = await deliver(['fail', 'ok'], {
      retryDelaysMs: [400, 50, 50],
      startAfterAttempt: { attemptNumber: 1, attemptedAtMs },
    });
    expect(result).toEqual({ status: 'delivered', attempts: 2 });
    expect(made.map((a) => a.input.attemptNumber)).toEqual([2]);
    expect(made[0]!.input.notBeforeMs).toBe(attemptedAtMs + 400);
    expect(made[0]!.attemptedAtMs!).toBeGreaterThanOrEqual(attemptedAtMs + 400);
  });

  test('infrastructure down through every retry of an attempt: the delivery is abandoned visibly', async () => {
    const { deliveryId, result, made } = await deliver(['fail', 'infra'], { retryDelaysMs: [20, 20, 20] });
    expect(result).toEqual({ status: 'dead_letter', attempts: 1 });
    // The attempt's infrastructure retries (maximumAttempts 12), then the abandon step.
    expect(made.filter((a) => a.input.attemptNumber === 2)).toHaveLength(12);
    expect(abandoned.filter((a) => a.deliveryId === deliveryId)).toEqual([
      { deliveryId, series: 0, reason: 'delivery abandoned after repeated infrastructure errors' },
    ]);
  });
});

describe('webhookFirstAttemptsWorkflow', () => {
  test("one activity makes the batch's first attempts, with the default schedule for the retries it hands over", async () => {
    const workflowId = kit.id('webhook-delivery-batch');
    const result = await kit.client.workflow.execute('webhookFirstAttemptsWorkflow', {
      taskQueue: kit.taskQueue,
      workflowId,
      args: [{}],
    });
    expect(result).toEqual({
      deliveries: [
        { deliveryId: 'd-1', outcome: 'delivered', statusCode: 200 },
        { deliveryId: 'd-2', outcome: 'retrying', statusCode: 503 },
      ],
    });
    expect(batches.get(workflowId)).toEqual({ firstAttempts: 1, handedOver: [] });
  });

  test('infrastructure down through every retry: every member is handed over to its own delivery workflow', async () => {
    const workflowId = kit.id('webhook-delivery-batch');
    failingBatches.add(workflowId);
    const result = await kit.client.workflow.execute('webhookFirstAttemptsWorkflow', {
      taskQueue: kit.taskQueue,
      workflowId,
      args: [{ retryDelaysMs: [10, 20], timeoutMs: 500 }],
    });
    expect(result).toEqual({ deliveries: [] });
    expect(batches.get(workflowId)).toEqual({
      firstAttempts: 12,
      handedOver: [{ batchWorkflowId: workflowId, retryDelaysMs: [10, 20], timeoutMs: 500 }],
    });
  });
});

describe('subscriptionHealthWorkflow', () => {
  async function startHealth(input: Partial<SubscriptionHealthInput> = {}) {
    const subscriptionId = kit.id('subscription');
    const handle = await kit.client.workflow.start('subscriptionHealthWorkflow', {
      taskQueue: kit.taskQueue,
      workflowId: `subscription-health-${subscriptionId}`,
      args: [{ subscriptionId, failureCount: 0, generation: 1, ...input }],
    });
    let n = 0;
    const send = async (success: boolean, extra: Partial<AttemptOutcomeSignal> = {}) =>
      handle.signal(ATTEMPT_OUTCOME_SIGNAL, {
        key: `d:0:${++n}`,
        subscriptionId,
        generation: 1,
        success,
        gone: false,
        ...extra,
      });
    const state = () => handle.query<SubscriptionHealthState>(HEALTH_STATE_QUERY);
    return { subscriptionId, handle, send, state };
  }

  test('10 consecutive failures disable the subscription once; a repeated outcome counts once', async () => {
    const { subscriptionId, handle, send, state } = await startHealth();
    for (let i = 0; i < 9; i++) await send(false);
    await send(false, { key: 'd:0:9' }); // the 9th again (a retried activity): not counted
    await until(
      async () => (await state()).signalsThisRun === 10 && healthOf(subscriptionId).persisted.at(-1) === 9,
    );
    expect(healthOf(subscriptionId).disabled).toEqual([]);
    await send(false);
    await until(() => healthOf(subscriptionId).disabled.length > 0);
    expect(healthOf(subscriptionId).disabled).toEqual([
      { generation: 1, failureCount: 10, reachedCount: 10 },
    ]);
    await send(false);
    await until(() => healthOf(subscriptionId).persisted.at(-1) === 11);
    expect(healthOf(subscriptionId).disabled).toHaveLength(1);
    await handle.terminate('test over');
  });

  test('a success resets the count; outcomes of attempts made before a re-enable are ignored', async () => {
    const { subscriptionId, handle, send, state } = await startHealth();
    for (let i = 0; i < 3; i++) await send(false);
    await until(() => healthOf(subscriptionId).persisted.at(-1) === 3);
    await send(true);
    await until(() => healthOf(subscriptionId).persisted.at(-1) === 0);
    // Re-enabled (generation 2): a late failure of generation 1 does not count.
    await send(false, { generation: 2 });
    await send(false, { generation: 1 });
    await until(async () => (await state()).signalsThisRun === 6);
    expect(await state()).toMatchObject({ failureCount: 1, generation: 2 });
    await handle.terminate('test over');
  });

  test('continues as new after maxSignalsPerRun, keeping its count; an idle run ends after idleTimeoutMs', async () => {
    const { subscriptionId, handle, send, state } = await startHealth({
      maxSignalsPerRun: 3,
      idleTimeoutMs: 1500,
    });
    for (let i = 0; i < 3; i++) await send(false);
    const next = await until(async () => {
      const d = await handle.describe();
      return d.runId !== handle.firstExecutionRunId && d;
    });
    expect(next.status.name).toBe('RUNNING');
    expect(await state()).toMatchObject({ failureCount: 3, signalsThisRun: 0 });
    // Nothing more comes: the run ends by itself, the count persisted for the next one.
    await expect(kit.client.workflow.getHandle(handle.workflowId).result()).resolves.toBeUndefined();
    expect(healthOf(subscriptionId).persisted.at(-1)).toBe(3);
  });
});
