import { z } from 'zod';
import { AUDIT_ACTIONS, type AuditRecordRow } from '../../db/queries/audit-records';
import { listAudit } from '../../domain/audit/trail';
import { defineRoute } from '../route';
import { isoDate, pagedEnvelope, queryInt, safeText } from '../schemas/common';

export const auditRecordSchema = z.object({
  id: z.string().uuid(),
  actor: z.string().describe("the acting user's subject (the session JWT's sub)"),
  action: z.enum(AUDIT_ACTIONS),
  target_type: z.enum(['challenge', 'submission', 'delivery', 'webhook_subscription', 'agent', 'match']),
  target_id: z.string(),
  at: z.string(),
  detail: z.record(z.unknown()),
});

export function toAuditRecord(row: AuditRecordRow): z.infer<typeof auditRecordSchema> {
  return {
    id: row.id,
    actor: row.actor,
    action: row.action,
    target_type: row.target_type,
    target_id: row.target_id,
    at: row.at.toISOString(),
    detail: row.detail,
  };
}

export const auditQuery = z
  .object({
    target_id: safeText(100, 1).optional(),
    actor: safeText(256, 1).optional(),
    action: z.enum(AUDIT_ACTIONS).optional(),
    since: isoDate.optional().describe('records at or after this instant (ISO 8601 with offset)'),
    limit: queryInt(1, 100, 50),
    cursor: z.string().max(400).optional(),
  })
  .strict();

export const adminAuditRoutes = [
  defineRoute({
    operationId: 'adminListAudit',
    method: 'get',
    path: '/api/v1/admin/audit',
    summary:
      'Operators: the audit trail (every operator action and every replay), newest first; ?target_id=, ?actor=, ?action= and ?since= narrow it; keyset pages',
    tags: ['admin'],
    auth: 'admin',
    rateLimit: 'default',
    query: auditQuery,
    responses: { 200: { description: 'a page of audit records', schema: pagedEnvelope(auditRecordSchema) } },
    async handler({ query, deps }) {
      const { rows, pagination } = await listAudit(deps.db, query);
      return { data: rows.map(toAuditRecord), pagination };
    },
  }),
];
