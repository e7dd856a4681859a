/**
 * The clarifications store's contract (test/contracts/clarification-store.cases.ts) on PostgreSQL:
 * the SQL store the service runs on. Needs the database only, a database of its own (the cases
 * count the unanswered questions of the whole table).
 */
import { randomBytes } from 'node:crypto';
import { sqlClarificationStore } from '../../src/db/queries/clarifications';
import { clarificationStoreContract } from '../contracts/clarification-store.cases';
import { scratchPool } from '../helpers/scratch-database';

const pool = scratchPool('clarifications');

describe('the SQL clarifications store', () => {
  clarificationStoreContract(() => ({
    store: sqlClarificationStore(pool()),
    async newChallenge(status = 'active') {
      const title = `challenge ${randomBytes(3).toString('hex')}`;
      const res = await pool().query<{ id: string }>(
        `INSERT INTO challenges (title, description, category, format, weight_class_id, status, judge)
         VALUES ($1, 'contract', 'coding', 'solo', 'open', $2, $3) RETURNING id`,
        [
          title,
          status,
          JSON.stringify({ kind: 'rubric', criteria: [{ name: 'a', check: { type: 'exact', value: 'x' } }] }),
        ],
      );
      return { id: res.rows[0].id, title };
    },
    async newUser() {
      const res = await pool().query<{ id: string }>(
        `INSERT INTO users (subject, name) VALUES ($1, 'contract') RETURNING id`,
        [`contract|${randomBytes(6).toString('hex')}`],
      );
      return res.rows[0].id;
    },
  }));
});
