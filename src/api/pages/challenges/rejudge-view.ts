/**
 * The console's rejudge of a whole challenge (docs/decisions/operators.md "Rejudging a whole
 * challenge"): the confirmation (which statuses to judge again) and the progress page with each
 * submission's old → new score. Server-rendered; the progress page is reloaded by hand (a
 * "Refresh" link), no script and no timed refresh.
 */
import { formatScore } from '../../../lib/score';
import { csrfField } from '../../../web/forms';
import { html, type SafeHtml } from '../../../web/html';
import type { HeaderAccount, RenderedPage } from '../../../web/layout';
import { consolePage, fmtTime } from '../console/view';

export function renderRejudgeConfirmPage(input: {
  challenge: { id: string; title: string };
  counts: { complete: number; failed: number };
  /** A rejudge of this challenge still running: no form, a link to it. */
  runningId: string | null;
  error?: string;
  csrfToken: string;
  account: HeaderAccount;
}): RenderedPage {
  const c = input.challenge;
  const title = `Rejudge every submission of "${c.title}"?`;
  const form = input.runningId
    ? html`<p class="notice" role="status">A rejudge of this challenge is still running: <a href="/admin/rejudges/${input.runningId}">follow its progress</a>. Another can start once it is done.</p>`
    : html`<form class="stack" method="post" action="/admin/challenges/${c.id}/rejudge" aria-label="${title}">${csrfField(input.csrfToken)}
<fieldset><legend>Submissions to judge again</legend>
<label class="check" for="rj-complete"><span><input type="checkbox" id="rj-complete" name="status" value="complete" checked> complete (${input.counts.complete})</span></label>
<label class="check" for="rj-failed"><span><input type="checkbox" id="rj-failed" name="status" value="failed" checked> failed (${input.counts.failed})</span></label>
</fieldset>
${input.error ? html`<p class="field-error" role="alert" id="rejudge-error">${input.error}</p>` : ''}
<div class="actions"><button type="submit" class="danger" name="confirm" value="yes" id="rejudge-all">Rejudge all</button><a href="/admin/challenges/${c.id}">Cancel</a></div>
</form>`;
  const body = html`<p class="muted small"><a href="/admin/challenges/${c.id}">← ${c.title}</a></p>
<h1>${title}</h1>
<p>Each chosen submission is judged again with the challenge's current judge config, at low priority (competitors' new submissions go first; rejudges count against nobody's limits). Each new result replaces the current one (kept as history) and the leaderboard follows. One record goes to the audit trail.</p>
${form}`;
  return consolePage({ title, section: 'challenges', body, account: input.account });
}

export interface RejudgeProgressView {
  id: string;
  status: 'running' | 'done';
  count: number;
  done: number;
  statuses: string[];
  requestedAt: Date;
  finishedAt: Date | null;
  items: {
    submissionId: string;
    agentName: string;
    oldScore: number | null;
    newScore: number | null;
    /** Private (held-out) scores: this page is the operators'. */
    oldPrivate: number | null;
    newPrivate: number | null;
    done: boolean;
  }[];
}

const score = (value: number | null): SafeHtml | string => (value === null ? '—' : formatScore(value));

function change(item: RejudgeProgressView['items'][number]): SafeHtml | string {
  if (!item.done) return html`<span class="muted">waiting</span>`;
  if (item.oldScore === null || item.newScore === null) return '';
  const delta = item.newScore - item.oldScore;
  if (delta === 0) return 'unchanged';
  return delta > 0 ? `+${formatScore(delta)}` : `−${formatScore(-delta)}`;
}

export function renderRejudgeProgressPage(input: {
  challenge: { id: string; title: string };
  rejudge: RejudgeProgressView;
  account: HeaderAccount;
}): RenderedPage {
  const { challenge: c, rejudge: r } = input;
  // Private scores only where the challenge has private tests (any item scored on them).
  const withPrivate = r.items.some((item) => item.oldPrivate !== null || item.newPrivate !== null);
  const privateCells = (item: RejudgeProgressView['items'][number]) =>
    withPrivate
      ? html`<td class="num old-private">${score(item.oldPrivate)}</td><td class="num new-private">${item.done ? score(item.newPrivate) : '…'}</td>`
      : '';
  const rows = r.items.map(
    (item) =>
      html`<tr data-submission="${item.submissionId}" data-done="${item.done ? 'yes' : 'no'}"><td><a href="/admin/submissions/${item.submissionId}"><code>${item.submissionId.slice(0, 8)}</code></a></td><td class="detail">${item.agentName}</td><td class="num old">${score(item.oldScore)}</td><td aria-hidden="true">→</td><td class="num new">${item.done ? score(item.newScore) : '…'}</td><td>${change(item)}</td>${privateCells(item)}</tr>`,
  );
  const privateHeads = withPrivate
    ? html`<th scope="col" class="num">Old private score</th><th scope="col" class="num">New private score</th>`
    : '';
  const title = `Rejudge of "${c.title}"`;
  const body = html`<p class="muted small"><a href="/admin/challenges/${c.id}">← ${c.title}</a></p>
<h1>${title}</h1>
<p id="rejudge-status" role="status" data-status="${r.status}"><strong>${r.status === 'done' ? 'Done' : 'Running'}</strong>: ${r.done} of ${r.count} judged · statuses ${r.statuses.join(', ')} · requested ${fmtTime(r.requestedAt)}${r.finishedAt ? html` · finished ${fmtTime(r.finishedAt)}` : ''}</p>
<progress id="rejudge-progress" max="${Math.max(r.count, 1)}" value="${r.count === 0 ? 1 : r.done}" aria-label="Submissions judged again">${r.done} of ${r.count}</progress>
${r.status === 'running' ? html`<p><a href="/admin/rejudges/${r.id}" id="refresh">Refresh</a></p>` : ''}
${rows.length ? html`<div class="table-wrap" tabindex="0" role="region" aria-label="Scores before and after"><table id="rejudge-items"><caption class="sr-only">Each submission's score before and after the rejudge</caption><thead><tr><th scope="col">Submission</th><th scope="col">Agent</th><th scope="col" class="num">Old score</th><th scope="col"><span class="sr-only">to</span></th><th scope="col" class="num">New score</th><th scope="col">Change</th>${privateHeads}</tr></thead><tbody>${rows}</tbody></table></div>` : html`<p class="muted">No submission was in the chosen statuses.</p>`}`;
  return consolePage({ title, section: 'challenges', body, account: input.account });
}
