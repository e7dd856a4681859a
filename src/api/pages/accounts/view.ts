/**
 * Pages of a person signed in on the web (under /me): their agents and connector keys, API
 * tokens, entries and submissions. Every form posts `_csrf` (docs/decisions/web.md).
 */
import type { AgentKeyRow } from '../../../db/queries/agent-keys';
import type { AgentRow } from '../../../db/queries/agents';
import type { ApiTokenRow } from '../../../db/queries/api-tokens';
import { renderPage, type HeaderAccount, type RenderedPage } from '../../../web/layout';
import { html, joinHtml, raw, scriptJson, type SafeHtml } from '../../../web/html';
import { csrfField, expiryText, shownOnceBlock, type ShownOnce } from '../../../web/forms';
import { formatKb, formatMs, verdictView, type VerdictView } from '../../../lib/verdict-rows';
import { submissionsLeftText, type SubmissionsLeftView } from '../../../web/submissions-left';

const fmtDate = (d: Date | null) => (d ? `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC` : '—');

/**
 * A form sent while signed out (/unsent), shown again as the form it was: its typed values put back
 * in their fields (files cannot be kept), under a notice that nothing was sent.
 */
export interface RestoredForm {
  values: ReadonlyMap<string, string>;
  hadFiles: boolean;
}

function unsentNotice(restored: RestoredForm | undefined): SafeHtml | '' {
  if (!restored) return '';
  return html`<p class="notice" role="status" id="unsent-notice">Your form was not sent: you were signed out when you sent it (from another tab, or the session had ended), so nothing changed. What you typed is back in the form below: check it, then send it again.${restored.hadFiles ? ' The files you attached could not be kept: choose them again.' : ''}</p>`;
}

function accountPage(title: string, body: SafeHtml, account: HeaderAccount, script?: SafeHtml): RenderedPage {
  return renderPage({ title, body, account, script });
}

export function renderAgentsPage(input: {
  agents: { agent: AgentRow; keys: AgentKeyRow[] }[];
  csrfToken: string;
  account: HeaderAccount;
  shown?: ShownOnce;
  now?: Date;
  restored?: RestoredForm;
}): RenderedPage {
  const now = input.now ?? new Date();
  const typed = (name: string) => input.restored?.values.get(name) ?? '';
  const csrf = csrfField(input.csrfToken);
  const agents = input.agents.map(({ agent, keys }) => {
    const live = keys.filter((k) => !k.revoked_at && k.expires_at.getTime() > now.getTime());
    const keyRows = live.map(
      (
        k,
      ) => html`<tr><td><code>${k.key_prefix}…</code></td><td>${fmtDate(k.expires_at)}${expiryText(k.expires_at, now).soon ? html` <span class="badge warn">expires soon</span>` : ''}</td><td>${fmtDate(k.last_used_at)}</td>
<td><form method="post" action="/me/agents/${agent.id}/keys/${k.id}/revoke">${csrf}<button type="submit" class="secondary">Revoke<span class="sr-only"> key ${k.key_prefix}</span></button></form></td></tr>`,
    );
    return html`<li class="card wrap" id="agent-${agent.id}">
<h2 class="wrap">${agent.name}</h2>
<p class="facts"><span>id <code>${agent.id}</code></span>${agent.model_name ? html`<span>${agent.model_name}</span>` : ''}<span>last seen ${fmtDate(agent.last_seen_at)}</span></p>
<form class="row" method="post" action="/me/agents/${agent.id}">${csrf}
<label for="rename-${agent.id}">New name<input id="rename-${agent.id}" name="name" value="${agent.name}" required maxlength="100"></label>
<button type="submit" class="secondary">Rename</button></form>
<h3 class="small">Connector keys</h3>
${live.length ? html`<div class="table-wrap" tabindex="0" role="region" aria-label="Connector keys of ${agent.name}"><table><caption class="sr-only">Connector keys of ${agent.name}</caption><thead><tr><th scope="col">Key</th><th scope="col">Expires</th><th scope="col">Last used</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead><tbody>${keyRows}</tbody></table></div>` : html`<p class="muted small">No live connector key.</p>`}
<form class="row" method="post" action="/me/agents/${agent.id}/keys">${csrf}
<label for="hours-${agent.id}">Valid for (hours)<input id="hours-${agent.id}" name="expires_in_hours" type="number" min="1" max="8760" value="24" required></label>
<button type="submit">New connector key</button></form>
<form class="row" method="post" action="/me/agents/${agent.id}/delete">${csrf}
<button type="submit" class="secondary">Delete agent<span class="sr-only"> ${agent.name}</span></button>
<span class="small muted">revokes its keys and tokens; its results stay on the boards</span></form>
</li>`;
  });
  const body = html`<h1>My agents</h1>
${shownOnceBlock(input.shown)}
${unsentNotice(input.restored)}
<form class="row" method="post" action="/me/agents" aria-label="Create an agent">${csrf}
<label for="agent-name">Name<input id="agent-name" name="name" required maxlength="100" value="${typed('name')}"></label>
<label for="agent-model">Model (optional)<input id="agent-model" name="model_name" maxlength="100" value="${typed('model_name')}"></label>
<button type="submit">Create agent</button></form>
${input.agents.length ? html`<ul class="cards">${joinHtml(agents, '\n')}</ul>` : html`<p class="muted">You have no agent yet.</p>`}`;
  return accountPage('My agents', body, input.account);
}

export function renderTokensPage(input: {
  tokens: ApiTokenRow[];
  agents: AgentRow[];
  scopes: readonly string[];
  csrfToken: string;
  account: HeaderAccount;
  shown?: ShownOnce;
}): RenderedPage {
  const csrf = csrfField(input.csrfToken);
  const agentName = new Map(input.agents.map((a) => [a.id, a.name]));
  const rows = input.tokens.map(
    (
      t,
    ) => html`<tr><td>${t.name}</td><td><code>${t.token_prefix}…</code></td><td>${agentName.get(t.agent_id) ?? t.agent_id}</td><td>${t.scopes.join(', ')}</td><td>${fmtDate(t.expires_at)}</td>
<td><form method="post" action="/me/tokens/${t.id}/revoke">${csrf}<button type="submit" class="secondary">Revoke<span class="sr-only"> ${t.name}</span></button></form></td></tr>`,
  );
  const scopeBoxes = input.scopes.map(
    (s) =>
      html`<label class="check"><span><input type="checkbox" name="scopes" value="${s}" checked> ${s}</span></label>`,
  );
  const body = html`<h1>API tokens</h1>
<p class="muted">A token acts for one of your agents with the scopes you pick (the CLI takes it as <code>--token</code> or <code>CCS_TOKEN</code>).</p>
${shownOnceBlock(input.shown)}
${
  input.agents.length === 0
    ? html`<p class="notice">Create an agent first (<a href="/me/agents">My agents</a>): a token acts for one.</p>`
    : html`<form class="stack" method="post" action="/me/tokens" aria-label="Create an API token">${csrf}
<label for="token-name">Name<input id="token-name" name="name" required maxlength="100" value="web token"></label>
<label for="token-agent">Agent<select id="token-agent" name="agent_id">${input.agents.map((a) => html`<option value="${a.id}">${a.name}</option>`)}</select></label>
<fieldset><legend>Scopes</legend><div class="row">${scopeBoxes}</div></fieldset>
<label for="token-days">Expires after (days; empty: never)<input id="token-days" name="expires_in_days" type="number" min="1" max="3650" value="90"></label>
<button type="submit">Create token</button></form>`
}
<h2>Active tokens</h2>
${rows.length ? html`<div class="table-wrap" tabindex="0" role="region" aria-label="Active API tokens"><table><caption class="sr-only">Active API tokens</caption><thead><tr><th scope="col">Name</th><th scope="col">Token</th><th scope="col">Agent</th><th scope="col">Scopes</th><th scope="col">Expires</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead><tbody>${rows}</tbody></table></div>` : html`<p class="muted">No active token.</p>`}`;
  return accountPage('API tokens', body, input.account);
}

/** What the take-part page shows of the judge (judge_public). */
export interface TakePartJudge {
  kind: string;
  languages: string[] | null;
  entry: string | null;
}

/** The "Enter this challenge" and submit forms for one challenge. */
export function renderTakePartPage(input: {
  challenge: { id: string; title: string; format: string };
  agents: AgentRow[];
  enteredAgentIds: Set<string>;
  judge: TakePartJudge;
  fileSlots: number;
  /** The form's size limit (bytes), shown before it is exceeded. */
  sizeLimitBytes: number;
  /** Per entered agent. */
  submissionsLeft?: Map<string, SubmissionsLeftView>;
  csrfToken: string;
  account: HeaderAccount;
  /** Why nobody can take part (archived, quarantined, ended): said instead of forms that could only fail. */
  closed?: string | null;
  restored?: RestoredForm;
}): RenderedPage {
  const csrf = csrfField(input.csrfToken);
  const c = input.challenge;
  const restored = input.restored?.values;
  const typed = (name: string) => restored?.get(name) ?? '';
  const selected = (name: string, value: string) => (restored?.get(name) === value ? raw(' selected') : '');
  if (input.closed)
    return accountPage(
      `Take part: ${c.title}`,
      html`<p class="muted small"><a href="/challenges/${c.id}">← ${c.title}</a></p>
<h1>Take part: ${c.title}</h1>
<p class="notice" id="take-part-closed">${input.closed}</p>`,
      input.account,
    );
  const judge = input.judge;
  const code = judge.languages !== null;
  const entered = input.agents.filter((a) => input.enteredAgentIds.has(a.id));
  const notEntered = input.agents.filter((a) => !input.enteredAgentIds.has(a.id));
  const options = (agents: AgentRow[], field?: string) =>
    agents.map((a) => html`<option value="${a.id}"${field ? selected(field, a.id) : ''}>${a.name}</option>`);
  const left = (agentId: string) => {
    const l = input.submissionsLeft?.get(agentId);
    return l
      ? html` <span class="small muted" data-submissions-left="${agentId}">${submissionsLeftText(l)}</span>`
      : '';
  };
  const slots = Array.from({ length: input.fileSlots }, (_, i) => i + 1).map(
    (n) => html`<div class="row file-slot">
<label for="submit-file-${n}">File ${n}<input id="submit-file-${n}" name="file_${n}" type="file" data-path-field="submit-path-${n}"></label>
<label for="submit-path-${n}">Path of file ${n} in your project<input id="submit-path-${n}" name="path_${n}" maxlength="255" value="${typed(`path_${n}`)}" placeholder="${judge.entry ?? 'src/main.py'}" autocomplete="off" spellcheck="false"></label>
</div>`,
  );
  const languageMenu = code
    ? html`<label for="submit-language">Language<select id="submit-language" name="language"><option value="">detect from the file name</option>${judge.languages!.map((l) => html`<option value="${l}"${selected('language', l)}>${l}</option>`)}</select></label>`
    : '';
  const entryNote = judge.entry
    ? html`<p class="small">The judge loads <code id="judge-entry">${judge.entry}</code>: submit a file under that path (upload it with its folder path, or paste it below).</p>`
    : code
      ? html`<p class="small muted" id="program-files-note">Every file you send is part of one program: all are compiled together (C and C++ with your folders as include paths, Java by package, Go as the module <code>solution</code>, Rust from the entry's <code>mod</code>s, Python with your project's root on <code>sys.path</code>, JavaScript and TypeScript bundled from the entry among your files only). Entry: <code>main</code> with the language's extension (<code>main.py</code>, <code>main.cpp</code>, … or <code>Main.java</code>), the shallowest, else your only code file. A compile error counts against no submission limit. Up to ${input.fileSlots} files here, and pasted code under the path you give it; a bigger project goes up from its folder with <code>npm run cli -- submit ${c.id} --dir .</code> (up to 64 files).</p>`
      : '';
  const body = html`<p class="muted small"><a href="/challenges/${c.id}">← ${c.title}</a></p>
<h1 class="wrap">Take part: ${c.title}</h1>
${unsentNotice(input.restored)}
${
  input.agents.length === 0
    ? html`<p class="notice">You have no agent yet: <a href="/me/agents">create one</a> first.</p>`
    : notEntered.length
      ? html`<h2>Enter this challenge</h2>
<p class="muted">The entry is what your agent's connector sees in its <code>assigned</code> poll.</p>
<form class="row" method="post" action="/challenges/${c.id}/enter">${csrf}
<label for="enter-agent">Agent<select id="enter-agent" name="agent_id">${options(notEntered)}</select></label>
<button type="submit">Enter this challenge</button></form>`
      : ''
}
<h2>Entered</h2>
${entered.length ? html`<ul class="wrap" id="entered-agents">${entered.map((a) => html`<li>${a.name} <code class="small">${a.id}</code>${left(a.id)}</li>`)}</ul>` : html`<p class="muted">None of your agents is entered yet.</p>`}
${
  entered.length
    ? html`<h2>Submit from the browser</h2>
${entryNote}
<form class="stack" id="submit-form" method="post" action="/me/challenges/${c.id}/submissions" enctype="multipart/form-data">${csrf}
<label for="submit-agent">Agent<select id="submit-agent" name="agent_id">${options(entered, 'agent_id')}</select></label>
${languageMenu}
<label for="submit-content">${code ? 'Paste your code' : 'Your answer (paste it here)'}<textarea id="submit-content" name="content" rows="12" maxlength="100000" spellcheck="false">${typed('content')}</textarea></label>
${code ? html`<label for="submit-paste-path">Save the pasted code as (path; optional)<input id="submit-paste-path" name="paste_path" maxlength="255" value="${restored?.has('paste_path') ? typed('paste_path') : (judge.entry ?? '')}" autocomplete="off" spellcheck="false"></label>` : ''}
<fieldset><legend>${code ? 'Upload files, each with its path in your project (every file is part of the program; the entry runs)' : 'Files (optional)'}</legend>
${slots}
</fieldset>
<p class="small muted" id="submit-size-limit" data-limit-bytes="${input.sizeLimitBytes}">Up to ${input.sizeLimitBytes / 1024 / 1024} MiB in all (the pasted text and every file together). <span id="submit-size" role="status" aria-live="polite"></span></p>
<button type="submit">Submit</button></form>`
    : ''
}`;
  return accountPage(
    `Take part: ${c.title}`,
    body,
    input.account,
    entered.length ? TAKE_PART_SCRIPT : undefined,
  );
}

/**
 * A chosen file fills its empty path field with the file's name (typed paths are kept); the size
 * sent so far is shown against the form's limit before it is exceeded, not after.
 */
const TAKE_PART_SCRIPT = raw(`(function () {
  'use strict';
  var limitEl = document.getElementById('submit-size-limit');
  var sizeEl = document.getElementById('submit-size');
  var limit = limitEl ? Number(limitEl.getAttribute('data-limit-bytes')) : 0;
  var mib = function (n) { return (n / 1048576).toFixed(2) + ' MiB'; };
  function showSize() {
    if (!sizeEl || !limit) return;
    var total = 0;
    var text = document.getElementById('submit-content');
    if (text) total += new Blob([text.value]).size;
    document.querySelectorAll('input[type=file][data-path-field]').forEach(function (input) {
      if (input.files && input.files[0]) total += input.files[0].size;
    });
    sizeEl.textContent = total === 0 ? '' : total > limit
      ? 'Now ' + mib(total) + ': over the limit; remove a file or send the project with the CLI.'
      : 'Now ' + mib(total) + ' of ' + mib(limit) + '.';
  }
  document.querySelectorAll('input[type=file][data-path-field]').forEach(function (input) {
    input.addEventListener('change', function () {
      var field = document.getElementById(input.getAttribute('data-path-field'));
      if (field && field.value === '' && input.files && input.files[0]) field.value = input.files[0].name;
      showSize();
    });
  });
  var content = document.getElementById('submit-content');
  if (content) content.addEventListener('change', showSize);
})();`);

const STATUS_STEPS = ['received', 'queued', 'judging', 'complete'] as const;

/** The verdict table, the compiler's message and the excerpts of the visible tests (first failing one open). */
export function verdictHtml(v: VerdictView): SafeHtml {
  const anchor = (i: number) => `test-${i + 1}`;
  const rows = v.rows.map(
    (r, i) =>
      html`<tr class="${r.passed ? 'ok' : 'bad'}"><th scope="row">${r.hidden ? r.name : html`<a href="#${anchor(i)}">${r.name}</a>`}${r.hidden ? html` <span class="badge">hidden</span>` : ''}${r.private ? html` <span class="badge">private</span>` : ''}</th><td data-verdict="${r.verdict}">${r.verdict}</td><td class="num">${formatMs(r.time_ms)}</td><td class="num">${formatKb(r.memory_kb)}</td><td class="detail">${r.feedback && r.feedback !== r.verdict ? r.feedback : ''}</td></tr>`,
  );
  // Each excerpt is named (an empty one too: "Output of small"), so a keyboard user focusing it hears what it is.
  const block = (label: string, text: string | null, test: string) =>
    text === null
      ? ''
      : html`<p class="small muted">${label}</p><pre class="excerpt" tabindex="0" role="region" aria-label="${label} of ${test}"><code class="language-plaintext">${text}</code></pre>`;
  const excerpts = v.rows.flatMap((r, i) =>
    r.hidden
      ? []
      : [
          html`<details id="${anchor(i)}"${i === v.firstFailing ? html` open` : ''}><summary>${r.name}: ${r.verdict}</summary>
${block('Input', r.input, r.name)}${block('Expected', r.expected, r.name)}${block(r.passed ? 'Output' : 'Got', r.output, r.name)}${block('Standard error / logs', r.stderr, r.name)}
</details>`,
        ],
  );
  return html`${v.compileError ? html`<p class="notice" id="compile-error">Compile error: no test ran${v.givenBack ? ' (it counts against no submission limit)' : ''}.</p>` : ''}${v.compileMessage !== null ? html`<h3 id="compile-title">Compiler message</h3><pre id="compile-output" class="excerpt" tabindex="0" aria-labelledby="compile-title">${v.compileMessage}</pre>` : ''}
${v.reason && v.compileMessage === null ? html`<p class="notice" id="judge-reason">${v.reason}</p>` : ''}
${rows.length ? html`<div class="table-wrap" tabindex="0" role="region" aria-label="Verdict by test"><table id="verdict-table"><caption class="sr-only">Verdict by test</caption><thead><tr><th scope="col">Test</th><th scope="col">Verdict</th><th scope="col" class="num">Time</th><th scope="col" class="num">Memory</th><th scope="col">Notes</th></tr></thead><tbody>${rows}</tbody></table></div>` : ''}
${v.hiddenCounted ? html`<p class="small" id="hidden-count">Hidden tests: ${v.hiddenCounted.passed} of ${v.hiddenCounted.total} passed.</p>` : ''}
${excerpts.length ? html`<h3>Visible tests</h3>${excerpts}` : ''}`;
}

/** The submitted files, read-only, as plain text (what was sent, under the paths it was sent with). */
export function submittedFilesHtml(input: {
  content: string;
  files: { path: string; content: string; language?: string }[];
  language: string | null;
}): SafeHtml {
  const files = input.files.map(
    (f, i) =>
      html`<figure class="code-file"><figcaption><code>${f.path}</code>${f.language ? html` <span class="small muted">(${f.language})</span>` : ''}</figcaption><pre tabindex="0" aria-label="${f.path}" id="file-${i + 1}"><code class="language-plaintext">${f.content}</code></pre></figure>`,
  );
  const content =
    input.content !== ''
      ? html`<figure class="code-file"><figcaption>Content${input.language ? html` <span class="small muted">(${input.language})</span>` : ''}</figcaption><pre tabindex="0" aria-label="Content" id="submitted-content"><code class="language-plaintext">${input.content}</code></pre></figure>`
      : '';
  return html`<section id="submitted-files" aria-labelledby="submitted-title"><h2 id="submitted-title">What you submitted</h2>
${input.language ? html`<p class="small">Language: <code>${input.language}</code></p>` : ''}${content}${files}</section>`;
}

export function renderSubmissionPage(input: {
  submission: {
    id: string;
    status: string;
    challenge_id: string;
    agent_id: string;
    created_at: Date;
    failure_reason: string | null;
    content?: string;
    files?: { path: string; content: string; language?: string }[];
    language?: string | null;
  };
  challengeTitle: string;
  result: { final_score: number; result_state: string; summary: string } | null;
  breakdown: unknown;
  /** The challenge's judge_public (the visible tests' data for the excerpts). */
  judgePublic?: unknown;
  account: HeaderAccount;
  /** Fair contests: the final-selection form while the challenge is active (live submissions only). */
  selection?: { selected: boolean; csrfToken: string } | null;
  /** What the agent has left on the challenge while it is active (null: not shown). */
  left?: SubmissionsLeftView | null;
}): RenderedPage {
  const s = input.submission;
  const left = input.left
    ? html`<p id="submissions-left">Submissions left for this agent: ${submissionsLeftText(input.left)} · <a href="/me/challenges/${s.challenge_id}">Submit again</a></p>`
    : '';
  const selection = input.selection
    ? html`<form method="post" action="/me/submissions/${s.id}/select" id="select-form">
<input type="hidden" name="_csrf" value="${input.selection.csrfToken}">
<input type="hidden" name="selected" value="${input.selection.selected ? 'false' : 'true'}">
<p>Final board: <strong id="selected-state">${input.selection.selected ? 'selected' : 'not selected'}</strong>
<button type="submit">${input.selection.selected ? 'Unselect for the final board' : 'Select for the final board'}</button></p>
</form>`
    : '';
  const steps = STATUS_STEPS.map(
    (step) =>
      html`<li data-step="${step}"${step === s.status ? html` aria-current="step"` : ''}>${step}</li>`,
  );
  const result = input.result
    ? html`<h2>Result</h2><p id="score" class="score">Score <strong>${input.result.final_score.toFixed(2)}</strong> · ${input.result.result_state}</p><p id="result-summary">${input.result.summary}</p>
${verdictHtml(verdictView(input.breakdown, input.judgePublic))}`
    : '';
  const body = html`<p class="muted small"><a href="/me">← My submissions</a> · <a href="/challenges/${s.challenge_id}">${input.challengeTitle}</a></p>
<h1>Submission</h1>
<p class="facts"><span>id <code>${s.id}</code></span><span>${fmtDate(s.created_at)}</span></p>
<p>Status: <strong id="status" data-status="${s.status}" role="status" aria-live="polite">${s.status}</strong></p>
<ol class="steps" id="steps">${steps}</ol>
${s.failure_reason ? html`<p class="notice">${s.failure_reason}</p>` : ''}
${selection}
${left}
${result}
${s.content !== undefined || s.files !== undefined ? submittedFilesHtml({ content: s.content ?? '', files: s.files ?? [], language: s.language ?? null }) : ''}`;
  const done = s.status === 'complete' || s.status === 'failed';
  if (done) return accountPage('Submission', body, input.account);
  const config = html`<script type="application/json" id="submission-config">${scriptJson({ submissionId: s.id })}</script>`;
  return accountPage(
    'Submission',
    html`${body}
${config}`,
    input.account,
    SUBMISSION_SCRIPT,
  );
}

/** Follows a submission that is not done yet: its status events, then a reload for the result. */
const SUBMISSION_SCRIPT = raw(`(function () {
  'use strict';
  var config = JSON.parse(document.getElementById('submission-config').textContent);
  var statusEl = document.getElementById('status');
  var source = new EventSource('/me/submissions/' + encodeURIComponent(config.submissionId) + '/events');
  source.addEventListener('status', function (e) {
    var data = JSON.parse(e.data);
    statusEl.textContent = data.status;
    statusEl.setAttribute('data-status', data.status);
    document.querySelectorAll('#steps li').forEach(function (li) {
      if (li.getAttribute('data-step') === data.status) li.setAttribute('aria-current', 'step'); else li.removeAttribute('aria-current');
    });
    if (data.status === 'complete' || data.status === 'failed') { source.close(); location.reload(); }
  });
})();`);

export interface HistoryRow {
  id: string;
  challenge_id: string;
  challenge_title: string;
  agent_id?: string;
  agent_name: string;
  status: string;
  final_score: number | null;
  created_at: Date;
  /** The judged language (null: text, or not recorded). */
  language?: string | null;
  /** The result's state (scored, void, …); null until judged. */
  result_state?: string | null;
  /** DOMjudge's word for the result (correct, wrong answer, …; verdictWord); null until judged. */
  verdict?: string | null;
  /** Selected for the final board. */
  selected?: boolean;
}

/**
 * One agent's final-board selection in one challenge (Kaggle: a checkbox per row, a counter):
 * only where the pages offer it (an active challenge that is not practice; live submissions).
 */
export interface SelectionGroup {
  challenge_id: string;
  challenge_title: string;
  agent_id: string;
  agent_name: string;
  /** How many of the agent's selections are on other pages of the history (kept as they are). */
  keptElsewhere: number;
  /** final_submissions. */
  limit: number;
  /** The rows of this page the boxes are for. */
  shownIds: string[];
  /** Ticked boxes (the stored selection, or what was posted when it is re-shown). */
  ticked: ReadonlySet<string>;
  /** Why the posted selection was refused, said beside its boxes. */
  error?: string;
}

const groupKey = (challengeId: string, agentId: string) => `${challengeId}_${agentId}`;

export function renderHistoryPage(input: {
  rows: HistoryRow[];
  filters: { status?: string; challenge_id?: string };
  challenges: { id: string; title: string }[];
  nextCursor: string | null;
  account: HeaderAccount;
  /** Final selection, per (challenge, agent) shown where it applies. */
  selection?: SelectionGroup[];
  csrfToken?: string;
  /** A line at the top (a saved selection). */
  notice?: string | null;
}): RenderedPage {
  const statuses = ['received', 'queued', 'judging', 'complete', 'failed'];
  const groups = new Map((input.selection ?? []).map((g) => [groupKey(g.challenge_id, g.agent_id), g]));
  const boxFor = (r: HistoryRow): SafeHtml | null => {
    const g = r.agent_id ? groups.get(groupKey(r.challenge_id, r.agent_id)) : undefined;
    if (!g || !g.shownIds.includes(r.id)) return null;
    const key = groupKey(g.challenge_id, g.agent_id);
    return html`<label class="check" for="pick-${r.id}"><span><input type="checkbox" id="pick-${r.id}" name="selected" value="${r.id}" form="sel-${key}" data-group="${key}"${g.ticked.has(r.id) ? ' checked' : ''} aria-describedby="sel-count-${key}${g.error ? html` sel-error-${key}` : ''}"> Select<span class="sr-only"> the submission of ${fmtDate(r.created_at)} to ${r.challenge_title} for the final board</span></span></label>`;
  };
  const rows = input.rows.map((r) => {
    const box = boxFor(r);
    return html`<tr><td>${fmtDate(r.created_at)}</td><td><a href="/challenges/${r.challenge_id}">${r.challenge_title}</a></td><td>${r.agent_name}</td><td>${r.status}</td><td data-verdict="${r.verdict ?? ''}">${r.verdict ?? '—'}</td><td>${r.result_state ?? '—'}</td><td>${r.language ?? '—'}</td><td class="num">${r.final_score === null ? '—' : r.final_score.toFixed(2)}</td><td>${box ?? (r.selected ? 'selected' : '—')}</td><td><a href="/me/submissions/${r.id}">Details<span class="sr-only"> of the submission of ${fmtDate(r.created_at)}</span></a></td></tr>`;
  });
  const forms = [...groups.values()].map((g) => {
    const key = groupKey(g.challenge_id, g.agent_id);
    const count = g.keptElsewhere + g.shownIds.filter((id) => g.ticked.has(id)).length;
    return html`<form class="selection${g.error ? ' invalid' : ''}" method="post" action="/me/final-selection" id="sel-${key}" data-kept="${g.keptElsewhere}" data-limit="${g.limit}" aria-label="Final board selection: ${g.challenge_title}, ${g.agent_name}">${input.csrfToken ? csrfField(input.csrfToken) : ''}
<input type="hidden" name="challenge_id" value="${g.challenge_id}"><input type="hidden" name="agent_id" value="${g.agent_id}">${g.shownIds.map((id) => html`<input type="hidden" name="shown" value="${id}">`)}
<p class="row"><span class="wrap">Final board of <a href="/challenges/${g.challenge_id}">${g.challenge_title}</a>, ${g.agent_name}: <strong id="sel-count-${key}" role="status" aria-live="polite">${count} of ${g.limit} selected</strong></span>
<button type="submit">Save selection<span class="sr-only"> for ${g.challenge_title}, ${g.agent_name}</span></button></p>
${g.error ? html`<p class="field-error" id="sel-error-${key}" role="alert">${g.error}</p>` : ''}
<p class="small muted">Tick up to ${g.limit} submission${g.limit === 1 ? '' : 's'} below for the final board (private tests decide it); with none ticked, the best ${g.limit} by public score count.</p></form>`;
  });
  const q = new URLSearchParams();
  if (input.filters.status) q.set('status', input.filters.status);
  if (input.filters.challenge_id) q.set('challenge_id', input.filters.challenge_id);
  if (input.nextCursor) q.set('cursor', input.nextCursor);
  const body = html`<h1>My submissions</h1>
${input.notice ? html`<p class="notice" id="history-notice" role="status">${input.notice}</p>` : ''}
<form class="filters" method="get" action="/me" aria-label="Filter submissions">
<label for="f-status">Status<select id="f-status" name="status"><option value="">any</option>${statuses.map((s) => html`<option${s === input.filters.status ? ' selected' : ''}>${s}</option>`)}</select></label>
<label for="f-challenge">Challenge<select id="f-challenge" name="challenge_id"><option value="">any</option>${input.challenges.map((c) => html`<option value="${c.id}"${c.id === input.filters.challenge_id ? ' selected' : ''}>${c.title}</option>`)}</select></label>
<button type="submit">Filter</button></form>
${forms.length ? html`<section id="final-selection" aria-labelledby="final-selection-title"><h2 id="final-selection-title">Selection for the final board</h2>${forms}</section>` : ''}
${rows.length ? html`<div class="table-wrap" tabindex="0" role="region" aria-label="Submissions, newest first"><table id="history-table"><caption class="sr-only">Submissions, newest first</caption><thead><tr><th scope="col">Submitted</th><th scope="col">Challenge</th><th scope="col">Agent</th><th scope="col">Status</th><th scope="col">Verdict</th><th scope="col">Result</th><th scope="col">Language</th><th scope="col" class="num">Score</th><th scope="col">Final board</th><th scope="col"><span class="sr-only">Details</span></th></tr></thead><tbody>${rows}</tbody></table></div>` : html`<p class="muted">No submission matches.</p>`}
${input.nextCursor ? html`<p><a href="/me?${q.toString()}">Older submissions</a></p>` : ''}`;
  return accountPage('My submissions', body, input.account, forms.length ? HISTORY_SCRIPT : undefined);
}

/** The counter follows the boxes as they are ticked, before the selection is saved. */
const HISTORY_SCRIPT = raw(`(function () {
  'use strict';
  document.querySelectorAll('form.selection').forEach(function (form) {
    var key = form.id.slice(4);
    var count = document.getElementById('sel-count-' + key);
    var kept = Number(form.getAttribute('data-kept'));
    var limit = Number(form.getAttribute('data-limit'));
    var boxes = document.querySelectorAll('input[type=checkbox][data-group="' + key + '"]');
    boxes.forEach(function (box) {
      box.addEventListener('change', function () {
        var n = kept;
        boxes.forEach(function (b) { if (b.checked) n++; });
        count.textContent = n + ' of ' + limit + ' selected' + (n > limit ? ': untick ' + (n - limit) : '');
      });
    });
  });
})();`);
