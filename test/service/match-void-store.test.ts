/**
 * The match voids' store contract (test/contracts/match-void-store.cases.ts) on PostgreSQL. A
 * database of its own: a running match without a workflow in the shared one would be voided by a
 * worker's sweeper when the tiers run in one jest run.
 */
import { sqlMatchVoidStore } from '../../src/db/queries/match-finish';
import { matchVoidStoreContract } from '../contracts/match-void-store.cases';
import { seedChallenge, seedSubmission } from '../contracts/sql-seed';
import { scratchPool } from '../helpers/scratch-database';

const pool = scratchPool('match_voids');

describe('the SQL match voids store', () => {
  matchVoidStoreContract(() => ({
    store: sqlMatchVoidStore(pool()),
    async newMatch(status, owners) {
      const challengeId = await seedChallenge(pool());
      const match = await pool().query<{ id: string }>(
        `INSERT INTO matches (challenge_id, weight_class_id, kind, status, rated, origin, completed_at)
         VALUES ($1, 'open', 'game', $2, false, 'exhibition', CASE WHEN $2 = 'complete' THEN now() END)
         RETURNING id`,
        [challengeId, status],
      );
      const id = match.rows[0].id;
      const ownerIds: string[] = [];
      for (let seat = 1; seat <= owners; seat += 1) {
        const { agentId } = await seedSubmission(pool(), challengeId);
        const owner = await pool().query<{ owner: string }>(
          `INSERT INTO match_participants (match_id, agent_id, seat, owner_user_id)
           SELECT $1, a.id, $3, a.owner_user_id FROM agents a WHERE a.id = $2 RETURNING owner_user_id AS owner`,
          [id, agentId, seat],
        );
        ownerIds.push(owner.rows[0].owner);
      }
      return { id, owners: ownerIds };
    },
    async match(id) {
      const res = await pool().query<{ status: string; reason: string | null; finished: boolean }>(
        'SELECT status, reason, completed_at IS NOT NULL AS finished FROM matches WHERE id = $1',
        [id],
      );
      return res.rows[0] ?? null;
    },
    async audits(matchId) {
      const res = await pool().query<{ actor: string; action: string; detail: unknown }>(
        `SELECT actor, action, detail FROM audit_records WHERE target_type = 'match' AND target_id = $1 ORDER BY at`,
        [matchId],
      );
      return res.rows;
    },
    async events(matchId) {
      const res = await pool().query<{ type: string; owner: string | null }>(
        `SELECT event_type AS type, owner_user_id AS owner FROM outbox_events
          WHERE payload->>'match_id' = $1 ORDER BY created_at, owner_user_id`,
        [matchId],
      );
      return res.rows;
    },
  }));
});
