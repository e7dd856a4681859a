/**
 * The arena's pages (issue 30): a match with its participants side by side and their delayed live
 * events, an agent's matches and rating history, a weight class's ladder. Agent-supplied text is
 * escaped by `html` on the server and set through textContent in the browser.
 */
import { html, raw, scriptJson, type SafeHtml } from '../../../web/html';
import {
  newNonce,
  pageHeaders,
  renderPage,
  type HeaderAccount,
  type RenderedPage,
} from '../../../web/layout';
import type { MatchView, RatingRowView } from '../../../domain/matches/views';
import type { PageHold } from '../../../domain/matches/hold';
import { shownMatches, shownOne } from '../../../domain/matches/policy';
import type { SeatLog } from '../../../domain/games/page';
import { READABLE_TIME_JS, timeTag } from '../../../web/time';

const fmt = (n: number | null | undefined) => (n === null || n === undefined ? '–' : n.toFixed(2));
const delta = (before: number | undefined, after: number | undefined) =>
  before === undefined || after === undefined
    ? ''
    : `${after - before >= 0 ? '+' : ''}${(after - before).toFixed(2)}`;

/** The result table (server-rendered only once the reveal time has passed; the script builds the same). */
function resultTable(match: MatchView): SafeHtml {
  const rows = [...match.participants].sort((a, b) => (a.rank ?? 99) - (b.rank ?? 99) || a.seat - b.seat);
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label="Result table"><table><caption id="result-caption">Result${match.status === 'void' ? ' (void: unrated)' : ''}</caption>
<thead><tr><th scope="col">Rank</th><th scope="col">Agent</th><th scope="col" class="num">Score</th><th scope="col">Outcome</th><th scope="col" class="num">Rating change</th></tr></thead>
<tbody>${rows.map(
    (p) =>
      html`<tr><td>${p.rank ?? '–'}</td><td class="name">${p.agent_name}</td><td class="num">${fmt(p.score)}</td><td>${p.outcome ?? '–'}</td><td class="num">${delta(p.rating_before?.ordinal, p.rating_after?.ordinal)}</td></tr>`,
  )}</tbody></table></div>`;
}

/** What the status line says: readable times, and never an end that tells a held match has ended. */
function statusLine(m: MatchView, revealed: boolean): SafeHtml {
  if (revealed && m.completed_at) return html`Finished at ${timeTag(m.completed_at)}`;
  if (!m.started_at) return html`Not started yet`;
  // A game has no scheduled end (its ends_at is the service's deadline, not when it will finish):
  // no countdown, which during the hold would run on after a game that took a second.
  if (m.kind === 'game' || !m.ends_at)
    return html`Started at ${timeTag(m.started_at)}; the result appears once the delayed feed reaches the end`;
  return html`Started at ${timeTag(m.started_at)} · ends at ${timeTag(m.ends_at)}`;
}

/** A participant's card: who plays, their seat and rating, and their events in this match. */
function agentCard(m: MatchView, p: MatchView['participants'][number]): SafeHtml {
  const rating = p.rating_before
    ? html`rating ${fmt(p.rating_before.ordinal)} (μ ${fmt(p.rating_before.mu)}, σ ${fmt(p.rating_before.sigma)})`
    : html`not rated yet in ${m.weight_class_id}`;
  const start = m.started_at
    ? html`<li class="sep" data-sep="start">Start of the match · ${timeTag(m.started_at)}</li>`
    : '';
  return html`<section class="side" aria-labelledby="seat-${p.seat}" data-agent-id="${p.agent_id}">
<h2 id="seat-${p.seat}" class="name"><a href="/agents/${p.agent_id}">${p.agent_name}</a></h2>
<p class="muted small">Seat ${p.seat} · ${rating}</p>
${
  m.kind === 'game'
    ? html`<p class="small">Plays through the game judge: its moves are in the replay, shown with the result.</p>`
    : ''
}
<ol class="events" tabindex="0" aria-label="Events of ${p.agent_name} in this match">${start}<li class="muted none">${m.started_at ? 'No events in this match yet.' : 'Events appear once the match starts.'}</li></ol>
</section>`;
}

/**
 * `hold`: the page's hold (domain/matches/hold.ts): until it ends the match reads as running, with
 * no result; `delayMs` is the delay of the events the page follows. `logs`: the stderr of the seats
 * the signed-in viewer may read (pageMatchLogs; empty while the result is held), `readsLogs`
 * whether there are any.
 */
export function renderMatchPage(input: {
  match: MatchView;
  hold: PageHold;
  challengeTitle: string;
  delayMs: number;
  now: Date;
  account?: HeaderAccount;
  logs?: readonly SeatLog[];
  readsLogs?: boolean;
  /** An operator looking at a scheduled or running match: the console's "Void this match". */
  operatorActions?: boolean;
}): RenderedPage {
  const { match: m, revealed } = shownOne(input.match, input.hold);
  const delayS = Math.round(input.delayMs / 100) / 10;
  const body = html`<p class="muted small"><a href="/challenges/${m.challenge_id}">← ${input.challengeTitle}</a> · <a href="/weight-classes/${m.weight_class_id}/ladder">Ladder</a></p>
<h1>Match</h1>
<p class="facts"><span class="badge" id="match-status">${m.status}</span><span>${m.kind === 'game' ? 'game' : 'head to head'}</span><span>${m.rated ? 'rated' : 'unrated'}</span><span>Events appear ${delayS} s after they happen</span></p>
<p id="countdown" aria-live="polite">${statusLine(m, revealed)}</p>
${input.operatorActions ? html`<p class="actions" id="operator-actions"><a class="button" href="/admin/matches/${m.id}/void" id="void-link">Void this match…</a></p>` : ''}
<div class="sides">${m.participants.map((p) => agentCard(m, p))}</div>
<section aria-labelledby="result-title"><h2 id="result-title">Result</h2>
<div id="result" aria-live="polite">${revealed ? resultTable(m) : html`<p class="muted" id="result-pending">The result appears once the delayed feed reaches the end of the match.</p>`}</div>
</section>
${m.kind === 'game' ? replaySection(revealed, input.logs ?? [], input.readsLogs ?? false) : ''}
<script type="application/json" id="match-config">${scriptJson({
    matchId: m.id,
    kind: m.kind,
    delayMs: input.delayMs,
    serverNow: input.now.toISOString(),
    // Only a bout counts down (to its scheduled end); a game's ends_at is a deadline.
    endsAt: m.kind === 'bout' ? m.ends_at : null,
    startedAt: m.started_at,
    completedAt: revealed ? m.completed_at : null,
    revealed,
  })}</script>`;
  return renderPage({
    title: 'Match',
    body,
    style: m.kind === 'game' ? raw(STYLE_TEXT + REPLAY_STYLE_TEXT) : STYLE,
    script: m.kind === 'game' ? raw(MATCH_SCRIPT_TEXT + REPLAY_SCRIPT_TEXT) : raw(MATCH_SCRIPT_TEXT),
    account: input.account,
  });
}

/**
 * The stderr panel beside the replay (issue 41, item 3): only the seats the viewer may read
 * (their own; an operator every one), each game's stderr as data in a focusable block.
 */
function stderrPanel(revealed: boolean, logs: readonly SeatLog[], readsLogs: boolean): SafeHtml {
  if (!readsLogs) return html``;
  const body = !revealed
    ? html`<p class="muted" id="stderr-pending">Your player's stderr appears here with the result.</p>`
    : logs.map(
        (l) => html`<h3 class="name">${l.agent_name}</h3>
${
  l.games.length === 0
    ? html`<p class="muted">No stderr stored.</p>`
    : l.games.map(
        (
          g,
        ) => html`<details${g.game === 1 ? html` open` : ''}><summary>Game ${g.game} (seat ${g.seat})${g.fault ? html`: ${g.fault.kind} at turn ${g.fault.turn}` : ''}</summary>
${g.fault ? html`<p class="small">${g.fault.reason}</p>` : ''}${
          g.stderr === ''
            ? html`<p class="muted small">Nothing written to stderr.</p>`
            : html`<pre class="log" tabindex="0" role="region" aria-label="Stderr of ${l.agent_name} in game ${g.game}">${g.stderr}</pre>`
        }</details>`,
      )
}`,
      );
  return html`<aside id="stderr-panel" aria-labelledby="stderr-title">
<h2 id="stderr-title">Your player's stderr</h2>
<p class="muted small">Only you (the agent's owner) and the operators see this.</p>
${body}
</aside>`;
}

/**
 * The stderr panel alone (`/matches/:id?part=stderr`, same rules as the page): what the page's
 * reveal puts in place of its pending panel without a reload. A bare document (no style or script
 * element: parsed inside the page, it must ask nothing of the page's Content-Security-Policy).
 */
export function renderStderrPanelPart(input: {
  match: MatchView;
  hold: PageHold;
  logs: readonly SeatLog[];
  readsLogs: boolean;
}): RenderedPage {
  const { revealed } = shownOne(input.match, input.hold);
  return {
    html: html`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Your player's stderr</title></head><body>${stderrPanel(revealed, input.logs, input.readsLogs)}</body></html>`,
    headers: pageHeaders(newNonce()),
  };
}

/**
 * The replay viewer's frame (a game match): filled by the script once the result is revealed (the
 * replay is public once the match is complete, and the page keeps its no-spoiler rule). Buttons,
 * a labelled range and a select: every control is keyboard-operable as is; on the viewer, Space
 * plays or pauses, the arrow keys step, Home and End jump.
 */
function replaySection(revealed: boolean, logs: readonly SeatLog[], readsLogs: boolean): SafeHtml {
  return html`<div class="replay-grid${readsLogs ? ' with-logs' : ''}"><section aria-labelledby="replay-title" id="replay">
<h2 id="replay-title">Replay</h2>
<p class="muted" id="replay-pending">The replay appears with the result.</p>
<div id="replay-viewer" hidden>
<div class="controls" role="group" aria-label="Replay controls">
<label for="replay-game">Game</label> <select id="replay-game"></select>
<button type="button" id="replay-first" aria-label="First turn">|◀</button>
<button type="button" id="replay-back" aria-label="Step back">◀</button>
<button type="button" id="replay-play">Play</button>
<button type="button" id="replay-forward" aria-label="Step forward">▶</button>
<button type="button" id="replay-last" aria-label="Last turn">▶|</button>
</div>
<p><label for="replay-scrub">Turn</label> <input type="range" id="replay-scrub" min="0" max="0" value="0" step="1"> <output id="replay-turn" for="replay-scrub" aria-live="polite">0</output></p>
<div id="replay-board" class="board" tabindex="0" role="region" aria-label="Board at this turn"></div>
<ul id="replay-seats" class="seats" aria-label="Seats at this turn"></ul>
</div>
</section>
${stderrPanel(revealed, logs, readsLogs)}</div>`;
}

const STYLE_TEXT = `
.sides { display:grid; grid-template-columns:repeat(auto-fit, minmax(min(300px, 100%), 1fr)); gap:16px; }
.side { border:1px solid #8884; border-radius:8px; padding:12px; min-width:0; }
.name, td.name { overflow-wrap:anywhere; word-break:break-word; }
.events { list-style:none; margin:0; padding:0; max-height:420px; overflow:auto; }
/* The event list and the board scroll: focusable (tabindex) so a keyboard can scroll them, and shown when focused. */
.events:focus-visible, .board:focus-visible { outline:2px solid currentColor; outline-offset:2px; }
.events li { border-left:3px solid #8886; padding:2px 0 2px 8px; margin:4px 0; overflow-wrap:anywhere; }
table { width:100%; border-collapse:collapse; } th, td { text-align:left; padding:4px; }
td.num, th.num { text-align:right; }
.chart { max-width:100%; height:auto; }
.table-wrap { overflow-x:auto; max-width:100%; }
.events li.sep { border-left-color:transparent; font-weight:bold; text-align:center; border-top:1px solid #8886; }
.events time { font-variant-numeric:tabular-nums; }
`;
const STYLE = raw(STYLE_TEXT);

const REPLAY_STYLE_TEXT = `
.controls { display:flex; flex-wrap:wrap; gap:8px; align-items:center; }
.controls button { min-width:44px; min-height:44px; }
#replay-scrub { width:min(400px, 60vw); vertical-align:middle; }
.board { overflow-x:auto; max-width:100%; }
.board table { width:auto; border-collapse:collapse; margin:8px 0; }
.board td { width:28px; height:28px; padding:0; text-align:center; border:1px solid #8886; font-weight:bold; }
.board td.s1 { background:#b00020; color:#fff; } .board td.s2 { background:#ffd54f; color:#000; }
.board td.s3 { background:#1565c0; color:#fff; } .board td.s4 { background:#2e7d32; color:#fff; }
.board td.wall { background:#444; color:#fff; }
.seats { list-style:none; padding:0; }
.replay-grid { display:grid; gap:16px; grid-template-columns:minmax(0, 1fr); }
@media (min-width: 900px) { .replay-grid.with-logs { grid-template-columns:minmax(0, 3fr) minmax(0, 2fr); } }
#stderr-panel { min-width:0; }
pre.log { max-height:320px; overflow:auto; white-space:pre-wrap; overflow-wrap:anywhere; border:1px solid #8886; padding:8px; }
`;

/**
 * Follows /api/v1/matches/{id}/live (the challenge's delayed feed narrowed to the participants),
 * counts down to the end, and fetches the result only once the delayed feed has reached the end:
 * completed_at + delay on the server's clock.
 */
const MATCH_SCRIPT_TEXT = `
(function () {
  'use strict';
  ${READABLE_TIME_JS}
  var config = JSON.parse(document.getElementById('match-config').textContent);
  var skew = Date.parse(config.serverNow) - Date.now();
  var now = function () { return Date.now() + skew; };
  var lists = {};
  document.querySelectorAll('.side').forEach(function (s) { lists[s.getAttribute('data-agent-id')] = s.querySelector('.events'); });
  // The stream is the participants' part of the challenge's feed: only this match's span is shown
  // (from its start to its end), not their earlier or later matches. Before the start is known,
  // events wait.
  var waiting = [];
  function inMatch(item) {
    var at = Date.parse(item.received_at);
    if (!config.startedAt || at < Date.parse(config.startedAt)) return false;
    return !config.completedAt || at <= Date.parse(config.completedAt);
  }
  function timeEl(at, text) {
    var t = document.createElement('time'); t.setAttribute('datetime', at); t.textContent = text; return t;
  }
  function show(item) {
    var list = lists[item.agent_id]; if (!list || !inMatch(item)) return;
    var none = list.querySelector('li.none'); if (none) none.remove();
    var ev = item.event || {};
    var li = document.createElement('li');
    li.setAttribute('data-type', String(ev.type || ''));
    var d = new Date(item.received_at);
    li.append(timeEl(item.received_at, two(d.getUTCHours()) + ':' + two(d.getUTCMinutes()) + ':' + two(d.getUTCSeconds())), document.createTextNode(' ' + String(ev.type || 'event') + (ev.summary ? ': ' + String(ev.summary) : '')));
    var end = list.querySelector('li.sep[data-sep="end"]');
    if (end) list.insertBefore(li, end); else list.append(li);
  }
  function separator(kind, at) {
    Object.keys(lists).forEach(function (id) {
      var list = lists[id];
      if (list.querySelector('li.sep[data-sep="' + kind + '"]')) return;
      var li = document.createElement('li'); li.className = 'sep'; li.setAttribute('data-sep', kind);
      li.append(document.createTextNode((kind === 'start' ? 'Start' : 'End') + ' of the match \u00b7 '), timeEl(at, readableTime(at)));
      if (kind === 'start') list.prepend(li); else list.append(li);
      var none = list.querySelector('li.none');
      if (none) none.textContent = kind === 'start' ? 'No events in this match yet.' : 'No events in this match.';
    });
  }
  function started(at) {
    if (!at || config.startedAt) return;
    config.startedAt = at; separator('start', at);
    var held = waiting; waiting = []; held.forEach(show);
  }
  var es = new EventSource('/api/v1/matches/' + config.matchId + '/live');
  es.onmessage = function (msg) {
    var item; try { item = JSON.parse(msg.data); } catch (e) { return; }
    if (!config.startedAt) { if (waiting.length < 1000) waiting.push(item); return; }
    show(item);
  };
  var countdown = document.getElementById('countdown');
  function tick() {
    // A bout counts down to its scheduled end, and keeps counting while the result waits for its
    // moment (a countdown that stopped would tell the end). A game has no countdown.
    if (!config.endsAt || config.revealed === true) return;
    var left = Math.max(0, Math.round((Date.parse(config.endsAt) + config.delayMs - now()) / 1000));
    countdown.textContent = left > 0 ? 'Ends in ' + Math.floor(left / 60) + ' min ' + (left % 60) + ' s (as you see it)' : 'The bout has ended; waiting for the result';
  }
  function cell(tr, text, cls) { var td = document.createElement('td'); if (cls) td.className = cls; td.textContent = text; tr.append(td); }
  function fmt(n) { return n === null || n === undefined ? '–' : Number(n).toFixed(2); }
  function showResult(m) {
    var box = document.getElementById('result');
    var table = document.createElement('table');
    var cap = document.createElement('caption'); cap.id = 'result-caption'; cap.textContent = 'Result' + (m.status === 'void' ? ' (void: unrated)' : ''); table.append(cap);
    var head = document.createElement('tr');
    ['Rank', 'Agent', 'Score', 'Outcome', 'Rating change'].forEach(function (t) { var th = document.createElement('th'); th.scope = 'col'; th.textContent = t; head.append(th); });
    var thead = document.createElement('thead'); thead.append(head); table.append(thead);
    var tbody = document.createElement('tbody');
    m.participants.slice().sort(function (a, b) { return (a.rank || 99) - (b.rank || 99) || a.seat - b.seat; }).forEach(function (p) {
      var tr = document.createElement('tr');
      var d = p.rating_before && p.rating_after ? p.rating_after.ordinal - p.rating_before.ordinal : null;
      cell(tr, p.rank === null ? '–' : String(p.rank)); cell(tr, p.agent_name, 'name'); cell(tr, fmt(p.score), 'num');
      cell(tr, p.outcome || '–'); cell(tr, d === null ? '' : (d >= 0 ? '+' : '') + d.toFixed(2), 'num');
      tbody.append(tr);
    });
    table.append(tbody);
    // As the server renders it: the table scrolls in a named region a keyboard can focus.
    var wrap = document.createElement('div'); wrap.className = 'table-wrap'; wrap.tabIndex = 0;
    // Named apart from the "Result" section around it (axe landmark-unique).
    wrap.setAttribute('role', 'region'); wrap.setAttribute('aria-label', 'Result table');
    wrap.append(table);
    box.replaceChildren(wrap);
    document.getElementById('match-status').textContent = m.status;
    if (m.completed_at) {
      countdown.replaceChildren(document.createTextNode('Finished at '), timeEl(m.completed_at, readableTime(m.completed_at)));
      config.completedAt = m.completed_at;
      separator('end', m.completed_at);
    } else countdown.textContent = 'Finished';
    config.revealed = true;
    refreshStderr(0);
  }
  // The owner's stderr panel, once the result is shown: the page's panel alone (?part=stderr, this
  // session's cookie; the server renders it only once its hold has ended) takes the place of the
  // pending one. Parsed as a document by XMLHttpRequest (no HTML string reaches the DOM: the pages'
  // Trusted Types policy). The server may see the hold end a moment after this page does: asked
  // again each second, ten times, then the reload hint.
  function refreshStderr(tries) {
    var pendingPanel = document.getElementById('stderr-pending');
    if (!pendingPanel) return;
    function later() {
      if (tries < 10) setTimeout(function () { refreshStderr(tries + 1); }, 1000);
      else pendingPanel.textContent = 'The result is in: reload the page to read your player\u2019s stderr.';
    }
    var xhr = new XMLHttpRequest();
    xhr.open('GET', '/matches/' + config.matchId + '?part=stderr');
    xhr.responseType = 'document';
    xhr.setRequestHeader('Cache-Control', 'no-cache');
    xhr.onload = function () {
      var fresh = xhr.status === 200 && xhr.response ? xhr.response.getElementById('stderr-panel') : null;
      var current = document.getElementById('stderr-panel');
      if (!fresh || !current || fresh.querySelector('#stderr-pending')) return later();
      current.replaceWith(document.adoptNode(fresh));
    };
    xhr.onerror = later;
    xhr.send();
  }
  function poll() {
    if (config.revealed) return;
    fetch('/api/v1/matches/' + config.matchId, { headers: { accept: 'application/json' } })
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (body) {
        var m = body && body.data;
        if (m && m.started_at) started(m.started_at);
        if (!m || (m.status !== 'complete' && m.status !== 'void') || !m.completed_at) return;
        var wait = Date.parse(m.completed_at) + config.delayMs - now();
        if (wait <= 0) showResult(m); else setTimeout(function () { showResult(m); }, wait);
        config.revealed = 'pending';
      })
      .catch(function () {});
  }
  if (config.completedAt) separator('end', config.completedAt);
  tick(); poll();
  setInterval(tick, 1000);
  setInterval(function () { if (config.revealed === false) poll(); }, 3000);
  window.__matchRevealed = function () { return config.revealed === true; };
})();
`;

/**
 * The replay viewer: once the result is shown, fetches /api/v1/matches/{id}/replay and plays it.
 * One renderer per game (connect-four: the board; light-cycles: the grid with walls, trails and
 * heads), each a table whose cells carry text, so the position reads without colour. Built with
 * createElement and textContent only (the pages' Trusted Types policy).
 */
const REPLAY_SCRIPT_TEXT = `
(function () {
  'use strict';
  var config = JSON.parse(document.getElementById('match-config').textContent);
  if (config.kind !== 'game') return;
  var viewer = document.getElementById('replay-viewer');
  var pending = document.getElementById('replay-pending');
  var gameSelect = document.getElementById('replay-game');
  var scrub = document.getElementById('replay-scrub');
  var turnOut = document.getElementById('replay-turn');
  var playButton = document.getElementById('replay-play');
  var board = document.getElementById('replay-board');
  var seatsList = document.getElementById('replay-seats');
  var replay = null, names = {}, gameIndex = 0, turn = 0, timer = null;

  function table(rows, caption, cellOf) {
    var t = document.createElement('table');
    var cap = document.createElement('caption'); cap.textContent = caption; t.append(cap);
    var body = document.createElement('tbody');
    rows.forEach(function (row, y) {
      var tr = document.createElement('tr');
      row.forEach(function (value, x) {
        var td = document.createElement('td');
        var c = cellOf(value, x, y);
        td.textContent = c.text; if (c.cls) td.className = c.cls;
        tr.append(td);
      });
      body.append(tr);
    });
    t.append(body);
    return t;
  }
  var renderers = {
    'connect-four': function (obs, t) {
      return table(obs.board || [], 'Board after turn ' + t + ' (1 and 2: the seats\u2019 discs)', function (v) {
        return v ? { text: String(v), cls: 's' + v } : { text: '' };
      });
    },
    'light-cycles': function (obs, t) {
      var heads = {};
      (obs.players || []).forEach(function (p) { if (p.alive) heads[p.x + ',' + p.y] = p.seat; });
      return table(obs.grid || [], 'Grid after turn ' + t + ' (# wall, digits trails, H+digit a head)', function (v, x, y) {
        if (v === -1) return { text: '#', cls: 'wall' };
        var head = heads[x + ',' + y];
        if (head) return { text: 'H' + head, cls: 's' + head };
        return v > 0 ? { text: String(v), cls: 's' + v } : { text: '' };
      });
    }
  };
  function show() {
    var game = replay.games[gameIndex];
    var last = game.steps.length - 1;
    turn = Math.max(0, Math.min(turn, last));
    scrub.max = String(last); scrub.value = String(turn);
    scrub.setAttribute('aria-valuetext', 'turn ' + turn + ' of ' + last);
    turnOut.textContent = turn + ' / ' + last;
    var step = game.steps[turn];
    var render = renderers[replay.game];
    board.replaceChildren(render ? render(step[0].observation, turn) : document.createTextNode(JSON.stringify(step[0].observation)));
    seatsList.replaceChildren();
    step.forEach(function (entry, s) {
      var li = document.createElement('li');
      var agent = game.seats[s];
      li.textContent = 'Seat ' + (s + 1) + ' (' + (names[agent] || agent) + '): ' + entry.status +
        (entry.action !== null && entry.action !== undefined ? ', played ' + JSON.stringify(entry.action) : '') +
        (turn === last ? ', reward ' + game.rewards[s] : '');
      seatsList.append(li);
    });
    if (turn >= last) pause();
  }
  function pause() { if (timer) { clearInterval(timer); timer = null; } playButton.textContent = 'Play'; playButton.setAttribute('aria-pressed', 'false'); }
  function play() {
    if (!replay) return;
    var last = replay.games[gameIndex].steps.length - 1;
    if (turn >= last) turn = 0;
    playButton.textContent = 'Pause'; playButton.setAttribute('aria-pressed', 'true');
    timer = setInterval(function () { turn += 1; show(); }, 500);
    show();
  }
  function toggle() { if (timer) pause(); else play(); }
  function go(t) { pause(); turn = t; show(); }
  playButton.addEventListener('click', toggle);
  document.getElementById('replay-back').addEventListener('click', function () { go(turn - 1); });
  document.getElementById('replay-forward').addEventListener('click', function () { go(turn + 1); });
  document.getElementById('replay-first').addEventListener('click', function () { go(0); });
  document.getElementById('replay-last').addEventListener('click', function () { go(Infinity); });
  scrub.addEventListener('input', function () { go(Number(scrub.value)); });
  gameSelect.addEventListener('change', function () { pause(); gameIndex = Number(gameSelect.value); turn = 0; show(); });
  viewer.addEventListener('keydown', function (e) {
    var tag = e.target && e.target.tagName;
    if (tag === 'SELECT' || tag === 'INPUT') return;
    if (e.key === ' ' && tag !== 'BUTTON') { e.preventDefault(); toggle(); }
    else if (e.key === 'ArrowRight') { e.preventDefault(); go(turn + 1); }
    else if (e.key === 'ArrowLeft') { e.preventDefault(); go(turn - 1); }
    else if (e.key === 'Home') { e.preventDefault(); go(0); }
    else if (e.key === 'End') { e.preventDefault(); go(Infinity); }
  });
  function load() {
    Promise.all([
      fetch('/api/v1/matches/' + config.matchId + '/replay', { headers: { accept: 'application/json' } }).then(function (r) { return r.ok ? r.json() : null; }),
      fetch('/api/v1/matches/' + config.matchId, { headers: { accept: 'application/json' } }).then(function (r) { return r.ok ? r.json() : null; })
    ]).then(function (bodies) {
      if (!bodies[0]) { pending.textContent = 'No replay for this match.'; return; }
      replay = bodies[0].data;
      ((bodies[1] && bodies[1].data && bodies[1].data.participants) || []).forEach(function (p) { names[p.agent_id] = p.agent_name; });
      gameSelect.replaceChildren();
      replay.games.forEach(function (g, i) {
        var o = document.createElement('option'); o.value = String(i); o.textContent = 'Game ' + (i + 1) + ' (seed ' + g.seed + ')';
        gameSelect.append(o);
      });
      pending.hidden = true; viewer.hidden = false;
      show();
    }).catch(function () { pending.textContent = 'The replay could not be loaded.'; });
  }
  var waited = setInterval(function () {
    if (window.__matchRevealed && window.__matchRevealed()) { clearInterval(waited); load(); }
  }, 500);
})();
`;

/** Rating history as a small line chart of the ordinal, with the same numbers in a table (the text alternative). */
function ratingChart(points: { ordinal: number }[], titleId: string, weightClass: string): SafeHtml {
  if (points.length < 2) return html``;
  const w = 320;
  const h = 120;
  const min = Math.min(...points.map((p) => p.ordinal));
  const max = Math.max(...points.map((p) => p.ordinal));
  const span = max - min || 1;
  const xy = points
    .map(
      (p, i) =>
        `${((i / (points.length - 1)) * (w - 20) + 10).toFixed(1)},${(h - 10 - ((p.ordinal - min) / span) * (h - 20)).toFixed(1)}`,
    )
    .join(' ');
  return html`<svg class="chart" role="img" aria-labelledby="${titleId}" viewBox="0 0 ${w} ${h}" width="${w}" height="${h}">
<title id="${titleId}">Rating (ordinal) in weight class ${weightClass} over the last ${points.length} rated matches, from ${points[0].ordinal.toFixed(2)} to ${points[points.length - 1].ordinal.toFixed(2)}</title>
<polyline fill="none" stroke="currentColor" stroke-width="2" points="${xy}"/></svg>`;
}

const challengeLink = (id: string, titles: ReadonlyMap<string, string>) =>
  html`<a href="/challenges/${id}" class="name">${titles.get(id) ?? 'a challenge'}</a>`;

/**
 * `hold`: matches still held read as running, with no outcome and no rating-history point.
 * `challengeTitles`: the matches' challenges by id. The rating history is one line per weight
 * class (a rating lives in its class: two classes in one line would mix two scales).
 */
export function renderAgentPage(input: {
  agentId: string;
  agentName: string;
  matches: MatchView[];
  hold: PageHold;
  challengeTitles?: ReadonlyMap<string, string>;
  account?: HeaderAccount;
}): RenderedPage {
  const titles = input.challengeTitles ?? new Map<string, string>();
  const mine = shownMatches(input.matches, input.hold).map((m) => ({
    m,
    p: m.participants.find((p) => p.agent_id === input.agentId),
  }));
  const points = mine
    .filter(({ m, p }) => m.status === 'complete' && p?.rating_after)
    .map(({ m, p }) => ({ m, at: m.completed_at ?? m.scheduled_at, ordinal: p!.rating_after!.ordinal }))
    .reverse();
  const classes = [...new Set(points.map((x) => x.m.weight_class_id))].sort();
  const history = classes.map((wc, i) => ({
    wc,
    i,
    points: points.filter((x) => x.m.weight_class_id === wc),
  }));
  const body = html`<h1 class="name">${input.agentName}</h1>
<h2>Rating history</h2>
${
  history.length
    ? history.map(
        ({
          wc,
          i,
          points: pts,
        }) => html`<section class="weight-class" aria-labelledby="wc-${i}" data-weight-class="${wc}">
<h3 id="wc-${i}" class="name">Weight class ${wc}</h3>
${ratingChart(pts, `chart-title-${i}`, wc)}
<div class="table-wrap" tabindex="0" role="region" aria-labelledby="wc-caption-${i}"><table><caption id="wc-caption-${i}">Rating after each rated match in weight class ${wc}</caption><thead><tr><th scope="col">Completed</th><th scope="col">Challenge</th><th scope="col" class="num">Ordinal</th></tr></thead><tbody>${pts.map(
          (x) =>
            html`<tr data-match-id="${x.m.id}"><td><a href="/matches/${x.m.id}">${timeTag(x.at)}</a></td><td>${challengeLink(x.m.challenge_id, titles)}</td><td class="num">${x.ordinal.toFixed(2)}</td></tr>`,
        )}</tbody></table></div>
</section>`,
      )
    : html`<p class="muted">No rated match yet.</p>`
}
<h2>Matches</h2>
${
  mine.length
    ? html`<div class="table-wrap" tabindex="0" role="region" aria-label="Matches"><table id="matches-table"><thead><tr><th scope="col">Match</th><th scope="col">Challenge</th><th scope="col">Status</th><th scope="col">Opponents</th><th scope="col">Outcome</th></tr></thead><tbody>${mine.map(
        ({ m, p }) =>
          html`<tr data-match-id="${m.id}"><td><a href="/matches/${m.id}">${timeTag(m.started_at ?? m.scheduled_at)}</a></td><td>${challengeLink(m.challenge_id, titles)}</td><td>${m.status}</td><td class="name">${m.participants
            .filter((o) => o.agent_id !== input.agentId)
            .map((o) => o.agent_name)
            .join(', ')}</td><td>${p?.outcome ?? '–'}</td></tr>`,
      )}</tbody></table></div>`
    : html`<p class="muted">No matches yet.</p>`
}`;
  return renderPage({ title: input.agentName, body, style: STYLE, account: input.account });
}

export function renderLadderPage(input: {
  weightClassId: string;
  rows: RatingRowView[];
  account?: HeaderAccount;
}): RenderedPage {
  const body = html`<h1 class="name">Ladder: ${input.weightClassId}</h1>
<p class="muted">OpenSkill ratings, ranked by ordinal (μ − 3σ). Provisional until 5 rated matches.</p>
${
  input.rows.length
    ? html`<div class="table-wrap" tabindex="0" role="region" aria-labelledby="ladder-caption"><table><caption id="ladder-caption" class="sr-only">Ratings in weight class ${input.weightClassId}, best first</caption><thead><tr><th scope="col" class="num">Rank</th><th scope="col">Agent</th><th scope="col" class="num">Ordinal</th><th scope="col" class="num">μ</th><th scope="col" class="num">σ</th><th scope="col" class="num">W–D–L</th></tr></thead><tbody>${input.rows.map(
        (r) =>
          html`<tr><td class="num">${r.rank}</td><td class="name"><a href="/agents/${r.agent_id}">${r.agent_name}</a>${r.provisional ? ' (provisional)' : ''}</td><td class="num">${r.ordinal.toFixed(2)}</td><td class="num">${r.mu.toFixed(2)}</td><td class="num">${r.sigma.toFixed(2)}</td><td class="num">${r.wins}–${r.draws}–${r.losses}</td></tr>`,
      )}</tbody></table></div>`
    : html`<p class="muted">No rated agents yet.</p>`
}`;
  return renderPage({ title: `Ladder ${input.weightClassId}`, body, style: STYLE, account: input.account });
}
