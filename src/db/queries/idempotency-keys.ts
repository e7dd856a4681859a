import type { Queryable } from '../pool';
import { queryOne } from '../pool';

export interface IdempotencyKeyRow {
  request_hash: string;
  state: string;
  response_status: number | null;
  response_body: unknown;
}

/**
 * Claims (scope, key) for a request: a fresh key, an expired one, or an in-progress claim of the
 * same request older than `staleAfterMs` (its request crashed). Returns the new claim id (a fencing
 * token), or null when someone else holds the key.
 */
export async function claimIdempotencyKey(
  db: Queryable,
  claim: { scope: string; key: string; requestHash: string; keptForHours: number; staleAfterMs: number },
): Promise<string | null> {
  const row = await queryOne<{ claim_id: string }>(
    db,
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
    [claim.scope, claim.key, claim.requestHash, claim.keptForHours, claim.staleAfterMs / 1000],
  );
  return row?.claim_id ?? null;
}

/** Gives the key up (the request failed): only the holder of `claimId` can. */
export async function releaseIdempotencyClaim(
  db: Queryable,
  scope: string,
  key: string,
  claimId: string,
): Promise<void> {
  await db.query('DELETE FROM idempotency_keys WHERE scope = $1 AND key = $2 AND claim_id = $3', [
    scope,
    key,
    claimId,
  ]);
}

/** Keeps the response; updates nothing when a retry took the claim over meanwhile (that retry's outcome is kept). */
export async function storeIdempotentResponse(
  db: Queryable,
  scope: string,
  key: string,
  claimId: string,
  response: { status: number; body: unknown },
): Promise<void> {
  await db.query(
    `UPDATE idempotency_keys SET state = 'done', response_status = $4, response_body = $5
      WHERE scope = $1 AND key = $2 AND claim_id = $3`,
    [scope, key, claimId, response.status, JSON.stringify(response.body ?? null)],
  );
}

export function findIdempotencyKey(
  db: Queryable,
  scope: string,
  key: string,
): Promise<IdempotencyKeyRow | null> {
  return queryOne<IdempotencyKeyRow>(
    db,
    'SELECT request_hash, state, response_status, response_body FROM idempotency_keys WHERE scope = $1 AND key = $2',
    [scope, key],
  );
}
