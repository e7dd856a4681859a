/**
 * Webhook deliveries on the web (issue 23, "The console": Support and Subscribers). Support
 * (operators, under /admin) sees deliveries across every subscription; a subscriber sees their own
 * under /me/webhooks. Both show each attempt's status code, latency, error and response excerpt,
 * as Stripe's webhook view and Svix's app portal do, and replay through CSRF-checked forms
 * (docs/decisions/webhooks.md, "The console's delivery pages").
 */
import { CONSOLE_NAV_STYLE, consoleNav } from '../console/view';
import type { DeliveryStatus, WebhookAttemptRow } from '../../../db/queries/webhook-deliveries';
import type { WebhookSubscriptionRow } from '../../../db/queries/webhook-subscriptions';
import { type ShownOnce, csrfField, shownOnceBlock } from '../../../web/forms';
import { renderPage, type HeaderAccount, type RenderedPage } from '../../../web/layout';
import { html, joinHtml, raw, type SafeHtml } from '../../../web/html';

export const DELIVERY_STATUS_LABELS: Record<DeliveryStatus, string> = {
  pending: 'pending',
  retrying: 'retrying',
  delivered: 'delivered',
  dead_letter: 'dead letter',
};

/** Page size of every delivery listing here. */
export const DELIVERIES_PER_PAGE = 25;
/** The payload shown on a delivery's page is cut here (the body can be large; the receiver got all of it). */
const PAYLOAD_SHOWN_CHARS = 4000;

const DELIVERY_STYLE = raw(`
.d-status { display:inline-block; padding:0 8px; border-radius:999px; border:1px solid var(--line); font-size:12px; white-space:nowrap; }
.d-dead_letter, .d-failed { border-color:var(--bad); color:var(--bad); }
.d-retrying, .d-pending, .d-disabled { border-color:var(--warn); color:var(--warn); }
.d-delivered, .d-ok, .d-active { border-color:var(--ok); color:var(--ok); }
ol.attempts { list-style:none; padding:0; margin:0; display:flex; flex-direction:column; gap:10px; }
ol.attempts li { background:var(--panel); border:1px solid var(--line); border-radius:8px; padding:10px 12px; }
ol.attempts h4 { margin:0 0 6px; font-size:14px; }
td.err { max-width:280px; }
#deliveries-table th, #deliveries-table td.num, td.event code { overflow-wrap:normal; white-space:nowrap; }
.outcome { border:1px solid var(--line); border-left:3px solid var(--ok); padding:8px 12px; border-radius:6px; background:var(--panel); }
.outcome.bad { border-left-color:var(--bad); }
.actions { display:flex; flex-wrap:wrap; gap:10px; align-items:flex-end; margin:12px 0; }
`);

const fmtDate = (d: Date | null) => (d ? `${d.toISOString().slice(0, 19).replace('T', ' ')} UTC` : '—');
const statusBadge = (s: DeliveryStatus) =>
  html`<span class="d-status d-${s}">${DELIVERY_STATUS_LABELS[s]}</span>`;
const subscriptionBadge = (s: WebhookSubscriptionRow['status']) =>
  html`<span class="d-status d-${s}">${s}</span>`;
const code = (n: number | null) => (n === null ? '—' : String(n));

/** A delivery page; under /admin (`inConsole`) with the console's navigation. */
function deliveryPage(
  title: string,
  body: SafeHtml,
  account: HeaderAccount,
  inConsole = false,
): RenderedPage {
  return renderPage({
    title: inConsole ? `${title} · Console` : `${title} · Challenges`,
    body: html`${inConsole && consoleNav('deliveries')}${body}`,
    style: inConsole
      ? html`${DELIVERY_STYLE}
${CONSOLE_NAV_STYLE}`
      : DELIVERY_STYLE,
    account,
  });
}

/** One delivery in a listing. */
export interface DeliveryListRow {
  id: string;
  event_type: string;
  subscription_id: string;
  url: string;
  status: DeliveryStatus;
  /** Attempts recorded, every series (original and replays). */
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  created_at: Date;
}

export interface DeliveryFilters {
  status?: DeliveryStatus;
  subscription_id?: string;
  event_type?: string;
  /** As the filter form shows it (`YYYY-MM-DDTHH:MM`, UTC). */
  since?: string;
}

function filterQuery(filters: DeliveryFilters, cursor?: string | null): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(filters)) if (v) q.set(k, String(v));
  if (cursor) q.set('cursor', cursor);
  return q.toString();
}

/** `YYYY-MM-DDTHH:MM` in UTC, as a datetime-local field shows it. */
export const datetimeLocalUtc = (d: Date) => d.toISOString().slice(0, 16);

function statusSelect(id: string, selected: DeliveryStatus | undefined): SafeHtml {
  const options = (Object.keys(DELIVERY_STATUS_LABELS) as DeliveryStatus[]).map(
    (s) =>
      html`<option value="${s}"${s === selected ? ' selected' : ''}>${DELIVERY_STATUS_LABELS[s]}</option>`,
  );
  return html`<label for="${id}">Status<select id="${id}" name="status"><option value="">any</option>${options}</select></label>`;
}

function lastError(r: { last_error: string | null }): string {
  return r.last_error ? (r.last_error.length > 200 ? `${r.last_error.slice(0, 200)}…` : r.last_error) : '—';
}

/** A subscription as the console's bulk-replay panel shows it. */
export interface SubscriptionPanel {
  subscription: WebhookSubscriptionRow;
  /** Default of the "since" field. */
  defaultSince: string;
}

/** /admin/deliveries: every subscription's deliveries, filtered; replay the selected, or a subscription's dead letters since a time. */
export function renderAdminDeliveriesPage(input: {
  rows: DeliveryListRow[];
  filters: DeliveryFilters;
  eventTypes: readonly string[];
  nextCursor: string | null;
  /** Shown when the listing is filtered to one subscription. */
  panel: SubscriptionPanel | null;
  csrfToken: string;
  account: HeaderAccount;
}): RenderedPage {
  const csrf = csrfField(input.csrfToken);
  const f = input.filters;
  const rows = input.rows.map(
    (r) => html`<tr>
<td><input type="checkbox" name="delivery_ids" value="${r.id}" aria-label="Select delivery ${r.id}"></td>
<td><a href="/admin/deliveries/${r.id}"><code>${r.id}</code></a><br><span class="small muted">${fmtDate(r.created_at)}</span></td>
<td class="event"><code>${r.event_type}</code></td>
<td><a href="/admin/deliveries?subscription_id=${r.subscription_id}">${r.url}</a></td>
<td>${statusBadge(r.status)}</td>
<td class="num">${r.attempts}</td>
<td class="num">${code(r.last_status_code)}</td>
<td class="err small">${lastError(r)}</td>
</tr>`,
  );
  const panel = input.panel
    ? html`<section aria-labelledby="sub-title" class="card">
<h2 id="sub-title">Subscription ${input.panel.subscription.url}</h2>
<p class="facts"><span>id <code>${input.panel.subscription.id}</code></span><span>${subscriptionBadge(input.panel.subscription.status)}</span><span>${input.panel.subscription.failure_count} consecutive failures</span><span>events: ${input.panel.subscription.events.join(', ')}</span></p>
<form class="actions" method="post" action="/admin/webhooks/${input.panel.subscription.id}/replay-dead-letters" aria-label="Replay dead letters since a time">${csrf}
<label for="replay-since">Replay every dead letter created since (UTC)<input id="replay-since" name="since" type="datetime-local" step="1" value="${input.panel.defaultSince}" required></label>
<button type="submit">Replay dead letters</button></form>
</section>`
    : '';
  const eventOptions = input.eventTypes.map(
    (t) => html`<option${t === f.event_type ? ' selected' : ''}>${t}</option>`,
  );
  const body = html`<h1>Webhook deliveries</h1>
<p class="muted">Every subscription's deliveries, newest first. Open one for each attempt's status code, latency, error and response excerpt.</p>
<form class="filters" method="get" action="/admin/deliveries" aria-label="Filter deliveries">
${statusSelect('f-status', f.status)}
<label for="f-sub">Subscription id<input id="f-sub" name="subscription_id" value="${f.subscription_id ?? ''}" placeholder="any" size="38"></label>
<label for="f-event">Event type<select id="f-event" name="event_type"><option value="">any</option>${eventOptions}</select></label>
<label for="f-since">Created since (UTC)<input id="f-since" name="since" type="datetime-local" value="${f.since ?? ''}"></label>
<button type="submit">Filter</button> <a href="/admin/deliveries?status=dead_letter">Dead letters</a> <a href="/admin/deliveries?status=retrying">Retrying</a></form>
${panel}
${
  rows.length
    ? html`<form method="post" action="/admin/deliveries/replay" aria-label="Replay the selected deliveries">${csrf}
<div class="table-wrap" tabindex="0" role="region" aria-label="Deliveries, newest first"><table id="deliveries-table"><caption class="sr-only">Deliveries, newest first</caption>
<thead><tr><th scope="col"><span class="sr-only">Select</span></th><th scope="col">Delivery</th><th scope="col">Event</th><th scope="col">Subscription</th><th scope="col">Status</th><th scope="col" class="num">Attempts</th><th scope="col" class="num">Last code</th><th scope="col">Last error</th></tr></thead>
<tbody>${rows}</tbody></table></div>
<p class="actions"><button type="submit">Replay the selected</button></p></form>`
    : html`<p class="muted">No delivery matches.</p>`
}
${input.nextCursor ? html`<p><a href="/admin/deliveries?${filterQuery(f, input.nextCursor)}">Older deliveries</a></p>` : ''}`;
  return deliveryPage('Webhook deliveries', body, input.account, true);
}

function attemptsBlock(attempts: WebhookAttemptRow[]): SafeHtml {
  if (attempts.length === 0) return html`<p class="muted">No attempt yet.</p>`;
  const bySeries = new Map<number, WebhookAttemptRow[]>();
  for (const a of attempts) bySeries.set(a.series, [...(bySeries.get(a.series) ?? []), a]);
  return joinHtml(
    [...bySeries]
      .sort(([a], [b]) => a - b)
      .map(
        ([series, list]) => html`<h3>${series === 0 ? 'Original attempts' : `Replay ${series}`}</h3>
<ol class="attempts" aria-label="${series === 0 ? 'Original attempts' : `Attempts of replay ${series}`}">${list.map(
          (a) => html`<li class="attempt" data-series="${a.series}" data-attempt="${a.attempt_number}">
<h4>Attempt ${a.attempt_number} <span class="d-status ${a.success ? 'd-ok' : 'd-failed'}">${a.success ? 'succeeded' : 'failed'}</span></h4>
<dl class="rules">
<dt>Sent</dt><dd>${fmtDate(a.attempted_at)}</dd>
<dt>Status code</dt><dd class="status-code">${a.status_code === null ? 'no answer' : a.status_code}</dd>
<dt>Latency</dt><dd>${a.latency_ms} ms</dd>
<dt>Error</dt><dd class="attempt-error">${a.error ? a.error : '—'}</dd>
<dt>Response</dt><dd>${a.response_excerpt ? html`<pre class="response-excerpt">${a.response_excerpt}</pre>` : html`<span class="muted">no body</span>`}</dd>
</dl></li>`,
        )}</ol>`,
      ),
    '\n',
  );
}

/** The outcome of a replay or test shown on top of a page (from the form just sent). */
export interface Notice {
  text: string;
  ok: boolean;
}

const noticeBlock = (notice: Notice | null | undefined) =>
  notice ? html`<p class="outcome${notice.ok ? '' : ' bad'}" role="status">${notice.text}</p>` : '';

/** The body indented for reading (the receiver got the exact bytes; a body that is not JSON is shown as is). */
function prettyJson(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

/** One delivery with every attempt (support or the subscriber), and its replay button. */
export function renderDeliveryPage(input: {
  delivery: {
    id: string;
    event_type: string;
    status: DeliveryStatus;
    series: number;
    body: string;
    created_at: Date;
    delivered_at: Date | null;
    dead_lettered_at: Date | null;
  };
  subscription: WebhookSubscriptionRow;
  attempts: WebhookAttemptRow[];
  /** Where the replay form posts, and the page the "back" link names. */
  replayAction: string;
  back: { href: string; label: string };
  notice?: Notice | null;
  csrfToken: string;
  account: HeaderAccount;
}): RenderedPage {
  const d = input.delivery;
  const pretty = prettyJson(d.body);
  const payload =
    pretty.length > PAYLOAD_SHOWN_CHARS ? `${pretty.slice(0, PAYLOAD_SHOWN_CHARS)}\n… (cut here)` : pretty;
  const canReplay = input.subscription.status === 'active';
  const body = html`<p><a href="${input.back.href}">${input.back.label}</a></p>
<h1>Delivery <code>${d.id}</code></h1>
${noticeBlock(input.notice)}
<dl class="rules">
<dt>Status</dt><dd id="delivery-status">${statusBadge(d.status)}</dd>
<dt>Event</dt><dd><code>${d.event_type}</code></dd>
<dt>Subscription</dt><dd>${input.subscription.url} ${subscriptionBadge(input.subscription.status)}</dd>
<dt>Created</dt><dd>${fmtDate(d.created_at)}</dd>
${d.delivered_at ? html`<dt>Delivered</dt><dd>${fmtDate(d.delivered_at)}</dd>` : ''}
${d.dead_lettered_at ? html`<dt>Dead-lettered</dt><dd>${fmtDate(d.dead_lettered_at)}</dd>` : ''}
<dt>Replays</dt><dd>${d.series}</dd>
</dl>
<form class="actions" method="post" action="${input.replayAction}" aria-label="Replay this delivery">${csrfField(input.csrfToken)}
<button type="submit"${canReplay ? '' : ' disabled'}>Replay this delivery</button>
${canReplay ? html`<span class="small muted">Same delivery id and body, a new series of attempts.</span>` : html`<span class="small muted">The subscription is ${input.subscription.status}: it must be active to replay.</span>`}
</form>
<h2>Attempts</h2>
${attemptsBlock(input.attempts)}
<h2>Payload</h2>
<pre><code>${payload}</code></pre>`;
  return deliveryPage(`Delivery ${d.id}`, body, input.account, input.replayAction.startsWith('/admin/'));
}

/** After a bulk replay: how many series were started, and links to each delivery. */
export function renderReplayOutcomePage(input: {
  title: string;
  replayed: { id: string; status: DeliveryStatus }[];
  truncated: boolean;
  back: { href: string; label: string };
  account: HeaderAccount;
}): RenderedPage {
  const list = input.replayed.map(
    (d) =>
      html`<li><a href="/admin/deliveries/${d.id}"><code>${d.id}</code></a> ${statusBadge(d.status)}</li>`,
  );
  const body = html`<h1>${input.title}</h1>
<p class="outcome" role="status">${input.replayed.length === 0 ? 'Nothing to replay: no delivery matched.' : `Replay started for ${input.replayed.length} deliver${input.replayed.length === 1 ? 'y' : 'ies'}. Each gets a new series of attempts; refresh a delivery to follow it.`}${input.truncated ? ' More remained than one replay takes (500): run it again for the rest.' : ''}</p>
${list.length ? html`<ul id="replayed">${list}</ul>` : ''}
<p><a href="${input.back.href}">${input.back.label}</a></p>`;
  return deliveryPage(input.title, body, input.account, true);
}

/** /me/webhooks: the signed-in person's subscriptions. */
export function renderMyWebhooksPage(input: {
  subscriptions: WebhookSubscriptionRow[];
  eventTypes: readonly string[];
  /** The signing secret of the subscription just created (shown once). */
  shown?: ShownOnce;
  csrfToken: string;
  account: HeaderAccount;
}): RenderedPage {
  const cards = input.subscriptions.map(
    (s) => html`<li class="card">
<h2><a href="/me/webhooks/${s.id}">${s.url}</a></h2>
<p class="facts"><span>${subscriptionBadge(s.status)}</span><span>events: ${s.events.join(', ')}</span><span>last delivery ${fmtDate(s.last_delivery_at)}</span>${s.failure_count ? html`<span>${s.failure_count} consecutive failures</span>` : ''}</p>
</li>`,
  );
  const events = input.eventTypes.map(
    (t) =>
      html`<label class="check"><span><input type="checkbox" name="events" value="${t}"> <code>${t}</code></span></label>`,
  );
  const body = html`<h1>My webhooks</h1>
<p class="muted">Your webhook subscriptions. Open one for its deliveries and every attempt, to replay a delivery, send a test event or re-enable it. The API does the same (<code>POST /api/v1/webhooks</code>).</p>
${shownOnceBlock(input.shown)}
<form class="stack" method="post" action="/me/webhooks" aria-label="Create a webhook">${csrfField(input.csrfToken)}
<label for="webhook-url">Endpoint URL (https; http only to loopback)<input id="webhook-url" name="url" type="url" required maxlength="2048" placeholder="https://example.com/hooks"></label>
<fieldset><legend>Events to receive</legend><div class="row">${joinHtml(events, '\n')}</div></fieldset>
<p class="small muted">The signing secret is generated for you and shown once.</p>
<button type="submit">Create webhook</button></form>
${cards.length ? html`<ul class="cards">${joinHtml(cards, '\n')}</ul>` : html`<p class="muted">You have no webhook subscription.</p>`}`;
  return deliveryPage('My webhooks', body, input.account);
}

/** /me/webhooks/:id: one of my subscriptions, its deliveries, test and re-enable. */
export function renderMyWebhookPage(input: {
  subscription: WebhookSubscriptionRow;
  rows: DeliveryListRow[];
  filters: { status?: DeliveryStatus };
  nextCursor: string | null;
  notice?: Notice | null;
  csrfToken: string;
  account: HeaderAccount;
}): RenderedPage {
  const s = input.subscription;
  const csrf = csrfField(input.csrfToken);
  const base = `/me/webhooks/${s.id}`;
  const rows = input.rows.map(
    (r) => html`<tr>
<td><a href="${base}/deliveries/${r.id}"><code>${r.id}</code></a><br><span class="small muted">${fmtDate(r.created_at)}</span></td>
<td class="event"><code>${r.event_type}</code></td>
<td>${statusBadge(r.status)}</td>
<td class="num">${r.attempts}</td>
<td class="num">${code(r.last_status_code)}</td>
<td class="err small">${lastError(r)}</td>
<td><form method="post" action="${base}/deliveries/${r.id}/replay">${csrf}<button type="submit" class="secondary"${s.status === 'active' ? '' : ' disabled'}>Replay<span class="sr-only"> delivery ${r.id}</span></button></form></td>
</tr>`,
  );
  const actions: SafeHtml[] = [];
  if (s.status === 'active')
    actions.push(
      html`<form method="post" action="${base}/test" aria-label="Send a test event">${csrf}<button type="submit">Send a test event</button></form>`,
      html`<form method="post" action="${base}/replay-dead-letters" aria-label="Replay the latest dead letters">${csrf}<button type="submit" class="secondary" id="replay-dead-letters">Replay the latest dead letters</button></form>`,
    );
  if (s.status === 'disabled')
    actions.push(
      html`<form method="post" action="${base}/enable" aria-label="Re-enable this subscription">${csrf}<label class="check" for="replay-on-enable"><span><input type="checkbox" id="replay-on-enable" name="replay_dead_letters" value="yes" checked> Also replay what was dead-lettered while it was down</span></label><button type="submit">Re-enable</button></form>`,
    );
  const q = new URLSearchParams();
  if (input.filters.status) q.set('status', input.filters.status);
  if (input.nextCursor) q.set('cursor', input.nextCursor);
  const body = html`<p><a href="/me/webhooks">My webhooks</a></p>
<h1>Webhook ${s.url}</h1>
${noticeBlock(input.notice)}
<dl class="rules">
<dt>Status</dt><dd id="subscription-status">${subscriptionBadge(s.status)}${s.disabled_reason ? html` <span class="small muted">${s.disabled_reason}</span>` : ''}</dd>
<dt>Events</dt><dd>${s.events.join(', ')}</dd>
<dt>Secret</dt><dd><code>${s.secret_prefix}…</code></dd>
<dt>Consecutive failures</dt><dd>${s.failure_count}</dd>
<dt>Last delivery</dt><dd>${fmtDate(s.last_delivery_at)}</dd>
</dl>
${actions.length ? html`<div class="actions">${actions}</div>` : ''}
${s.status === 'inactive' ? html`<p class="notice">This subscription was deleted: nothing is delivered or replayed to it.</p>` : ''}
<h2>Deliveries</h2>
<form class="filters" method="get" action="${base}" aria-label="Filter deliveries">
${statusSelect('f-status', input.filters.status)}
<button type="submit">Filter</button></form>
${rows.length ? html`<div class="table-wrap" tabindex="0" role="region" aria-label="Deliveries, newest first"><table id="deliveries-table"><caption class="sr-only">Deliveries, newest first</caption><thead><tr><th scope="col">Delivery</th><th scope="col">Event</th><th scope="col">Status</th><th scope="col" class="num">Attempts</th><th scope="col" class="num">Last code</th><th scope="col">Last error</th><th scope="col"><span class="sr-only">Replay</span></th></tr></thead><tbody>${rows}</tbody></table></div>` : html`<p class="muted">No delivery matches.</p>`}
${input.nextCursor ? html`<p><a href="${base}?${q.toString()}">Older deliveries</a></p>` : ''}`;
  return deliveryPage(`Webhook ${s.url}`, body, input.account);
}
