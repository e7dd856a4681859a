/**
 * The built-in games (GET /api/v1/games, the `game` judge's `game` field, the CLI's `play`).
 */
import { connectFour } from './connect-four';
import type { GameEngine, JsonValue } from './engine';
import { lightCycles } from './light-cycles';

export const GAMES: readonly GameEngine[] = [
  connectFour as unknown as GameEngine,
  lightCycles as unknown as GameEngine,
];

export const GAME_IDS = GAMES.map((game) => game.id) as [string, ...string[]];

export function findGame(id: string): GameEngine<JsonValue> | undefined {
  return GAMES.find((game) => game.id === id);
}

/** A game as listed publicly (DESIGN: `{id, name, players: {min, max}, simultaneous, description}`). */
export interface GameListing {
  id: string;
  name: string;
  players: { min: number; max: number };
  simultaneous: boolean;
  description: string;
}

export function gameListing(game: GameEngine): GameListing {
  return {
    id: game.id,
    name: game.name,
    players: { ...game.players },
    simultaneous: game.simultaneous,
    description: game.description,
  };
}
