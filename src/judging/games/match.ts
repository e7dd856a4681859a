/**
 * A match: `games_per_match` games between the same programs, seats rotating from one game to
 * the next (two players alternate), each game with its own seed; the replay in DESIGN's shape and
 * each participant's outcome (the sum of its game rewards). Used by the arena (through
 * src/domain/games) and by the CLI's `play`.
 */
import { randomInt } from 'node:crypto';
import type { GameEngine, SeatStatus } from './engine';
import type { GameRecord } from './game-run';
import type { PlayerChannel, TurnResult } from './player';
import { MAX_SEED } from './rng';
import { type GameLimits, type SeatFaultDetail, refereeGame } from './referee';

/** DESIGN: `GET /api/v1/matches/{id}/replay`. */
export interface Replay {
  schema_version: 1;
  game: string;
  match_id: string | null;
  games: GameRecord[];
}

export interface MatchParticipantResult {
  /** The participant's label (its agent id on the server). */
  id: string;
  /** Sum of its game rewards (DESIGN: the match's outcome). */
  total: number;
  /** Its stderr in each game, in game order (bounded). */
  logs: string[];
  /** Its faults, per game (game index from 0). */
  faults: (SeatFaultDetail & { game: number })[];
}

export interface MatchResult {
  replay: Replay;
  participants: MatchParticipantResult[];
}

/** The seat order of game `index`: participant i sits in seat ((i + index) mod n) + 1. */
export function seatingOf(participants: number, index: number): number[] {
  return Array.from(
    { length: participants },
    (_, seat) => (seat - (index % participants) + participants) % participants,
  );
}

/** Server-chosen seeds, one per game. */
export function chooseSeeds(games: number): number[] {
  return Array.from({ length: games }, () => randomInt(0, MAX_SEED));
}

/** A player that could not be made (its program did not build): it loses its first turn as a crash. */
export function unavailablePlayer(reason: string): PlayerChannel {
  return {
    turn: async (): Promise<TurnResult> => ({ kind: 'crash', reason }),
    close: async () => {},
    stderr: () => '',
    kill: () => {},
  };
}

export interface MatchOptions {
  engine: GameEngine;
  matchId: string | null;
  /** Participant labels (agent ids), in entry order. */
  participants: readonly string[];
  seeds: readonly number[];
  limits: GameLimits;
  /** Fresh players for one game: `order[s]` is the participant index sitting in seat s + 1. */
  players(order: readonly number[], game: number): PlayerChannel[] | Promise<PlayerChannel[]>;
  /** Runs each game (the wall's slots: playGameInWall's; plain processes: refereeGame itself). */
  play?: typeof refereeGame;
  signal?: AbortSignal;
  onGame?: (game: number, record: GameRecord) => void;
}

export async function playMatch(options: MatchOptions): Promise<MatchResult> {
  const { engine, participants } = options;
  const results: MatchParticipantResult[] = participants.map((id) => ({
    id,
    total: 0,
    logs: [],
    faults: [],
  }));
  const games: GameRecord[] = [];
  for (let index = 0; index < options.seeds.length; index++) {
    options.signal?.throwIfAborted();
    const order = seatingOf(participants.length, index);
    const players = await options.players(order, index);
    const game = await (options.play ?? refereeGame)({
      engine,
      seed: options.seeds[index],
      seats: order.map((participant) => participants[participant]),
      players,
      limits: options.limits,
      signal: options.signal,
    });
    games.push(game.record);
    order.forEach((participant, seatIndex) => {
      results[participant].total += game.record.rewards[seatIndex];
      results[participant].logs.push(game.logs[seatIndex]);
    });
    for (const fault of game.faults) results[order[fault.seat - 1]].faults.push({ ...fault, game: index });
    options.onGame?.(index, game.record);
  }
  return {
    replay: { schema_version: 1, game: engine.id, match_id: options.matchId, games },
    participants: results,
  };
}

/** A seat's status words for people (`done` reads as finished). */
export const STATUS_WORDS: Readonly<Record<SeatStatus, string>> = {
  active: 'to move',
  inactive: 'waiting',
  done: 'finished',
  invalid: 'invalid action',
  timeout: 'timeout',
  error: 'crash',
};
