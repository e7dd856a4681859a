/**
 * A form sent while signed out keeps what was typed (DESIGN, "Submitting code the way people do";
 * docs/decisions/web.md "A form sent while signed out"): its text fields are stashed server-side
 * for ten minutes under a secret only this browser holds (a cookie), the person signs in, and
 * /unsent shows them with a button that sends them again. Nothing is ever sent on their behalf.
 * The stash belongs to the person the form was rendered for (its signed `_csrf`, rules.ts), not to
 * the browser (issue 38): shown only to them, dropped at sign-out and when someone else signs in.
 */
import type { Pool } from 'pg';
import { generateSecret, sha256Hex } from '../../auth/secrets';
import {
  deleteWebFormStash,
  deleteWebFormStashesOfUser,
  findWebFormStash,
  insertWebFormStash,
  type WebFormStashRow,
} from '../../db/queries/web-form-stashes';
import { mayReadStashedForm } from './policy';

export const FORM_STASH_PREFIX = 'ccs_fs_';
export const FORM_STASH_TTL_SECONDS = 600;
/** Where the sign-in returns to when a form was stashed. */
export const UNSENT_FORM_PATH = '/unsent';
/** Fields never kept: the old session's CSRF token. */
const DROPPED = new Set(['_csrf']);
const MAX_FIELDS = 200;
const MAX_CHARS = 1_000_000;

/**
 * Stashes the typed fields for `userId` (the person the form was rendered for); answers the secret
 * for the browser's cookie (null: nothing worth keeping).
 */
export async function stashForm(
  db: Pool,
  form: { userId: string; action: string; page: string; fields: Record<string, string[]>; hadFiles: boolean },
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
    userId: form.userId,
    action: form.action,
    page: form.page,
    fields,
    hadFiles: form.hadFiles,
    ttlSeconds: FORM_STASH_TTL_SECONDS,
  });
  return secret;
}

const validSecret = (secret: string | undefined): secret is string =>
  secret !== undefined && secret.startsWith(FORM_STASH_PREFIX) && secret.length <= 200;

/**
 * The stash this browser's cookie names, while it lasts, when it is the signed-in person's; another
 * person's is dropped (never shown, not kept for later).
 */
export async function findStashedFormFor(
  db: Pool,
  secret: string | undefined,
  session: { userId: string },
): Promise<WebFormStashRow | null> {
  if (!validSecret(secret)) return null;
  const stash = await findWebFormStash(db, sha256Hex(secret));
  if (!stash) return null;
  if (mayReadStashedForm(session, stash)) return stash;
  await deleteWebFormStash(db, sha256Hex(secret));
  return null;
}

/**
 * A sign-in on this browser: the stash stays only when it is the signing-in person's. Answers whether
 * the browser still holds one (false: its cookie can go).
 */
export async function keepStashOnlyFor(
  db: Pool,
  secret: string | undefined,
  session: { userId: string },
): Promise<boolean> {
  return (await findStashedFormFor(db, secret, session)) !== null;
}

/** Sign-out: this browser's stash goes, and with "everywhere" every one kept for the person. */
export async function dropStashedForms(
  db: Pool,
  secret: string | undefined,
  everywhereFor?: { userId: string },
): Promise<void> {
  if (validSecret(secret)) await deleteWebFormStash(db, sha256Hex(secret));
  if (everywhereFor) await deleteWebFormStashesOfUser(db, everywhereFor.userId);
}
