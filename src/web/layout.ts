import { randomBytes } from 'node:crypto';
import { isOperatorSession } from '../domain/accounts/policy';
import { html, raw, type SafeHtml } from './html';

/**
 * What every server-rendered page shares (markup escaped by construction: ./html.ts), the strict
 * Content-Security-Policy (only this response's nonce may run script or apply style; nothing from
 * another host; Trusted Types required, so an innerHTML slip throws instead of running), the
 * security headers, and the leaderboard display rules used both on the server and in the browser.
 */

/** A whole page and its headers; the markup stays SafeHtml until the response writes it. */
export interface RenderedPage {
  html: SafeHtml;
  headers: Record<string, string>;
}

export const newNonce = () => randomBytes(16).toString('base64');

/** `formAction`: whether the page's own GET forms (filters) may submit to this origin. */
export function pageCsp(nonce: string, options: { formAction?: boolean } = {}): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src 'nonce-${nonce}'`,
    "connect-src 'self'",
    "img-src 'self' data:",
    "base-uri 'none'",
    // Pages post forms to this origin (the header's "Sign out" is on every page of a signed-in person).
    options.formAction === false ? "form-action 'none'" : "form-action 'self'",
    "frame-ancestors 'none'",
    "require-trusted-types-for 'script'",
  ].join('; ');
}

export function pageHeaders(
  nonce: string,
  options: { formAction?: boolean; referrer?: 'no-referrer' | 'same-origin' } = {},
): Record<string, string> {
  return {
    'Content-Security-Policy': pageCsp(nonce, options),
    'X-Content-Type-Options': 'nosniff',
    // same-origin: a form post carries this page's Origin (no-referrer would send `Origin: null`,
    // which the CSRF check refuses); other sites still get no Referer.
    'Referrer-Policy': options.referrer ?? 'same-origin',
    'X-Frame-Options': 'DENY',
    'Cache-Control': 'no-store',
  };
}

export interface DisplayRow {
  /** Shared by agents with the same best score (1, 1, 3); the API's rank breaks ties by time. */
  rank: number;
  tied: boolean;
  /** The agent's name, plus a short id when another listed agent has the same name. */
  label: string;
}

/**
 * The leaderboard display rules, as browser JavaScript (ES2017, no helpers) so the server's first
 * render and the page's refresh run the very same code: equal best scores share a rank, and
 * same-named agents are told apart by the first 8 characters of their id.
 */
export const LEADERBOARD_DISPLAY_JS = `function leaderboardDisplay(rows) {
  var names = Object.create(null);
  rows.forEach(function (r) { names[r.agent_name] = (names[r.agent_name] || 0) + 1; });
  var out = [];
  for (var i = 0; i < rows.length; i++) {
    var r = rows[i];
    var prev = out[i - 1];
    var sameAsPrev = i > 0 && Number(rows[i - 1].best_score) === Number(r.best_score);
    var rank = sameAsPrev ? prev.rank : (typeof r.rank === 'number' ? r.rank : i + 1);
    if (sameAsPrev) prev.tied = true;
    var label = names[r.agent_name] > 1 ? r.agent_name + ' #' + String(r.agent_id).slice(0, 8) : r.agent_name;
    out.push({ rank: rank, tied: sameAsPrev, label: label });
  }
  return out;
}`;

// One implementation for both sides: the server evaluates the same source the browser gets.
export const leaderboardDisplay = new Function(`${LEADERBOARD_DISPLAY_JS}; return leaderboardDisplay;`)() as (
  rows: { rank: number; agent_id: string; agent_name: string; best_score: number }[],
) => DisplayRow[];

export const BASE_STYLE = raw(`
:root { color-scheme: dark; --bg:#0f1216; --panel:#171b21; --line:#2d3440; --text:#e6e9ee; --muted:#9aa4b2;
  --accent:#79bbff; --ok:#4ac35e; --bad:#ff6b61; --warn:#e0a82e; --code:#0b0d10; }
* { box-sizing: border-box; }
body { margin:0; background:var(--bg); color:var(--text); font:15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
a { color:var(--accent); }
a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible, .table-wrap:focus-visible { outline:2px solid var(--accent); outline-offset:2px; }
.site { display:flex; gap:20px; align-items:center; padding:12px 24px; border-bottom:1px solid var(--line); flex-wrap:wrap; }
.site .brand { font-weight:700; color:var(--text); text-decoration:none; }
.site nav { display:flex; gap:16px; flex-wrap:wrap; }
.site .signout, .site .signin { margin-left:auto; display:flex; gap:10px; align-items:center; }
.shown-once { border:1px solid var(--ok); border-left:3px solid var(--ok); padding:8px 12px; border-radius:6px; background:var(--panel); overflow-wrap:anywhere; }
.stack { display:flex; flex-direction:column; gap:12px; max-width:560px; }
.row { display:flex; flex-wrap:wrap; gap:8px; align-items:flex-end; }
textarea { font:13px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; color:var(--text); background:var(--code); border:1px solid var(--line); border-radius:6px; padding:6px 10px; width:100%; }
.table-wrap { overflow-x:auto; position:relative; }
.steps { display:flex; flex-wrap:wrap; gap:8px; list-style:none; padding:0; }
.steps li { border:1px solid var(--line); border-radius:999px; padding:2px 10px; color:var(--muted); }
.steps li[aria-current] { border-color:var(--accent); color:var(--text); }
fieldset { border:1px solid var(--line); border-radius:6px; min-width:0; }
.shown-once pre { white-space:pre-wrap; word-break:break-all; }
input, select, textarea { max-width:100%; }
label.check { flex-direction:row; color:var(--text); }
main { max-width:1100px; margin:0 auto; padding:20px 24px 48px; }
h1 { margin:4px 0 8px; font-size:26px; }
h2 { margin:28px 0 10px; font-size:18px; }
.muted { color:var(--muted); }
.small { font-size:13px; }
.badge { display:inline-block; padding:0 8px; border-radius:999px; border:1px solid var(--line); font-size:12px; }
.b-active { border-color:var(--ok); color:var(--ok); }
.b-upcoming { border-color:var(--warn); color:var(--warn); }
.b-complete, .b-sub-failed { border-color:var(--bad); color:var(--bad); }
.b-sub-complete { border-color:var(--ok); color:var(--ok); }
.cards { list-style:none; padding:0; margin:0; display:grid; grid-template-columns:repeat(auto-fill, minmax(300px, 1fr)); gap:14px; }
.card { background:var(--panel); border:1px solid var(--line); border-radius:10px; padding:14px; display:flex; flex-direction:column; gap:6px; }
.card h2 { margin:0; font-size:17px; }
.facts { display:flex; flex-wrap:wrap; gap:6px 14px; color:var(--muted); font-size:13px; margin:0; }
form.filters { display:flex; flex-wrap:wrap; gap:12px; align-items:flex-end; margin:12px 0 18px; }
label { display:flex; flex-direction:column; gap:4px; font-size:13px; color:var(--muted); }
input, select, button { font:inherit; color:var(--text); background:var(--code); border:1px solid var(--line); border-radius:6px; padding:6px 10px; }
button { background:#1f6feb; border-color:#1f6feb; color:#fff; cursor:pointer; }
button.secondary { background:transparent; color:var(--accent); border-color:var(--line); }
.pager { display:flex; gap:16px; margin-top:18px; }
table { width:100%; border-collapse:collapse; }
th, td { text-align:left; padding:7px 6px; border-bottom:1px solid var(--line); font-size:14px; vertical-align:top; }
td.num, th.num { text-align:right; font-variant-numeric:tabular-nums; }
dl.rules { display:grid; grid-template-columns:max-content 1fr; gap:4px 16px; margin:0; }
dl.rules dt { color:var(--muted); }
dl.rules dd { margin:0; }
pre, code { font:13px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
pre { background:var(--code); border:1px solid var(--line); border-radius:6px; padding:8px 10px; overflow:auto; white-space:pre-wrap; }
.description { white-space:pre-wrap; }
.grid2 { display:grid; grid-template-columns:minmax(0, 1fr) minmax(0, 1fr); gap:24px; }
@media (max-width: 860px) { .grid2 { grid-template-columns:1fr; } }
.notice { border:1px solid var(--line); border-left:3px solid var(--warn); padding:8px 12px; border-radius:6px; background:var(--panel); }
h3 { margin:16px 0 6px; font-size:15px; }
/* At 390 px nothing may push the page sideways: wide tables scroll in their own box, long words wrap. */
main { overflow-wrap:anywhere; }
input, select { max-width:100%; min-width:0; }
form.filters label, form.row label { max-width:100%; }
.table-wrap { overflow-x:auto; max-width:100%; }
/* Column headings break between words only, never mid-word (issue 41.9): a table wider than 390 px scrolls in its region. */
thead th, th[scope="col"] { overflow-wrap:normal; word-break:normal; hyphens:manual; }
.field-error { color:var(--bad); font-size:13px; margin:4px 0 0; }
form.selection { border:1px solid var(--line); border-radius:6px; padding:6px 12px; margin:8px 0; }
form.selection.invalid { border-color:var(--bad); }
form.selection p { margin:6px 0; }
ul.inline { list-style:none; padding:0; margin:0; display:flex; flex-wrap:wrap; gap:4px 10px; }
ul.next { display:flex; flex-wrap:wrap; gap:8px 20px; padding:0; list-style:none; }
@media (max-width: 600px) { main { padding:14px 12px 40px; } .site { padding:10px 12px; gap:10px; } }
/* A result as a judge shows it (verdict table, excerpts, submitted files). */
tr.ok td[data-verdict] { color:var(--ok); }
tr.bad td[data-verdict] { color:var(--bad); }
/* Headings, verdicts and figures stay whole words at 390 px (the table scrolls in its own box). */
#verdict-table thead th, #verdict-table td[data-verdict], #verdict-table td.num { white-space:nowrap; overflow-wrap:normal; }
#verdict-table tbody th { min-width:7em; }
#verdict-table .badge { white-space:nowrap; }
#verdict-table td.detail:not(:empty) { min-width:12em; }
figure.code-file { margin:10px 0; }
figure.code-file figcaption { font-size:13px; color:var(--muted); margin-bottom:4px; }
details > summary { cursor:pointer; }
.wrap { overflow-wrap:anywhere; word-break:break-word; }
.sr-only { position:absolute; width:1px; height:1px; overflow:hidden; clip:rect(0 0 0 0); white-space:nowrap; }
`);

/** Who is signed in, as the site header shows it (undefined on pages that do not look). */
export interface HeaderAccount {
  /** null: signed out (the header offers "Sign in"). */
  signedIn: {
    name: string;
    csrfToken: string;
    /** An operator: the header links the console. */ operator?: boolean;
  } | null;
  /** Where "Sign in" returns to. */
  returnTo?: string;
}

/** The header's account part for a page, from the web session (null: signed out). */
export function headerAccount(
  session: { name: string | null; subject: string; csrfToken: string; role?: string } | null,
  returnTo?: string,
): HeaderAccount {
  return {
    signedIn: session
      ? {
          name: session.name ?? session.subject,
          csrfToken: session.csrfToken,
          operator: isOperatorSession(session),
        }
      : null,
    returnTo,
  };
}

export function siteHeader(account?: HeaderAccount): SafeHtml {
  let accountPart = html``;
  if (account?.signedIn) {
    accountPart = html`<form class="signout" method="post" action="/logout"><input type="hidden" name="_csrf" value="${account.signedIn.csrfToken}"><span class="muted small">Signed in as ${account.signedIn.name}</span> <button type="submit" class="secondary">Sign out</button></form>`;
  } else if (account) {
    const back =
      account.returnTo && account.returnTo !== '/'
        ? // A lone surrogate would make encodeURIComponent throw (a 500 for a mangled address).
          `?return_to=${encodeURIComponent(account.returnTo.replace(/\p{Cs}/gu, '\uFFFD'))}`
        : '';
    accountPart = html`<a class="signin" href="/login${back}">Sign in</a>`;
  }
  const mine = account?.signedIn
    ? html`<a href="/me/agents">My agents</a><a href="/me/tokens">API tokens</a><a href="/me/webhooks">Webhooks</a><a href="/me">My submissions</a>`
    : html`<a href="/me">My submissions</a>`;
  const consoleLink = account?.signedIn?.operator && html`<a href="/admin">Console</a>`;
  return html`<header class="site"><a class="brand" href="/">Challenges</a><nav aria-label="Site"><a href="/">Challenges</a><a href="/games">Games</a>${mine}${consoleLink}<a href="/api/v1/docs">API reference</a></nav>${accountPart}</header>`;
}

export interface PageShell {
  /** Text (escaped like any value). */
  title: string;
  nonce: string;
  body: SafeHtml;
  /** The page's own script (our code: a `raw` constant), run under the nonce. */
  script?: SafeHtml;
  /** Extra CSS of the page (after the shared style, under the same nonce; a `raw` constant). */
  style?: SafeHtml;
  account?: HeaderAccount;
  /** Pages with forms that post send their origin (no-referrer would make it `null`, refused). */
  referrer?: 'no-referrer' | 'same-origin';
}

export function pageShell(input: PageShell): SafeHtml {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="${input.referrer ?? 'same-origin'}">
<link rel="icon" href="data:,">
<title>${input.title}</title>
<style nonce="${input.nonce}">${BASE_STYLE}${input.style}</style>
</head>
<body>
${siteHeader(input.account)}
<main id="main">
${input.body}
</main>
${input.script && html`<script nonce="${input.nonce}">${input.script}</script>`}
</body>
</html>
`;
}

/**
 * A whole page: a fresh nonce for its inline style and script, the shell, and the headers whose
 * policy allows exactly those (every page is rendered through here, so none forgets a header).
 * The body, style and script are `SafeHtml` only: a string built by hand does not type-check.
 */
export function renderPage(
  shell: Omit<PageShell, 'nonce'>,
  headers: Parameters<typeof pageHeaders>[1] = {},
): RenderedPage {
  const nonce = newNonce();
  return { html: pageShell({ ...shell, nonce }), headers: pageHeaders(nonce, headers) };
}
