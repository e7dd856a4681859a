/**
 * The workflow starts' store in memory (WorkflowStartStore, src/db/queries/submissions.ts), for
 * the unit tier. test/contracts/workflow-start-store.cases.ts holds it and the SQL store to the
 * same cases.
 */
import type { WorkflowStartStore } from '../../../src/db/queries/submissions';

export interface FakeWorkflowStartStore extends WorkflowStartStore {
  /** Each submission's current run and when its workflow was recorded as started (null: not yet). */
  readonly submissions: Map<string, { judgeRun: number; workflowStartedAt: Date | null }>;
  /** Every call, in order (a repeated start is asked to record again). */
  readonly marks: { id: string; run: number }[];
}

export function createFakeWorkflowStartStore(): FakeWorkflowStartStore {
  const submissions = new Map<string, { judgeRun: number; workflowStartedAt: Date | null }>();
  const marks: { id: string; run: number }[] = [];
  return {
    submissions,
    marks,
    async markWorkflowStarted(id, run) {
      marks.push({ id, run });
      const row = submissions.get(id);
      // As the UPDATE's WHERE: the current run only, and the first time is kept.
      if (row && row.judgeRun === run && row.workflowStartedAt === null) row.workflowStartedAt = new Date();
    },
  };
}
