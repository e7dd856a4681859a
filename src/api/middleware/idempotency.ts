import { createHash } from 'node:crypto';
import type { Pool } from 'pg';
import { ApiError } from '../errors';
import { canonicalJson } from '../../lib/canonical-json';

export const IDEMPOTENCY_KEY_PATTERN = /^[0-9a-fA-F]{64}$/;
const KEPT_FOR_HOURS = 24;
/** An in-progress record older than this is taken to belong to a crashed request. */
const STALE_AFTER_MS = 60_000;
const WAIT_FOR_ORIGINAL_MS = 15_000;
const POLL_MS = 50;

export interface StoredResponse {
  status: number;
  body: unknown;
}

/** Tuning knobs (tests shorten them); the defaults are the documented behaviour. */
export interface IdempotencyOptions {
  /** An in-progress claim older than this may be taken over by a retry of the same request. */
  staleAfterMs?: number;
  /** How long a concurrent duplicate waits for the original before answering 409 CONFLICT. */
  waitForOriginalMs?: number;
}

export function requestHash(body: unknown): string {
  return createHash('sha256').update(canonicalJson(body)).digest('hex');
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const isSuccess = (status: number) => status >= 200 && status < 300;

/**
 * Runs `execute` at most once per (scope, key) within 24 h. Concurrent duplicates wait for the
 * first and get its response; a different body under the same key is 409 IDEMPOTENCY_KEY_REUSED.
 * Only successful (2xx) outcomes are kept: a failed execution (thrown, or a non-2xx result)
 * releases the key, so the caller may retry with the same key.
 *
 * Every claim carries a fresh claim_id (fencing token): an in-progress record older than
 * `staleAfterMs` is taken to belong to a crashed request and a retry of the *same* request may
 * take it over; should the slow original finish after all, it can no longer complete or release
 * the record now held by the retry.
 */
export async function runIdempotent(
  db: Pool,
  scope: string,
  key: string,
  bodyHash: string,
  execute: () => Promise<StoredResponse>,
  options: IdempotencyOptions = {},
): Promise<{ response: StoredResponse; replayed: boolean }> {
  const staleAfterMs = options.staleAfterMs ?? STALE_AFTER_MS;
  const deadline = Date.now() + (options.waitForOriginalMs ?? WAIT_FOR_ORIGINAL_MS);
  for (;;) {
    const claimed = await db.query<{ claim_id: string }>(
      `INSERT INTO idempotency_keys (scope, key, request_hash, claim_id, expires_at)
       VALUES ($1, $2, $3, gen_random_uuid(), now() + make_interval(hours => $4))
       ON CONFLICT (scope, key) DO UPDATE
         SET request_hash = EXCLUDED.request_hash, claim_id = EXCLUDED.claim_id, state = 'in_progress',
             created_at = now(), expires_at = EXCLUDED.expires_at, response_status = NULL, response_body = NULL
         WHERE idempotency_keys.expires_at < now()
            OR (idempotency_keys.state = 'in_progress'
                AND idempotency_keys.request_hash = EXCLUDED.request_hash
                AND idempotency_keys.created_at < now() - make_interval(secs => $5))
       RETURNING claim_id`,
      [scope, key, bodyHash, KEPT_FOR_HOURS, staleAfterMs / 1000],
    );
    const claimId = claimed.rows[0]?.claim_id;
    if (claimId) {
      const release = () =>
        db.query('DELETE FROM idempotency_keys WHERE scope = $1 AND key = $2 AND claim_id = $3', [scope, key, claimId]);
      let response: StoredResponse;
      try {
        response = await execute();
      } catch (err) {
        await release().catch(() => undefined);
        throw err;
      }
      if (!isSuccess(response.status)) {
        await release();
        return { response, replayed: false };
      }
      // Updates nothing when a retry took the claim over meanwhile: that retry's outcome is kept.
      await db.query(
        `UPDATE idempotency_keys SET state = 'done', response_status = $4, response_body = $5
          WHERE scope = $1 AND key = $2 AND claim_id = $3`,
        [scope, key, claimId, response.status, JSON.stringify(response.body ?? null)],
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
    await sleep(POLL_MS);
  }
}
