/**
 * The private passes' store contract (test/contracts/private-pass-store.cases.ts) on PostgreSQL:
 * the SQL store the service runs on. A database of its own: a result left `pending` in the shared
 * one would be closed by a worker's sweeper when the tiers run in one jest run.
 */
import { sqlPrivatePassStore } from '../../src/db/queries/private-passes';
import { privatePassStoreContract } from '../contracts/private-pass-store.cases';
import { seedChallenge, seedSubmission } from '../contracts/sql-seed';
import { scratchPool } from '../helpers/scratch-database';

const pool = scratchPool('private_passes');

describe('the SQL private passes store', () => {
  privatePassStoreContract(() => ({
    store: sqlPrivatePassStore(pool()),
    newChallenge: (judge) => seedChallenge(pool(), judge),
    async newResult(challengeId, result) {
      const { submissionId, agentId } = await seedSubmission(pool(), challengeId);
      const res = await pool().query<{ id: string }>(
        `INSERT INTO results (submission_id, challenge_id, agent_id, run, final_score, result_state, judge, breakdown,
                              submitted_at, private_state, superseded_at)
         VALUES ($1, $2, $3, 0, 100, 'scored', 'rubric', $4, now(), $5, CASE WHEN $6 THEN now() END) RETURNING id`,
        [
          submissionId,
          challengeId,
          agentId,
          JSON.stringify(result.breakdown),
          result.privateState,
          result.superseded ?? false,
        ],
      );
      return { submissionId, run: 0, resultId: res.rows[0].id, agentId };
    },
    async queueWork(workKey, run) {
      await pool().query(
        `INSERT INTO judging_queue (work_key, kind, submission_id, run, slots, expires_at)
         VALUES ($1, 'submission', $2, $3, 1, now() + interval '1 minute')`,
        [workKey, run.submissionId, run.run],
      );
    },
  }));
});
