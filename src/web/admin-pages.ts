/**
 * The operators' console (/admin, docs/decisions/operators.md "The console"): challenges of every
 * status, a challenge's submissions of every owner, one submission in the admin audience, the
 * audit trail, and the confirmation pages of the actions. Server-rendered, no script needed; every
 * form posts `_csrf`. The challenge form itself is in admin-challenge-form.ts.
 */
import { formatScore } from '../lib/score';
import { csrfField } from './account-pages';
import { renderPage, type HeaderAccount, type RenderedPage } from './layout';
import { html, raw, type SafeHtml } from './html';

export const fmtTime = (d: Date | null) =>
  d ? `${d.toISOString().slice(0, 19).replace('T', ' ')} UTC` : '—';

/** The console navigation's style, for pages that bring their own stylesheet. */
export const CONSOLE_NAV_STYLE =
  raw(`nav.console { display:flex; flex-wrap:wrap; gap:6px 18px; margin:0 0 14px; padding:0 0 10px; border-bottom:1px solid var(--line); font-size:14px; }
nav.console a[aria-current] { color:var(--text); font-weight:600; text-decoration:none; }`);

const CONSOLE_STYLE = html`
${CONSOLE_NAV_STYLE}${raw(`
.field-error { color:var(--bad); font-size:13px; margin:0; }
[aria-invalid="true"] { border-color:var(--bad); }
.error-summary { border:1px solid var(--bad); border-left:3px solid var(--bad); padding:8px 12px; border-radius:6px; background:var(--panel); }
.error-summary h2 { margin:0 0 6px; font-size:16px; }
.ok { border:1px solid var(--ok); border-left:3px solid var(--ok); padding:8px 12px; border-radius:6px; background:var(--panel); }
button.danger { background:#b62324; border-color:#b62324; }
.actions { display:flex; flex-wrap:wrap; gap:10px; align-items:center; margin:8px 0; }
a.button { display:inline-block; padding:6px 12px; border-radius:6px; border:1px solid var(--line); text-decoration:none; }
.wide { max-width:860px; }
.b-draft { border-color:var(--warn); color:var(--warn); }
.b-archived { border-color:var(--muted); color:var(--muted); }
/* Narrow screens: console tables keep words whole and scroll in their own box (.table-wrap). */
.table-wrap table { overflow-wrap:normal; }
.table-wrap th, .table-wrap td { white-space:nowrap; }
.table-wrap td.detail { white-space:normal; overflow-wrap:anywhere; min-width:16em; }
`)}`;

type Section = 'home' | 'challenges' | 'deliveries' | 'audit';

/** The console's own navigation, on every page under /admin (support's delivery pages too). */
export function consoleNav(current: Section): SafeHtml {
  const link = (href: string, label: string, section: Section) =>
    html`<a href="${href}"${section === current ? html` aria-current="page"` : ''}>${label}</a>`;
  return html`<nav class="console" aria-label="Console">${link('/admin', 'Console', 'home')}${link('/admin/challenges', 'Challenges', 'challenges')}${link('/admin/deliveries', 'Deliveries', 'deliveries')}${link('/admin/audit', 'Audit trail', 'audit')}</nav>`;
}

/** A console page: the site header, the console's own nav, the page. */
export function consolePage(input: {
  title: string;
  section: Section;
  body: SafeHtml;
  account: HeaderAccount;
}): RenderedPage {
  return renderPage({
    title: `${input.title} · Console`,
    body: html`${consoleNav(input.section)}
${input.body}`,
    account: input.account,
    style: CONSOLE_STYLE,
  });
}

export const statusBadge = (status: string) => html`<span class="badge b-${status}">${status}</span>`;

export function renderConsoleHome(input: {
  counts: { status: string; count: number }[];
  account: HeaderAccount;
}): RenderedPage {
  const counts = input.counts.length
    ? html`<ul class="inline">${input.counts.map((c) => html`<li>${statusBadge(c.status)} ${c.count}</li>`)}</ul>`
    : html`<p class="muted">No challenge yet.</p>`;
  const body = html`<h1>Operators' console</h1>
<ul class="cards">
<li class="card"><h2><a href="/admin/challenges">Challenges</a></h2><p class="muted small">Every challenge, drafts included: create, edit the judge config, dry-run a sample, publish, quarantine, retire; each challenge's submissions and rejudges.</p>${counts}</li>
<li class="card"><h2><a href="/admin/deliveries">Deliveries</a></h2><p class="muted small">Support: failing webhook deliveries and dead letters across subscriptions, each attempt, replays.</p></li>
<li class="card"><h2><a href="/admin/audit">Audit trail</a></h2><p class="muted small">Who did what, when: every operator action and every replay.</p></li>
</ul>`;
  return consolePage({ title: 'Console', section: 'home', body, account: input.account });
}

export interface ChallengeListRow {
  id: string;
  title: string;
  status: string;
  category: string;
  judgeKind: string;
  entryCount: number;
  startsAt: Date | null;
  endsAt: Date | null;
  updatedAt: Date;
}

export function renderChallengeListPage(input: {
  rows: ChallengeListRow[];
  statuses: readonly string[];
  status?: string;
  page: number;
  hasMore: boolean;
  notice?: string;
  account: HeaderAccount;
}): RenderedPage {
  const rows = input.rows.map(
    (c) =>
      html`<tr><td><a href="/admin/challenges/${c.id}">${c.title}</a></td><td>${statusBadge(c.status)}</td><td>${c.judgeKind}</td><td>${c.category}</td><td class="num">${c.entryCount}</td><td>${fmtTime(c.startsAt)}</td><td>${fmtTime(c.endsAt)}</td><td><a href="/admin/challenges/${c.id}/submissions">Submissions<span class="sr-only"> of ${c.title}</span></a></td></tr>`,
  );
  const pageLink = (page: number, label: string) => {
    const q = new URLSearchParams();
    if (input.status) q.set('status', input.status);
    q.set('page', String(page));
    return html`<a href="/admin/challenges?${q.toString()}">${label}</a>`;
  };
  const pager = [
    input.page > 1 ? pageLink(input.page - 1, 'Previous page') : '',
    input.hasMore ? pageLink(input.page + 1, 'Next page') : '',
  ].filter((link) => link !== '');
  const body = html`<h1>Challenges</h1>
${input.notice ? html`<p class="ok" role="status">${input.notice}</p>` : ''}
<p class="actions"><a class="button" href="/admin/challenges/new">New draft challenge</a></p>
<form class="filters" method="get" action="/admin/challenges" aria-label="Filter challenges">
<label for="f-status">Status<select id="f-status" name="status"><option value="">any</option>${input.statuses.map((s) => html`<option${s === input.status ? ' selected' : ''}>${s}</option>`)}</select></label>
<button type="submit">Filter</button></form>
${rows.length ? html`<div class="table-wrap" tabindex="0" role="region" aria-label="Challenges of every status"><table id="challenges-table"><caption class="sr-only">Challenges of every status</caption><thead><tr><th scope="col">Title</th><th scope="col">Status</th><th scope="col">Judge</th><th scope="col">Category</th><th scope="col" class="num">Entries</th><th scope="col">Starts</th><th scope="col">Ends</th><th scope="col"><span class="sr-only">Submissions</span></th></tr></thead><tbody>${rows}</tbody></table></div>` : html`<p class="muted">No challenge matches.</p>`}
${pager.length ? html`<p class="pager">${pager}</p>` : ''}`;
  return consolePage({ title: 'Challenges', section: 'challenges', body, account: input.account });
}

/** A confirmation step: what will happen, in words, and one POST that does it (no script needed). */
export function renderConfirmPage(input: {
  title: string;
  /** What the action does, in a sentence or two. */
  explanation: string;
  action: string;
  confirmLabel: string;
  cancelHref: string;
  csrfToken: string;
  account: HeaderAccount;
  /** Quarantine: the reason, required. */
  reason?: { value: string; error?: string };
  section?: Section;
}): RenderedPage {
  const reason = input.reason
    ? html`<label for="confirm-reason">Reason (required; shown to nobody but operators and recorded in the audit trail)<textarea id="confirm-reason" name="reason" rows="4" maxlength="1000" required${input.reason.error ? html` aria-invalid="true" aria-describedby="err-reason"` : ''}>${input.reason.value}</textarea></label>
${input.reason.error ? html`<p class="field-error" id="err-reason">${input.reason.error}</p>` : ''}`
    : '';
  const body = html`<h1>${input.title}</h1>
<p>${input.explanation}</p>
<form class="stack" method="post" action="${input.action}" aria-label="${input.title}">${csrfField(input.csrfToken)}
${reason}
<div class="actions"><button type="submit" class="danger" name="confirm" value="yes">${input.confirmLabel}</button><a href="${input.cancelHref}">Cancel</a></div>
</form>`;
  return consolePage({
    title: input.title,
    section: input.section ?? 'challenges',
    body,
    account: input.account,
  });
}

export interface AdminSubmissionListRow {
  id: string;
  agentId: string;
  agentName: string;
  status: string;
  score: number | null;
  run: number;
  sandbox: boolean;
  createdAt: Date;
}

export interface SubmissionFilters {
  status?: string;
  agent_id?: string;
  min_score?: number;
  max_score?: number;
}

export function renderChallengeSubmissionsPage(input: {
  challenge: { id: string; title: string; status: string };
  rows: AdminSubmissionListRow[];
  filters: SubmissionFilters;
  statuses: readonly string[];
  agents: { id: string; name: string }[];
  nextCursor: string | null;
  /** Rows per page when not the default (kept in the next page's link). */
  limit?: number;
  account: HeaderAccount;
}): RenderedPage {
  const c = input.challenge;
  const f = input.filters;
  const base = `/admin/challenges/${c.id}/submissions`;
  const agentOptions = [...input.agents];
  if (f.agent_id && !agentOptions.some((a) => a.id === f.agent_id))
    agentOptions.push({ id: f.agent_id, name: `agent ${f.agent_id}` });
  const rows = input.rows.map(
    (r) =>
      html`<tr><td>${fmtTime(r.createdAt)}</td><td><a href="${base}?agent_id=${r.agentId}">${r.agentName}</a>${r.sandbox ? html` <span class="badge">sandbox</span>` : ''}</td><td>${r.status}</td><td class="num">${formatScore(r.score)}</td><td class="num">${r.run}</td><td><a href="/admin/submissions/${r.id}">Details<span class="sr-only"> of ${r.agentName}'s submission of ${fmtTime(r.createdAt)}</span></a></td></tr>`,
  );
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(f)) if (v !== undefined) q.set(k, String(v));
  if (input.limit) q.set('limit', String(input.limit));
  if (input.nextCursor) q.set('cursor', input.nextCursor);
  const body = html`<p class="muted small"><a href="/admin/challenges/${c.id}">← ${c.title}</a></p>
<h1>Submissions: ${c.title} ${statusBadge(c.status)}</h1>
<p class="muted">Every owner's submissions, newest first.</p>
<form class="filters" method="get" action="${base}" aria-label="Filter submissions">
<label for="f-status">Status<select id="f-status" name="status"><option value="">any</option>${input.statuses.map((s) => html`<option${s === f.status ? ' selected' : ''}>${s}</option>`)}</select></label>
<label for="f-agent">Agent<select id="f-agent" name="agent_id"><option value="">any</option>${agentOptions.map((a) => html`<option value="${a.id}"${a.id === f.agent_id ? ' selected' : ''}>${a.name}</option>`)}</select></label>
<label for="f-min">Score at least<input id="f-min" name="min_score" type="number" min="0" max="100" step="0.01" value="${f.min_score ?? ''}"></label>
<label for="f-max">Score at most<input id="f-max" name="max_score" type="number" min="0" max="100" step="0.01" value="${f.max_score ?? ''}"></label>
<button type="submit">Filter</button></form>
${rows.length ? html`<div class="table-wrap" tabindex="0" role="region" aria-label="Submissions, newest first"><table id="submissions-table"><caption class="sr-only">Submissions, newest first</caption><thead><tr><th scope="col">Submitted</th><th scope="col">Agent</th><th scope="col">Status</th><th scope="col" class="num">Score</th><th scope="col" class="num">Run</th><th scope="col"><span class="sr-only">Details</span></th></tr></thead><tbody>${rows}</tbody></table></div>` : html`<p class="muted">No submission matches.</p>`}
${input.nextCursor ? html`<p class="pager"><a href="${base}?${q.toString()}">Older submissions</a></p>` : ''}`;
  return consolePage({
    title: `Submissions: ${c.title}`,
    section: 'challenges',
    body,
    account: input.account,
  });
}

export function renderAdminSubmissionPage(input: {
  submission: {
    id: string;
    status: string;
    challenge_id: string;
    agent_id: string;
    judge_run: number;
    sandbox: boolean;
    created_at: Date;
    failure_reason: string | null;
  };
  challengeTitle: string;
  agentName: string;
  ownerSubject: string | null;
  result: { final_score: number; result_state: string; summary: string; judged_at: Date } | null;
  /** The breakdown in the admin audience (hidden criteria and tests included). */
  breakdown: unknown;
  workflowId: string;
  /** The workflow in the Temporal Web UI; null when TEMPORAL_UI_URL is unset. */
  workflowUrl: string | null;
  canRejudge: boolean;
  notice?: string;
  account: HeaderAccount;
}): RenderedPage {
  const s = input.submission;
  const result = input.result
    ? html`<h2>Result</h2>
<p id="score">Score <strong>${formatScore(input.result.final_score)}</strong> · ${input.result.result_state} · judged ${fmtTime(input.result.judged_at)}</p>
<p>${input.result.summary}</p>
<h2>Breakdown (operators' view: hidden criteria and tests included)</h2>
<pre id="breakdown" tabindex="0">${JSON.stringify(input.breakdown, null, 2)}</pre>`
    : html`<p class="muted">No result yet.</p>`;
  const workflow = input.workflowUrl
    ? html`<a id="workflow-link" href="${input.workflowUrl}" rel="noopener noreferrer">Workflow <code>${input.workflowId}</code> in the Temporal Web UI</a>`
    : html`Workflow <code>${input.workflowId}</code> <span class="muted small">(set TEMPORAL_UI_URL to link it to the Temporal Web UI)</span>`;
  const body = html`<p class="muted small"><a href="/admin/challenges/${s.challenge_id}/submissions">← Submissions: ${input.challengeTitle}</a></p>
<h1>Submission</h1>
${input.notice ? html`<p class="ok" role="status">${input.notice}</p>` : ''}
<dl class="rules">
<dt>Id</dt><dd><code>${s.id}</code></dd>
<dt>Challenge</dt><dd><a href="/admin/challenges/${s.challenge_id}">${input.challengeTitle}</a></dd>
<dt>Agent</dt><dd>${input.agentName} <code class="small">${s.agent_id}</code></dd>
<dt>Owner</dt><dd>${input.ownerSubject ? html`<code>${input.ownerSubject}</code>` : '—'}</dd>
<dt>Status</dt><dd id="status" data-status="${s.status}">${s.status}${s.sandbox ? html` <span class="badge">sandbox</span>` : ''}</dd>
<dt>Judge run</dt><dd id="run">${s.judge_run}</dd>
<dt>Submitted</dt><dd>${fmtTime(s.created_at)}</dd>
<dt>Workflow</dt><dd>${workflow}</dd>
</dl>
${s.failure_reason ? html`<p class="notice">${s.failure_reason}</p>` : ''}
<div class="actions">${
    input.canRejudge
      ? html`<a class="button" href="/admin/submissions/${s.id}/rejudge">Rejudge…</a>`
      : html`<span class="muted small">Rejudge is possible once the submission is complete or failed.</span>`
  }</div>
${result}`;
  return consolePage({ title: 'Submission', section: 'challenges', body, account: input.account });
}

export interface AuditRow {
  id: string;
  actor: string;
  action: string;
  target_type: string;
  target_id: string;
  at: Date;
  detail: Record<string, unknown>;
}

function targetLink(r: AuditRow): SafeHtml {
  if (r.target_type === 'challenge')
    return html`<a href="/admin/challenges/${r.target_id}">challenge <code>${r.target_id.slice(0, 8)}</code></a>`;
  if (r.target_type === 'submission')
    return html`<a href="/admin/submissions/${r.target_id}">submission <code>${r.target_id.slice(0, 8)}</code></a>`;
  return html`${r.target_type.replace('_', ' ')} <code>${r.target_id}</code>`;
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
      html`<tr data-action="${r.action}" data-target="${r.target_id}"><td>${fmtTime(r.at)}</td><td><code>${r.actor}</code></td><td>${r.action}</td><td>${targetLink(r)}</td><td class="detail"><code class="small">${JSON.stringify(r.detail)}</code></td></tr>`,
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
