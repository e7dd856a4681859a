/**
 * A form sent while signed out keeps what was typed (DESIGN, "Submitting code the way people do";
 * docs/decisions/web.md "A form sent while signed out"): its text fields are stashed server-side
 * for ten minutes under a secret only this browser holds (a cookie), the person signs in, and
 * /unsent shows them with a button that sends them again. Nothing is ever sent on their behalf.
 */
import type { Pool } from 'pg';
import { generateSecret, sha256Hex } from '../../auth/secrets';
import {
  findWebFormStash,
  insertWebFormStash,
  type WebFormStashRow,
} from '../../db/queries/web-form-stashes';

export const FORM_STASH_PREFIX = 'ccs_fs_';
export const FORM_STASH_TTL_SECONDS = 600;
/** Where the sign-in returns to when a form was stashed. */
export const UNSENT_FORM_PATH = '/unsent';
/** Fields never kept: the old session's CSRF token. */
const DROPPED = new Set(['_csrf']);
const MAX_FIELDS = 200;
const MAX_CHARS = 1_000_000;

/** Stashes the typed fields; answers the secret for the browser's cookie (null: nothing worth keeping). */
export async function stashForm(
  db: Pool,
  form: { action: string; page: string; fields: Record<string, string[]>; hadFiles: boolean },
): Promise<string | null> {
  const fields: [string, string][] = [];
  let chars = 0;
  for (const [name, values] of Object.entries(form.fields)) {
    if (DROPPED.has(name)) continue;
    for (const value of values) {
      chars += name.length + value.length;
      if (fields.length >= MAX_FIELDS || chars > MAX_CHARS) return null;
      fields.push([name, value]);
    }
  }
  if (fields.length === 0 && !form.hadFiles) return null;
  const secret = generateSecret(FORM_STASH_PREFIX);
  await insertWebFormStash(db, {
    secretHash: sha256Hex(secret),
    action: form.action,
    page: form.page,
    fields,
    hadFiles: form.hadFiles,
    ttlSeconds: FORM_STASH_TTL_SECONDS,
  });
  return secret;
}

/** The stash this browser's cookie names, while it lasts. */
export async function findStashedForm(db: Pool, secret: string | undefined): Promise<WebFormStashRow | null> {
  if (!secret?.startsWith(FORM_STASH_PREFIX) || secret.length > 200) return null;
  return findWebFormStash(db, sha256Hex(secret));
}
