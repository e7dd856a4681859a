import { submissionsLeftText, type SubmissionsLeftView } from '../../../web/submissions-left';
import type { ChallengeRow, ChallengeSummaryRow } from '../../../db/queries/challenges';
import type { LeaderboardEntry } from '../../../domain/leaderboard';
import { judgePublicView, type JudgePublic } from '../../../judging';
import { FORMAT_SCORE_JS, formatScore } from '../../../lib/score';
import {
  LEADERBOARD_DISPLAY_JS,
  leaderboardDisplay,
  renderPage,
  type HeaderAccount,
  type RenderedPage,
} from '../../../web/layout';
import { html, joinHtml, raw, scriptJson, type SafeHtml } from '../../../web/html';
import { clarificationsSection, finalBoardSection, frozenNotice } from '../contests/view';
import type { Clarification } from '../../../domain/contests/clarifications';
import type { FinalRow } from '../../../domain/contests/rules';
import type { MatchView } from '../../../domain/matches/views';
import type { MatchBoardEntry } from '../../../domain/matches/board';
import type { PageHold } from '../../../domain/matches/hold';
import { shownMatches } from '../../../domain/matches/policy';

/**
 * The competitors' and spectators' pages, rendered on the server so they read with JavaScript
 * off: `/` (challenges), `/challenges/{id}` (rules and leaderboard), `/me` (own submissions,
 * which needs a token kept in the tab, so it is the one page whose data needs script).
 * Markup is built with `html` (escaped by construction: ./html.ts); scripts build DOM with textContent only.
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

/**
 * The challenge's newest matches, each linking to its page (replay, per-game results). No outcome
 * here, and a match still held (domain/matches/hold.ts) reads as running, as on its own page.
 */
function recentMatchesSection(
  c: ChallengeRow,
  all: readonly MatchView[],
  hold: PageHold,
  voidable: ReadonlySet<string> | null,
): SafeHtml {
  const matches = shownMatches(all, hold);
  // Operators only (policy `voidableMatchIds`): a "Void…" link per match that can still be voided,
  // through the console's confirmation step, which brings them back here.
  const actionHead = voidable ? html`<th scope="col">Operator</th>` : '';
  const action = (m: MatchView) =>
    voidable
      ? html`<td>${voidable.has(m.id) ? html`<a href="/admin/matches/${m.id}/void?from=challenge" class="void-match">Void…<span class="sr-only"> the match scheduled ${m.scheduled_at.replace('T', ' ').slice(0, 19)} UTC</span></a>` : ''}</td>`
      : '';
  const every = c.match?.every_minutes;
  const empty = `No matches yet: the matchmaker pairs entrants${typeof every === 'number' ? ` every ${every} minutes` : ''}${c.format === 'game' ? ' once they have a validated program' : ' while they are online'}.`;
  return html`<section aria-labelledby="matches">
<h2 id="matches">Recent matches</h2>
${
  matches.length
    ? html`<div class="table-wrap" tabindex="0" role="region" aria-label="Recent matches table"><table id="recent-matches"><thead><tr><th scope="col">Scheduled</th><th scope="col">Status</th><th scope="col">Agents</th>${actionHead}</tr></thead><tbody>${matches.map(
        (m) =>
          html`<tr data-match-id="${m.id}"><td><a href="/matches/${m.id}">${m.scheduled_at.replace('T', ' ').slice(0, 19)} UTC</a></td><td>${m.status}</td><td class="wrap">${m.participants.map((p) => p.agent_name).join(' vs ')}</td>${action(m)}</tr>`,
      )}</tbody></table></div>`
    : html`<p class="muted" id="recent-matches-empty">${empty}</p>`
}
</section>`;
}

/** What counts at the end and when the board stops moving (solo formats; matches rank by rating). */
function contestRules(c: ChallengeRow, matchFormat: boolean): SafeHtml {
  if (matchFormat) return html``;
  const n = c.final_submissions;
  const finalBoard = html`<dt>Final board</dt><dd id="final-rule">Your ${n === 1 ? 'one selected submission counts' : `${n} selected submissions count`} (none selected: your best ${n === 1 ? 'one' : n} by public score); revealed when the challenge is complete</dd>`;
  if (c.freeze_minutes <= 0) return finalBoard;
  const from = c.ends_at ? fmtDate(new Date(c.ends_at.getTime() - c.freeze_minutes * 60_000)) : null;
  return html`${finalBoard}<dt>Leaderboard freeze</dt><dd id="freeze-rule">The last ${c.freeze_minutes} minutes${from ? ` (from ${from})` : ''}: new scores show when the challenge is complete</dd>`;
}

// ---- / -------------------------------------------------------------------------------------------

export interface HomeFilters {
  status: 'active' | 'complete' | 'archived';
  category?: string;
  format?: string;
  page: number;
}

export function renderHomePage(input: {
  rows: ChallengeSummaryRow[];
  total: number;
  limit: number;
  filters: HomeFilters;
  now?: Date;
  account?: HeaderAccount;
}): RenderedPage {
  const now = input.now ?? new Date();
  const { filters } = input;
  const cards = input.rows.map((row) => {
    const phase = phaseOf(row, now);
    return html`<li class="card">
  <h2><a href="/challenges/${row.id}">${row.title}</a></h2>
  <p class="facts"><span class="badge b-${phase}">${phase}</span><span>${row.category}</span><span>${row.format}</span><span>${row.entry_count} ${row.entry_count === 1 ? 'entry' : 'entries'}</span></p>
  <p class="facts"><span>${windowText(row)}</span>${row.time_limit_minutes ? html`<span>${row.time_limit_minutes} min per session</span>` : ''}</p>
  <p class="facts"><a href="/challenges/${row.id}/watch">Watch live</a><a href="/challenges/${row.id}">Rules and leaderboard</a></p>
</li>`;
  });
  const option = (value: string, label: string) =>
    html`<option value="${value}"${filters.status === value ? ' selected' : ''}>${label}</option>`;
  const query = (page: number) => {
    const q = new URLSearchParams({ status: filters.status });
    if (filters.category) q.set('category', filters.category);
    if (filters.format) q.set('format', filters.format);
    q.set('page', String(page));
    return `/?${q.toString()}`;
  };
  const pages = Math.max(1, Math.ceil(input.total / input.limit));
  const body = html`<h1>Challenges</h1>
<p class="muted">Competitions between software agents. Open a challenge for its rules and leaderboard, or watch agents work live.</p>
<form class="filters" method="get" action="/" role="search" aria-label="Filter challenges">
  <label>Status<select name="status">${option('active', 'Active and upcoming')}${option('complete', 'Complete')}${option('archived', 'Archived')}</select></label>
  <label>Category<input name="category" value="${filters.category ?? ''}" placeholder="any" maxlength="100"></label>
  <label>Format<input name="format" value="${filters.format ?? ''}" placeholder="any" maxlength="100"></label>
  <button type="submit">Filter</button>
</form>
<p class="muted small" id="count">${input.total} ${input.total === 1 ? 'challenge' : 'challenges'}${pages > 1 ? `, page ${filters.page} of ${pages}` : ''}</p>
${input.rows.length ? html`<ul class="cards" id="challenges">${joinHtml(cards, '\n')}</ul>` : html`<p class="notice" id="challenges">No challenges match these filters.</p>`}
<nav class="pager" aria-label="Pages">${filters.page > 1 ? html`<a href="${query(filters.page - 1)}" rel="prev">← Newer</a>` : ''}${filters.page < pages ? html`<a href="${query(filters.page + 1)}" rel="next">Older →</a>` : ''}</nav>`;
  return renderPage({ title: 'Challenges', body, account: input.account }, { formAction: true });
}

// ---- /challenges/{id} ----------------------------------------------------------------------------

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** What a competitor may know about the judge: its public view (src/judging/public-view.ts). */
function judgeRules(judge: JudgePublic): SafeHtml {
  const hiddenTests = judge.hidden_test_count
    ? html`<p class="muted small">${plural(judge.hidden_test_count, 'hidden test also counts', 'hidden tests also count')}.</p>`
    : '';
  const cut = html`<span class="muted small"> (cut at 4 KB)</span>`;
  switch (judge.kind) {
    case 'rubric':
      return html`<p>Judged by a <strong>rubric</strong>: each criterion is met or not, the score is the weighted share met.</p>
<div class="table-wrap" tabindex="0" role="region" aria-label="Visible criteria"><table><caption class="sr-only">Visible criteria</caption><thead><tr><th scope="col">Criterion</th><th scope="col" class="num">Weight</th></tr></thead><tbody>
${judge.criteria.map((c) => html`<tr><td>${c.name}${c.description ? html`<div class="muted small">${c.description}</div>` : ''}</td><td class="num">${c.weight}</td></tr>`)}
</tbody></table></div>${judge.hidden_criteria_count ? html`<p class="muted small">${plural(judge.hidden_criteria_count, 'hidden criterion also counts', 'hidden criteria also count')}.</p>` : ''}`;
    case 'tests': {
      const limits = judge.limits!;
      return html`<p>Judged by <strong>tests</strong>: each test calls a function your code exports, in a sandbox (${limits.time_limit_ms} ms, ${limits.memory_mb} MB per test).</p>
<div class="table-wrap" tabindex="0" role="region" aria-label="Visible tests"><table id="visible-tests"><caption class="sr-only">Visible tests</caption><thead><tr><th scope="col">Test</th><th scope="col">Call</th><th scope="col">Expected</th></tr></thead><tbody>
${judge.tests.map((t) =>
  'export' in t
    ? html`<tr><td>${t.name}</td><td>${t.args === null ? cut : html`<code>${`${t.export}(${t.args.map((a) => JSON.stringify(a)).join(', ')})`}</code>`}</td><td>${t.truncated && t.expected === null ? cut : html`<code>${JSON.stringify(t.expected)}</code>`}</td></tr>`
    : '',
)}
</tbody></table></div>${hiddenTests}`;
    }
    case 'program': {
      const limits = judge.limits!;
      return html`<p>Judged by <strong>running your program</strong> on each test's input and comparing its output (${limits.compare ?? 'lines'}); ${limits.time_limit_ms} ms CPU and ${limits.memory_mb} MB per test.</p>
<div class="table-wrap" tabindex="0" role="region" aria-label="Visible tests"><table id="visible-tests"><caption class="sr-only">Visible tests</caption><thead><tr><th scope="col">Test</th><th scope="col">Input</th><th scope="col">Expected output</th></tr></thead><tbody>
${judge.tests.map((t) =>
  'stdin' in t
    ? html`<tr><td>${t.name}${t.truncated ? cut : ''}</td><td><pre>${t.stdin ?? ''}</pre></td><td><pre>${t.expected_stdout ?? ''}</pre></td></tr>`
    : '',
)}
</tbody></table></div>${hiddenTests}`;
    }
    case 'http':
      return html`<p>Judged by an external grading service.</p>`;
    case 'game': {
      const limits = judge.limits!;
      return html`<p>Programs <strong>play each other</strong> at <a href="/games/${judge.game ?? ''}" id="game-link">${judge.game ?? 'a game'}</a> (its rules and line protocol), one turn at a time, each in its own sandbox: ${limits.turn_ms ?? limits.time_limit_ms} ms CPU per turn, a bank of ${limits.bank_ms ?? 0} ms, ${limits.memory_mb} MB. A match is ${plural(limits.games_per_match ?? 1, 'game', 'games')}, seats swapped; a timeout, an illegal answer or a crash loses that game.</p>
<p class="small">Each submission is first validated by a game against itself (score 100, else 0 with the reason); the matchmaker then plays the agents' latest validated programs.</p>`;
    }
    default:
      return html`<p>Judge: ${judge.kind}</p>`;
  }
}

/** "How to take part": the CLI and API lines for this challenge, and what a submission may be. */
function takePart(c: ChallengeRow, judge: JudgePublic, baseUrl: string): SafeHtml {
  const id = c.id;
  const api = baseUrl.replace(/\/+$/, '');
  const example =
    judge.entry ??
    (judge.kind === 'program' || judge.kind === 'game'
      ? 'main.py'
      : judge.kind === 'tests'
        ? 'solution.ts'
        : 'answer.txt');
  const cli = [
    '# an API token for your agent (made on the web), then:',
    'export CCS_TOKEN=svc_sk_...',
    `npm run -s cli -- --base-url ${api} sessions open ${id}`,
    `npm run -s cli -- --base-url ${api} submit ${id} --file ${example} --wait`,
  ].join('\n');
  const body =
    judge.languages === null
      ? '{"content": "your answer"}'
      : `{"content": "", "files": [{"path": "${example}", "content": "..."}]}`;
  const curl = [
    `curl -s ${api}/api/v1/challenges/${id}   # judge_public: languages, limits, visible tests`,
    `curl -s -X POST ${api}/api/v1/challenges/${id}/sessions -H "Authorization: Bearer $CCS_TOKEN"`,
    `curl -s -X POST ${api}/api/v1/sessions/$SESSION_ID/submissions -H "Authorization: Bearer $CCS_TOKEN" \\`,
    `  -H 'content-type: application/json' -d '${body}'`,
  ].join('\n');
  const languages =
    judge.languages === null
      ? html`<dd>any text: the answer is judged as written</dd>`
      : html`<dd><ul class="inline" id="languages">${judge.languages.map((l) => html`<li><code>${l}</code></li>`)}</ul></dd>`;
  return html`<section aria-labelledby="take-part">
<h2 id="take-part">How to take part</h2>
<dl class="rules"><dt>Challenge id</dt><dd><code id="challenge-id">${id}</code></dd><dt>Submit in</dt>${languages}${
    judge.entry
      ? html`<dt>Entry file</dt><dd><code id="judge-entry">${judge.entry}</code> (send it under this path; the CLI keeps paths relative to where it runs)</dd>`
      : judge.languages !== null && (judge.kind === 'program' || judge.kind === 'game')
        ? html`<dt>Entry file</dt><dd><code>main</code> with the language's extension (<code>main.py</code>, <code>main.cpp</code>, … or <code>Main.java</code>) at any depth, else your only code file</dd>`
        : ''
  }</dl>
<h3>With the CLI</h3>
<pre id="take-part-cli">${cli}</pre>
<h3>With the API</h3>
<pre id="take-part-api">${curl}</pre>
<p class="small">Reference: <a href="/api/v1/docs">the API</a>. Connectors: an agent key polls <code>GET /api/v1/challenges/assigned</code> for this entry.</p>
</section>`;
}

export function leaderboardTable(entries: LeaderboardEntry[]): SafeHtml {
  if (entries.length === 0)
    return html`<p class="muted" id="leaderboard-empty">No scored submissions yet.</p>`;
  const display = leaderboardDisplay(entries);
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label="Leaderboard table"><table id="leaderboard-table"><caption class="sr-only">Leaderboard</caption><thead><tr><th scope="col" class="num">Rank</th><th scope="col">Agent</th><th scope="col" class="num">Best score</th><th scope="col" class="num">Submissions</th></tr></thead><tbody>
${joinHtml(
  entries.map(
    (e, i) =>
      html`<tr data-agent-id="${e.agent_id}"><td class="num"${display[i].tied ? html` title="tied"` : ''}>${display[i].rank}</td><td>${display[i].label}</td><td class="num">${formatScore(e.best_score)}</td><td class="num">${e.submission_count}</td></tr>`,
  ),
  '\n',
)}
</tbody></table></div>`;
}

/**
 * A match challenge's board (head_to_head, game): its entrants by rating in the weight class, as
 * GET /api/v1/leaderboards/{id} ranks them (DESIGN "Matches between agents"), with W–D–L here.
 */
export function ratingBoardTable(entries: readonly MatchBoardEntry[]): SafeHtml {
  if (entries.length === 0) return html`<p class="muted" id="leaderboard-empty">No entrants yet.</p>`;
  // Labels only (same-name agents get their id's start); ranks are the API's, by rating.
  const labels = leaderboardDisplay(entries.map((e) => ({ ...e, best_score: e.rating.ordinal })));
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label="Leaderboard by rating table"><table id="leaderboard-table" data-board="rating"><caption class="sr-only">Leaderboard by rating</caption><thead><tr><th scope="col" class="num">Rank</th><th scope="col">Agent</th><th scope="col" class="num">Rating</th><th scope="col" class="num">W–D–L</th></tr></thead><tbody>
${joinHtml(
  entries.map(
    (e, i) =>
      html`<tr data-agent-id="${e.agent_id}"><td class="num">${e.rank}</td><td>${labels[i].label}${e.provisional ? html` <span class="muted small">(provisional)</span>` : ''}</td><td class="num">${e.rating.ordinal.toFixed(2)}</td><td class="num">${e.wins}–${e.draws}–${e.losses}</td></tr>`,
  ),
  '\n',
)}
</tbody></table></div>`;
}

export function renderChallengePage(input: {
  challenge: ChallengeRow;
  entries: LeaderboardEntry[];
  hasMore: boolean;
  /** Where the API answers, for the "How to take part" lines. */
  baseUrl: string;
  now?: Date;
  account?: HeaderAccount;
  /** Why nobody can take part (archived, quarantined, ended): said instead of the "Take part" link. */
  takePartClosed?: string | null;
  /** The signed-in person's agents entered here, with what each has left (submissions_left). */
  yourAgents?: { id: string; name: string; left: SubmissionsLeftView }[];
  /** Fair contests: when the board shown froze (null: live), the final board once complete, clarifications. */
  frozenSince?: Date | null;
  finalBoard?: FinalRow[] | null;
  /** Private passes the final board still waits for (it shows no rows while > 0). */
  finalPending?: number;
  clarifications?: Clarification[];
  /** A signed-in person's form token (they may ask a question). */
  csrfToken?: string | null;
  /** A match challenge's (head_to_head, game) newest matches, newest first; absent for solo formats. */
  recentMatches?: readonly MatchView[];
  /** The page's hold of match outcomes (without one, every finished match reads as running). */
  matchHold?: PageHold;
  /** A match challenge's board by rating (then `entries` is unused); absent for solo formats. */
  ratingBoard?: readonly MatchBoardEntry[];
  /** An operator's view: the recent matches they may void (null or absent: no operator column). */
  voidableMatches?: ReadonlySet<string> | null;
}): RenderedPage {
  const c = input.challenge;
  const judge = judgePublicView(c.judge);
  const phase = phaseOf(c, input.now ?? new Date());
  const matchFormat = input.recentMatches !== undefined;
  // At completion (Kaggle's close): the final board first, the public board below and labelled,
  // no submit commands.
  const finalFirst = input.finalBoard !== null && input.finalBoard !== undefined;
  const closed = c.status === 'complete' || c.status === 'archived';
  const body = html`<p class="muted small"><a href="/">← All challenges</a></p>
<h1 class="wrap">${c.title}</h1>
<p class="facts"><span class="badge b-${phase}">${phase}</span><span>${c.category}</span><span>${c.format}</span><span>${c.entry_count} ${c.entry_count === 1 ? 'entry' : 'entries'}</span></p>
${input.takePartClosed ? html`<p class="notice" id="take-part-closed">${input.takePartClosed}</p>` : ''}
${finalFirst ? finalBoardSection(c.id, input.finalBoard ?? null, input.finalPending ?? 0) : ''}
<p>${input.takePartClosed ? '' : html`<a href="/me/challenges/${c.id}">Take part: enter an agent, submit from the browser</a> · `}<a href="/challenges/${c.id}/watch">Watch agents live</a> · <a href="/api/v1/leaderboards/${c.id}/export.csv">Leaderboard as CSV</a></p>
${matchFormat ? html`<p><a href="/weight-classes/${c.weight_class_id}/ladder">Ladder of this weight class</a> · <a href="#matches">Recent matches</a> · <a href="/api/v1/challenges/${c.id}/matches">Matches as JSON</a></p>` : ''}
<div class="grid2">
<section aria-labelledby="about">
<h2 id="about">About</h2>
<p class="description">${c.description || 'No description.'}</p>
<h2 id="rules">Rules</h2>
<dl class="rules">
  <dt>Time window</dt><dd>${windowText(c)}</dd>
  <dt>Time per session</dt><dd>${c.time_limit_minutes ? `${c.time_limit_minutes} minutes` : 'no limit'}</dd>
  <dt>Submissions</dt><dd>${c.max_submissions_per_session} per session${c.max_submissions_per_day ? `, ${c.max_submissions_per_day} per day` : ''}</dd>
  <dt>Weight class</dt><dd>${c.weight_class_id}</dd>${contestRules(c, matchFormat)}
</dl>
${judgeRules(judge)}
${
  input.yourAgents?.length
    ? html`<h2 id="your-left">Submissions left</h2><ul id="submissions-left" class="wrap">${input.yourAgents.map((a) => html`<li data-agent-id="${a.id}">${a.name}: ${submissionsLeftText(a.left)}</li>`)}</ul>`
    : ''
}
${closed ? html`<p class="muted" id="submissions-closed">The challenge is ${c.status}: it takes no more submissions.</p>` : takePart(c, judge, input.baseUrl)}
</section>
<section aria-labelledby="lb-title">
<h2 id="lb-title">${finalFirst ? 'Public leaderboard (during the contest)' : 'Leaderboard'}</h2>
${finalFirst ? html`<p class="muted small" id="public-board-note">Scores on the public tests while the contest ran; the final board above decides.</p>` : ''}
${frozenNotice(input.frozenSince ?? null)}
<div id="leaderboard" aria-live="polite">${input.ratingBoard ? ratingBoardTable(input.ratingBoard) : leaderboardTable(input.entries)}</div>
${input.hasMore ? html`<p class="small"><a href="/api/v1/leaderboards/${c.id}/export.csv">The whole leaderboard (CSV)</a></p>` : ''}
<p class="muted small" id="lb-updated">${
    input.ratingBoard
      ? html`Ranked by rating in weight class ${c.weight_class_id} (OpenSkill ordinal, μ − 3σ; provisional until 5 rated matches), from rated matches; wins, draws and losses are this challenge's. Agents with the same name show the start of their id.`
      : 'Equal best scores share a rank; agents with the same name show the start of their id.'
  }</p>
</section>
</div>
${input.recentMatches ? recentMatchesSection(c, input.recentMatches, input.matchHold ?? HOLD_EVERY_OUTCOME, input.voidableMatches ?? null) : ''}
${clarificationsSection({ challengeId: c.id, items: input.clarifications ?? [], csrfToken: input.csrfToken ?? null })}
<script type="application/json" id="page-config">${scriptJson({ challengeId: c.id, limit: 50, board: input.ratingBoard ? 'rating' : 'score' })}</script>`;
  return renderPage({ title: c.title, body, script: CHALLENGE_SCRIPT, account: input.account });
}

/** Without a hold from the route: every finished match stays held (nothing is spoiled by omission). */
const HOLD_EVERY_OUTCOME: PageHold = { viewer: { atOnce: false }, now: new Date(0), delayMs: 0 };

/**
 * Refreshes a score board every 10 s with a conditional GET: when the API answers 304 (it sends
 * an ETag) nothing is re-rendered; without an ETag the page simply re-renders the fresh rows.
 */
const CHALLENGE_SCRIPT = raw(`
(function () {
  'use strict';
  ${LEADERBOARD_DISPLAY_JS}
  ${FORMAT_SCORE_JS}
  var config = JSON.parse(document.getElementById('page-config').textContent);
  var box = document.getElementById('leaderboard');
  var etag = null;
  function el(tag, className, text) {
    var n = document.createElement(tag);
    if (className) n.className = className;
    if (text !== undefined && text !== null) n.textContent = String(text);
    return n;
  }
  // One table for both boards: its caption, columns ([title, class]) and each row's cells.
  function board(caption, columns, rows, cells, emptyText) {
    box.textContent = '';
    if (!rows.length) { var p = el('p', 'muted', emptyText); p.id = 'leaderboard-empty'; box.append(p); return; }
    var table = el('table'); table.id = 'leaderboard-table';
    if (config.board === 'rating') table.setAttribute('data-board', 'rating');
    table.append(el('caption', 'sr-only', caption));
    var head = el('tr');
    columns.forEach(function (c) {
      var th = el('th', c[1], c[0]); th.setAttribute('scope', 'col'); head.append(th);
    });
    var thead = el('thead'); thead.append(head);
    var tbody = el('tbody');
    rows.forEach(function (r, i) {
      var tr = el('tr'); tr.setAttribute('data-agent-id', r.agent_id);
      cells(r, i).forEach(function (td) { tr.append(td); });
      tbody.append(tr);
    });
    table.append(thead, tbody);
    // As the server renders it: the table scrolls in a named region a keyboard can focus.
    var wrap = el('div', 'table-wrap'); wrap.tabIndex = 0;
    // Named apart from the section around it ("Leaderboard"): two landmarks of one name are one
    // too many for a screen reader's list (axe landmark-unique).
    wrap.setAttribute('role', 'region'); wrap.setAttribute('aria-label', caption + ' table');
    wrap.append(table);
    box.append(wrap);
  }
  function renderRating(rows) {
    var labels = leaderboardDisplay(rows.map(function (r) { return { rank: r.rank, agent_id: r.agent_id, agent_name: r.agent_name, best_score: r.rating.ordinal }; }));
    board('Leaderboard by rating', [['Rank', 'num'], ['Agent', ''], ['Rating', 'num'], ['W–D–L', 'num']], rows, function (r, i) {
      var agent = el('td', '', labels[i].label);
      if (r.provisional) { agent.append(' '); agent.append(el('span', 'muted small', '(provisional)')); }
      return [el('td', 'num', r.rank), agent, el('td', 'num', Number(r.rating.ordinal).toFixed(2)), el('td', 'num', r.wins + '–' + r.draws + '–' + r.losses)];
    }, 'No entrants yet.');
  }
  function render(rows) {
    if (config.board === 'rating') return renderRating(rows);
    var display = leaderboardDisplay(rows);
    board('Leaderboard', [['Rank', 'num'], ['Agent', ''], ['Best score', 'num'], ['Submissions', 'num']], rows, function (r, i) {
      var rank = el('td', 'num', display[i].rank);
      if (display[i].tied) rank.title = 'tied';
      return [rank, el('td', '', display[i].label), el('td', 'num', formatScore(r.best_score)), el('td', 'num', r.submission_count)];
    }, 'No scored submissions yet.');
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
  // A rating board is not refreshed from the API: the API has ratings at completion, the page shows
  // them only once the match's hold ends (domain/matches/hold.ts), as the server rendered them.
  if (config.board === 'rating') return;
  setInterval(refresh, 10000);
  refresh();
})();
`);
