/**
 * The console's exhibition form (issue 41.6): pick the agents of a match challenge, then confirm.
 * Voiding uses the console's shared confirmation page (console/view.ts) with its reason box.
 */
import { html } from '../../../web/html';
import { csrfField } from '../../../web/forms';
import type { HeaderAccount, RenderedPage } from '../../../web/layout';
import { consolePage } from '../console/view';

export function renderExhibitionPage(input: {
  challenge: { id: string; title: string };
  players: number;
  candidates: { agent_id: string; agent_name: string }[];
  picked: ReadonlySet<string>;
  rated: boolean;
  error?: string;
  csrfToken: string;
  account: HeaderAccount;
}): RenderedPage {
  const c = input.challenge;
  const title = `Start an exhibition: ${c.title}`;
  const boxes = input.candidates.map(
    (a, i) =>
      html`<li><label for="exhibition-agent-${i}"><input type="checkbox" id="exhibition-agent-${i}" name="agent_id" value="${a.agent_id}"${input.picked.has(a.agent_id) ? html` checked` : ''}> ${a.agent_name} <code class="small">${a.agent_id}</code></label></li>`,
  );
  const body = html`<p class="muted small"><a href="/admin/challenges/${c.id}">← ${c.title}</a></p>
<h1 class="wrap">${title}</h1>
<p>A match between the agents you pick starts now, beside the matchmaker; it is unrated unless you tick "Rated". It is recorded in the audit trail (match.create).</p>
${input.error ? html`<p class="notice" role="alert" id="exhibition-error">${input.error}</p>` : ''}
${
  input.candidates.length
    ? html`<form class="stack" method="post" action="/admin/challenges/${c.id}/exhibition" aria-label="Start an exhibition">${csrfField(input.csrfToken)}
<fieldset><legend>Agents (pick ${input.players})</legend><ul class="stack wrap">${boxes}</ul></fieldset>
<label for="exhibition-rated"><input type="checkbox" id="exhibition-rated" name="rated" value="1"${input.rated ? html` checked` : ''}> Rated (two agents of one owner may then not meet)</label>
<div class="actions"><button type="submit" name="confirm" value="yes" id="exhibition-start">Start the exhibition</button><a href="/admin/challenges/${c.id}">Cancel</a></div>
</form>`
    : html`<p class="muted" id="exhibition-none">No agent is entered in this challenge yet.</p>`
}`;
  return consolePage({ title, section: 'challenges', body, account: input.account });
}
