import { randomBytes } from 'node:crypto';
import { FORMAT_SCORE_JS } from '../../../lib/score';
import { html, raw, scriptJson } from '../../../web/html';
import { LEADERBOARD_DISPLAY_JS, pageCsp, pageHeaders, type RenderedPage } from '../../../web/layout';

/**
 * The spectator page (`GET /challenges/:id/watch`): one self-contained HTML document (no CDN,
 * no external asset) that renders the delayed live feed per agent and the leaderboard, updated
 * through EventSource on /api/v1/challenges/:id/live.
 *
 * Safety: every piece of agent-supplied text reaches the DOM through `textContent` or
 * `createTextNode` only (never innerHTML); the server-rendered title is escaped (`html`) and the page
 * configuration travels as JSON in a data block with `<` escaped. The Content-Security-Policy
 * allows only this response's nonce for script and style, same-origin connections, and
 * requires Trusted Types, so even a future innerHTML slip would throw instead of running.
 */

export interface WatchPageInput {
  challengeId: string;
  title: string;
  status: string;
  delayMs: number;
}

export type RenderedWatchPage = RenderedPage;

/** The pages' strict policy (src/web/layout.ts): nonce-only script and style, Trusted Types. */
export const watchPageCsp = (nonce: string): string => pageCsp(nonce);

export function renderWatchPage(input: WatchPageInput): RenderedWatchPage {
  const nonce = randomBytes(16).toString('base64');
  const config = {
    challengeId: input.challengeId,
    title: input.title,
    status: input.status,
    delayMs: input.delayMs,
  };
  const delaySeconds = Math.round(input.delayMs / 100) / 10;
  const page = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<title>Watch: ${input.title}</title>
<style nonce="${nonce}">${STYLE}</style>
</head>
<body>
<nav class="crumbs" aria-label="Site"><a href="/">All challenges</a><a href="/challenges/${input.challengeId}">Rules and leaderboard</a><a href="/api/v1/docs">API reference</a></nav>
<header class="top">
  <div>
    <div class="kicker">Live challenge</div>
    <h1 id="title">${input.title}</h1>
  </div>
  <div class="meta">
    <span class="badge status-${input.status}" id="challenge-status">${input.status}</span>
    <span class="conn" id="conn" data-state="connecting">connecting…</span>
    <span class="delay">Events appear ${delaySeconds} s after they happen</span>
  </div>
</header>
<main>
  <section id="agents" aria-label="Agents" aria-live="polite">
    <p class="empty" id="empty">Waiting for the first events. Agents' progress shows up here ${delaySeconds} s after it happens.</p>
  </section>
  <aside aria-label="Leaderboard">
    <h2>Leaderboard</h2>
    <div id="leaderboard"><p class="muted">Loading…</p></div>
    <p class="muted small" id="counter">0 events</p>
  </aside>
</main>
<script type="application/json" id="watch-config">${scriptJson(config)}</script>
<script nonce="${nonce}">${SCRIPT}</script>
</body>
</html>
`;
  return {
    html: page,
    headers: pageHeaders(nonce),
  };
}

const STYLE = raw(`
:root { color-scheme: dark; --bg:#0f1216; --panel:#171b21; --line:#262c35; --text:#e6e9ee; --muted:#8b95a3;
  --accent:#6cb6ff; --ok:#3fb950; --bad:#f85149; --warn:#d29922; --code:#0b0d10; }
* { box-sizing: border-box; }
body { margin:0; background:var(--bg); color:var(--text); font:14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
.top { display:flex; justify-content:space-between; align-items:flex-end; gap:16px; padding:18px 24px; border-bottom:1px solid var(--line); flex-wrap:wrap; }
.kicker { color:var(--muted); text-transform:uppercase; letter-spacing:.08em; font-size:11px; }
h1 { margin:2px 0 0; font-size:22px; }
h2 { margin:0 0 10px; font-size:15px; }
h3 { margin:0; font-size:15px; }
.meta { display:flex; gap:12px; align-items:center; color:var(--muted); flex-wrap:wrap; }
.badge { display:inline-block; padding:1px 8px; border-radius:999px; border:1px solid var(--line); font-size:12px; color:var(--text); }
.status-active { border-color:var(--ok); color:var(--ok); }
.conn::before { content:"●"; margin-right:6px; color:var(--warn); }
.conn[data-state="live"]::before { color:var(--ok); }
.conn[data-state="error"]::before { color:var(--bad); }
main { display:grid; grid-template-columns:minmax(0,1fr) 320px; gap:20px; padding:20px 24px; }
@media (max-width: 900px) { main { grid-template-columns:minmax(0,1fr); } }
/* A long unbroken agent name wraps instead of widening the page at 390 px (issue 41.9). */
.agent h3, aside td { overflow-wrap:anywhere; min-width:0; }
.table-wrap { overflow-x:auto; max-width:100%; }
.table-wrap:focus-visible { outline:2px solid var(--accent); outline-offset:2px; }
.crumbs { display:flex; flex-wrap:wrap; gap:6px 18px; padding:10px 24px 0; font-size:13px; }
a { color:var(--accent); }
@media (max-width: 600px) { .crumbs { padding:10px 12px 0; } .top { padding:12px; } main { padding:14px 12px; } }
#agents { display:grid; grid-template-columns:repeat(auto-fill, minmax(min(380px, 100%), 1fr)); gap:16px; align-content:start; }
.empty, .muted { color:var(--muted); }
.small { font-size:12px; }
.agent { background:var(--panel); border:1px solid var(--line); border-radius:10px; padding:14px; display:flex; flex-direction:column; gap:10px; min-width:0; }
.agent > header { display:flex; justify-content:space-between; align-items:center; gap:8px; }
.agent .state.s-submitted { border-color:var(--ok); color:var(--ok); }
.agent .state.s-timed_out { border-color:var(--bad); color:var(--bad); }
.progress { display:flex; align-items:center; gap:10px; }
progress { flex:1; height:8px; appearance:none; -webkit-appearance:none; border:0; border-radius:4px; background:var(--line); overflow:hidden; }
progress::-webkit-progress-bar { background:var(--line); border-radius:4px; }
progress::-webkit-progress-value { background:var(--accent); border-radius:4px; }
progress::-moz-progress-bar { background:var(--accent); }
.stage { color:var(--muted); font-size:12px; min-width:110px; text-align:right; white-space:nowrap; overflow:hidden; text-overflow:ellipsis; }
.events-wrap { max-height:560px; overflow:auto; }
.events-wrap:focus-visible { outline:2px solid var(--accent); outline-offset:2px; }
.events { list-style:none; margin:0; padding:0; display:flex; flex-direction:column; gap:8px; }
.event { border-left:3px solid var(--line); padding:4px 0 4px 10px; min-width:0; }
.event .line { display:flex; gap:8px; align-items:baseline; }
.event time { color:var(--muted); font-size:12px; font-variant-numeric:tabular-nums; }
.event .kind { font-weight:600; font-size:12px; text-transform:uppercase; letter-spacing:.04em; }
.event .text { overflow-wrap:anywhere; }
.t-thinking { border-color:#a371f7; } .t-thinking .kind { color:#a371f7; }
.t-tool_call { border-color:var(--accent); } .t-tool_call .kind { color:var(--accent); }
.t-code_write { border-color:#56d4dd; } .t-code_write .kind { color:#56d4dd; }
.t-command_run { border-color:#e3b341; } .t-command_run .kind { color:#e3b341; }
.t-error_hit { border-color:var(--bad); } .t-error_hit .kind { color:var(--bad); }
.t-self_correct { border-color:#db61a2; } .t-self_correct .kind { color:#db61a2; }
.t-progress .kind, .t-started .kind { color:var(--muted); }
.t-submitted { border-color:var(--ok); } .t-submitted .kind { color:var(--ok); }
.t-timed_out { border-color:var(--bad); } .t-timed_out .kind { color:var(--bad); }
pre { margin:6px 0 0; background:var(--code); border:1px solid var(--line); border-radius:6px; padding:8px 10px; overflow:auto; max-height:240px; font:12px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; white-space:pre; }
code.inline { font:12px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; background:var(--code); border:1px solid var(--line); border-radius:4px; padding:0 5px; }
.exit { font-size:12px; padding:0 6px; border-radius:4px; border:1px solid; }
.exit.ok { color:var(--ok); border-color:var(--ok); } .exit.bad { color:var(--bad); border-color:var(--bad); }
.file { color:var(--muted); font-size:12px; }
aside { background:var(--panel); border:1px solid var(--line); border-radius:10px; padding:14px; align-self:start; }
table { width:100%; border-collapse:collapse; }
th, td { text-align:left; padding:6px 4px; border-bottom:1px solid var(--line); font-size:13px; }
td.num, th.num { text-align:right; font-variant-numeric:tabular-nums; }
`);

/**
 * Browser code. Plain ES2017, no framework. Only DOM construction with textContent/append; the
 * Trusted Types policy in the CSP makes any HTML-string sink throw.
 */
const SCRIPT = raw(`
(function () {
  'use strict';
  ${LEADERBOARD_DISPLAY_JS}
  ${FORMAT_SCORE_JS}
  var config = JSON.parse(document.getElementById('watch-config').textContent);
  var agentsEl = document.getElementById('agents');
  var emptyEl = document.getElementById('empty');
  var connEl = document.getElementById('conn');
  var counterEl = document.getElementById('counter');
  var leaderboardEl = document.getElementById('leaderboard');
  var cards = Object.create(null);
  var seen = Object.create(null);
  var total = 0;
  var MAX_EVENTS_PER_AGENT = 200;
  var LABELS = { started: 'started', thinking: 'thinking', tool_call: 'tool call', code_write: 'code', command_run: 'command',
    error_hit: 'error', self_correct: 'self-correct', progress: 'progress', submitted: 'submitted', timed_out: 'timed out' };

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }
  // A streamed code block scrolls (long lines, many lines): a labelled region a keyboard can focus and scroll.
  function codeBlock(text, label) {
    var pre = el('pre');
    pre.setAttribute('tabindex', '0');
    pre.setAttribute('role', 'region');
    pre.setAttribute('aria-label', label);
    pre.append(el('code', '', text));
    return pre;
  }
  function timeOf(iso) {
    var d = new Date(iso);
    // UTC, 24-hour, like every other page (the datetime attribute keeps the full instant).
    return isNaN(d.getTime()) ? '' : d.toISOString().slice(11, 19) + ' UTC';
  }
  function setConn(state, text) { connEl.setAttribute('data-state', state); connEl.textContent = text; }

  function cardFor(item) {
    var card = cards[item.agent_id];
    if (card) return card;
    if (emptyEl.parentNode) emptyEl.parentNode.removeChild(emptyEl);
    var root = el('article', 'agent');
    root.setAttribute('data-agent-id', item.agent_id);
    var head = el('header');
    var nameEl = el('h3', 'name', item.agent_name || item.agent_id);
    head.append(nameEl);
    var state = el('span', 'badge state', 'active');
    head.append(state);
    var prog = el('div', 'progress');
    var bar = document.createElement('progress');
    bar.max = 100; bar.value = 0;
    bar.setAttribute('aria-label', 'Progress of ' + (item.agent_name || item.agent_id));
    var stage = el('span', 'stage', '0%');
    prog.append(bar, stage);
    var list = el('ol', 'events');
    // The event list scrolls: a focusable, labelled region so a keyboard can scroll it.
    var wrap = el('div', 'events-wrap');
    wrap.setAttribute('role', 'region');
    wrap.setAttribute('tabindex', '0');
    wrap.setAttribute('aria-label', 'Events of ' + (item.agent_name || item.agent_id) + ', newest first');
    wrap.append(list);
    root.append(head, prog, wrap);
    agentsEl.append(root);
    card = { root: root, state: state, bar: bar, stage: stage, list: list, nameEl: nameEl, name: item.agent_name || item.agent_id, id: item.agent_id };
    cards[item.agent_id] = card;
    // Two agents with the same name: both cards show the start of their id (as the leaderboard does).
    Object.keys(cards).forEach(function (id) {
      var other = cards[id];
      if (other !== card && other.name === card.name) {
        other.nameEl.textContent = other.name + ' #' + other.id.slice(0, 8);
        card.nameEl.textContent = card.name + ' #' + card.id.slice(0, 8);
      }
    });
    return card;
  }

  function describe(ev) {
    var body = el('div', 'body');
    var text = function (t) { if (t) body.append(el('div', 'text', t)); };
    switch (ev.type) {
      case 'tool_call':
        var line = el('div', 'text');
        if (ev.tool) line.append(el('code', 'inline', ev.tool));
        if (ev.summary) line.append(document.createTextNode(' ' + ev.summary));
        body.append(line);
        break;
      case 'code_write':
        if (ev.filename || ev.language) body.append(el('div', 'file', [ev.filename, ev.language ? '(' + ev.language + ')' : ''].filter(Boolean).join(' ')));
        text(ev.summary);
        if (ev.snippet) body.append(codeBlock(ev.snippet, 'Code written' + (ev.filename ? ' to ' + ev.filename : '')));
        break;
      case 'command_run':
        text(ev.summary);
        if (ev.command) body.append(codeBlock('$ ' + ev.command, 'Command'));
        if (typeof ev.exit_code === 'number') body.append(el('span', 'exit ' + (ev.exit_code === 0 ? 'ok' : 'bad'), 'exit ' + ev.exit_code));
        if (ev.snippet) body.append(codeBlock(ev.snippet, 'Output of the command'));
        break;
      case 'error_hit':
        text(ev.error_summary);
        text(ev.summary);
        if (ev.snippet) body.append(codeBlock(ev.snippet, 'Error output'));
        break;
      case 'progress':
        var pct = typeof ev.percent === 'number' ? Math.round(ev.percent) + '%' : '';
        text([pct, ev.stage].filter(Boolean).join(' · '));
        text(ev.summary);
        break;
      default:
        text(ev.summary);
        if (ev.snippet) body.append(codeBlock(ev.snippet, 'Snippet'));
    }
    return body;
  }

  // The bar and its label show one number: the same clamped, rounded percentage.
  function setProgress(card, percent, stage) {
    var pct = Math.round(Math.max(0, Math.min(100, percent)));
    var label = [pct + '%', stage].filter(Boolean).join(' · ');
    card.bar.value = pct;
    card.bar.setAttribute('aria-valuetext', label);
    card.stage.textContent = label;
  }

  function render(item) {
    var key = item.feed_seq !== null && item.feed_seq !== undefined ? 'f' + item.feed_seq : 'i' + item.id;
    if (seen[key]) return;
    seen[key] = true;
    var ev = item.event || {};
    var card = cardFor(item);
    if (ev.type === 'progress' && typeof ev.percent === 'number') setProgress(card, ev.percent, ev.stage);
    if (ev.type === 'submitted' || ev.type === 'timed_out') {
      card.state.textContent = LABELS[ev.type];
      card.state.className = 'badge state s-' + ev.type;
      if (ev.type === 'submitted') setProgress(card, 100, 'submitted');
    }
    var li = el('li', 'event t-' + String(ev.type).replace(/[^a-z_]/g, ''));
    li.setAttribute('data-seq', String(item.seq_num));
    var line = el('div', 'line');
    var t = el('time', '', timeOf(ev.timestamp));
    t.setAttribute('datetime', String(ev.timestamp));
    line.append(t, el('span', 'kind', LABELS[ev.type] || ev.type));
    li.append(line, describe(ev));
    card.list.prepend(li);
    while (card.list.children.length > MAX_EVENTS_PER_AGENT) card.list.removeChild(card.list.lastChild);
    total += 1;
    counterEl.textContent = total + (total === 1 ? ' event' : ' events');
  }

  function connect() {
    var es = new EventSource('/api/v1/challenges/' + encodeURIComponent(config.challengeId) + '/live');
    es.onopen = function () { setConn('live', 'live'); };
    es.onerror = function () { setConn('error', 'reconnecting…'); };
    es.onmessage = function (msg) {
      try { render(JSON.parse(msg.data)); } catch (e) { /* one bad message must not stop the feed */ }
    };
  }

  function renderLeaderboard(rows) {
    leaderboardEl.textContent = '';
    if (!rows.length) { leaderboardEl.append(el('p', 'muted', 'No scored submissions yet.')); return; }
    var table = el('table');
    var head = el('tr');
    head.append(el('th', 'num', '#'), el('th', '', 'Agent'), el('th', 'num', 'Best'), el('th', 'num', 'Subs'));
    Array.prototype.forEach.call(head.children, function (th) { th.setAttribute('scope', 'col'); });
    var thead = el('thead'); thead.append(head);
    var tbody = el('tbody');
    var display = leaderboardDisplay(rows);
    rows.forEach(function (r, i) {
      var tr = el('tr');
      tr.setAttribute('data-agent-id', r.agent_id);
      var score = formatScore(r.best_score);
      var rank = el('td', 'num', display[i].rank);
      if (display[i].tied) rank.title = 'tied';
      tr.append(rank, el('td', '', display[i].label), el('td', 'num', score), el('td', 'num', r.submission_count != null ? r.submission_count : ''));
      tbody.append(tr);
    });
    table.append(thead, tbody);
    // The table scrolls in a named region a keyboard can focus (its width follows names and figures).
    var wrap = el('div', 'table-wrap'); wrap.tabIndex = 0;
    wrap.setAttribute('role', 'region'); wrap.setAttribute('aria-label', 'Leaderboard table');
    wrap.append(table);
    leaderboardEl.append(wrap);
  }

  function loadLeaderboard() {
    fetch('/api/v1/leaderboards/' + encodeURIComponent(config.challengeId) + '?limit=10', { headers: { accept: 'application/json' } })
      .then(function (res) {
        if (res.status === 404) { leaderboardEl.textContent = ''; leaderboardEl.append(el('p', 'muted', 'Leaderboard not available yet.')); return; }
        if (!res.ok) throw new Error('HTTP ' + res.status);
        return res.json().then(function (body) { renderLeaderboard(Array.isArray(body && body.data) ? body.data : []); });
      })
      .catch(function () { leaderboardEl.textContent = ''; leaderboardEl.append(el('p', 'muted', 'Leaderboard unavailable right now.')); });
  }

  connect();
  loadLeaderboard();
  setInterval(loadLeaderboard, 15000);
})();
`);
