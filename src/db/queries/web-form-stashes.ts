import type { Queryable } from '../pool';
import { queryOne } from '../pool';

export interface WebFormStashRow {
  /** The person the form was rendered for (its signed `_csrf`). */
  user_id: string;
  action: string;
  page: string;
  fields: [string, string][];
  had_files: boolean;
  created_at: Date;
}

export async function insertWebFormStash(
  db: Queryable,
  s: {
    secretHash: string;
    userId: string;
    action: string;
    page: string;
    fields: [string, string][];
    hadFiles: boolean;
    ttlSeconds: number;
  },
): Promise<void> {
  await db.query('DELETE FROM web_form_stashes WHERE expires_at < now()');
  await db.query(
    `INSERT INTO web_form_stashes (secret_hash, user_id, action, page, fields, had_files, expires_at)
     VALUES ($1, $2, $3, $4, $5::jsonb, $6, now() + make_interval(secs => $7::int))`,
    [s.secretHash, s.userId, s.action, s.page, JSON.stringify(s.fields), s.hadFiles, s.ttlSeconds],
  );
}

export function findWebFormStash(db: Queryable, secretHash: string): Promise<WebFormStashRow | null> {
  return queryOne<WebFormStashRow>(
    db,
    `SELECT user_id, action, page, fields, had_files, created_at FROM web_form_stashes
     WHERE secret_hash = $1 AND expires_at > now()`,
    [secretHash],
  );
}

export async function deleteWebFormStash(db: Queryable, secretHash: string): Promise<void> {
  await db.query('DELETE FROM web_form_stashes WHERE secret_hash = $1', [secretHash]);
}

/** Every form kept for this person, on any browser (sign out everywhere). */
export async function deleteWebFormStashesOfUser(db: Queryable, userId: string): Promise<void> {
  await db.query('DELETE FROM web_form_stashes WHERE user_id = $1', [userId]);
}
