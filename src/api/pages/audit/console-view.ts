/** The console's audit trail: who did what, when, filterable, cursor-paged. */
import { html, type SafeHtml } from '../../../web/html';
import { type HeaderAccount, type RenderedPage } from '../../../web/layout';
import { consolePage, fmtTime } from '../console/view';

export interface AuditRow {
  id: string;
  actor: string;
  action: string;
  target_type: string;
  target_id: string;
  at: Date;
  detail: Record<string, unknown>;
  /** The acting user's display name (null: the provider gave none; the subject is shown). */
  actorName?: string | null;
  /** What the target is called: a challenge's title, a submission's agent and challenge, an agent's name. */
  targetLabel?: string | null;
}

function targetLink(r: AuditRow): SafeHtml {
  const label = r.targetLabel ? html` ${r.targetLabel}` : '';
  if (r.target_type === 'challenge')
    return html`<a href="/admin/challenges/${r.target_id}">challenge${label ? html`<span class="target-label">${label}</span>` : ''} <code class="small">${r.target_id.slice(0, 8)}</code></a>`;
  if (r.target_type === 'submission')
    return html`<a href="/admin/submissions/${r.target_id}">submission${label ? html`<span class="target-label">${label}</span>` : ''} <code class="small">${r.target_id.slice(0, 8)}</code></a>`;
  return html`${r.target_type.replace('_', ' ')}${label} <code class="small">${r.target_id}</code>`;
}

function actorCell(r: AuditRow): SafeHtml {
  return r.actorName
    ? html`<span class="actor-name">${r.actorName}</span> <code class="small">${r.actor}</code>`
    : html`<code>${r.actor}</code>`;
}

export function renderAuditPage(input: {
  rows: AuditRow[];
  actions: readonly string[];
  filters: { action?: string; actor?: string; since?: string };
  nextCursor: string | null;
  limit?: number;
  account: HeaderAccount;
}): RenderedPage {
  const f = input.filters;
  const rows = input.rows.map(
    (r) =>
      html`<tr data-action="${r.action}" data-target="${r.target_id}"><td>${fmtTime(r.at)}</td><td>${actorCell(r)}</td><td>${r.action}</td><td>${targetLink(r)}</td><td class="detail"><code class="small">${JSON.stringify(r.detail)}</code></td></tr>`,
  );
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(f)) if (v) q.set(k, v);
  if (input.limit) q.set('limit', String(input.limit));
  if (input.nextCursor) q.set('cursor', input.nextCursor);
  const body = html`<h1>Audit trail</h1>
<p class="muted">Every operator action and every replay, newest first. Records are never changed or removed.</p>
<form class="filters" method="get" action="/admin/audit" aria-label="Filter the audit trail">
<label for="f-action">Action<select id="f-action" name="action"><option value="">any</option>${input.actions.map((a) => html`<option${a === f.action ? ' selected' : ''}>${a}</option>`)}</select></label>
<label for="f-actor">Actor (subject)<input id="f-actor" name="actor" value="${f.actor ?? ''}" maxlength="256"></label>
<label for="f-since">Since (UTC, ISO 8601)<input id="f-since" name="since" value="${f.since ?? ''}" placeholder="2025-06-01T00:00:00Z" maxlength="40"></label>
<button type="submit">Filter</button></form>
${rows.length ? html`<div class="table-wrap" tabindex="0" role="region" aria-label="Audit records, newest first"><table id="audit-table"><caption class="sr-only">Audit records, newest first</caption><thead><tr><th scope="col">At</th><th scope="col">Actor</th><th scope="col">Action</th><th scope="col">Target</th><th scope="col">Detail</th></tr></thead><tbody>${rows}</tbody></table></div>` : html`<p class="muted">No record matches.</p>`}
${input.nextCursor ? html`<p class="pager"><a href="/admin/audit?${q.toString()}">Older records</a></p>` : ''}`;
  return consolePage({ title: 'Audit trail', section: 'audit', body, account: input.account });
}
