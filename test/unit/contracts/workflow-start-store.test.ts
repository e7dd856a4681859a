/** The workflow starts' store contract (test/contracts/workflow-start-store.cases.ts) on the in-memory store. */
import { randomUUID } from 'node:crypto';
import { workflowStartStoreContract } from '../../contracts/workflow-start-store.cases';
import { createFakeWorkflowStartStore } from '../../fakes/stores/workflow-starts';

describe('the in-memory workflow starts store', () => {
  workflowStartStoreContract(() => {
    const store = createFakeWorkflowStartStore();
    return {
      store,
      async newSubmission(judgeRun) {
        const id = randomUUID();
        store.submissions.set(id, { judgeRun, workflowStartedAt: null });
        return id;
      },
      async startedAt(id) {
        return store.submissions.get(id)?.workflowStartedAt ?? null;
      },
    };
  });
});
