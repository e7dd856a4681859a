/**
 * The workflow starts' store contract (test/contracts/workflow-start-store.cases.ts) on
 * PostgreSQL. A database of its own: a submission without a recorded start in the shared one would
 * be started by a worker's sweeper when the tiers run in one jest run.
 */
import { sqlWorkflowStartStore } from '../../src/db/queries/submissions';
import { workflowStartStoreContract } from '../contracts/workflow-start-store.cases';
import { seedChallenge, seedSubmission } from '../contracts/sql-seed';
import { scratchPool } from '../helpers/scratch-database';

const pool = scratchPool('workflow_starts');

describe('the SQL workflow starts store', () => {
  workflowStartStoreContract(() => ({
    store: sqlWorkflowStartStore(pool()),
    async newSubmission(judgeRun) {
      return (await seedSubmission(pool(), await seedChallenge(pool()), judgeRun)).submissionId;
    },
    async startedAt(id) {
      const res = await pool().query<{ at: Date | null }>(
        'SELECT workflow_started_at AS at FROM submissions WHERE id = $1',
        [id],
      );
      return res.rows[0].at;
    },
  }));
});
