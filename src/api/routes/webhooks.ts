import { z } from 'zod';
import { findDelivery, listAttempts, listDeliveries } from '../../db/queries/webhook-deliveries';
import { listSubscriptionsByOwner } from '../../db/queries/webhook-subscriptions';
import { replayDeadLetters, replayDelivery, replaySelectedDeliveries } from '../../domain/webhooks/replay';
import { getDelivery, getDeliveryById, searchDeliveriesPage } from '../../domain/webhooks/deliveries';
import { actorOf } from '../../domain/audit/policy';
import {
  createSubscription,
  deactivateOwnedSubscription,
  ownerOf,
  purgeOwnedSubscription,
  reactivateSubscription,
  requireOwnedSubscription,
  requireSubscriptionForDeliveries,
} from '../../domain/webhooks/subscriptions';
import { sendTestEvent } from '../../domain/webhooks/test-event';
import { notFound } from '../../errors';
import { defineRoute, uuidParam } from '../route';
import { envelope, pagedEnvelope } from '../schemas/common';
import {
  createWebhookBody,
  deleteWebhookQuery,
  listDeliveriesQuery,
  listWebhooksQuery,
  patchWebhookBody,
  bulkReplaySchema,
  ownerBulkReplaySchema,
  ownerReplayDeadLettersBody,
  replayDeadLettersBody,
  replaySelectedBody,
  searchDeliveriesQuery,
  testEventResultSchema,
  toWebhookDelivery,
  toWebhookDeliveryListItem,
  webhookDeliveryListItemSchema,
  toWebhookSubscription,
  webhookDeliveryParams,
  webhookDeliverySchema,
  webhookSubscriptionSchema,
} from '../schemas/webhooks';

/** The spec's "last 20 deliveries". */
export const DELIVERIES_LISTED = 20;

/**
 * Webhook subscriptions (owned by the user behind the API token or JWT). Mutations count against
 * the 'webhooks' budget (20/hour); listings against 'reads'. Another user's subscription is 404.
 */
export const webhookRoutes = [
  defineRoute({
    operationId: 'createWebhook',
    method: 'post',
    path: '/api/v1/webhooks',
    summary: 'Create a webhook subscription (the secret is stored encrypted; only secret_prefix is shown)',
    tags: ['webhooks'],
    auth: 'bearer',
    scope: 'webhook:manage',
    rateLimit: 'webhooks',
    body: createWebhookBody,
    responses: {
      201: { description: 'created', schema: envelope(webhookSubscriptionSchema) },
      400: { description: 'VALIDATION_ERROR (url, secret), INVALID_EVENT, WEBHOOK_LIMIT_REACHED' },
    },
    async handler({ body, principal, deps }) {
      const row = await createSubscription(deps.db, deps.config, ownerOf(principal), body);
      return { status: 201, data: toWebhookSubscription(row) };
    },
  }),
  defineRoute({
    operationId: 'listWebhooks',
    method: 'get',
    path: '/api/v1/webhooks',
    summary: "List the caller's webhook subscriptions (all statuses; ?status= filters)",
    tags: ['webhooks'],
    auth: 'bearer',
    scope: 'webhook:manage',
    rateLimit: 'reads',
    query: listWebhooksQuery,
    responses: {
      200: { description: 'subscriptions', schema: envelope(z.array(webhookSubscriptionSchema)) },
    },
    async handler({ query, principal, deps }) {
      const rows = await listSubscriptionsByOwner(deps.db, ownerOf(principal), query.status);
      return { data: rows.map(toWebhookSubscription) };
    },
  }),
  defineRoute({
    operationId: 'getWebhook',
    method: 'get',
    path: '/api/v1/webhooks/:id',
    summary: 'Get one of your webhook subscriptions',
    tags: ['webhooks'],
    auth: 'bearer',
    scope: 'webhook:manage',
    rateLimit: 'reads',
    params: uuidParam,
    responses: { 200: { description: 'subscription', schema: envelope(webhookSubscriptionSchema) } },
    async handler({ params, principal, deps }) {
      return { data: toWebhookSubscription(await requireOwnedSubscription(deps.db, principal, params.id)) };
    },
  }),
  defineRoute({
    operationId: 'deleteWebhook',
    method: 'delete',
    path: '/api/v1/webhooks/:id',
    summary:
      'Deactivate a subscription (status inactive; no further deliveries). Repeating it is a no-op. With ?purge=true it is removed outright with its deliveries (what `webhooks listen` does on exit); then 404 from then on.',
    tags: ['webhooks'],
    auth: 'bearer',
    scope: 'webhook:manage',
    rateLimit: 'webhooks',
    params: uuidParam,
    query: deleteWebhookQuery,
    responses: {
      200: { description: 'deactivated (or purged)', schema: envelope(webhookSubscriptionSchema) },
    },
    async handler({ params, query, principal, deps }) {
      const row = query.purge
        ? await purgeOwnedSubscription(deps.db, principal, params.id)
        : await deactivateOwnedSubscription(deps.db, principal, params.id);
      return { data: toWebhookSubscription(row) };
    },
  }),
  defineRoute({
    operationId: 'updateWebhook',
    method: 'patch',
    path: '/api/v1/webhooks/:id',
    summary: 'Re-enable a disabled subscription with {"active": true} (failure_count is reset)',
    tags: ['webhooks'],
    auth: 'bearer',
    scope: 'webhook:manage',
    rateLimit: 'webhooks',
    params: uuidParam,
    body: patchWebhookBody,
    responses: {
      200: { description: 'updated', schema: envelope(webhookSubscriptionSchema) },
      400: { description: 'WEBHOOK_INACTIVE (deleted), WEBHOOK_LIMIT_REACHED' },
    },
    async handler({ params, principal, deps }) {
      const sub = await requireOwnedSubscription(deps.db, principal, params.id);
      return { data: toWebhookSubscription(await reactivateSubscription(deps.db, sub)) };
    },
  }),
  defineRoute({
    operationId: 'testWebhook',
    method: 'post',
    path: '/api/v1/webhooks/:id/test',
    summary: 'Send one signed webhook.test event now and report the outcome (not stored, not retried)',
    tags: ['webhooks'],
    auth: 'bearer',
    scope: 'webhook:manage',
    rateLimit: 'webhooks',
    params: uuidParam,
    responses: {
      200: { description: 'attempt outcome', schema: envelope(testEventResultSchema) },
      400: { description: 'WEBHOOK_INACTIVE' },
    },
    async handler({ params, principal, deps }) {
      const sub = await requireOwnedSubscription(deps.db, principal, params.id);
      return { data: await sendTestEvent(deps.config, sub) };
    },
  }),
  defineRoute({
    operationId: 'listWebhookDeliveries',
    method: 'get',
    path: '/api/v1/webhooks/:id/deliveries',
    summary: 'The last 20 deliveries, newest first, each with its attempts (?status= filters)',
    tags: ['webhooks'],
    auth: 'bearer',
    scope: 'webhook:manage',
    rateLimit: 'reads',
    params: uuidParam,
    query: listDeliveriesQuery,
    responses: { 200: { description: 'deliveries', schema: envelope(z.array(webhookDeliverySchema)) } },
    async handler({ params, query, principal, deps }) {
      await requireSubscriptionForDeliveries(deps.db, principal, params.id);
      const rows = await listDeliveries(deps.db, params.id, {
        status: query.status,
        limit: DELIVERIES_LISTED,
      });
      const attempts = await listAttempts(
        deps.db,
        rows.map((r) => r.id),
      );
      return { data: rows.map((r) => toWebhookDelivery(r, attempts)) };
    },
  }),
  defineRoute({
    operationId: 'getWebhookDelivery',
    method: 'get',
    path: '/api/v1/webhooks/:id/deliveries/:deliveryId',
    summary:
      'One delivery with every attempt (status code, latency, error, response excerpt), replays included; the owner or an operator',
    tags: ['webhooks'],
    auth: 'bearer',
    scope: 'webhook:manage',
    rateLimit: 'reads',
    params: webhookDeliveryParams,
    responses: { 200: { description: 'the delivery', schema: envelope(webhookDeliverySchema) } },
    async handler({ params, principal, deps }) {
      const { delivery, attempts } = await getDelivery(deps.db, principal, params.id, params.deliveryId);
      return { data: toWebhookDelivery(delivery, attempts) };
    },
  }),
  defineRoute({
    operationId: 'getWebhookDeliveryById',
    method: 'get',
    path: '/api/v1/webhook-deliveries/:deliveryId',
    summary:
      'One delivery by its id alone (no subscription id needed), with every attempt; the owner of its subscription or an operator, 404 for anyone else',
    tags: ['webhooks'],
    auth: 'bearer',
    scope: 'webhook:manage',
    rateLimit: 'reads',
    params: webhookDeliveryParams.pick({ deliveryId: true }),
    responses: {
      200: { description: 'the delivery', schema: envelope(webhookDeliverySchema) },
      404: { description: 'NOT_FOUND: no such delivery, or not yours' },
    },
    async handler({ params, principal, deps }) {
      const { delivery, attempts } = await getDeliveryById(deps.db, principal, params.deliveryId);
      return { data: toWebhookDelivery(delivery, attempts) };
    },
  }),
  defineRoute({
    operationId: 'replayWebhookDeadLetters',
    method: 'post',
    path: '/api/v1/webhooks/:id/replay-dead-letters',
    summary:
      'Replay at once what was dead-lettered while the endpoint was down (after re-enabling it): without `since`, the latest run of dead letters (those after the last delivery delivered before the newest dead letter); with it, every dead letter created since then. At most 500 per call; one delivery.replay_bulk audit record. The owner or an operator',
    tags: ['webhooks'],
    auth: 'bearer',
    scope: 'webhook:manage',
    rateLimit: 'webhooks',
    params: uuidParam,
    body: ownerReplayDeadLettersBody,
    responses: {
      202: { description: 'replays started', schema: envelope(ownerBulkReplaySchema) },
      400: { description: 'WEBHOOK_INACTIVE (re-enable it first: PATCH {"active": true})' },
      404: { description: 'NOT_FOUND: no such subscription, or not yours' },
    },
    async handler({ params, body, principal, deps }) {
      const sub = await requireSubscriptionForDeliveries(deps.db, principal, params.id);
      const outcome = await replayDeadLetters(
        deps,
        actorOf(principal),
        sub.id,
        body.since ? new Date(body.since) : null,
      );
      return {
        status: 202,
        data: {
          replayed: outcome.replayed.length,
          delivery_ids: outcome.replayed.map((d) => d.id),
          truncated: outcome.truncated,
          since: outcome.since?.toISOString() ?? null,
        },
      };
    },
  }),
  defineRoute({
    operationId: 'adminListWebhookDeliveries',
    method: 'get',
    path: '/api/v1/admin/webhooks/deliveries',
    summary:
      'Operators: deliveries across every subscription, newest first, each with its attempts (?status=dead_letter, ?subscription_id=, ?since=); keyset pages',
    tags: ['webhooks', 'admin'],
    auth: 'admin',
    rateLimit: 'default',
    query: searchDeliveriesQuery,
    responses: {
      200: { description: 'a page of deliveries', schema: pagedEnvelope(webhookDeliveryListItemSchema) },
    },
    async handler({ query, deps }) {
      const { rows, attempts, pagination } = await searchDeliveriesPage(deps.db, query);
      return { data: rows.map((r) => toWebhookDeliveryListItem(r, attempts)), pagination };
    },
  }),
  defineRoute({
    operationId: 'adminReplaySelectedDeliveries',
    method: 'post',
    path: '/api/v1/admin/webhooks/deliveries/replay',
    summary:
      'Operators: replay the selected deliveries (any subscriptions, at most 500) in one transaction; an unknown id or inactive subscription replays nothing',
    tags: ['webhooks', 'admin'],
    auth: 'admin',
    rateLimit: 'default',
    body: replaySelectedBody,
    responses: {
      202: { description: 'replays started', schema: envelope(bulkReplaySchema) },
      400: { description: 'WEBHOOK_INACTIVE' },
      404: { description: 'NOT_FOUND: a selected delivery does not exist (nothing is replayed)' },
    },
    async handler({ body, principal, deps }) {
      const { replayed, truncated } = await replaySelectedDeliveries(
        deps,
        actorOf(principal),
        body.delivery_ids,
      );
      return {
        status: 202,
        data: { replayed: replayed.length, delivery_ids: replayed.map((d) => d.id), truncated },
      };
    },
  }),
  defineRoute({
    operationId: 'replayWebhookDelivery',
    method: 'post',
    path: '/api/v1/webhooks/:id/deliveries/:deliveryId/replay',
    summary: 'Re-send a delivery: same delivery id and body bytes, a new attempt series (owner or operator)',
    tags: ['webhooks'],
    auth: 'bearer',
    scope: 'webhook:manage',
    rateLimit: 'webhooks',
    params: webhookDeliveryParams,
    responses: {
      202: { description: 'replay started', schema: envelope(webhookDeliverySchema) },
      400: { description: 'WEBHOOK_INACTIVE' },
    },
    async handler({ params, principal, deps }) {
      const sub = await requireSubscriptionForDeliveries(deps.db, principal, params.id);
      const row = await replayDelivery(deps, actorOf(principal), sub, params.deliveryId);
      return { status: 202, data: toWebhookDelivery(row, await listAttempts(deps.db, [row.id])) };
    },
  }),
  defineRoute({
    operationId: 'adminReplayWebhookDelivery',
    method: 'post',
    path: '/api/v1/admin/webhooks/deliveries/:deliveryId/replay',
    summary: 'Operators: replay one delivery by its id alone (same id and body, a new attempt series)',
    tags: ['webhooks', 'admin'],
    auth: 'admin',
    rateLimit: 'default',
    params: webhookDeliveryParams.pick({ deliveryId: true }),
    responses: {
      202: { description: 'replay started', schema: envelope(webhookDeliverySchema) },
      400: { description: 'WEBHOOK_INACTIVE' },
    },
    async handler({ params, principal, deps }) {
      const delivery = await findDelivery(deps.db, params.deliveryId);
      if (!delivery) throw notFound('delivery');
      const sub = await requireSubscriptionForDeliveries(deps.db, principal, delivery.subscription_id);
      const row = await replayDelivery(deps, actorOf(principal), sub, delivery.id);
      return { status: 202, data: toWebhookDelivery(row, await listAttempts(deps.db, [row.id])) };
    },
  }),
  defineRoute({
    operationId: 'adminReplayDeadLetters',
    method: 'post',
    path: '/api/v1/admin/webhooks/:id/replay-dead-letters',
    summary:
      'Operators: replay every dead-lettered delivery of a subscription created since a time (max 500 per call)',
    tags: ['webhooks', 'admin'],
    auth: 'admin',
    rateLimit: 'default',
    params: uuidParam,
    body: replayDeadLettersBody,
    responses: {
      202: {
        description: 'replays started',
        schema: envelope(bulkReplaySchema),
      },
      400: { description: 'WEBHOOK_INACTIVE' },
    },
    async handler({ params, body, principal, deps }) {
      const { replayed, truncated } = await replayDeadLetters(
        deps,
        actorOf(principal),
        params.id,
        new Date(body.since),
      );
      return {
        status: 202,
        data: { replayed: replayed.length, delivery_ids: replayed.map((d) => d.id), truncated },
      };
    },
  }),
];
