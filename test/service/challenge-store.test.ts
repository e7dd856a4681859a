/**
 * The challenges' store contract (test/contracts/challenge-store.cases.ts) on PostgreSQL. A
 * database of its own: its drafts and their events stay out of the shared one's listings and
 * outbox.
 */
import { randomBytes } from 'node:crypto';
import { sqlChallengeStore } from '../../src/db/queries/challenge-transitions';
import { challengeStoreContract } from '../contracts/challenge-store.cases';
import { scratchPool } from '../helpers/scratch-database';

const pool = scratchPool('challenge_store');

describe('the SQL challenges store', () => {
  challengeStoreContract(() => ({
    store: sqlChallengeStore(pool()),
    async newChallenge() {
      const res = await pool().query<{ id: string }>(
        `INSERT INTO challenges (title, description, category, format, weight_class_id, status, judge, starts_at, ends_at)
         VALUES ('Contract', 'contract', 'coding', 'solo', 'open', 'draft', $1, now() + interval '1 day', now() + interval '8 days')
         RETURNING id`,
        [JSON.stringify({ kind: 'rubric', criteria: [{ name: 'works', weight: 1, pattern: 'x' }] })],
      );
      return res.rows[0].id;
    },
    async newUser() {
      const res = await pool().query<{ id: string }>(
        `INSERT INTO users (subject, name) VALUES ($1, 'contract') RETURNING id`,
        [`contract|${randomBytes(6).toString('hex')}`],
      );
      return res.rows[0].id;
    },
    async audits(challengeId) {
      const res = await pool().query<{ action: string; detail: unknown }>(
        `SELECT action, detail FROM audit_records WHERE target_type = 'challenge' AND target_id = $1 ORDER BY at`,
        [challengeId],
      );
      return res.rows;
    },
    async events(challengeId) {
      const res = await pool().query<{ type: string; payload: unknown; owner: string | null }>(
        `SELECT event_type AS type, payload, owner_user_id AS owner FROM outbox_events
          WHERE challenge_id = $1 ORDER BY created_at`,
        [challengeId],
      );
      return res.rows;
    },
  }));
});
