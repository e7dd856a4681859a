/** The console's list of challenges, every status (the challenge form itself: form.ts). */
import { html } from '../../../web/html';
import { type HeaderAccount, type RenderedPage } from '../../../web/layout';
import { consolePage, fmtTime, statusBadge } from '../console/view';

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
