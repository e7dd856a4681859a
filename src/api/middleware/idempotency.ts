import { createHash } from 'node:crypto';
import type { Pool } from 'pg';
import { ApiError } from '../errors';

export const IDEMPOTENCY_KEY_PATTERN = /^[0-9a-fA-F]{64}$/;
const KEPT_FOR_HOURS = 24;
/** An in-progress record older than this is taken to belong to a crashed request. */
const STALE_AFTER_MS = 60_000;
const WAIT_FOR_ORIGINAL_MS = 15_000;

export interface StoredResponse {
  status: number;
  body: unknown;
}

/** Canonical JSON (sorted keys) so that the same body in another key order is the same request. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

export function requestHash(body: unknown): string {
  return createHash('sha256').update(canonicalJson(body)).digest('hex');
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Runs `execute` at most once per (scope, key) within 24 h. Concurrent duplicates wait for the
 * first and get its response; a different body under the same key is 409 IDEMPOTENCY_KEY_REUSED.
 * Failed executions (4xx/5xx) are not kept, so the caller may retry with the same key.
 */
export async function runIdempotent(
  db: Pool,
  scope: string,
  key: string,
  bodyHash: string,
  execute: () => Promise<StoredResponse>,
): Promise<{ response: StoredResponse; replayed: boolean }> {
  const deadline = Date.now() + WAIT_FOR_ORIGINAL_MS;
  for (;;) {
    const claimed = await db.query(
      `INSERT INTO idempotency_keys (scope, key, request_hash, expires_at)
       VALUES ($1, $2, $3, now() + make_interval(hours => $4))
       ON CONFLICT (scope, key) DO UPDATE
         SET request_hash = EXCLUDED.request_hash, state = 'in_progress', created_at = now(),
             expires_at = EXCLUDED.expires_at, response_status = NULL, response_body = NULL
         WHERE idempotency_keys.expires_at < now()
            OR (idempotency_keys.state = 'in_progress' AND idempotency_keys.created_at < now() - make_interval(secs => $5))
       RETURNING key`,
      [scope, key, bodyHash, KEPT_FOR_HOURS, STALE_AFTER_MS / 1000],
    );
    if (claimed.rowCount === 1) {
      let response: StoredResponse;
      try {
        response = await execute();
      } catch (err) {
        await db.query('DELETE FROM idempotency_keys WHERE scope = $1 AND key = $2', [scope, key]).catch(() => undefined);
        throw err;
      }
      await db.query(
        `UPDATE idempotency_keys SET state = 'done', response_status = $3, response_body = $4 WHERE scope = $1 AND key = $2`,
        [scope, key, response.status, JSON.stringify(response.body)],
      );
      return { response, replayed: false };
    }
    const existing = await db.query<{ request_hash: string; state: string; response_status: number | null; response_body: unknown }>(
      'SELECT request_hash, state, response_status, response_body FROM idempotency_keys WHERE scope = $1 AND key = $2',
      [scope, key],
    );
    const row = existing.rows[0];
    if (!row) continue; // the original failed and released the key: claim it now
    if (row.request_hash !== bodyHash) {
      throw new ApiError('IDEMPOTENCY_KEY_REUSED', 'this Idempotency-Key was already used with a different request body');
    }
    if (row.state === 'done' && row.response_status !== null) {
      return { response: { status: row.response_status, body: row.response_body }, replayed: true };
    }
    if (Date.now() > deadline) {
      throw new ApiError('CONFLICT', 'a request with this Idempotency-Key is still in progress; retry later');
    }
    await sleep(50);
  }
}
