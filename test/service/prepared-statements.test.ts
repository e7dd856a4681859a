/**
 * Hot reads are named statements, prepared once per connection (src/db/pool.ts queryOne). A cached
 * plan whose result columns change fails ("cached plan must not change result type"), so those
 * reads select named columns: a migration that adds a column must not break connections that
 * already prepared them. Runs on a scratch database of its own (migrated here), because altering
 * a table of the shared test database would disturb suites running beside this one.
 */
import { Pool } from 'pg';
import { findApiTokenByHash } from '../../src/db/queries/api-tokens';
import {
  findChallengeById,
  insertChallenge,
  listChallenges,
  type ChallengeFields,
} from '../../src/db/queries/challenges';
import { scratchDatabase } from '../helpers/scratch-database';

const scratch = scratchDatabase('prepared');

beforeAll(async () => {
  await scratch.create();
}, 60_000);
afterAll(() => scratch.drop());

test('reads prepared before a column is added keep working after it', async () => {
  const pool = new Pool({ connectionString: scratch.url, max: 1 });
  const filter = { statuses: ['active' as const, 'complete' as const] };
  try {
    const fields: ChallengeFields = {
      title: 'prepared',
      description: 'a challenge to prepare statements against',
      category: 'probe',
      format: 'text',
      weight_class_id: 'open',
      time_limit_minutes: null,
      entry_fee_cents: null,
      prize_pool: null,
      starts_at: null,
      ends_at: null,
      is_featured: false,
      is_daily: false,
      judge: { kind: 'rubric', criteria: [] },
      max_submissions_per_session: 3,
      max_submissions_per_day: null,
      final_submissions: 2,
      freeze_minutes: 0,
    };
    const created = await insertChallenge(pool, fields, { status: 'active' });
    const challengeId = created!.id;
    // Prepared on the pool's only connection.
    const before = await listChallenges(pool, filter, { limit: 5, offset: 0 });
    expect(before.total).toBe(1);
    expect((await findChallengeById(pool, challengeId))?.id).toBe(challengeId);
    expect(await findApiTokenByHash(pool, 'f'.repeat(64))).toBeNull();

    await pool.query('ALTER TABLE challenges ADD COLUMN prepared_statement_probe integer');
    const after = await listChallenges(pool, filter, { limit: 5, offset: 0 });
    expect(after.rows.map((r) => r.id)).toEqual([challengeId]);
    const row = await findChallengeById(pool, challengeId);
    expect(row?.id).toBe(challengeId);
    expect(row).not.toHaveProperty('prepared_statement_probe');
  } finally {
    await pool.end();
  }
});
