/** Pieces every signed-in page's forms share (docs/decisions/web.md): the CSRF field, a secret shown once. */
import { html, type SafeHtml } from './html';

/** The hidden CSRF field every form of a signed-in page carries. */
export const csrfField = (token: string) => html`<input type="hidden" name="_csrf" value="${token}">`;

/** A secret shown once, right after it was made. */
export interface ShownOnce {
  what: string;
  secret: string;
  note: string;
  /** How the service keeps it (default: only its hash). */
  kept?: string;
  /** When it stops working (shown beside it, with a warning when that is soon). */
  expiresAt?: Date;
  /** A command that uses it, as it runs. */
  command?: string;
}

const utc = (d: Date) => `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/** "Expires 2026-03-02 12:00 UTC (in 24 hours)", and a warning when less than 2 hours remain. */
export function expiryText(expiresAt: Date, now = new Date()): { text: string; soon: boolean } {
  const ms = expiresAt.getTime() - now.getTime();
  if (ms <= 0) return { text: `Expired ${utc(expiresAt)}`, soon: true };
  const hours = ms / 3_600_000;
  const span =
    hours >= 48
      ? `${Math.floor(hours / 24)} days`
      : hours >= 2
        ? `${Math.floor(hours)} hours`
        : `${Math.max(1, Math.floor(ms / 60_000))} minutes`;
  return { text: `Expires ${utc(expiresAt)} (in ${span})`, soon: hours < 2 };
}

function expiryLine(expiresAt: Date): SafeHtml {
  const { text, soon } = expiryText(expiresAt);
  return html`<p id="shown-expiry"${soon ? html` class="notice"` : ''}>${text}${soon ? '; make a new one before then.' : '. Make a new one before it ends: the connector stops with 401 then.'}</p>`;
}

export function shownOnceBlock(shown: ShownOnce | undefined): SafeHtml | '' {
  if (!shown) return '';
  return html`<section class="shown-once" aria-labelledby="shown-once-title" role="status">
<h2 id="shown-once-title">${shown.what}: copy it now</h2>
<p>It is shown this once and never again (${shown.kept ?? 'only its hash is kept'}).</p>
<pre><code id="shown-secret">${shown.secret}</code></pre>
${shown.expiresAt ? expiryLine(shown.expiresAt) : ''}
<p class="small muted">${shown.note}</p>
${shown.command ? html`<pre class="wrap"><code id="shown-command">${shown.command}</code></pre>` : ''}
</section>`;
}
