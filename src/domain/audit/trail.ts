/**
 * The audit trail: who did what to which thing, and when. Every operator action and every replay
 * (by anyone) calls `recordAudit` with the transaction that performs it, so the record and the
 * action commit or roll back together (docs/decisions/operators.md).
 */
import type { Pool } from 'pg';
import { validationError } from '../../errors';
import type { Actor } from './policy';
import type { Queryable } from '../../db/pool';
import {
  insertAuditRecord,
  listAuditRecords,
  type AuditAction,
  type AuditRecordRow,
  type AuditTargetType,
} from '../../db/queries/audit-records';
import { decodeTimeIdCursor, encodeTimeIdCursor, keysetPage } from '../../lib/keyset-cursor';
import type { Pagination } from '../../lib/pagination';

/** Who acted (policy.ts decides it from the caller). */
export type { Actor };

export function recordAudit(
  tx: Queryable,
  actor: Actor,
  action: AuditAction,
  target: { type: AuditTargetType; id: string },
  detail: Record<string, unknown> = {},
): Promise<AuditRecordRow> {
  return insertAuditRecord(tx, {
    actorUserId: actor.userId,
    action,
    targetType: target.type,
    targetId: target.id,
    detail,
  });
}

export interface AuditQuery {
  target_id?: string;
  actor?: string;
  action?: AuditAction;
  /** ISO 8601 instant: records at or after it. */
  since?: string;
  limit: number;
  cursor?: string;
}

const invalidCursor = () =>
  validationError('query.cursor: invalid cursor (use next_cursor from the previous page)');

export async function listAudit(
  db: Pool,
  query: AuditQuery,
): Promise<{ rows: AuditRecordRow[]; pagination: Pagination }> {
  const after = query.cursor ? decodeTimeIdCursor(query.cursor, invalidCursor) : null;
  const page = await listAuditRecords(db, {
    targetId: query.target_id,
    actor: query.actor,
    action: query.action,
    since: query.since === undefined ? undefined : new Date(query.since),
    after,
    limit: query.limit + 1,
  });
  return keysetPage(page, query.limit, (last) => encodeTimeIdCursor({ createdAt: last.at_key, id: last.id }));
}
