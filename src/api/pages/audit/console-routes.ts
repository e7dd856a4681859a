/**
 * The console's audit trail (docs/decisions/operators.md "The console"): every operator action and
 * every replay, filterable, cursor-paged. Operators only (console/routes.ts).
 */
import { z } from 'zod';
import { AUDIT_ACTIONS } from '../../../db/queries/audit-records';
import { listAudit } from '../../../domain/audit/trail';
import { htmlPage } from '../../html-page';
import { signedInPage } from '../../page-routes';
import { type AnyRouteDef } from '../../route';
import { isoDate, safeText } from '../../schemas/common';
import { account, blankIsAbsent, pageSize } from '../console/routes';
import { renderAuditPage, type AuditRow } from './console-view';
import type { AppDeps } from '../../deps';
import { challengeTitlesOf } from '../../../db/queries/challenges';
import { submissionLabelsOf } from '../../../db/queries/submissions';
import { userNamesBySubject } from '../../../db/queries/users';
import { agentNamesOf } from '../../../db/queries/agents';

/** "2025-06-01", "2025-06-01T10:00" (a datetime-local box) are read as UTC; otherwise ISO 8601 with an offset. */
const sinceSchema = z.preprocess((v) => {
  if (typeof v !== 'string') return v;
  const t = v.trim();
  if (/^\d{4}-\d{2}-\d{2}$/.test(t)) return `${t}T00:00:00Z`;
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(t)) return `${t}Z`;
  return t;
}, isoDate);

const auditQuery = z.object({
  limit: pageSize,
  action: blankIsAbsent(z.enum(AUDIT_ACTIONS).optional()),
  actor: blankIsAbsent(safeText(256).optional()),
  since: blankIsAbsent(sinceSchema.optional()),
  cursor: blankIsAbsent(z.string().max(400).optional()),
});

/** The audit rows with names instead of bare ids: who acted, and what the target is called. */
async function labelAuditRows(deps: AppDeps, rows: AuditRow[]): Promise<AuditRow[]> {
  const ids = (type: string) => [
    ...new Set(rows.filter((r) => r.target_type === type).map((r) => r.target_id)),
  ];
  const [names, titles, submissions, agents] = await Promise.all([
    userNamesBySubject(deps.db, [...new Set(rows.map((r) => r.actor))]),
    challengeTitlesOf(deps.db, ids('challenge')),
    submissionLabelsOf(deps.db, ids('submission')),
    agentNamesOf(deps.db, ids('agent')),
  ]);
  return rows.map((r) => {
    const submission = submissions.get(r.target_id);
    const targetLabel =
      r.target_type === 'challenge'
        ? (titles.get(r.target_id) ?? null)
        : r.target_type === 'submission' && submission
          ? `${submission.agent_name} in ${submission.challenge_title}`
          : r.target_type === 'agent'
            ? (agents.get(r.target_id) ?? null)
            : null;
    return { ...r, actorName: names.get(r.actor) ?? null, targetLabel };
  });
}

export const consoleAuditRoutes: AnyRouteDef[] = [
  signedInPage('consoleAudit', '/admin/audit', 'Console: the audit trail, filterable, cursor-paged', {
    query: auditQuery,
    async handler({ query, deps, webSession }) {
      const { rows, pagination } = await listAudit(deps.db, query);
      return htmlPage(
        renderAuditPage({
          rows: await labelAuditRows(deps, rows),
          actions: AUDIT_ACTIONS,
          filters: { action: query.action, actor: query.actor, since: query.since },
          nextCursor: pagination.next_cursor ?? null,
          limit: query.limit === 50 ? undefined : query.limit,
          account: account(webSession),
        }),
      );
    },
  }),
];
