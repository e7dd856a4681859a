/**
 * The workflow starts' store contract (test/contracts/workflow-start-store.cases.ts) on
 * PostgreSQL. A database of its own: a submission without a recorded start in the shared one would
 * be started by a worker's sweeper when the tiers run in one jest run.
 */
import { Pool } from 'pg';
import { sqlWorkflowStartStore } from '../../src/db/queries/submissions';
import { workflowStartStoreContract } from '../contracts/workflow-start-store.cases';
import { seedChallenge, seedSubmission } from '../contracts/sql-seed';
import { scratchDatabase } from '../helpers/scratch-database';

const scratch = scratchDatabase('workflow_starts');
let db: Pool;
beforeAll(async () => {
  await scratch.create();
  db = new Pool({ connectionString: scratch.url, max: 2 });
}, 120_000);
afterAll(async () => {
  await db?.end();
  await scratch.drop();
});

describe('the SQL workflow starts store', () => {
  workflowStartStoreContract(() => ({
    store: sqlWorkflowStartStore(db),
    async newSubmission(judgeRun) {
      return (await seedSubmission(db, await seedChallenge(db), judgeRun)).submissionId;
    },
    async startedAt(id) {
      const res = await db.query<{ at: Date | null }>(
        'SELECT workflow_started_at AS at FROM submissions WHERE id = $1',
        [id],
      );
      return res.rows[0].at;
    },
  }));
});
