import type { Queryable } from '../pool';
import type { TimeIdKey } from '../../lib/keyset-cursor';

export const AUDIT_ACTIONS = [
  'challenge.create',
  'challenge.update',
  'challenge.publish',
  'challenge.quarantine',
  'challenge.retire',
  'submission.rejudge',
  'delivery.replay',
  'delivery.replay_bulk',
  'challenge.rejudge',
  'agent.delete',
  'clarification.answer',
  'challenge.announce',
  'match.create',
  'match.void',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];
export type AuditTargetType =
  'challenge' | 'submission' | 'delivery' | 'webhook_subscription' | 'agent' | 'match';

export interface AuditRecordRow {
  id: string;
  actor: string;
  action: AuditAction;
  target_type: AuditTargetType;
  target_id: string;
  at: Date;
  detail: Record<string, unknown>;
  /** `at` as UTC text with microseconds, for the cursor. */
  at_key: string;
}

export interface NewAuditRecord {
  actorUserId: string;
  action: AuditAction;
  targetType: AuditTargetType;
  targetId: string;
  detail: Record<string, unknown>;
}

const COLUMNS = `id, actor, action, target_type, target_id, at, detail,
  to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS at_key`;

/** Appends one record; the actor's subject is read from users in the same statement. */
export async function insertAuditRecord(db: Queryable, r: NewAuditRecord): Promise<AuditRecordRow> {
  const res = await db.query<AuditRecordRow>(
    `INSERT INTO audit_records (actor, actor_user_id, action, target_type, target_id, detail)
     SELECT u.subject, u.id, $2, $3, $4, $5::jsonb FROM users u WHERE u.id = $1
     RETURNING ${COLUMNS}`,
    [r.actorUserId, r.action, r.targetType, r.targetId, JSON.stringify(r.detail)],
  );
  if (res.rows.length !== 1) throw new Error(`audit: no user ${r.actorUserId}`);
  return res.rows[0];
}

/** Appends one record of the service's own action (actor `system`, no user): a match voided at its deadline. */
export async function insertSystemAuditRecord(
  db: Queryable,
  r: Omit<NewAuditRecord, 'actorUserId'>,
): Promise<AuditRecordRow> {
  const res = await db.query<AuditRecordRow>(
    `INSERT INTO audit_records (actor, actor_user_id, action, target_type, target_id, detail)
     VALUES ('system', NULL, $1, $2, $3, $4::jsonb)
     RETURNING ${COLUMNS}`,
    [r.action, r.targetType, r.targetId, JSON.stringify(r.detail)],
  );
  return res.rows[0];
}

export interface AuditFilter {
  targetId?: string;
  actor?: string;
  action?: AuditAction;
  /** Records at or after this instant. */
  since?: Date;
  after: TimeIdKey | null;
  limit: number;
}

/** Newest first on (at, id); `limit` is the page size plus one. */
export async function listAuditRecords(db: Queryable, f: AuditFilter): Promise<AuditRecordRow[]> {
  const where: string[] = [];
  const args: unknown[] = [];
  const arg = (v: unknown) => {
    args.push(v);
    return `$${args.length}`;
  };
  if (f.targetId) where.push(`target_id = ${arg(f.targetId)}`);
  if (f.actor) where.push(`actor = ${arg(f.actor)}`);
  if (f.action) where.push(`action = ${arg(f.action)}`);
  if (f.since) where.push(`at >= ${arg(f.since)}`);
  if (f.after) where.push(`(at, id) < (${arg(f.after.createdAt)}::timestamptz, ${arg(f.after.id)}::uuid)`);
  const res = await db.query<AuditRecordRow>(
    `SELECT ${COLUMNS} FROM audit_records
     ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
     ORDER BY at DESC, id DESC
     LIMIT ${arg(f.limit)}`,
    args,
  );
  return res.rows;
}
