/** The console's submissions: a challenge's, every owner's, filterable; one submission in the admin audience. */
import { formatScore } from '../../../lib/score';
import { html } from '../../../web/html';
import { type HeaderAccount, type RenderedPage } from '../../../web/layout';
import { consolePage, fmtTime, statusBadge } from '../console/view';

export interface AdminSubmissionListRow {
  id: string;
  agentId: string;
  agentName: string;
  status: string;
  score: number | null;
  /** Operators see the private pass's score beside the public one (DESIGN "private tests"). */
  privateScore: number | null;
  privateState: string;
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

/** The private score, or why there is none yet (pending: the private pass runs after the public result). */
function privateCell(r: AdminSubmissionListRow): string {
  if (r.privateState === 'pending') return 'pending';
  if (r.privateState === 'none' || r.privateScore === null) return '—';
  return formatScore(r.privateScore);
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
      html`<tr><td>${fmtTime(r.createdAt)}</td><td><a href="${base}?agent_id=${r.agentId}">${r.agentName}</a>${r.sandbox ? html` <span class="badge">sandbox</span>` : ''}</td><td>${r.status}</td><td class="num">${formatScore(r.score)}</td><td class="num">${privateCell(r)}</td><td class="num">${r.run}</td><td><a href="/admin/submissions/${r.id}">Details<span class="sr-only"> of ${r.agentName}'s submission of ${fmtTime(r.createdAt)}</span></a></td></tr>`,
  );
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(f)) if (v !== undefined) q.set(k, String(v));
  const csvQuery = new URLSearchParams(q);
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
${rows.length ? html`<div class="table-wrap" tabindex="0" role="region" aria-label="Submissions, newest first"><table id="submissions-table"><caption class="sr-only">Submissions, newest first</caption><thead><tr><th scope="col">Submitted</th><th scope="col">Agent</th><th scope="col">Status</th><th scope="col" class="num">Score</th><th scope="col" class="num">Private score</th><th scope="col" class="num">Run</th><th scope="col"><span class="sr-only">Details</span></th></tr></thead><tbody>${rows}</tbody></table></div>` : html`<p class="muted">No submission matches.</p>`}
${input.nextCursor ? html`<p class="pager"><a href="${base}?${q.toString()}">Older submissions</a></p>` : ''}
<p><a id="submissions-csv" href="${base}.csv${csvQuery.size ? `?${csvQuery.toString()}` : ''}" download>Download these submissions as CSV</a> <span class="muted small">(public and private scores, up to 10,000 rows)</span></p>`;
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
