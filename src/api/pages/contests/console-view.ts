/**
 * The console's clarifications page (fair contests): unanswered questions first, each with an
 * answer form, then the form to post a public announcement for a challenge.
 */
import type { ClarificationRow } from '../../../db/queries/clarifications';
import { consolePage } from '../console/view';
import { html, joinHtml, type SafeHtml } from '../../../web/html';
import type { HeaderAccount, RenderedPage } from '../../../web/layout';

const fmt = (d: Date) => `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

function answerForm(q: ClarificationRow & { challenge_title: string }, csrfToken: string): SafeHtml {
  return html`<li class="card" data-clarification-id="${q.id}">
<p><a href="/challenges/${q.challenge_id}">${q.challenge_title}</a> <span class="muted small">asked ${fmt(q.asked_at)}</span></p>
<p class="question">${q.question ?? ''}</p>
<form method="post" action="/admin/clarifications/${q.id}/answer">
<input type="hidden" name="_csrf" value="${csrfToken}">
<label for="answer-${q.id}">Answer</label>
<textarea id="answer-${q.id}" name="answer" rows="3" maxlength="5000" required></textarea>
<p><input type="checkbox" id="public-${q.id}" name="public" value="true"> <label for="public-${q.id}">Public: everyone sees the question and the answer</label></p>
<button type="submit">Answer</button>
</form>
</li>`;
}

/** What the announcement form shows: the challenges to pick from, what was typed, its errors. */
export interface AnnouncementFormState {
  challenges: { id: string; title: string; status: string }[];
  challengeId: string;
  text: string;
  /** Errors by field (`challenge_id`, `text`). */
  errors: Record<string, string>;
}

function fieldError(id: string, message: string | undefined): SafeHtml | '' {
  return message ? html`<p class="field-error" id="${id}">${message}</p>` : '';
}

function announcementForm(state: AnnouncementFormState, csrfToken: string): SafeHtml {
  const { errors } = state;
  const invalid = (field: string) =>
    errors[field] ? html` aria-invalid="true" aria-describedby="err-announce-${field}"` : '';
  const options = joinHtml(
    state.challenges.map(
      (c) =>
        html`<option value="${c.id}"${c.id === state.challengeId ? ' selected' : ''}>${c.title} (${c.status})</option>`,
    ),
    '',
  );
  return html`<section aria-labelledby="announce-title" id="announce">
<h2 id="announce-title">Post an announcement</h2>
<p class="muted small">Public: it shows on the challenge page and in <code>GET /api/v1/challenges/{id}/clarifications</code> for everyone.</p>
${
  state.challenges.length === 0
    ? html`<p class="muted">No published challenge to announce for.</p>`
    : html`<form class="stack" method="post" action="/admin/announcements" id="announce-form">
<input type="hidden" name="_csrf" value="${csrfToken}">
<label for="announce-challenge">Challenge<select id="announce-challenge" name="challenge_id"${invalid('challenge_id')}>${options}</select></label>
${fieldError('err-announce-challenge_id', errors.challenge_id)}
<label for="announce-text">Announcement<textarea id="announce-text" name="text" rows="3" maxlength="5000" required${invalid('text')}>${state.text}</textarea></label>
${fieldError('err-announce-text', errors.text)}
<div class="actions"><button type="submit">Announce</button></div>
</form>`
}
</section>`;
}

export function renderClarificationsConsole(input: {
  unanswered: (ClarificationRow & { challenge_title: string })[];
  announcement: AnnouncementFormState;
  csrfToken: string;
  notice?: string;
  account: HeaderAccount;
}): RenderedPage {
  const body = html`<h1>Clarifications</h1>
${input.notice ? html`<p class="notice" role="status">${input.notice}</p>` : ''}
<p><strong id="unanswered-total">${String(input.unanswered.length)}</strong> unanswered (oldest first).</p>
${
  input.unanswered.length === 0
    ? html`<p class="muted">Nothing waits for an answer.</p>`
    : html`<ul class="cards" id="unanswered">${input.unanswered.map((q) => answerForm(q, input.csrfToken))}</ul>`
}
${announcementForm(input.announcement, input.csrfToken)}`;
  return consolePage({ title: 'Clarifications', section: 'home', body, account: input.account });
}
