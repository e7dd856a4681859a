import type { Queryable } from '../pool';
import { queryOne } from '../pool';

export interface WebFormStashRow {
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
    action: string;
    page: string;
    fields: [string, string][];
    hadFiles: boolean;
    ttlSeconds: number;
  },
): Promise<void> {
  await db.query('DELETE FROM web_form_stashes WHERE expires_at < now()');
  await db.query(
    `INSERT INTO web_form_stashes (secret_hash, action, page, fields, had_files, expires_at)
     VALUES ($1, $2, $3, $4::jsonb, $5, now() + make_interval(secs => $6::int))`,
    [s.secretHash, s.action, s.page, JSON.stringify(s.fields), s.hadFiles, s.ttlSeconds],
  );
}

export function findWebFormStash(db: Queryable, secretHash: string): Promise<WebFormStashRow | null> {
  return queryOne<WebFormStashRow>(
    db,
    `SELECT action, page, fields, had_files, created_at FROM web_form_stashes
     WHERE secret_hash = $1 AND expires_at > now()`,
    [secretHash],
  );
}
