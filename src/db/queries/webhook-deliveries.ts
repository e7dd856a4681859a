import type { StorableText } from '../../lib/storable-text';
import type { Queryable } from '../pool';
import { queryOne } from '../pool';

export type DeliveryStatus = 'pending' | 'retrying' | 'delivered' | 'dead_letter';
export const DELIVERY_STATUSES = ['pending', 'retrying', 'delivered', 'dead_letter'] as const;

export interface WebhookDeliveryRow {
  id: string;
  subscription_id: string;
  event_id: string | null;
  event_type: string;
  body: string;
  status: DeliveryStatus;
  series: number;
  attempt_count: number;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: Date | null;
  delivered_at: Date | null;
  dead_lettered_at: Date | null;
  workflow_id: string;
  /** Set when the first attempt runs in a batch workflow (series 0 only); null: its own workflow does it. */
  batch_workflow_id: string | null;
  workflow_started_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface WebhookAttemptRow {
  delivery_id: string;
  series: number;
  attempt_number: number;
  status_code: number | null;
  latency_ms: number;
  success: boolean;
  error: string | null;
  response_excerpt: string | null;
  attempted_at: Date;
}

const COLUMNS = `id, subscription_id, event_id, event_type, body, status, series, attempt_count, last_status_code,
  last_error, next_attempt_at, delivered_at, dead_lettered_at, workflow_id, batch_workflow_id, workflow_started_at, created_at, updated_at`;
/** COLUMNS as `d.<column>`, for joins. */
const QUALIFIED_COLUMNS = COLUMNS.replace(/(^|,\s*)(\w+)/g, '$1d.$2');
const ATTEMPT_COLUMNS =
  'delivery_id, series, attempt_number, status_code, latency_ms, success, error, response_excerpt, attempted_at';

export interface NewDelivery {
  id: string;
  subscriptionId: string;
  eventId: string;
  eventType: string;
  body: string;
}

/** Inserts the deliveries that do not exist yet; returns only the newly created ones. */
export async function insertDeliveries(
  db: Queryable,
  deliveries: NewDelivery[],
): Promise<WebhookDeliveryRow[]> {
  if (deliveries.length === 0) return [];
  const res = await db.query<WebhookDeliveryRow>(
    `INSERT INTO webhook_deliveries (id, subscription_id, event_id, event_type, body, workflow_id)
     SELECT d.id, d.subscription_id, d.event_id, d.event_type, d.body, 'webhook-delivery-' || d.id
       FROM unnest($1::text[], $2::uuid[], $3::uuid[], $4::text[], $5::text[])
            AS d(id, subscription_id, event_id, event_type, body)
     ON CONFLICT ON CONSTRAINT webhook_deliveries_event_subscription_key DO NOTHING
     RETURNING ${COLUMNS}`,
    [
      deliveries.map((d) => d.id),
      deliveries.map((d) => d.subscriptionId),
      deliveries.map((d) => d.eventId),
      deliveries.map((d) => d.eventType),
      deliveries.map((d) => d.body),
    ],
  );
  return res.rows;
}

export function findDelivery(db: Queryable, id: string): Promise<WebhookDeliveryRow | null> {
  return queryOne<WebhookDeliveryRow>(db, `SELECT ${COLUMNS} FROM webhook_deliveries WHERE id = $1`, [id]);
}

export async function listDeliveries(
  db: Queryable,
  subscriptionId: string,
  options: { status?: DeliveryStatus; limit: number },
): Promise<WebhookDeliveryRow[]> {
  const res = await db.query<WebhookDeliveryRow>(
    `SELECT ${COLUMNS} FROM webhook_deliveries
      WHERE subscription_id = $1 AND ($2::text IS NULL OR status = $2)
      ORDER BY seq DESC
      LIMIT $3`,
    [subscriptionId, options.status ?? null, options.limit],
  );
  return res.rows;
}

export async function findDeliveries(db: Queryable, ids: string[]): Promise<WebhookDeliveryRow[]> {
  if (ids.length === 0) return [];
  const res = await db.query<WebhookDeliveryRow>(
    `SELECT ${COLUMNS} FROM webhook_deliveries WHERE id = ANY($1::text[]) ORDER BY seq`,
    [ids],
  );
  return res.rows;
}

export interface DeliverySearch {
  status?: DeliveryStatus;
  subscriptionId?: string;
  eventType?: string;
  /** Subscriptions of this owner only (a subscriber's own view). */
  ownerUserId?: string;
  /** Created at or after. */
  since?: Date;
  /** Keyset: deliveries older (smaller seq) than this one. */
  beforeSeq: string | null;
  limit: number;
}

export type DeliverySearchRow = WebhookDeliveryRow & { seq: string; url: string; owner_user_id: string };

/** Deliveries across subscriptions, newest first (creation order); `limit` is the page size plus one. */
export async function searchDeliveries(db: Queryable, f: DeliverySearch): Promise<DeliverySearchRow[]> {
  const where: string[] = [];
  const args: unknown[] = [];
  const arg = (v: unknown) => {
    args.push(v);
    return `$${args.length}`;
  };
  if (f.status) where.push(`d.status = ${arg(f.status)}`);
  if (f.subscriptionId) where.push(`d.subscription_id = ${arg(f.subscriptionId)}`);
  if (f.eventType) where.push(`d.event_type = ${arg(f.eventType)}`);
  if (f.ownerUserId) where.push(`s.owner_user_id = ${arg(f.ownerUserId)}`);
  if (f.since) where.push(`d.created_at >= ${arg(f.since)}`);
  if (f.beforeSeq) where.push(`d.seq < ${arg(f.beforeSeq)}::bigint`);
  const res = await db.query<DeliverySearchRow>(
    `SELECT ${QUALIFIED_COLUMNS}, d.seq::text AS seq, s.url, s.owner_user_id
       FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id
      ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
      ORDER BY d.seq DESC
      LIMIT ${arg(f.limit)}`,
    args,
  );
  return res.rows;
}

export async function listAttempts(db: Queryable, deliveryIds: string[]): Promise<WebhookAttemptRow[]> {
  if (deliveryIds.length === 0) return [];
  const res = await db.query<WebhookAttemptRow>(
    `SELECT ${ATTEMPT_COLUMNS} FROM webhook_attempts
      WHERE delivery_id = ANY($1::text[])
      ORDER BY delivery_id, series, attempt_number`,
    [deliveryIds],
  );
  return res.rows;
}

export async function markWorkflowsStarted(db: Queryable, workflowIds: string[]): Promise<void> {
  if (workflowIds.length === 0) return;
  await db.query(
    `UPDATE webhook_deliveries SET workflow_started_at = now()
      WHERE workflow_id = ANY($1::text[]) AND workflow_started_at IS NULL`,
    [workflowIds],
  );
}

/** Puts deliveries (just created, same transaction) into first-attempt batches: one workflow id per group. */
export async function assignFirstAttemptBatches(
  db: Queryable,
  groups: { batchWorkflowId: string; deliveryIds: string[] }[],
): Promise<void> {
  const ids = groups.flatMap((g) => g.deliveryIds);
  if (ids.length === 0) return;
  await db.query(
    `UPDATE webhook_deliveries d SET batch_workflow_id = b.batch_workflow_id
       FROM unnest($1::text[], $2::text[]) AS b(id, batch_workflow_id)
      WHERE d.id = b.id AND d.series = 0`,
    [ids, groups.flatMap((g) => g.deliveryIds.map(() => g.batchWorkflowId))],
  );
}

export async function markBatchesStarted(db: Queryable, batchWorkflowIds: string[]): Promise<void> {
  if (batchWorkflowIds.length === 0) return;
  await db.query(
    `UPDATE webhook_deliveries SET workflow_started_at = now()
      WHERE batch_workflow_id = ANY($1::text[]) AND series = 0 AND workflow_started_at IS NULL`,
    [batchWorkflowIds],
  );
}

/** The members of a first-attempt batch, in creation order. */
export async function findBatchMembers(
  db: Queryable,
  batchWorkflowId: string,
): Promise<Pick<WebhookDeliveryRow, 'id' | 'series' | 'status'>[]> {
  const res = await db.query<Pick<WebhookDeliveryRow, 'id' | 'series' | 'status'>>(
    `SELECT id, series, status FROM webhook_deliveries WHERE batch_workflow_id = $1 ORDER BY seq`,
    [batchWorkflowId],
  );
  return res.rows;
}

/** Deliveries whose current series' workflow was never started (crash between commit and start). */
export async function findUnstartedDeliveries(
  db: Queryable,
  olderThanMs: number,
  limit: number,
): Promise<WebhookDeliveryRow[]> {
  const res = await db.query<WebhookDeliveryRow>(
    `SELECT ${COLUMNS} FROM webhook_deliveries
      WHERE workflow_started_at IS NULL AND updated_at < now() - make_interval(secs => $1::float / 1000)
      ORDER BY created_at
      LIMIT $2`,
    [olderThanMs, limit],
  );
  return res.rows;
}

/**
 * Opens a new attempt series (a replay): same id and body, status pending, attempts counted afresh.
 * Returns the updated row with its new series number and workflow id.
 */
export function beginReplay(db: Queryable, id: string): Promise<WebhookDeliveryRow | null> {
  return queryOne<WebhookDeliveryRow>(
    db,
    `UPDATE webhook_deliveries
        SET series = series + 1,
            workflow_id = 'webhook-delivery-' || id || '-replay-' || (series + 1),
            workflow_started_at = NULL,
            status = 'pending', attempt_count = 0, next_attempt_at = NULL,
            last_status_code = NULL, last_error = NULL, delivered_at = NULL, dead_lettered_at = NULL,
            updated_at = now()
      WHERE id = $1
      RETURNING ${COLUMNS}`,
    [id],
  );
}

/** Dead letters of a subscription created at or after `since` (bulk replay). */
export async function listDeadLetters(
  db: Queryable,
  subscriptionId: string,
  since: Date,
  limit: number,
): Promise<WebhookDeliveryRow[]> {
  const res = await db.query<WebhookDeliveryRow>(
    `SELECT ${COLUMNS} FROM webhook_deliveries
      WHERE subscription_id = $1 AND status = 'dead_letter' AND created_at >= $2
      ORDER BY seq
      LIMIT $3`,
    [subscriptionId, since, limit],
  );
  return res.rows;
}

/**
 * The latest run of dead letters of a subscription: those created after the last delivery that was
 * delivered before the newest dead letter (what failed while the endpoint was down, however many
 * new events were delivered since it came back), oldest first.
 */
export async function listLatestDeadLetterRun(
  db: Queryable,
  subscriptionId: string,
  limit: number,
): Promise<WebhookDeliveryRow[]> {
  const res = await db.query<WebhookDeliveryRow>(
    `WITH newest_dead AS (
       SELECT max(seq) AS seq FROM webhook_deliveries WHERE subscription_id = $1 AND status = 'dead_letter'
     ), last_ok AS (
       SELECT max(seq) AS seq FROM webhook_deliveries
        WHERE subscription_id = $1 AND status = 'delivered' AND seq < (SELECT seq FROM newest_dead)
     )
     SELECT ${COLUMNS} FROM webhook_deliveries
      WHERE subscription_id = $1 AND status = 'dead_letter'
        AND seq > COALESCE((SELECT seq FROM last_ok), 0)
      ORDER BY seq
      LIMIT $2`,
    [subscriptionId, limit],
  );
  return res.rows;
}

/** What the attempt activity needs: the delivery joined with its subscription (and this attempt, if recorded). */
export interface DeliveryTarget {
  id: string;
  subscription_id: string;
  event_type: string;
  body: string;
  series: number;
  url: string;
  secret_encrypted: string;
  subscription_status: 'active' | 'inactive' | 'disabled';
  enable_generation: number;
  failure_count: number;
  last_failure_at: Date | null;
  /** The attempt (series, attempt number) when it is already recorded. */
  recorded: WebhookAttemptRow | null;
}

export async function findDeliveryTarget(
  db: Queryable,
  deliveryId: string,
  series: number,
  attemptNumber: number,
): Promise<DeliveryTarget | null> {
  const row = await queryOne<
    Omit<DeliveryTarget, 'recorded'> & {
      recorded: (Omit<WebhookAttemptRow, 'attempted_at'> & { attempted_at: string }) | null;
    }
  >(
    db,
    `SELECT d.id, d.subscription_id, d.event_type, d.body, d.series, s.url, s.secret_encrypted,
            s.status AS subscription_status, s.enable_generation, s.failure_count, s.last_failure_at,
            (SELECT row_to_json(a) FROM (
               SELECT delivery_id, series, attempt_number, status_code, latency_ms, success, error, response_excerpt, attempted_at
                 FROM webhook_attempts WHERE delivery_id = d.id AND series = $2 AND attempt_number = $3) a) AS recorded
       FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id
      WHERE d.id = $1`,
    [deliveryId, series, attemptNumber],
  );
  if (!row) return null;
  return {
    ...row,
    recorded: row.recorded ? { ...row.recorded, attempted_at: new Date(row.recorded.attempted_at) } : null,
  };
}

export function findAttempt(
  db: Queryable,
  deliveryId: string,
  series: number,
  attemptNumber: number,
): Promise<WebhookAttemptRow | null> {
  return queryOne<WebhookAttemptRow>(
    db,
    `SELECT ${ATTEMPT_COLUMNS} FROM webhook_attempts WHERE delivery_id = $1 AND series = $2 AND attempt_number = $3`,
    [deliveryId, series, attemptNumber],
  );
}

export interface RecordedAttempt {
  deliveryId: string;
  subscriptionId: string;
  series: number;
  attemptNumber: number;
  statusCode: number | null;
  latencyMs: number;
  success: boolean;
  /** May quote the receiver (a TLS or socket error's words): storable text. */
  error: StorableText | null;
  /** What the receiver answered: storable text. */
  responseExcerpt: StorableText | null;
  attemptedAt: Date;
  /** Delivery status after this attempt. */
  nextStatus: DeliveryStatus;
  nextAttemptAt: Date | null;
  /** 410 Gone: disable the subscription (of this generation) now. */
  disableReason: string | null;
  generation: number;
}

/**
 * Records one attempt and its consequences in one statement: the attempt row (once), the delivery's
 * status (only while this series is the current one) and the subscription's last_delivery_at.
 */
export async function recordAttempt(db: Queryable, a: RecordedAttempt): Promise<void> {
  await db.query(
    `WITH attempt AS (
       INSERT INTO webhook_attempts (delivery_id, series, attempt_number, status_code, latency_ms, success, error, response_excerpt, attempted_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       ON CONFLICT ON CONSTRAINT webhook_attempts_once DO NOTHING
       RETURNING 1
     ), delivery AS (
       UPDATE webhook_deliveries
          SET status = $10, attempt_count = GREATEST(attempt_count, $3), last_status_code = $4, last_error = $7,
              next_attempt_at = $11,
              delivered_at = CASE WHEN $10 = 'delivered' THEN $9 ELSE delivered_at END,
              dead_lettered_at = CASE WHEN $10 = 'dead_letter' THEN now() ELSE dead_lettered_at END,
              updated_at = now()
        WHERE id = $1 AND series = $2 AND status IN ('pending', 'retrying')
        RETURNING 1
     )
     UPDATE webhook_subscriptions
        SET last_delivery_at = GREATEST(COALESCE(last_delivery_at, $9), $9),
            last_failure_at = CASE WHEN $6::boolean THEN last_failure_at ELSE GREATEST(COALESCE(last_failure_at, $9), $9) END,
            status = CASE WHEN $12::text IS NOT NULL AND status = 'active' AND enable_generation = $13 THEN 'disabled' ELSE status END,
            disabled_at = CASE WHEN $12::text IS NOT NULL AND status = 'active' AND enable_generation = $13 THEN now() ELSE disabled_at END,
            disabled_reason = CASE WHEN $12::text IS NOT NULL AND status = 'active' AND enable_generation = $13 THEN $12 ELSE disabled_reason END,
            updated_at = now()
      WHERE id = $14`,
    [
      a.deliveryId,
      a.series,
      a.attemptNumber,
      a.statusCode,
      a.latencyMs,
      a.success,
      a.error,
      a.responseExcerpt,
      a.attemptedAt,
      a.nextStatus,
      a.nextAttemptAt,
      a.disableReason,
      a.generation,
      a.subscriptionId,
    ],
  );
}

/** Ends the current series without an attempt (subscription no longer active, or infrastructure gave up). */
export async function abandonDelivery(
  db: Queryable,
  deliveryId: string,
  series: number,
  reason: string,
): Promise<boolean> {
  const res = await db.query(
    `UPDATE webhook_deliveries
        SET status = 'dead_letter', dead_lettered_at = now(), last_error = $3, next_attempt_at = NULL, updated_at = now()
      WHERE id = $1 AND series = $2 AND status IN ('pending', 'retrying')`,
    [deliveryId, series, reason],
  );
  return (res.rowCount ?? 0) > 0;
}
