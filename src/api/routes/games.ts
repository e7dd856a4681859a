import { z } from 'zod';
import { getGame, listGames } from '../../domain/games/catalog';
import { defineRoute } from '../route';
import { envelope } from '../schemas/common';

const gameSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    players: z.object({ min: z.number().int(), max: z.number().int() }),
    simultaneous: z.boolean(),
    description: z.string(),
  })
  .openapi('Game');

const gameDetailSchema = gameSchema
  .extend({
    rules: z.string().openapi({ description: 'the rules page (Markdown)' }),
    max_turns: z.number().int(),
    observation_schema: z.record(z.unknown()),
    action_schema: z.record(z.unknown()),
    boss: z.object({ language: z.string(), file: z.string(), source: z.string() }),
  })
  .openapi('GameDetail');

export const gameRoutes = [
  defineRoute({
    operationId: 'listGames',
    method: 'get',
    path: '/api/v1/games',
    summary:
      'The games a `game` challenge can be played in: programs play each other one turn at a time (DESIGN, "Games")',
    tags: ['challenges'],
    auth: 'public',
    rateLimit: 'reads',
    responses: { 200: { description: 'the built-in games', schema: envelope(z.array(gameSchema)) } },
    async handler() {
      return { data: listGames() };
    },
  }),
  defineRoute({
    operationId: 'getGame',
    method: 'get',
    path: '/api/v1/games/:gameId',
    summary:
      "One game: its rules page, the JSON schemas of an observation and an action, and its baseline bot's source",
    tags: ['challenges'],
    auth: 'public',
    rateLimit: 'reads',
    params: z.object({ gameId: z.string().max(100) }),
    responses: {
      200: { description: 'the game', schema: envelope(gameDetailSchema) },
      404: { description: 'no such game' },
    },
    async handler({ params }) {
      return { data: getGame(params.gameId) };
    },
  }),
];
