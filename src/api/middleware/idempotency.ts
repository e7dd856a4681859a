import { createHash } from 'node:crypto';
import type { Pool } from 'pg';
import { ApiError } from '../errors';
import { canonicalJson } from '../../lib/canonical-json';
import {
  claimIdempotencyKey,
  findIdempotencyKey,
  releaseIdempotencyClaim,
  storeIdempotentResponse,
} from '../../db/queries/idempotency-keys';

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
    const claimId = await claimIdempotencyKey(db, {
      scope,
      key,
      requestHash: bodyHash,
      keptForHours: KEPT_FOR_HOURS,
      staleAfterMs,
    });
    if (claimId) {
      const release = () => releaseIdempotencyClaim(db, scope, key, claimId);
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
      await storeIdempotentResponse(db, scope, key, claimId, response);
      return { response, replayed: false };
    }
    const row = await findIdempotencyKey(db, scope, key);
    if (!row) continue; // the original failed and released the key: claim it now
    if (row.request_hash !== bodyHash) {
      throw new ApiError(
        'IDEMPOTENCY_KEY_REUSED',
        'this Idempotency-Key was already used with a different request body',
      );
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
