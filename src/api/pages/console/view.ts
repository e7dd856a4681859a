/**
 * The operators' console's shell (/admin, docs/decisions/operators.md "The console"): its style and
 * navigation, the landing page, and the confirmation step of every action. Server-rendered, no
 * script needed; every form posts `_csrf`. The console's pages live with their features:
 * challenges/console-view.ts and form.ts, submissions/console-view.ts, audit/console-view.ts,
 * webhooks/view.ts (deliveries).
 */
import { csrfField } from '../../../web/forms';
import { renderPage, type HeaderAccount, type RenderedPage } from '../../../web/layout';
import { html, raw, type SafeHtml } from '../../../web/html';

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

export type Section = 'home' | 'challenges' | 'deliveries' | 'audit';

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
  /** The page's own script (a `raw` constant), run under the page's nonce. */
  script?: SafeHtml;
}): RenderedPage {
  return renderPage({
    title: `${input.title} · Console`,
    body: html`${consoleNav(input.section)}
${input.body}`,
    account: input.account,
    style: CONSOLE_STYLE,
    script: input.script,
  });
}

export const statusBadge = (status: string) => html`<span class="badge b-${status}">${status}</span>`;

export function renderConsoleHome(input: {
  counts: { status: string; count: number }[];
  /** Fair contests: questions waiting for an answer. */
  unanswered?: number;
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
<li class="card"><h2><a href="/admin/clarifications">Clarifications</a></h2><p class="muted small">Competitors' questions: answer privately or for everyone.</p><p id="unanswered-count"><strong>${String(input.unanswered ?? 0)}</strong> unanswered</p></li>
</ul>`;
  return consolePage({ title: 'Console', section: 'home', body, account: input.account });
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
  /** Said above the form (a form kept through a sign-in: /unsent). */
  notice?: string;
  section?: Section;
}): RenderedPage {
  const reason = input.reason
    ? html`<label for="confirm-reason">Reason (required; shown to nobody but operators and recorded in the audit trail)<textarea id="confirm-reason" name="reason" rows="4" maxlength="1000" required${input.reason.error ? html` aria-invalid="true" aria-describedby="err-reason"` : ''}>${input.reason.value}</textarea></label>
${input.reason.error ? html`<p class="field-error" id="err-reason">${input.reason.error}</p>` : ''}`
    : '';
  const body = html`<h1>${input.title}</h1>
${input.notice ? html`<p class="notice" role="status" id="unsent-notice">${input.notice}</p>` : ''}
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
