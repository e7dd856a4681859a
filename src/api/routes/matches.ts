import { z } from 'zod';
import { actorOf } from '../../domain/audit/policy';
import { createExhibition } from '../../domain/matches/exhibition';
import { lastMatchmakingRound } from '../../domain/matches/matchmaking';
import { listRatingsPage } from '../../domain/matches/ratings';
import { getMatch, listMatchesPage } from '../../domain/matches/reads';
import { getMatchLogs, getMatchReplay } from '../../domain/games/replays';
import { voidMatch } from '../../domain/matches/void';
import { defineRoute, uuidParam } from '../route';
import { envelope, pagedEnvelope } from '../schemas/common';
import {
  agentMatchesQuery,
  createMatchBody,
  listMatchesQuery,
  matchSchema,
  ratingRowSchema,
  ratingsQuery,
  voidMatchBody,
} from '../schemas/matches';

const replayEntrySchema = z.object({
  action: z.unknown(),
  observation: z.record(z.unknown()),
  reward: z.number(),
  status: z.enum(['active', 'inactive', 'done', 'invalid', 'timeout', 'error']),
});

const replaySchema = z
  .object({
    schema_version: z.literal(1),
    game: z.string(),
    match_id: z.string().uuid().nullable(),
    games: z.array(
      z.object({
        seed: z.number().int(),
        seats: z.array(z.string()).openapi({ description: 'agent ids; seats[0] is seat 1' }),
        steps: z
          .array(z.array(replayEntrySchema))
          .openapi({ description: 'steps[0] before turn 1, steps[t] after turn t; one entry per seat' }),
        rewards: z.array(z.number()),
        statuses: z.array(z.string()),
      }),
    ),
  })
  .openapi('GameReplay');

const matchLogsSchema = z
  .object({
    match_id: z.string().uuid(),
    agent_id: z.string().uuid(),
    games: z.array(
      z.object({
        game: z.number().int(),
        seat: z.number().int(),
        stderr: z.string(),
        fault: z.object({ kind: z.string(), turn: z.number().int(), reason: z.string() }).nullable(),
      }),
    ),
  })
  .openapi('MatchLogs');

const matchmakingSchema = z.object({
  challenge_id: z.string().uuid(),
  round: z.number().int().nullable(),
  ran_at: z.string().nullable(),
  eligible: z.array(z.unknown()),
  groups: z.array(z.unknown()),
  waiting: z.array(z.unknown()),
  match_ids: z.array(z.string().uuid()),
});

/** The arena (DESIGN "Matches between agents"): matches, ratings, exhibitions, voids, the matchmaker's last round. */
export const matchRoutes = [
  defineRoute({
    operationId: 'getMatch',
    method: 'get',
    path: '/api/v1/matches/:id',
    summary:
      'A match: participants side by side (seat, rating before/after); scores, ranks and outcomes once it is complete',
    tags: ['matches'],
    auth: 'public',
    scope: 'challenge:read',
    rateLimit: 'reads',
    params: uuidParam,
    responses: { 200: { description: 'the match', schema: envelope(matchSchema) } },
    async handler({ params, principal, deps }) {
      return { data: await getMatch(deps.db, principal, params.id) };
    },
  }),
  defineRoute({
    operationId: 'getMatchReplay',
    method: 'get',
    path: '/api/v1/matches/:id/replay',
    summary:
      "A game match's replay (Kaggle-like: per game its seed, seats and one step per turn with each seat's action, observation, reward and status); 404 until the match is complete",
    tags: ['matches'],
    auth: 'public',
    scope: 'challenge:read',
    rateLimit: 'reads',
    params: uuidParam,
    responses: {
      200: { description: 'the replay', schema: envelope(replaySchema) },
      404: { description: 'no such match, not a game, or not complete yet' },
    },
    async handler({ params, principal, deps }) {
      return { data: await getMatchReplay(deps.db, principal, params.id) };
    },
  }),
  defineRoute({
    operationId: 'getMatchLogs',
    method: 'get',
    path: '/api/v1/matches/:id/logs/:agentId',
    summary:
      "A game match participant's stderr in each game (with its fault, if any): the agent's owner and operators only, 404 for everyone else",
    tags: ['matches'],
    auth: 'bearer',
    scope: 'result:read',
    rateLimit: 'reads',
    params: z.object({ id: z.string().uuid(), agentId: z.string().uuid() }),
    responses: {
      200: { description: 'the logs', schema: envelope(matchLogsSchema) },
      404: { description: 'no such match or participant, not complete, or not yours' },
    },
    async handler({ params, principal, deps }) {
      return { data: await getMatchLogs(deps.db, principal, params.id, params.agentId) };
    },
  }),
  defineRoute({
    operationId: 'listChallengeMatches',
    method: 'get',
    path: '/api/v1/challenges/:id/matches',
    summary: "A challenge's matches, newest first (filters: status, agent_id); keyset pages",
    tags: ['matches'],
    auth: 'public',
    scope: 'challenge:read',
    rateLimit: 'reads',
    params: uuidParam,
    query: listMatchesQuery,
    responses: { 200: { description: 'a page of matches', schema: pagedEnvelope(matchSchema) } },
    async handler({ params, query, principal, deps }) {
      const page = await listMatchesPage(deps.db, principal, {
        challengeId: params.id,
        agentId: query.agent_id,
        status: query.status,
        limit: query.limit,
        cursor: query.cursor,
      });
      return { data: page.data, pagination: page.pagination };
    },
  }),
  defineRoute({
    operationId: 'listAgentMatches',
    method: 'get',
    path: '/api/v1/agents/:id/matches',
    summary: "An agent's matches in every challenge, newest first (filter: status); keyset pages",
    tags: ['matches'],
    auth: 'public',
    scope: 'challenge:read',
    rateLimit: 'reads',
    params: uuidParam,
    query: agentMatchesQuery,
    responses: { 200: { description: 'a page of matches', schema: pagedEnvelope(matchSchema) } },
    async handler({ params, query, principal, deps }) {
      const page = await listMatchesPage(deps.db, principal, {
        agentId: params.id,
        status: query.status,
        limit: query.limit,
        cursor: query.cursor,
      });
      return { data: page.data, pagination: page.pagination };
    },
  }),
  defineRoute({
    operationId: 'listRatings',
    method: 'get',
    path: '/api/v1/ratings',
    summary:
      "A weight class's ratings (OpenSkill, Weng-Lin Plackett-Luce; ordinal = mu - 3 sigma), highest ordinal first; provisional until 5 rated matches. weight_class_id is required.",
    tags: ['matches'],
    auth: 'public',
    scope: 'leaderboard:read',
    rateLimit: 'reads',
    query: ratingsQuery,
    responses: { 200: { description: 'a page of ratings', schema: pagedEnvelope(ratingRowSchema) } },
    async handler({ query, deps }) {
      const page = await listRatingsPage(deps.db, query);
      return { data: page.rows, pagination: page.pagination };
    },
  }),
  defineRoute({
    operationId: 'adminCreateMatch',
    method: 'post',
    path: '/api/v1/admin/challenges/:id/matches',
    summary:
      'Start an exhibition match now (unrated unless rated: true); every agent must be entered and not in a running match',
    tags: ['admin'],
    auth: 'admin',
    rateLimit: 'default',
    params: uuidParam,
    body: createMatchBody,
    responses: { 201: { description: 'the scheduled match', schema: envelope(matchSchema) } },
    async handler({ params, body, principal, deps }) {
      const match = await createExhibition(deps, actorOf(principal), params.id, body);
      return { status: 201, data: await getMatch(deps.db, principal, match.id) };
    },
  }),
  defineRoute({
    operationId: 'adminVoidMatch',
    method: 'post',
    path: '/api/v1/admin/matches/:id/void',
    summary:
      'Void a scheduled or running match (unrated; its sessions close); 409 once it is complete or void',
    tags: ['admin'],
    auth: 'admin',
    rateLimit: 'default',
    params: uuidParam,
    body: voidMatchBody,
    responses: { 200: { description: 'the void match', schema: envelope(matchSchema) } },
    async handler({ params, body, principal, deps }) {
      await voidMatch(deps, actorOf(principal), params.id, body.reason);
      return { data: await getMatch(deps.db, principal, params.id) };
    },
  }),
  defineRoute({
    operationId: 'adminGetMatchmaking',
    method: 'get',
    path: '/api/v1/admin/challenges/:id/matchmaking',
    summary:
      "The matchmaker's last round of a match challenge: who was eligible, the groups it made, who waited and why",
    tags: ['admin'],
    auth: 'admin',
    rateLimit: 'reads',
    params: uuidParam,
    responses: { 200: { description: 'the last round', schema: envelope(matchmakingSchema) } },
    async handler({ params, deps }) {
      return { data: await lastMatchmakingRound(deps, params.id) };
    },
  }),
];
