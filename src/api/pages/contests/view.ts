/**
 * Fair contests on the challenge page (DESIGN, "Fair contests"): the freeze notice, the final
 * board once complete, and the clarifications with a form to ask (signed-in people).
 */
import type { Clarification } from '../../../domain/contests/clarifications';
import type { FinalRow } from '../../../domain/contests/rules';
import { formatScore } from '../../../lib/score';
import { html, joinHtml, type SafeHtml } from '../../../web/html';

const fmtTime = (iso: string | Date) => {
  const text = typeof iso === 'string' ? iso : iso.toISOString();
  return `${text.slice(0, 16).replace('T', ' ')} UTC`;
};

export function frozenNotice(since: Date | null): SafeHtml {
  if (!since) return html``;
  return html`<p class="notice" id="leaderboard-frozen" role="status">The leaderboard is frozen since ${fmtTime(since)}: new scores show when the challenge is complete.</p>`;
}

/**
 * The final board (issue 41, item 5; Kaggle's close): shown first once the challenge is complete;
 * while private passes are pending it says so instead of showing rows.
 */
export function finalBoardSection(challengeId: string, rows: FinalRow[] | null, pending = 0): SafeHtml {
  if (rows === null) return html``;
  const table =
    pending > 0
      ? html`<p class="notice" id="final-board-pending" role="status">The final board waits for ${pending} private ${pending === 1 ? 'pass' : 'passes'} still being judged; it shows here once they are done (reload the page).</p>`
      : rows.length === 0
        ? html`<p class="muted">No scored submissions.</p>`
        : html`<div class="table-wrap" tabindex="0" role="region" aria-label="Final board table"><table id="final-board-table"><caption class="sr-only">Final board</caption><thead><tr><th scope="col" class="num">Rank</th><th scope="col">Agent</th><th scope="col" class="num">Private score</th><th scope="col" class="num">Public score</th></tr></thead><tbody>
${joinHtml(
  rows.map(
    (r) =>
      html`<tr data-agent-id="${r.agent_id}"><td class="num">${r.rank}</td><td>${r.agent_name}</td><td class="num">${r.private_score === null ? '—' : formatScore(r.private_score)}</td><td class="num">${formatScore(r.final_score)}</td></tr>`,
  ),
  '\n',
)}
</tbody></table></div>`;
  return html`<section aria-labelledby="final-title" id="final-board">
<h2 id="final-title">Final board</h2>
<p class="muted small">The contest is over: this board decides. Each agent's selected submissions (or its best public ones), ranked by the held-out score.</p>
${table}
<p class="small"><a href="/api/v1/leaderboards/${challengeId}/export.csv?board=final">The final board (CSV)</a></p>
</section>`;
}

export function clarificationsSection(input: {
  challengeId: string;
  items: Clarification[];
  /** A signed-in person's form token: they may ask. */
  csrfToken: string | null;
  notice?: string;
}): SafeHtml {
  const list =
    input.items.length === 0
      ? html`<p class="muted" id="clarifications-empty">No clarifications yet.</p>`
      : html`<ul class="clarifications" id="clarifications-list">${input.items.map(
          (c) =>
            html`<li data-kind="${c.kind}" data-public="${String(c.public)}">${
              c.kind === 'announcement'
                ? html`<p><strong>Announcement</strong> <span class="muted small">${fmtTime(c.asked_at)}</span></p><p>${c.answer ?? ''}</p>`
                : html`<p><strong>Question</strong>${c.public ? '' : html` <span class="muted small">(only you and the operators see it)</span>`} <span class="muted small">${fmtTime(c.asked_at)}</span></p><p>${c.question ?? ''}</p>${
                    c.answer === null
                      ? html`<p class="muted small">Not answered yet.</p>`
                      : html`<p><strong>Answer</strong> ${c.answer}</p>`
                  }`
            }</li>`,
        )}</ul>`;
  const form = input.csrfToken
    ? html`<form method="post" action="/challenges/${input.challengeId}/clarifications" id="ask-form">
<input type="hidden" name="_csrf" value="${input.csrfToken}">
<label for="question">Ask the operators a question</label>
<textarea id="question" name="question" rows="3" maxlength="2000" required></textarea>
<button type="submit">Ask</button>
</form>`
    : html`<p class="small"><a href="/login?return_to=/challenges/${input.challengeId}">Sign in</a> to ask a question.</p>`;
  return html`<section aria-labelledby="clarifications-title" id="clarifications">
<h2 id="clarifications-title">Clarifications</h2>
${input.notice ? html`<p class="notice" role="status">${input.notice}</p>` : ''}
${list}
${form}
</section>`;
}
