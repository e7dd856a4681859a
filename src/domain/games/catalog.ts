/**
 * The games the service offers (GET /api/v1/games): the built-in reducers of src/judging/games,
 * as the public sees them.
 */
import { notFound } from '../../errors';
import { GAMES, type GameListing, findGame, gameListing } from '../../judging/games/catalog';
import type { JsonValue } from '../../judging/games/engine';

export type { GameListing };

export function listGames(): GameListing[] {
  return GAMES.map(gameListing);
}

export interface GameDetail extends GameListing {
  rules: string;
  max_turns: number;
  observation_schema: Record<string, JsonValue>;
  action_schema: Record<string, JsonValue>;
  boss: { language: string; file: string; source: string };
}

/** One game with its rules page, schemas and baseline bot; unknown id → NOT_FOUND. */
export function getGame(id: string): GameDetail {
  const game = findGame(id);
  if (game === undefined) throw notFound('game');
  return {
    ...gameListing(game),
    rules: game.rules,
    max_turns: game.defaultMaxTurns,
    observation_schema: game.observationSchema,
    action_schema: game.actionSchema,
    boss: { ...game.boss },
  };
}
