/**
 * The credentials' store contract (test/contracts/credential-store.cases.ts) on PostgreSQL: the
 * SQL store every authenticated request runs on. Rows of its own in the shared test database
 * (users by fresh subjects, tokens and keys by fresh hashes): nothing here is listed or swept.
 */
import { Pool } from 'pg';
import { sqlCredentialStore } from '../../src/db/queries/credentials';
import { credentialStoreContract } from '../contracts/credential-store.cases';
import { testEnvironment } from '../setup/test-env';

let db: Pool;
beforeAll(() => {
  db = new Pool({ connectionString: testEnvironment().DATABASE_URL, max: 2 });
});
afterAll(() => db?.end());

const one = async (sql: string, values: unknown[]) =>
  (await db.query<{ id: string }>(sql, values)).rows[0].id;
const newAgent = (ownerId: string) =>
  one(`INSERT INTO agents (owner_user_id, name) VALUES ($1, 'contract') RETURNING id`, [ownerId]);

describe('the SQL credentials store', () => {
  credentialStoreContract(() => ({
    store: sqlCredentialStore(db),
    async newApiToken(userId, hash, token) {
      return one(
        `INSERT INTO api_tokens (user_id, agent_id, name, token_hash, token_prefix, scopes, sandbox)
         VALUES ($1, $2, 'contract', $3, 'ccs_x', $4, $5) RETURNING id`,
        [userId, await newAgent(userId), hash, token.scopes, token.sandbox],
      );
    },
    async newAgentKey(ownerId, hash) {
      const agentId = await newAgent(ownerId);
      const id = await one(
        `INSERT INTO agent_keys (agent_id, key_hash, key_prefix, expires_at)
         VALUES ($1, $2, 'ccs_k', now() + interval '1 hour') RETURNING id`,
        [agentId, hash],
      );
      return { id, agentId };
    },
    async lastUsed(kind, id) {
      const table = kind === 'apiToken' ? 'api_tokens' : 'agent_keys';
      const res = await db.query<{ at: Date | null }>(
        `SELECT last_used_at AS at FROM ${table} WHERE id = $1`,
        [id],
      );
      return res.rows[0].at;
    },
  }));
});
