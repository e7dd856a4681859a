import type { Queryable } from '../pool';
import { queryOne } from '../pool';

export type SubscriptionStatus = 'active' | 'inactive' | 'disabled';

export interface WebhookSubscriptionRow {
  id: string;
  owner_user_id: string;
  url: string;
  events: string[];
  secret_encrypted: string;
  secret_prefix: string;
  status: SubscriptionStatus;
  failure_count: number;
  enable_generation: number;
  last_delivery_at: Date | null;
  last_failure_at: Date | null;
  disabled_at: Date | null;
  disabled_reason: string | null;
  deactivated_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = `id, owner_user_id, url, events, secret_encrypted, secret_prefix, status, failure_count,
  enable_generation, last_delivery_at, last_failure_at, disabled_at, disabled_reason, deactivated_at, created_at, updated_at`;

export interface NewSubscription {
  ownerUserId: string;
  url: string;
  events: string[];
  secretEncrypted: string;
  secretPrefix: string;
}

export async function insertSubscription(db: Queryable, s: NewSubscription): Promise<WebhookSubscriptionRow> {
  const row = await queryOne<WebhookSubscriptionRow>(
    db,
    `INSERT INTO webhook_subscriptions (owner_user_id, url, events, secret_encrypted, secret_prefix)
     VALUES ($1, $2, $3, $4, $5) RETURNING ${COLUMNS}`,
    [s.ownerUserId, s.url, s.events, s.secretEncrypted, s.secretPrefix],
  );
  return row!;
}

export async function countActiveSubscriptions(db: Queryable, ownerUserId: string): Promise<number> {
  const res = await db.query<{ n: string }>(
    `SELECT count(*) AS n FROM webhook_subscriptions WHERE owner_user_id = $1 AND status = 'active'`,
    [ownerUserId],
  );
  return Number(res.rows[0]!.n);
}

export function findSubscription(db: Queryable, id: string): Promise<WebhookSubscriptionRow | null> {
  return queryOne<WebhookSubscriptionRow>(db, `SELECT ${COLUMNS} FROM webhook_subscriptions WHERE id = $1`, [
    id,
  ]);
}

/** Just the status and generation (the attempt activity's last check before sending). */
export function findSubscriptionState(
  db: Queryable,
  id: string,
): Promise<Pick<WebhookSubscriptionRow, 'status' | 'enable_generation'> | null> {
  return queryOne(db, 'SELECT status, enable_generation FROM webhook_subscriptions WHERE id = $1', [id]);
}

export async function listSubscriptionsByOwner(
  db: Queryable,
  ownerUserId: string,
  status?: SubscriptionStatus,
): Promise<WebhookSubscriptionRow[]> {
  const res = await db.query<WebhookSubscriptionRow>(
    `SELECT ${COLUMNS} FROM webhook_subscriptions
      WHERE owner_user_id = $1 AND ($2::text IS NULL OR status = $2)
      ORDER BY created_at DESC, id`,
    [ownerUserId, status ?? null],
  );
  return res.rows;
}

export interface SubscriptionMatch {
  /** Index of the event in the input arrays. */
  event_index: number;
  subscription_id: string;
}

/**
 * Active subscriptions for many events at once (one query per dispatch pass). Each event: its type,
 * its owner (or null) and whether it is broadcast to every subscriber of the type.
 */
export async function findMatchingSubscriptionsForEvents(
  db: Queryable,
  events: { eventType: string; ownerUserId: string | null; broadcast: boolean }[],
): Promise<SubscriptionMatch[]> {
  if (events.length === 0) return [];
  const res = await db.query<{ event_index: string; subscription_id: string }>(
    `SELECT e.idx AS event_index, s.id AS subscription_id
       FROM unnest($1::text[], $2::uuid[], $3::boolean[]) WITH ORDINALITY AS e(event_type, owner_user_id, broadcast, idx)
       JOIN webhook_subscriptions s
         ON s.status = 'active' AND s.events @> ARRAY[e.event_type]
        AND (e.broadcast OR s.owner_user_id = e.owner_user_id)
      ORDER BY e.idx, s.created_at, s.id`,
    [events.map((e) => e.eventType), events.map((e) => e.ownerUserId), events.map((e) => e.broadcast)],
  );
  return res.rows.map((r) => ({
    event_index: Number(r.event_index) - 1,
    subscription_id: r.subscription_id,
  }));
}

/** Active subscriptions an event goes to (see domain/webhooks/fan-out.ts for who gets what). */
export async function findMatchingSubscriptions(
  db: Queryable,
  eventType: string,
  ownerUserId: string | null,
  broadcast: boolean,
): Promise<Pick<WebhookSubscriptionRow, 'id'>[]> {
  const res = await db.query<{ id: string }>(
    `SELECT id FROM webhook_subscriptions
      WHERE status = 'active' AND events @> ARRAY[$1]::text[]
        AND ($3::boolean OR owner_user_id = $2)
      ORDER BY created_at, id`,
    [eventType, ownerUserId, broadcast],
  );
  return res.rows;
}

/** DELETE: active or disabled → inactive (terminal). Returns the row (already inactive rows unchanged). */
export function deactivateSubscription(db: Queryable, id: string): Promise<WebhookSubscriptionRow | null> {
  return queryOne<WebhookSubscriptionRow>(
    db,
    `UPDATE webhook_subscriptions
        SET status = 'inactive', deactivated_at = COALESCE(deactivated_at, now()), updated_at = now()
      WHERE id = $1
      RETURNING ${COLUMNS}`,
    [id],
  );
}

/** PATCH {active: true}: disabled → active, failure count reset, new generation. */
export function reenableSubscription(db: Queryable, id: string): Promise<WebhookSubscriptionRow | null> {
  return queryOne<WebhookSubscriptionRow>(
    db,
    `UPDATE webhook_subscriptions
        SET status = 'active', failure_count = 0, enable_generation = enable_generation + 1,
            disabled_at = NULL, disabled_reason = NULL, updated_at = now()
      WHERE id = $1 AND status = 'disabled'
      RETURNING ${COLUMNS}`,
    [id],
  );
}

/** Disables an active subscription of the given generation (health workflow, or a 410 answer). */
export function disableSubscription(
  db: Queryable,
  id: string,
  generation: number,
  reason: string,
  failureCount?: number,
): Promise<WebhookSubscriptionRow | null> {
  return queryOne<WebhookSubscriptionRow>(
    db,
    `UPDATE webhook_subscriptions
        SET status = 'disabled', disabled_at = now(), disabled_reason = $3,
            failure_count = COALESCE($4::int, failure_count), updated_at = now()
      WHERE id = $1 AND enable_generation = $2 AND status = 'active'
      RETURNING ${COLUMNS}`,
    [id, generation, reason, failureCount ?? null],
  );
}

/** Persists the health workflow's consecutive-failure count (ignored for an older generation). */
export async function setFailureCount(
  db: Queryable,
  id: string,
  generation: number,
  failureCount: number,
): Promise<boolean> {
  const res = await db.query(
    `UPDATE webhook_subscriptions SET failure_count = $3, updated_at = now()
      WHERE id = $1 AND enable_generation = $2 AND failure_count <> $3`,
    [id, generation, failureCount],
  );
  return (res.rowCount ?? 0) > 0;
}

/**
 * Removes a subscription with its deliveries and their attempts (a `webhooks listen` receiver
 * leaving nothing behind). The row is locked first, so no delivery can be added meanwhile (an
 * insert referencing it waits, then fails its foreign key and is retried by the dispatcher). In
 * the caller's transaction. Returns the row as it was, or null when there was none.
 */
export async function purgeSubscription(db: Queryable, id: string): Promise<WebhookSubscriptionRow | null> {
  const row = await queryOne<WebhookSubscriptionRow>(
    db,
    `SELECT ${COLUMNS} FROM webhook_subscriptions WHERE id = $1 FOR UPDATE`,
    [id],
  );
  if (!row) return null;
  await db.query(
    `DELETE FROM webhook_attempts WHERE delivery_id IN (SELECT id FROM webhook_deliveries WHERE subscription_id = $1)`,
    [id],
  );
  await db.query('DELETE FROM webhook_deliveries WHERE subscription_id = $1', [id]);
  await db.query('DELETE FROM webhook_subscriptions WHERE id = $1', [id]);
  return { ...row, status: 'inactive' };
}

/** The subscription, share-locked: a concurrent disable or delete waits for this transaction. */
export function findSubscriptionForShare(db: Queryable, id: string): Promise<WebhookSubscriptionRow | null> {
  return queryOne<WebhookSubscriptionRow>(db, 'SELECT * FROM webhook_subscriptions WHERE id = $1 FOR SHARE', [
    id,
  ]);
}
