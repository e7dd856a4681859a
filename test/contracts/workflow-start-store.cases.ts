/**
 * The workflow starts' store contract: the same cases against the in-memory store (unit tier,
 * test/unit/contracts/workflow-start-store.test.ts) and the SQL one on PostgreSQL
 * (test/service/workflow-start-store.test.ts).
 */
import type { WorkflowStartStore } from '../../src/db/queries/submissions';

export interface WorkflowStartStoreHarness {
  store: WorkflowStartStore;
  /** A submission of its own whose current run is `judgeRun`, its workflow not recorded as started. */
  newSubmission(judgeRun: number): Promise<string>;
  /** When the submission's workflow was recorded as started (null: not yet). */
  startedAt(id: string): Promise<Date | null>;
}

export function workflowStartStoreContract(harness: () => WorkflowStartStoreHarness): void {
  let h: WorkflowStartStoreHarness;
  beforeEach(() => {
    h = harness();
  });

  test("the current run's start is recorded once: a repeat keeps the first time", async () => {
    const id = await h.newSubmission(2);
    expect(await h.startedAt(id)).toBeNull();
    await h.store.markWorkflowStarted(id, 2);
    const first = await h.startedAt(id);
    expect(first).toBeInstanceOf(Date);
    await h.store.markWorkflowStarted(id, 2);
    expect(await h.startedAt(id)).toEqual(first);
  });

  test('another run than the current one records nothing; an unknown submission is no error', async () => {
    const id = await h.newSubmission(1);
    await h.store.markWorkflowStarted(id, 0);
    await h.store.markWorkflowStarted(id, 2);
    expect(await h.startedAt(id)).toBeNull();
    await expect(
      h.store.markWorkflowStarted('00000000-0000-4000-8000-0000000000cc', 0),
    ).resolves.toBeUndefined();
  });
}
