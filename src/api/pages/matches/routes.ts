/**
 * The arena's pages and the match's spectator stream (issue 30): /matches/:id, /agents/:id,
 * /weight-classes/:id/ladder, GET /api/v1/matches/:id/live. Pages are hidden from OpenAPI.
 */
import { z } from 'zod';
import { findAgentById } from '../../../db/queries/agents';
import { challengeTitlesOf } from '../../../db/queries/challenges';
import { listRatingsPage } from '../../../domain/matches/ratings';
import { listMatchesPage } from '../../../domain/matches/reads';
import { heldRatedOutcomes, pageHold } from '../../../domain/matches/shown';
import { openMatchFeed } from '../../../domain/matches/spectating';
import { offersVoid, shownOne } from '../../../domain/matches/policy';
import { pageMatchLogs } from '../../../domain/games/page';
import { headerAccount } from '../../../web/layout';
import { notFound } from '../../../errors';
import { htmlPage, pageFor } from '../../html-page';
import { publicPage } from '../../page-routes';
import { defineRoute, uuidParam } from '../../route';
import { errorEnvelopeSchema, safeText } from '../../schemas/common';
import { liveQuery } from '../../schemas/connector';
import { admitSpectatorStream, runSseStream } from '../../sse';
import { renderAgentPage, renderLadderPage, renderMatchPage, renderStderrPanelPart } from './view';

const SSE_INITIAL_BACKLOG = 500;
const FEED_POLL_MS = 2_000;
// The same rule as the ratings API's weight_class_id (no NUL or control characters: PostgreSQL refuses NUL in text).
const weightClassParam = z.object({ id: safeText(100, 1) });

export const matchPageRoutes = [
  defineRoute({
    operationId: 'streamMatchLiveEvents',
    method: 'get',
    path: '/api/v1/matches/:id/live',
    summary:
      "Server-Sent Events: the match's participants' live events, delayed like the challenge's feed (same ids, Last-Event-ID resumes); code and commands stay out while the bout runs",
    tags: ['matches'],
    auth: 'public',
    scope: 'challenge:read',
    rateLimit: 'reads',
    params: uuidParam,
    query: liveQuery.pick({ after_seq: true }),
    responses: {
      200: { description: 'an event stream', contentType: 'text/event-stream', schema: z.string() },
      404: { description: 'unknown match', schema: errorEnvelopeSchema },
    },
    async handler({ params, query, principal, deps, ctx }) {
      const { feed, agentIds } = await openMatchFeed(deps, principal, params.id);
      const releaseSlot = admitSpectatorStream(ctx.ip, deps.config.SPECTATOR_STREAMS_PER_IP);
      try {
        const header = ctx.get('last-event-id').trim();
        const resume = /^\d{1,15}$/.test(header) ? Number(header) : query.after_seq;
        const challengeId = feed.challenge.id;
        await runSseStream({
          ctx,
          hub: deps.liveHub,
          logger: deps.logger,
          // The challenge's released feed, shared with its watch page's streams; this stream keeps the participants'.
          feed: {
            key: `${challengeId}:released`,
            challengeId,
            notified: true,
            pollMs: FEED_POLL_MS,
            heartbeatMs: deps.config.SPECTATOR_SSE_HEARTBEAT_MS,
            currentCursor: () => feed.head(),
            fetch: async (after, limit) =>
              (await feed.read(after, limit)).map(({ cursor, item }) => ({
                cursor,
                agentId: item.agent_id,
                data: item,
              })),
          },
          agentIds,
          startAfter: resume ?? Math.max(0, (await feed.head()) - SSE_INITIAL_BACKLOG),
          stallTimeoutMs: deps.config.SPECTATOR_STALL_TIMEOUT_MS,
        });
      } finally {
        releaseSlot();
      }
      return { streamed: true };
    },
  }),
  publicPage(
    'matchPage',
    '/matches/:id',
    'Web page: a match, participants side by side, delayed events, the result after the delayed end',
    {
      scope: 'challenge:read',
      params: uuidParam,
      // `part=stderr`: the owner's stderr panel alone, which the page fetches when the hold ends.
      query: z.object({ part: z.enum(['stderr']).optional().catch(undefined) }),
      async handler({ params, query, principal, deps, webSession, ctx }) {
        return pageFor(
          () => openMatchFeed(deps, principal, params.id),
          async ({ match, feed }) => {
            const now = new Date();
            const hold = pageHold(principal, deps.config, now);
            // The owner's stderr beside the replay: only once the page may show the result.
            const logs =
              match.kind === 'game'
                ? await pageMatchLogs(deps.db, match.id, webSession, shownOne(match, hold).revealed)
                : { readsAny: false, logs: [] };
            if (query.part === 'stderr')
              return htmlPage(
                renderStderrPanelPart({ match, hold, logs: logs.logs, readsLogs: logs.readsAny }),
              );
            // No spoilers: nothing of the result reaches the HTML before the hold ends (operators: at once).
            return htmlPage(
              renderMatchPage({
                match,
                hold,
                challengeTitle: feed.challenge.title,
                delayMs: feed.delayMs,
                now,
                account: headerAccount(webSession, ctx.url),
                logs: logs.logs,
                readsLogs: logs.readsAny,
                operatorActions: offersVoid(webSession, match),
              }),
            );
          },
        );
      },
    },
  ),
  publicPage('agentArenaPage', '/agents/:id', "Web page: an agent's matches and rating history", {
    scope: 'challenge:read',
    params: uuidParam,
    async handler({ params, principal, deps, webSession, ctx }) {
      return pageFor(
        async () => {
          const agent = await findAgentById(deps.db, params.id);
          if (!agent) throw notFound('agent');
          const page = await listMatchesPage(deps.db, principal, { agentId: agent.id, limit: 50 });
          const titles = await challengeTitlesOf(deps.db, [...new Set(page.data.map((m) => m.challenge_id))]);
          return { agent, matches: page.data, titles };
        },
        ({ agent, matches, titles }) =>
          htmlPage(
            renderAgentPage({
              agentId: agent.id,
              agentName: agent.name,
              matches,
              hold: pageHold(principal, deps.config),
              challengeTitles: titles,
              account: headerAccount(webSession, ctx.url),
            }),
          ),
      );
    },
  }),
  publicPage(
    'weightClassLadderPage',
    '/weight-classes/:id/ladder',
    "Web page: a weight class's ratings by ordinal",
    {
      scope: 'leaderboard:read',
      params: weightClassParam,
      async handler({ params, principal, deps, webSession, ctx }) {
        // Ratings as they stood before the matches the page still holds.
        const held = await heldRatedOutcomes(deps.db, params.id, pageHold(principal, deps.config));
        const page = await listRatingsPage(deps.db, { weight_class_id: params.id, limit: 100 }, held);
        return htmlPage(
          renderLadderPage({
            weightClassId: params.id,
            rows: page.rows,
            account: headerAccount(webSession, ctx.url),
          }),
        );
      },
    },
  ),
];
