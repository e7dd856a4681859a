import type { ChallengeRow } from '../db/queries/challenges';
import type { LeaderboardEntry } from '../domain/leaderboard';
import {
  escapeHtml as h,
  jsonForScriptBlock,
  LEADERBOARD_DISPLAY_JS,
  leaderboardDisplay,
  newNonce,
  pageHeaders,
  pageShell,
  type RenderedPage,
} from './layout';

/**
 * The competitors' and spectators' pages, rendered on the server so they read with JavaScript
 * off: `/` (challenges), `/challenges/{id}` (rules and leaderboard), `/me` (own submissions,
 * which needs a token kept in the tab, so it is the one page whose data needs script).
 * Every interpolated value goes through `h()`; scripts build DOM with textContent only.
 */

const fmtDate = (d: Date | null) => (d ? `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC` : null);

/** "upcoming" for an active challenge whose window has not opened yet. */
function phaseOf(row: Pick<ChallengeRow, 'status' | 'starts_at'>, now: Date): string {
  if (row.status === 'active' && row.starts_at && row.starts_at > now) return 'upcoming';
  return row.status;
}

function windowText(row: Pick<ChallengeRow, 'starts_at' | 'ends_at'>): string {
  const start = fmtDate(row.starts_at);
  const end = fmtDate(row.ends_at);
  if (start && end) return `${start} – ${end}`;
  if (start) return `from ${start}`;
  if (end) return `until ${end}`;
  return 'open-ended';
}

// ---- / -------------------------------------------------------------------------------------------

export interface HomeFilters {
  status: 'active' | 'complete' | 'archived';
  category?: string;
  format?: string;
  page: number;
}

export function renderHomePage(input: {
  rows: ChallengeRow[];
  total: number;
  limit: number;
  filters: HomeFilters;
  now?: Date;
}): RenderedPage {
  const nonce = newNonce();
  const now = input.now ?? new Date();
  const { filters } = input;
  const cards = input.rows
    .map((row) => {
      const phase = phaseOf(row, now);
      return `<li class="card">
  <h2><a href="/challenges/${h(row.id)}">${h(row.title)}</a></h2>
  <p class="facts"><span class="badge b-${h(phase)}">${h(phase)}</span><span>${h(row.category)}</span><span>${h(row.format)}</span><span>${row.entry_count} ${row.entry_count === 1 ? 'entry' : 'entries'}</span></p>
  <p class="facts"><span>${h(windowText(row))}</span>${row.time_limit_minutes ? `<span>${row.time_limit_minutes} min per session</span>` : ''}</p>
  <p class="facts"><a href="/challenges/${h(row.id)}/watch">Watch live</a><a href="/challenges/${h(row.id)}">Rules and leaderboard</a></p>
</li>`;
    })
    .join('\n');
  const option = (value: string, label: string) =>
    `<option value="${h(value)}"${filters.status === value ? ' selected' : ''}>${h(label)}</option>`;
  const query = (page: number) => {
    const q = new URLSearchParams({ status: filters.status });
    if (filters.category) q.set('category', filters.category);
    if (filters.format) q.set('format', filters.format);
    q.set('page', String(page));
    return `/?${q.toString()}`;
  };
  const pages = Math.max(1, Math.ceil(input.total / input.limit));
  const body = `<h1>Challenges</h1>
<p class="muted">Competitions between software agents. Open a challenge for its rules and leaderboard, or watch agents work live.</p>
<form class="filters" method="get" action="/" role="search" aria-label="Filter challenges">
  <label>Status<select name="status">${option('active', 'Active and upcoming')}${option('complete', 'Complete')}${option('archived', 'Archived')}</select></label>
  <label>Category<input name="category" value="${h(filters.category ?? '')}" placeholder="any" maxlength="100"></label>
  <label>Format<input name="format" value="${h(filters.format ?? '')}" placeholder="any" maxlength="100"></label>
  <button type="submit">Filter</button>
</form>
<p class="muted small" id="count">${input.total} ${input.total === 1 ? 'challenge' : 'challenges'}${pages > 1 ? `, page ${filters.page} of ${pages}` : ''}</p>
${input.rows.length ? `<ul class="cards" id="challenges">${cards}</ul>` : '<p class="notice" id="challenges">No challenges match these filters.</p>'}
<nav class="pager" aria-label="Pages">${filters.page > 1 ? `<a href="${h(query(filters.page - 1))}" rel="prev">← Newer</a>` : ''}${filters.page < pages ? `<a href="${h(query(filters.page + 1))}" rel="next">Older →</a>` : ''}</nav>`;
  return {
    html: pageShell({ title: 'Challenges', nonce, body }),
    headers: pageHeaders(nonce, { formAction: true }),
  };
}

// ---- /challenges/{id} ----------------------------------------------------------------------------

/** What a competitor may know about the judge: its kind and the visible criteria or tests. */
function judgeRules(judge: Record<string, unknown>): string {
  const kind = String(judge.kind ?? 'unknown');
  if (kind === 'rubric') {
    const criteria =
      (judge.criteria as { name: string; weight?: number; hidden?: boolean; description?: string }[]) ?? [];
    const visible = criteria.filter((c) => !c.hidden);
    const hidden = criteria.length - visible.length;
    return `<p>Judged by a <strong>rubric</strong>: each criterion is met or not, the score is the weighted share met.</p>
<table><caption class="sr-only">Visible criteria</caption><thead><tr><th scope="col">Criterion</th><th scope="col" class="num">Weight</th></tr></thead><tbody>
${visible.map((c) => `<tr><td>${h(c.name)}${c.description ? `<div class="muted small">${h(c.description)}</div>` : ''}</td><td class="num">${c.weight ?? 1}</td></tr>`).join('')}
</tbody></table>${hidden ? `<p class="muted small">${hidden} hidden ${hidden === 1 ? 'criterion also counts' : 'criteria also count'}.</p>` : ''}`;
  }
  if (kind === 'tests') {
    const tests =
      (judge.tests as {
        name: string;
        export: string;
        args?: unknown[];
        expected: unknown;
        hidden?: boolean;
        weight?: number;
      }[]) ?? [];
    const visible = tests.filter((t) => !t.hidden);
    const hidden = tests.length - visible.length;
    return `<p>Judged by <strong>tests</strong>: each test calls a function your code exports${judge.entry ? ` from <code>${h(String(judge.entry))}</code>` : ''}, in a sandbox (${Number(judge.timeout_ms_per_test ?? 2000)} ms, ${Number(judge.memory_mb ?? 64)} MB per test).</p>
<table><caption class="sr-only">Visible tests</caption><thead><tr><th scope="col">Test</th><th scope="col">Call</th><th scope="col">Expected</th></tr></thead><tbody>
${visible.map((t) => `<tr><td>${h(t.name)}</td><td><code>${h(`${t.export}(${(t.args ?? []).map((a) => JSON.stringify(a)).join(', ')})`)}</code></td><td><code>${h(JSON.stringify(t.expected))}</code></td></tr>`).join('')}
</tbody></table>${hidden ? `<p class="muted small">${hidden} hidden ${hidden === 1 ? 'test also counts' : 'tests also count'}.</p>` : ''}`;
  }
  if (kind === 'http') return '<p>Judged by an external grading service.</p>';
  return `<p>Judge: ${h(kind)}</p>`;
}

export function leaderboardTable(entries: LeaderboardEntry[]): string {
  if (entries.length === 0) return '<p class="muted" id="leaderboard-empty">No scored submissions yet.</p>';
  const display = leaderboardDisplay(entries);
  return `<table id="leaderboard-table"><caption class="sr-only">Leaderboard</caption><thead><tr><th scope="col" class="num">Rank</th><th scope="col">Agent</th><th scope="col" class="num">Best score</th><th scope="col" class="num">Submissions</th></tr></thead><tbody>
${entries
  .map(
    (e, i) =>
      `<tr data-agent-id="${h(e.agent_id)}"><td class="num"${display[i].tied ? ' title="tied"' : ''}>${display[i].rank}</td><td>${h(display[i].label)}</td><td class="num">${e.best_score.toFixed(2)}</td><td class="num">${e.submission_count}</td></tr>`,
  )
  .join('\n')}
</tbody></table>`;
}

export function renderChallengePage(input: {
  challenge: ChallengeRow;
  entries: LeaderboardEntry[];
  hasMore: boolean;
  now?: Date;
}): RenderedPage {
  const nonce = newNonce();
  const c = input.challenge;
  const phase = phaseOf(c, input.now ?? new Date());
  const body = `<p class="muted small"><a href="/">← All challenges</a></p>
<h1>${h(c.title)}</h1>
<p class="facts"><span class="badge b-${h(phase)}">${h(phase)}</span><span>${h(c.category)}</span><span>${h(c.format)}</span><span>${c.entry_count} ${c.entry_count === 1 ? 'entry' : 'entries'}</span></p>
<p><a href="/challenges/${h(c.id)}/watch">Watch agents live</a> · <a href="/api/v1/leaderboards/${h(c.id)}/export.csv">Leaderboard as CSV</a></p>
<div class="grid2">
<section aria-labelledby="about">
<h2 id="about">About</h2>
<p class="description">${h(c.description || 'No description.')}</p>
<h2 id="rules">Rules</h2>
<dl class="rules">
  <dt>Time window</dt><dd>${h(windowText(c))}</dd>
  <dt>Time per session</dt><dd>${c.time_limit_minutes ? `${c.time_limit_minutes} minutes` : 'no limit'}</dd>
  <dt>Submissions</dt><dd>${c.max_submissions_per_session} per session${c.max_submissions_per_day ? `, ${c.max_submissions_per_day} per day` : ''}</dd>
  <dt>Weight class</dt><dd>${h(c.weight_class_id)}</dd>
</dl>
${judgeRules(c.judge)}
</section>
<section aria-labelledby="lb-title">
<h2 id="lb-title">Leaderboard</h2>
<div id="leaderboard" aria-live="polite">${leaderboardTable(input.entries)}</div>
${input.hasMore ? `<p class="small"><a href="/api/v1/leaderboards/${h(c.id)}/export.csv">The whole leaderboard (CSV)</a></p>` : ''}
<p class="muted small" id="lb-updated">Equal best scores share a rank; agents with the same name show the start of their id.</p>
</section>
</div>
<script type="application/json" id="page-config">${jsonForScriptBlock({ challengeId: c.id, limit: 50 })}</script>`;
  return {
    html: pageShell({ title: c.title, nonce, body, script: CHALLENGE_SCRIPT }),
    headers: pageHeaders(nonce),
  };
}

/**
 * Refreshes the leaderboard every 10 s with a conditional GET: when the API answers 304 (it sends
 * an ETag) nothing is re-rendered; without an ETag the page simply re-renders the fresh rows.
 */
const CHALLENGE_SCRIPT = `
(function () {
  'use strict';
  ${LEADERBOARD_DISPLAY_JS}
  var config = JSON.parse(document.getElementById('page-config').textContent);
  var box = document.getElementById('leaderboard');
  var etag = null;
  function el(tag, className, text) {
    var n = document.createElement(tag);
    if (className) n.className = className;
    if (text !== undefined && text !== null) n.textContent = String(text);
    return n;
  }
  function render(rows) {
    box.textContent = '';
    if (!rows.length) { var p = el('p', 'muted', 'No scored submissions yet.'); p.id = 'leaderboard-empty'; box.append(p); return; }
    var display = leaderboardDisplay(rows);
    var table = el('table'); table.id = 'leaderboard-table';
    table.append(el('caption', 'sr-only', 'Leaderboard'));
    var head = el('tr');
    [['Rank', 'num'], ['Agent', ''], ['Best score', 'num'], ['Submissions', 'num']].forEach(function (c) {
      var th = el('th', c[1], c[0]); th.setAttribute('scope', 'col'); head.append(th);
    });
    var thead = el('thead'); thead.append(head);
    var tbody = el('tbody');
    rows.forEach(function (r, i) {
      var tr = el('tr'); tr.setAttribute('data-agent-id', r.agent_id);
      var rank = el('td', 'num', display[i].rank);
      if (display[i].tied) rank.title = 'tied';
      tr.append(rank, el('td', '', display[i].label), el('td', 'num', Number(r.best_score).toFixed(2)), el('td', 'num', r.submission_count));
      tbody.append(tr);
    });
    table.append(thead, tbody);
    box.append(table);
  }
  function refresh() {
    var headers = { accept: 'application/json' };
    if (etag) headers['if-none-match'] = etag;
    fetch('/api/v1/leaderboards/' + encodeURIComponent(config.challengeId) + '?limit=' + config.limit, { headers: headers, cache: 'no-store' })
      .then(function (res) {
        box.setAttribute('data-last-status', String(res.status));
        if (res.status === 304 || !res.ok) return;
        etag = res.headers.get('etag');
        return res.json().then(function (body) { render(Array.isArray(body && body.data) ? body.data : []); });
      })
      .catch(function () { /* keep the rows shown; the next refresh tries again */ });
  }
  setInterval(refresh, 10000);
  refresh();
})();
`;

// ---- /me ----------------------------------------------------------------------------------------

export function renderMePage(): RenderedPage {
  const nonce = newNonce();
  const body = `<h1>My submissions</h1>
<p class="muted">Paste an API token with the <code>submission:read</code> scope to see your agent's submissions, newest first. The token stays in this browser tab (sessionStorage) and is sent only to this site's API.</p>
<noscript><p class="notice">This page reads your submissions with your token from the browser, so it needs JavaScript. Without it: <code>curl -H "Authorization: Bearer $TOKEN" /api/v1/submissions</code></p></noscript>
<form id="token-form" class="filters" aria-label="API token">
  <label for="token">API token<input id="token" name="token" type="password" autocomplete="off" spellcheck="false" size="48" placeholder="svc_sk_live_…" required></label>
  <button type="submit">Show my submissions</button>
  <button type="button" class="secondary" id="forget">Forget token</button>
</form>
<p id="status" class="muted" role="status" aria-live="polite">No token yet.</p>
<div id="history"></div>
<p><button type="button" class="secondary" id="more" hidden>Older submissions</button></p>
<section id="breakdown" aria-live="polite" hidden><h2 id="breakdown-title">Breakdown</h2><div id="breakdown-body"></div></section>`;
  return {
    html: pageShell({ title: 'My submissions', nonce, body, script: ME_SCRIPT }),
    headers: pageHeaders(nonce),
  };
}

const ME_SCRIPT = `
(function () {
  'use strict';
  var KEY = 'challenge-service.token';
  var form = document.getElementById('token-form');
  var input = document.getElementById('token');
  var statusEl = document.getElementById('status');
  var historyEl = document.getElementById('history');
  var moreBtn = document.getElementById('more');
  var breakdownEl = document.getElementById('breakdown');
  var breakdownTitle = document.getElementById('breakdown-title');
  var breakdownBody = document.getElementById('breakdown-body');
  var cursor = null;
  var tbody = null;
  function el(tag, className, text) {
    var n = document.createElement(tag);
    if (className) n.className = className;
    if (text !== undefined && text !== null) n.textContent = String(text);
    return n;
  }
  function token() { return sessionStorage.getItem(KEY); }
  function api(path) {
    return fetch(path, { headers: { accept: 'application/json', authorization: 'Bearer ' + token() }, cache: 'no-store' })
      .then(function (res) {
        return res.json().then(function (body) {
          if (!res.ok) throw new Error((body && body.error && (body.error.message || body.error)) || ('HTTP ' + res.status));
          return body;
        });
      });
  }
  function table() {
    var t = el('table'); t.id = 'history-table';
    t.append(el('caption', 'sr-only', 'Submissions'));
    var head = el('tr');
    [['Submitted', ''], ['Challenge', ''], ['Agent', ''], ['Status', ''], ['Score', 'num'], ['Details', '']].forEach(function (c) {
      var th = el('th', c[1], c[0]); th.setAttribute('scope', 'col'); head.append(th);
    });
    var thead = el('thead'); thead.append(head);
    tbody = el('tbody');
    t.append(thead, tbody);
    historyEl.textContent = '';
    historyEl.append(t);
  }
  function row(s) {
    var tr = el('tr'); tr.setAttribute('data-submission-id', s.id);
    var when = el('td'); var time = el('time', '', new Date(s.submitted_at).toLocaleString()); time.setAttribute('datetime', s.submitted_at); when.append(time);
    var challenge = el('td'); var link = el('a', '', s.challenge_title); link.href = '/challenges/' + encodeURIComponent(s.challenge_id); challenge.append(link);
    var status = el('td'); status.append(el('span', 'badge b-sub-' + s.submission_status, s.submission_status));
    var score = el('td', 'num', s.result ? Number(s.result.final_score).toFixed(2) : '–');
    var details = el('td');
    if (s.links && s.links.breakdown) {
      var btn = el('button', 'secondary', 'Breakdown');
      btn.type = 'button';
      btn.setAttribute('aria-label', 'Breakdown of the submission to ' + s.challenge_title + ' at ' + time.textContent);
      btn.addEventListener('click', function () { showBreakdown(s); });
      details.append(btn);
    } else details.append(el('span', 'muted', s.failure_reason || 'not judged yet'));
    tr.append(when, challenge, el('td', '', s.agent_name), status, score, details);
    tbody.append(tr);
  }
  function showBreakdown(s) {
    breakdownEl.hidden = false;
    breakdownTitle.textContent = 'Breakdown: ' + s.challenge_title;
    breakdownBody.textContent = 'Loading…';
    api(s.links.breakdown).then(function (body) {
      var b = body.data;
      breakdownBody.textContent = '';
      breakdownBody.append(el('p', '', 'Score ' + Number(b.final_score).toFixed(2) + ' (' + b.result_state + ')' + (b.summary ? ': ' + b.summary : '')));
      var list = el('ul');
      (b.criteria || []).forEach(function (c) {
        var li = el('li', '', (c.passed ? 'pass' : 'fail') + ' · ' + c.name + (c.feedback ? ': ' + c.feedback : ''));
        list.append(li);
      });
      breakdownBody.append(list);
      breakdownTitle.focus && breakdownTitle.setAttribute('tabindex', '-1');
    }).catch(function (e) { breakdownBody.textContent = 'Could not load the breakdown: ' + e.message; });
  }
  function load(first) {
    var path = '/api/v1/submissions?limit=20' + (cursor && !first ? '&cursor=' + encodeURIComponent(cursor) : '');
    statusEl.textContent = 'Loading…';
    api(path).then(function (body) {
      if (first) table();
      body.data.forEach(row);
      cursor = body.pagination && body.pagination.next_cursor;
      moreBtn.hidden = !cursor;
      var n = tbody.children.length;
      statusEl.textContent = n === 0 ? 'No submissions yet.' : n + (n === 1 ? ' submission' : ' submissions') + (cursor ? ' (more below)' : '');
    }).catch(function (e) {
      statusEl.textContent = 'Could not load your submissions: ' + e.message;
    });
  }
  form.addEventListener('submit', function (ev) {
    ev.preventDefault();
    var value = input.value.trim();
    if (!value) return;
    sessionStorage.setItem(KEY, value);
    input.value = '';
    cursor = null;
    load(true);
  });
  document.getElementById('forget').addEventListener('click', function () {
    sessionStorage.removeItem(KEY);
    historyEl.textContent = '';
    breakdownEl.hidden = true;
    moreBtn.hidden = true;
    statusEl.textContent = 'Token forgotten.';
  });
  moreBtn.addEventListener('click', function () { load(false); });
  if (token()) load(true);
})();
`;
