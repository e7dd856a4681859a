import type { Queryable } from '../pool';
import { queryOne } from '../pool';
import type { StorableText } from '../../lib/storable-text';

export interface UserRow {
  id: string;
  subject: string;
  name: string | null;
  role: 'user' | 'admin';
  created_at: Date;
}

/** The JWT is the source of truth for name and role: refreshed on every authenticated call. */
export async function upsertUserBySubject(
  db: Queryable,
  subject: string,
  /** The identity provider's words: storable text. */
  name: StorableText | null,
  role: 'user' | 'admin',
): Promise<UserRow> {
  const row = await queryOne<UserRow>(
    db,
    `INSERT INTO users (subject, name, role) VALUES ($1, $2, $3)
     ON CONFLICT (subject) DO UPDATE SET name = COALESCE(EXCLUDED.name, users.name), role = EXCLUDED.role
       WHERE users.role IS DISTINCT FROM EXCLUDED.role OR users.name IS DISTINCT FROM COALESCE(EXCLUDED.name, users.name)
     RETURNING *`,
    [subject, name, role],
  );
  if (row) return row;
  // Nothing changed, so the upsert returned no row.
  const existing = await queryOne<UserRow>(db, 'SELECT * FROM users WHERE subject = $1', [subject]);
  if (!existing) throw new Error('user vanished during upsert');
  return existing;
}

export async function findUserById(db: Queryable, id: string): Promise<UserRow | null> {
  return queryOne<UserRow>(db, 'SELECT * FROM users WHERE id = $1', [id]);
}

/** Serialises a user's quota-checked writes (active tokens, active webhook subscriptions). */
export async function lockUser(db: Queryable, userId: string): Promise<void> {
  await db.query('SELECT 1 FROM users WHERE id = $1 FOR UPDATE', [userId]);
}

/** Display names by subject (null where the provider gave none), for pages that show who acted. */
export async function userNamesBySubject(
  db: Queryable,
  subjects: string[],
): Promise<Map<string, string | null>> {
  if (subjects.length === 0) return new Map();
  const res = await db.query<{ subject: string; name: string | null }>(
    'SELECT subject, name FROM users WHERE subject = ANY($1::text[])',
    [subjects],
  );
  return new Map(res.rows.map((r) => [r.subject, r.name]));
}
