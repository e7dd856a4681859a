/**
 * The operators' console (/admin, docs/decisions/operators.md "The console"): challenges of every
 * status, a challenge's submissions of every owner, one submission in the admin audience, the
 * audit trail, and the confirmation pages of the actions. Server-rendered, no script needed; every
 * form posts `_csrf`. The challenge form itself is in admin-challenge-form.ts.
 */
import { formatScore } from '../lib/score';
import { csrfField } from './account-pages';
import { escapeHtml as h, renderPage, type HeaderAccount, type RenderedPage } from './layout';

export const fmtTime = (d: Date | null) =>
  d ? `${d.toISOString().slice(0, 19).replace('T', ' ')} UTC` : '—';

/** The console navigation's style, for pages that bring their own stylesheet. */
export const CONSOLE_NAV_STYLE = `nav.console { display:flex; flex-wrap:wrap; gap:6px 18px; margin:0 0 14px; padding:0 0 10px; border-bottom:1px solid var(--line); font-size:14px; }
nav.console a[aria-current] { color:var(--text); font-weight:600; text-decoration:none; }`;

const CONSOLE_STYLE = `
${CONSOLE_NAV_STYLE}
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
`;

type Section = 'home' | 'challenges' | 'deliveries' | 'audit';

/** A console page: the site header, the console's own nav, the page. */
/** The console's own navigation, on every page under /admin (support's delivery pages too). */
export function consoleNav(current: Section): string {
  const link = (href: string, label: string, section: Section) =>
    `<a href="${href}"${section === current ? ' aria-current="page"' : ''}>${label}</a>`;
  return `<nav class="console" aria-label="Console">${link('/admin', 'Console', 'home')}${link('/admin/challenges', 'Challenges', 'challenges')}${link('/admin/deliveries', 'Deliveries', 'deliveries')}${link('/admin/audit', 'Audit trail', 'audit')}</nav>`;
}

export function consolePage(input: {
  title: string;
  section: Section;
  body: string;
  account: HeaderAccount;
}): RenderedPage {
  return renderPage({
    title: `${input.title} · Console`,
    body: `${consoleNav(input.section)}\n${input.body}`,
    account: input.account,
    style: CONSOLE_STYLE,
  });
}

export const statusBadge = (status: string) => `<span class="badge b-${h(status)}">${h(status)}</span>`;

export function renderConsoleHome(input: {
  counts: { status: string; count: number }[];
  account: HeaderAccount;
}): RenderedPage {
  const counts = input.counts.length
    ? `<ul class="inline">${input.counts.map((c) => `<li>${statusBadge(c.status)} ${c.count}</li>`).join('')}</ul>`
    : '<p class="muted">No challenge yet.</p>';
  const body = `<h1>Operators' console</h1>
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
  const rows = input.rows
    .map(
      (c) =>
        `<tr><td><a href="/admin/challenges/${h(c.id)}">${h(c.title)}</a></td><td>${statusBadge(c.status)}</td><td>${h(c.judgeKind)}</td><td>${h(c.category)}</td><td class="num">${c.entryCount}</td><td>${h(fmtTime(c.startsAt))}</td><td>${h(fmtTime(c.endsAt))}</td><td><a href="/admin/challenges/${h(c.id)}/submissions">Submissions<span class="sr-only"> of ${h(c.title)}</span></a></td></tr>`,
    )
    .join('');
  const pageLink = (page: number, label: string) => {
    const q = new URLSearchParams();
    if (input.status) q.set('status', input.status);
    q.set('page', String(page));
    return `<a href="/admin/challenges?${h(q.toString())}">${label}</a>`;
  };
  const pager = [
    input.page > 1 ? pageLink(input.page - 1, 'Previous page') : '',
    input.hasMore ? pageLink(input.page + 1, 'Next page') : '',
  ].join('');
  const body = `<h1>Challenges</h1>
${input.notice ? `<p class="ok" role="status">${h(input.notice)}</p>` : ''}
<p class="actions"><a class="button" href="/admin/challenges/new">New draft challenge</a></p>
<form class="filters" method="get" action="/admin/challenges" aria-label="Filter challenges">
<label for="f-status">Status<select id="f-status" name="status"><option value="">any</option>${input.statuses.map((s) => `<option${s === input.status ? ' selected' : ''}>${h(s)}</option>`).join('')}</select></label>
<button type="submit">Filter</button></form>
${rows ? `<div class="table-wrap" tabindex="0" role="region" aria-label="Challenges of every status"><table id="challenges-table"><caption class="sr-only">Challenges of every status</caption><thead><tr><th scope="col">Title</th><th scope="col">Status</th><th scope="col">Judge</th><th scope="col">Category</th><th scope="col" class="num">Entries</th><th scope="col">Starts</th><th scope="col">Ends</th><th scope="col"><span class="sr-only">Submissions</span></th></tr></thead><tbody>${rows}</tbody></table></div>` : '<p class="muted">No challenge matches.</p>'}
${pager ? `<p class="pager">${pager}</p>` : ''}`;
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
    ? `<label for="confirm-reason">Reason (required; shown to nobody but operators and recorded in the audit trail)<textarea id="confirm-reason" name="reason" rows="4" maxlength="1000" required${input.reason.error ? ' aria-invalid="true" aria-describedby="err-reason"' : ''}>${h(input.reason.value)}</textarea></label>
${input.reason.error ? `<p class="field-error" id="err-reason">${h(input.reason.error)}</p>` : ''}`
    : '';
  const body = `<h1>${h(input.title)}</h1>
<p>${h(input.explanation)}</p>
<form class="stack" method="post" action="${h(input.action)}" aria-label="${h(input.title)}">${csrfField(input.csrfToken)}
${reason}
<div class="actions"><button type="submit" class="danger" name="confirm" value="yes">${h(input.confirmLabel)}</button><a href="${h(input.cancelHref)}">Cancel</a></div>
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
  const base = `/admin/challenges/${h(c.id)}/submissions`;
  const agentOptions = [...input.agents];
  if (f.agent_id && !agentOptions.some((a) => a.id === f.agent_id))
    agentOptions.push({ id: f.agent_id, name: `agent ${f.agent_id}` });
  const rows = input.rows
    .map(
      (r) =>
        `<tr><td>${h(fmtTime(r.createdAt))}</td><td><a href="${base}?agent_id=${h(r.agentId)}">${h(r.agentName)}</a>${r.sandbox ? ' <span class="badge">sandbox</span>' : ''}</td><td>${h(r.status)}</td><td class="num">${h(formatScore(r.score))}</td><td class="num">${r.run}</td><td><a href="/admin/submissions/${h(r.id)}">Details<span class="sr-only"> of ${h(r.agentName)}'s submission of ${h(fmtTime(r.createdAt))}</span></a></td></tr>`,
    )
    .join('');
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(f)) if (v !== undefined) q.set(k, String(v));
  if (input.limit) q.set('limit', String(input.limit));
  if (input.nextCursor) q.set('cursor', input.nextCursor);
  const body = `<p class="muted small"><a href="/admin/challenges/${h(c.id)}">← ${h(c.title)}</a></p>
<h1>Submissions: ${h(c.title)} ${statusBadge(c.status)}</h1>
<p class="muted">Every owner's submissions, newest first.</p>
<form class="filters" method="get" action="${base}" aria-label="Filter submissions">
<label for="f-status">Status<select id="f-status" name="status"><option value="">any</option>${input.statuses.map((s) => `<option${s === f.status ? ' selected' : ''}>${h(s)}</option>`).join('')}</select></label>
<label for="f-agent">Agent<select id="f-agent" name="agent_id"><option value="">any</option>${agentOptions.map((a) => `<option value="${h(a.id)}"${a.id === f.agent_id ? ' selected' : ''}>${h(a.name)}</option>`).join('')}</select></label>
<label for="f-min">Score at least<input id="f-min" name="min_score" type="number" min="0" max="100" step="0.01" value="${f.min_score ?? ''}"></label>
<label for="f-max">Score at most<input id="f-max" name="max_score" type="number" min="0" max="100" step="0.01" value="${f.max_score ?? ''}"></label>
<button type="submit">Filter</button></form>
${rows ? `<div class="table-wrap" tabindex="0" role="region" aria-label="Submissions, newest first"><table id="submissions-table"><caption class="sr-only">Submissions, newest first</caption><thead><tr><th scope="col">Submitted</th><th scope="col">Agent</th><th scope="col">Status</th><th scope="col" class="num">Score</th><th scope="col" class="num">Run</th><th scope="col"><span class="sr-only">Details</span></th></tr></thead><tbody>${rows}</tbody></table></div>` : '<p class="muted">No submission matches.</p>'}
${input.nextCursor ? `<p class="pager"><a href="${base}?${h(q.toString())}">Older submissions</a></p>` : ''}`;
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
    ? `<h2>Result</h2>
<p id="score">Score <strong>${h(formatScore(input.result.final_score))}</strong> · ${h(input.result.result_state)} · judged ${h(fmtTime(input.result.judged_at))}</p>
<p>${h(input.result.summary)}</p>
<h2>Breakdown (operators' view: hidden criteria and tests included)</h2>
<pre id="breakdown" tabindex="0">${h(JSON.stringify(input.breakdown, null, 2))}</pre>`
    : '<p class="muted">No result yet.</p>';
  const workflow = input.workflowUrl
    ? `<a id="workflow-link" href="${h(input.workflowUrl)}" rel="noopener noreferrer">Workflow <code>${h(input.workflowId)}</code> in the Temporal Web UI</a>`
    : `Workflow <code>${h(input.workflowId)}</code> <span class="muted small">(set TEMPORAL_UI_URL to link it to the Temporal Web UI)</span>`;
  const body = `<p class="muted small"><a href="/admin/challenges/${h(s.challenge_id)}/submissions">← Submissions: ${h(input.challengeTitle)}</a></p>
<h1>Submission</h1>
${input.notice ? `<p class="ok" role="status">${h(input.notice)}</p>` : ''}
<dl class="rules">
<dt>Id</dt><dd><code>${h(s.id)}</code></dd>
<dt>Challenge</dt><dd><a href="/admin/challenges/${h(s.challenge_id)}">${h(input.challengeTitle)}</a></dd>
<dt>Agent</dt><dd>${h(input.agentName)} <code class="small">${h(s.agent_id)}</code></dd>
<dt>Owner</dt><dd>${input.ownerSubject ? `<code>${h(input.ownerSubject)}</code>` : '—'}</dd>
<dt>Status</dt><dd id="status" data-status="${h(s.status)}">${h(s.status)}${s.sandbox ? ' <span class="badge">sandbox</span>' : ''}</dd>
<dt>Judge run</dt><dd id="run">${s.judge_run}</dd>
<dt>Submitted</dt><dd>${h(fmtTime(s.created_at))}</dd>
<dt>Workflow</dt><dd>${workflow}</dd>
</dl>
${s.failure_reason ? `<p class="notice">${h(s.failure_reason)}</p>` : ''}
<div class="actions">${
    input.canRejudge
      ? `<a class="button" href="/admin/submissions/${h(s.id)}/rejudge">Rejudge…</a>`
      : '<span class="muted small">Rejudge is possible once the submission is complete or failed.</span>'
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

function targetLink(r: AuditRow): string {
  if (r.target_type === 'challenge')
    return `<a href="/admin/challenges/${h(r.target_id)}">challenge <code>${h(r.target_id.slice(0, 8))}</code></a>`;
  if (r.target_type === 'submission')
    return `<a href="/admin/submissions/${h(r.target_id)}">submission <code>${h(r.target_id.slice(0, 8))}</code></a>`;
  return `${h(r.target_type.replace('_', ' '))} <code>${h(r.target_id)}</code>`;
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
  const rows = input.rows
    .map(
      (r) =>
        `<tr data-action="${h(r.action)}" data-target="${h(r.target_id)}"><td>${h(fmtTime(r.at))}</td><td><code>${h(r.actor)}</code></td><td>${h(r.action)}</td><td>${targetLink(r)}</td><td class="detail"><code class="small">${h(JSON.stringify(r.detail))}</code></td></tr>`,
    )
    .join('');
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(f)) if (v) q.set(k, v);
  if (input.limit) q.set('limit', String(input.limit));
  if (input.nextCursor) q.set('cursor', input.nextCursor);
  const body = `<h1>Audit trail</h1>
<p class="muted">Every operator action and every replay, newest first. Records are never changed or removed.</p>
<form class="filters" method="get" action="/admin/audit" aria-label="Filter the audit trail">
<label for="f-action">Action<select id="f-action" name="action"><option value="">any</option>${input.actions.map((a) => `<option${a === f.action ? ' selected' : ''}>${h(a)}</option>`).join('')}</select></label>
<label for="f-actor">Actor (subject)<input id="f-actor" name="actor" value="${h(f.actor ?? '')}" maxlength="256"></label>
<label for="f-since">Since (UTC, ISO 8601)<input id="f-since" name="since" value="${h(f.since ?? '')}" placeholder="2025-06-01T00:00:00Z" maxlength="40"></label>
<button type="submit">Filter</button></form>
${rows ? `<div class="table-wrap" tabindex="0" role="region" aria-label="Audit records, newest first"><table id="audit-table"><caption class="sr-only">Audit records, newest first</caption><thead><tr><th scope="col">At</th><th scope="col">Actor</th><th scope="col">Action</th><th scope="col">Target</th><th scope="col">Detail</th></tr></thead><tbody>${rows}</tbody></table></div>` : '<p class="muted">No record matches.</p>'}
${input.nextCursor ? `<p class="pager"><a href="/admin/audit?${h(q.toString())}">Older records</a></p>` : ''}`;
  return consolePage({ title: 'Audit trail', section: 'audit', body, account: input.account });
}
