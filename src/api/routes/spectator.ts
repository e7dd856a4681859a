import type Koa from 'koa';
import { z } from 'zod';
import { openFeed, type FeedReader } from '../../domain/connector/feed';
import { admitSpectatorStream, runSseStream } from '../sse';
import { renderWatchPage } from '../pages/connector/watch-view';
import { htmlPage, pageFor } from '../html-page';
import type { AppDeps } from '../deps';
import { publicPage } from '../page-routes';
import { defineRoute, uuidParam } from '../route';
import { errorEnvelopeSchema, pagedEnvelope } from '../schemas/common';
import { feedItemSchema, feedQuery, liveQuery } from '../schemas/connector';

/** Without a cursor, a new stream starts with (at most) this many of the latest events. */
export const SSE_INITIAL_BACKLOG = 500;
/** Fallback poll of a challenge's feed (per process, not per stream); releases normally arrive at once through pg_notify. */
const FEED_POLL_MS = 2_000;
/** Operators' undelayed stream has no notification (nothing is released): it polls. */
const LIVE_POLL_MS = 1_000;

const notFoundResponse = { 404: { description: 'unknown or draft challenge', schema: errorEnvelopeSchema } };

function parseLastEventId(header: string): number | undefined {
  return /^\d{1,15}$/.test(header.trim()) ? Number(header.trim()) : undefined;
}

/** Serves one Server-Sent Events connection of the delayed (or, for operators, live) feed until it closes. */
async function serveLiveStream(
  deps: AppDeps,
  ctx: Koa.Context,
  feed: FeedReader,
  query: z.infer<typeof liveQuery>,
): Promise<void> {
  const challengeId = feed.challenge.id;
  const resume = parseLastEventId(ctx.get('last-event-id')) ?? query.after_seq;
  const startAfter = resume ?? Math.max(0, (await feed.head()) - SSE_INITIAL_BACKLOG);
  await runSseStream({
    ctx,
    hub: deps.liveHub,
    logger: deps.logger,
    // One feed per process, challenge and view, shared by all of its streams.
    feed: {
      key: `${challengeId}:${feed.live ? 'arrivals' : 'released'}`,
      challengeId,
      notified: !feed.live,
      pollMs: feed.live ? LIVE_POLL_MS : FEED_POLL_MS,
      heartbeatMs: deps.config.SPECTATOR_SSE_HEARTBEAT_MS,
      currentCursor: () => feed.head(),
      fetch: async (after, limit) =>
        (await feed.read(after, limit)).map(({ cursor, item }) => ({
          cursor,
          agentId: item.agent_id,
          data: item,
        })),
    },
    agentId: query.agent_id,
    startAfter,
    stallTimeoutMs: deps.config.SPECTATOR_STALL_TIMEOUT_MS,
  });
}

/**
 * Spectator views: the delayed live feed as JSON and as Server-Sent Events, and the watch page.
 * Public. Nothing younger than SPECTATOR_DELAY_MS is ever returned, except to operators asking
 * for the undelayed view with `live=1`.
 */
export const spectatorRoutes = [
  defineRoute({
    operationId: 'listChallengeLiveEvents',
    method: 'get',
    path: '/api/v1/challenges/:id/events',
    summary:
      'Delayed live events of a challenge, oldest first. Cursor: after_seq = the feed position (feed_seq) of the last event you have; ' +
      'operators may pass live=1 for the undelayed view (cursor after_id)',
    tags: ['spectators'],
    auth: 'public',
    scope: 'challenge:read',
    rateLimit: 'reads',
    params: uuidParam,
    query: feedQuery,
    responses: { 200: { description: 'events', schema: pagedEnvelope(feedItemSchema) }, ...notFoundResponse },
    async handler({ params, query, principal, deps }) {
      const feed = await openFeed(deps, principal, params.id, query);
      const limit = query.limit;
      const after = (query.live ? query.after_id : query.after_seq) ?? 0;
      const rows = await feed.read(after, limit + 1, query.agent_id);
      const hasMore = rows.length > limit;
      const items = rows.slice(0, limit);
      const last = items.at(-1);
      const nextCursor = String(last ? last.cursor : after);
      return {
        data: items.map((entry) => entry.item),
        pagination: { limit, has_more: hasMore, next_cursor: nextCursor },
      };
    },
  }),
  defineRoute({
    operationId: 'streamChallengeLiveEvents',
    method: 'get',
    path: '/api/v1/challenges/:id/live',
    summary:
      'Server-Sent Events: the delayed live feed. Each message has `id: <feed_seq>` and a JSON event; reconnect with Last-Event-ID ' +
      '(or ?after_seq=) to resume; a heartbeat comment every 15 s. Operators: live=1 for the undelayed view (ids are arrival ids)',
    tags: ['spectators'],
    auth: 'public',
    scope: 'challenge:read',
    rateLimit: 'reads',
    params: uuidParam,
    query: liveQuery,
    responses: {
      200: { description: 'an event stream', contentType: 'text/event-stream', schema: z.string() },
      ...notFoundResponse,
    },
    async handler({ params, query, principal, deps, ctx }) {
      const feed = await openFeed(deps, principal, params.id, query);
      const releaseSlot = admitSpectatorStream(ctx.ip, deps.config.SPECTATOR_STREAMS_PER_IP);
      try {
        await serveLiveStream(deps, ctx, feed, query);
      } finally {
        releaseSlot();
      }
      return { streamed: true };
    },
  }),
  publicPage(
    'watchChallengePage',
    '/challenges/:id/watch',
    'Spectator page: the delayed live feed per agent and the leaderboard',
    {
      tags: ['spectators'],
      scope: 'challenge:read',
      params: uuidParam,
      async handler({ params, principal, deps }) {
        return pageFor(
          () => openFeed(deps, principal, params.id, {}),
          ({ challenge, delayMs }) =>
            htmlPage(
              renderWatchPage({
                challengeId: challenge.id,
                title: challenge.title,
                status: challenge.status,
                delayMs,
              }),
            ),
        );
      },
    },
  ),
];
