/**
 * The console's webhook delivery pages (issue 23): support's view across every subscription
 * under /admin (operators only), and a subscriber's own under /me/webhooks. Hidden from OpenAPI.
 * Every read and every replay goes through the same domain functions as the API (replays write
 * their audit record in the replay's transaction); docs/decisions/webhooks.md.
 */
import { randomBytes } from 'node:crypto';
import { z, type ZodTypeAny } from 'zod';
import {
  DELIVERY_STATUSES,
  findDelivery,
  type WebhookAttemptRow,
} from '../../../db/queries/webhook-deliveries';
import {
  findSubscription,
  listSubscriptionsByOwner,
  type WebhookSubscriptionRow,
} from '../../../db/queries/webhook-subscriptions';
import type { WebSession } from '../../../domain/accounts/web-sessions';
import { actorOf } from '../../../domain/audit/policy';
import { getDelivery, searchDeliveriesPage } from '../../../domain/webhooks/deliveries';
import { replayDeadLetters, replayDelivery, replaySelectedDeliveries } from '../../../domain/webhooks/replay';
import {
  createSubscription,
  ownerOf,
  reactivateSubscription,
  requireOwnedSubscription,
  requireSubscriptionForDeliveries,
} from '../../../domain/webhooks/subscriptions';
import { sendTestEvent } from '../../../domain/webhooks/test-event';
import { notFound, validationError } from '../../../errors';
import { EVENT_TYPES } from '../../../events/types';
import {
  DELIVERIES_PER_PAGE,
  datetimeLocalUtc,
  renderAdminDeliveriesPage,
  renderDeliveryPage,
  renderMyWebhookPage,
  renderMyWebhooksPage,
  renderReplayOutcomePage,
  type DeliveryFilters,
  type DeliveryListRow,
  type Notice,
} from './view';
import { type ShownOnce } from '../../../web/forms';
import { headerAccount } from '../../../web/layout';
import type { AppDeps } from '../../deps';
import { describeZodIssues } from '../../errors';
import { createWebhookBody } from '../../schemas/webhooks';
import { htmlPage } from '../../html-page';
import { type AnyRouteDef, type HandlerInput, type HandlerResult } from '../../route';
import { signedInForm, signedInPage } from '../../page-routes';

// ---- input ------------------------------------------------------------------------------------------

const DELIVERY_ID = /^whd_[0-9a-f]{32}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A filter field left empty in the form is no filter. */
const optionalField = <T extends ZodTypeAny>(schema: T) =>
  z.preprocess((v) => (v === '' ? undefined : v), schema.optional());

/**
 * A time from a form: what a datetime-local field sends (`2026-03-01T09:30`, read as UTC, as the
 * page says) or an ISO 8601 time with its offset. Years stay in 2000–9999 so the database never
 * sees a time it would refuse.
 */
const formTime = z
  .string()
  .max(40)
  .transform((v, ctx) => {
    const local = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?$/.test(v);
    const withOffset = z.string().datetime({ offset: true }).safeParse(v).success;
    const at = new Date(local ? `${v}Z` : v);
    if ((!local && !withOffset) || Number.isNaN(at.getTime()) || at.getUTCFullYear() < 2000) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: 'not a date and time (e.g. 2026-03-01T09:30)' });
      return z.NEVER;
    }
    return at;
  });

const deliveryStatus = z.enum(DELIVERY_STATUSES);

const adminListQuery = z.object({
  status: optionalField(deliveryStatus),
  subscription_id: optionalField(z.string().uuid()),
  event_type: optionalField(z.enum(EVENT_TYPES)),
  since: optionalField(formTime),
  cursor: optionalField(z.string().max(400)),
});

const myListQuery = z.object({
  status: optionalField(deliveryStatus),
  cursor: optionalField(z.string().max(400)),
  done: z.enum(['enabled']).optional().catch(undefined),
});

/** What the subscriber was told after a bulk replay of the latest dead letters. */
function deadLettersNotice(outcome: { replayed: unknown[]; truncated: boolean }, enabled: boolean): Notice {
  const n = outcome.replayed.length;
  const replayed =
    n === 0
      ? 'there was no dead letter to replay.'
      : `replay started for the ${n} dead letter${n === 1 ? '' : 's'} of the latest failing run (the same delivery ids and bodies, new series of attempts; recorded as delivery.replay_bulk).${outcome.truncated ? ' More remain than one replay takes (500): replay again for the rest.' : ''}`;
  return {
    text: enabled ? `Re-enabled: deliveries resume; ${replayed}` : `Dead letters: ${replayed}`,
    ok: true,
  };
}

const detailQuery = z.object({ done: z.enum(['replayed']).optional().catch(undefined) });

/** A checkbox group: absent → [], one → a string, several → an array. */
const checkboxes = <T extends ZodTypeAny>(item: T) =>
  z.preprocess((v) => (v === undefined ? [] : Array.isArray(v) ? v : [v]), z.array(item));

const replaySelectedForm = z.object({
  delivery_ids: checkboxes(z.string().regex(DELIVERY_ID, 'not a delivery id')).pipe(
    z.array(z.string()).min(1, 'select at least one delivery').max(500),
  ),
});
const replaySinceForm = z.object({ since: formTime });

function parsed<T extends ZodTypeAny>(schema: T, value: unknown, where?: string): z.infer<T> {
  const result = schema.safeParse(value ?? {});
  if (!result.success) throw validationError(describeZodIssues(result.error.issues, where));
  return result.data;
}

/** A path id the page can name: anything else is the 404 page (not a 400: it is an address). */
function pathId(value: unknown, pattern: RegExp, what: string): string {
  if (typeof value !== 'string' || !pattern.test(value)) throw notFound(what);
  return value;
}

// ---- answers -------------------------------------------------------------------------------------

type Input = HandlerInput<
  Record<string, string>,
  Record<string, unknown> | undefined,
  Record<string, unknown> | undefined,
  'webSession'
>;

/**
 * Query and form are read by the handlers (after the pipeline's checks: signed in, and for /admin
 * operators only, so a non-operator learns nothing of what the route takes), so the route takes any.
 */
const anyObject = z.object({}).passthrough();
/** Each path parameter as any text: the handler checks it (after the role check; a bad one is the 404 page). */
const pathParams = (path: string) =>
  z.object(Object.fromEntries([...path.matchAll(/:([A-Za-z]+)/g)].map((m) => [m[1], z.string()])));

/** A page whose path parameters and query its handler reads (see above). */
const page = (
  operationId: string,
  path: string,
  summary: string,
  handler: (input: Input) => Promise<HandlerResult>,
): AnyRouteDef =>
  signedInPage(operationId, path, summary, { params: pathParams(path), query: anyObject, handler });

/** A form whose fields its handler reads; subscribers' forms spend the `webhooks` budget, as the API's do. */
const form = (
  operationId: string,
  path: string,
  summary: string,
  rateLimit: 'default' | 'webhooks',
  handler: (input: Input) => Promise<HandlerResult>,
): AnyRouteDef =>
  signedInForm(operationId, path, summary, { rateLimit, params: pathParams(path), body: anyObject, handler });

// ---- shared reads ----------------------------------------------------------------------------------

function listRows(
  rows: Awaited<ReturnType<typeof searchDeliveriesPage>>['rows'],
  attempts: WebhookAttemptRow[],
): DeliveryListRow[] {
  const counts = new Map<string, number>();
  for (const a of attempts) counts.set(a.delivery_id, (counts.get(a.delivery_id) ?? 0) + 1);
  return rows.map((r) => ({
    id: r.id,
    event_type: r.event_type,
    subscription_id: r.subscription_id,
    url: r.url,
    status: r.status,
    attempts: counts.get(r.id) ?? 0,
    last_status_code: r.last_status_code,
    last_error: r.last_error,
    created_at: r.created_at,
  }));
}

const replayedNotice = (series: number): Notice => ({
  text: `Replay started (replay ${series}): the same delivery id and body, a new series of attempts. Reload to follow it.`,
  ok: true,
});

// ---- support (operators) ---------------------------------------------------------------------------

/** Loads a delivery by id alone, with its subscription and attempts (operators read any). */
async function deliveryForOperator(deps: AppDeps, input: Input) {
  const id = pathId(input.params.deliveryId, DELIVERY_ID, 'delivery');
  const found = await findDelivery(deps.db, id);
  if (!found) throw notFound('delivery');
  const sub = await requireSubscriptionForDeliveries(deps.db, input.principal, found.subscription_id);
  const { delivery, attempts } = await getDelivery(deps.db, input.principal, sub.id, id);
  return { sub, delivery, attempts };
}

/** One delivery with its attempts, as support and as its subscriber see it (only the links differ). */
function deliveryDetailPage(
  input: Input,
  found: Awaited<ReturnType<typeof deliveryForOperator>>,
  links: { replayAction: string; back: { href: string; label: string } },
): HandlerResult {
  const q = parsed(detailQuery, input.query, 'query');
  return htmlPage(
    renderDeliveryPage({
      delivery: found.delivery,
      subscription: found.sub,
      attempts: found.attempts,
      ...links,
      notice: q.done === 'replayed' ? replayedNotice(found.delivery.series) : null,
      csrfToken: input.webSession.csrfToken,
      account: headerAccount(input.webSession),
    }),
  );
}

export const supportDeliveryPageRoutes: AnyRouteDef[] = [
  page(
    'adminDeliveriesPage',
    '/admin/deliveries',
    'Console: webhook deliveries across every subscription (filters, cursor pages), replay the selected',
    async ({ query, deps, webSession }) => {
      const q = parsed(adminListQuery, query, 'query');
      const { rows, attempts, pagination } = await searchDeliveriesPage(deps.db, {
        status: q.status,
        subscription_id: q.subscription_id,
        event_type: q.event_type,
        since: q.since?.toISOString(),
        limit: DELIVERIES_PER_PAGE,
        cursor: q.cursor,
      });
      const sub = q.subscription_id ? await findSubscription(deps.db, q.subscription_id) : null;
      const filters: DeliveryFilters = {
        status: q.status,
        subscription_id: q.subscription_id,
        event_type: q.event_type,
        since: q.since ? datetimeLocalUtc(q.since) : undefined,
      };
      return htmlPage(
        renderAdminDeliveriesPage({
          rows: listRows(rows, attempts),
          filters,
          eventTypes: EVENT_TYPES,
          nextCursor: pagination.next_cursor ?? null,
          panel: sub
            ? { subscription: sub, defaultSince: datetimeLocalUtc(new Date(Date.now() - 86_400_000)) }
            : null,
          csrfToken: webSession.csrfToken,
          account: headerAccount(webSession),
        }),
      );
    },
  ),
  page(
    'adminDeliveryPage',
    '/admin/deliveries/:deliveryId',
    "Console: one delivery with every attempt's status code, latency, error and response excerpt",
    async (input) => {
      const found = await deliveryForOperator(input.deps, input);
      return deliveryDetailPage(input, found, {
        replayAction: `/admin/deliveries/${found.delivery.id}/replay`,
        back: {
          href: `/admin/deliveries?subscription_id=${found.sub.id}`,
          label: "The subscription's deliveries",
        },
      });
    },
  ),
  form(
    'adminReplayDeliveryForm',
    '/admin/deliveries/:deliveryId/replay',
    'Console form: replay one delivery',
    'default',
    async (input) => {
      const { sub, delivery } = await deliveryForOperator(input.deps, input);
      await replayDelivery(input.deps, actorOf(input.principal), sub, delivery.id);
      return { redirect: `/admin/deliveries/${delivery.id}?done=replayed`, status: 303 };
    },
  ),
  form(
    'adminReplaySelectedForm',
    '/admin/deliveries/replay',
    'Console form: replay the selected deliveries (one transaction, one audit record per subscription)',
    'default',
    async ({ body, principal, deps, webSession }) => {
      const { delivery_ids } = parsed(replaySelectedForm, body);
      const { replayed, truncated } = await replaySelectedDeliveries(deps, actorOf(principal), delivery_ids);
      return htmlPage(
        renderReplayOutcomePage({
          title: 'Selected deliveries replayed',
          replayed: replayed.map((d) => ({ id: d.id, status: d.status })),
          truncated,
          back: { href: '/admin/deliveries', label: 'All deliveries' },
          account: headerAccount(webSession),
        }),
      );
    },
  ),
  form(
    'adminReplayDeadLettersForm',
    '/admin/webhooks/:id/replay-dead-letters',
    "Console form: replay a subscription's dead letters created since a time",
    'default',
    async ({ params, body, principal, deps, webSession }) => {
      const id = pathId(params.id, UUID, 'webhook subscription');
      const { since } = parsed(replaySinceForm, body);
      const { replayed, truncated } = await replayDeadLetters(deps, actorOf(principal), id, since);
      return htmlPage(
        renderReplayOutcomePage({
          title: 'Dead letters replayed',
          replayed: replayed.map((d) => ({ id: d.id, status: d.status })),
          truncated,
          back: { href: `/admin/deliveries?subscription_id=${id}`, label: "The subscription's deliveries" },
          account: headerAccount(webSession),
        }),
      );
    },
  ),
];

// ---- subscribers (their own, under /me) -------------------------------------------------------------

/** The person's own subscription: anyone else's, operators' included, is the 404 page (no existence leak). */
function ownSubscription(deps: AppDeps, input: Input): Promise<WebhookSubscriptionRow> {
  const id = pathId(input.params.id, UUID, 'webhook subscription');
  return requireOwnedSubscription(deps.db, input.principal, id);
}

async function mySubscriptionPage(
  deps: AppDeps,
  session: WebSession,
  sub: WebhookSubscriptionRow,
  query: z.infer<typeof myListQuery>,
  notice: Notice | null,
): Promise<HandlerResult> {
  const { rows, attempts, pagination } = await searchDeliveriesPage(
    deps.db,
    { subscription_id: sub.id, status: query.status, cursor: query.cursor, limit: DELIVERIES_PER_PAGE },
    session.userId,
  );
  return htmlPage(
    renderMyWebhookPage({
      subscription: sub,
      rows: listRows(rows, attempts),
      filters: { status: query.status },
      nextCursor: pagination.next_cursor ?? null,
      notice,
      csrfToken: session.csrfToken,
      account: headerAccount(session),
    }),
  );
}

/** /me/webhooks, with the secret of a subscription just created. */
async function myWebhooksPage(deps: AppDeps, session: WebSession, shown?: ShownOnce): Promise<HandlerResult> {
  const subscriptions = await listSubscriptionsByOwner(deps.db, session.userId);
  return htmlPage(
    renderMyWebhooksPage({
      subscriptions,
      eventTypes: EVENT_TYPES,
      shown,
      csrfToken: session.csrfToken,
      account: headerAccount(session),
    }),
  );
}

const createWebhookForm = z.object({
  url: createWebhookBody.shape.url,
  events: checkboxes(z.string().max(100)).pipe(
    z.array(z.string()).min(1, 'choose at least one event').max(50),
  ),
});

export const subscriberDeliveryPageRoutes: AnyRouteDef[] = [
  page('myWebhooksPage', '/me/webhooks', 'Web page: my webhook subscriptions', async ({ deps, webSession }) =>
    myWebhooksPage(deps, webSession),
  ),
  form(
    'myWebhookCreateForm',
    '/me/webhooks',
    'Web form: create a webhook subscription (its signing secret is generated here and shown once)',
    'webhooks',
    async ({ body, principal, deps, webSession }) => {
      const { url, events } = parsed(createWebhookForm, body);
      // The API takes the subscriber's own secret; a person gets one generated, as strong as any.
      const secret = `whsec_${randomBytes(32).toString('base64url')}`;
      const row = await createSubscription(deps.db, deps.config, ownerOf(principal), { url, events, secret });
      return myWebhooksPage(deps, webSession, {
        what: `Signing secret of the webhook to ${row.url}`,
        secret,
        note: "Verify each delivery's webhook-signature header with it (Standard Webhooks, HMAC-SHA256).",
        kept: 'it is kept encrypted, to sign deliveries',
      });
    },
  ),
  page(
    'myWebhookPage',
    '/me/webhooks/:id',
    'Web page: one of my subscriptions, its deliveries (filter, cursor pages), test and re-enable',
    async (input) => {
      const sub = await ownSubscription(input.deps, input);
      const q = parsed(myListQuery, input.query, 'query');
      const notice = q.done === 'enabled' ? { text: 'Re-enabled: deliveries resume.', ok: true } : null;
      return mySubscriptionPage(input.deps, input.webSession, sub, q, notice);
    },
  ),
  page(
    'myWebhookDeliveryPage',
    '/me/webhooks/:id/deliveries/:deliveryId',
    'Web page: one delivery of my subscription with every attempt',
    async (input) => {
      const sub = await ownSubscription(input.deps, input);
      const deliveryId = pathId(input.params.deliveryId, DELIVERY_ID, 'delivery');
      const { delivery, attempts } = await getDelivery(input.deps.db, input.principal, sub.id, deliveryId);
      return deliveryDetailPage(
        input,
        { sub, delivery, attempts },
        {
          replayAction: `/me/webhooks/${sub.id}/deliveries/${delivery.id}/replay`,
          back: { href: `/me/webhooks/${sub.id}`, label: 'All deliveries of this webhook' },
        },
      );
    },
  ),
  form(
    'myWebhookReplayForm',
    '/me/webhooks/:id/deliveries/:deliveryId/replay',
    'Web form: replay a delivery of my subscription (audited with me as actor)',
    'webhooks',
    async (input) => {
      const sub = await ownSubscription(input.deps, input);
      const deliveryId = pathId(input.params.deliveryId, DELIVERY_ID, 'delivery');
      await replayDelivery(input.deps, actorOf(input.principal), sub, deliveryId);
      return { redirect: `/me/webhooks/${sub.id}/deliveries/${deliveryId}?done=replayed`, status: 303 };
    },
  ),
  form(
    'myWebhookTestForm',
    '/me/webhooks/:id/test',
    'Web form: send a signed webhook.test event now and show the outcome',
    'webhooks',
    async (input) => {
      const sub = await ownSubscription(input.deps, input);
      const outcome = await sendTestEvent(input.deps.config, sub);
      const notice: Notice = outcome.delivered
        ? {
            text: `Test event ${outcome.delivery_id} delivered: your endpoint answered ${outcome.status_code} in ${outcome.latency_ms} ms.`,
            ok: true,
          }
        : {
            text: `Test event ${outcome.delivery_id} failed${outcome.status_code ? ` with ${outcome.status_code}` : ''} after ${outcome.latency_ms} ms: ${outcome.error ?? 'no answer'}.`,
            ok: false,
          };
      return mySubscriptionPage(input.deps, input.webSession, sub, {}, notice);
    },
  ),
  form(
    'myWebhookEnableForm',
    '/me/webhooks/:id/enable',
    'Web form: re-enable my disabled subscription (its failure count starts again)',
    'webhooks',
    async (input) => {
      const sub = await ownSubscription(input.deps, input);
      const enabled = await reactivateSubscription(input.deps.db, sub);
      const body = input.body as Record<string, unknown> | undefined;
      if (body?.replay_dead_letters !== 'yes')
        return { redirect: `/me/webhooks/${sub.id}?done=enabled`, status: 303 };
      // One action: back on, and what was dead-lettered while it was down sent again (DESIGN
      // "Operators": a subscriber's bulk replay is delivery.replay_bulk).
      const outcome = await replayDeadLetters(input.deps, actorOf(input.principal), sub.id, null);
      return mySubscriptionPage(input.deps, input.webSession, enabled, {}, deadLettersNotice(outcome, true));
    },
  ),
  form(
    'myWebhookReplayDeadLettersForm',
    '/me/webhooks/:id/replay-dead-letters',
    'Web form: replay at once the latest run of dead letters of my subscription (what failed while it was down; audited)',
    'webhooks',
    async (input) => {
      const sub = await ownSubscription(input.deps, input);
      const outcome = await replayDeadLetters(input.deps, actorOf(input.principal), sub.id, null);
      return mySubscriptionPage(input.deps, input.webSession, sub, {}, deadLettersNotice(outcome, false));
    },
  ),
];

export const deliveryPageRoutes: AnyRouteDef[] = [
  ...supportDeliveryPageRoutes,
  ...subscriberDeliveryPageRoutes,
];
