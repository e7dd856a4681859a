/**
 * The game engine interface (DESIGN, "Games: programs play each other"): each game is a pure,
 * deterministic reducer over a JSON-ready state. No clock, no I/O, no Math.random: the only
 * randomness is the seeded generator handed to `init` (rng.ts). The referee (referee.ts) and the
 * CLI's local runner drive the very same reducer; replays re-simulate from seed and actions.
 *
 * Seats count from 1. A seat's status: `active` (to move this turn), `inactive` (in the game, not
 * to move: the other seat of a sequential game), `done` (the game ended for it normally), and the
 * faults the referee records: `invalid` (unparsable or illegal action), `timeout`, `error` (crash).
 */

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

export type SeatStatus = 'active' | 'inactive' | 'done' | 'invalid' | 'timeout' | 'error';
export type SeatFault = 'invalid' | 'timeout' | 'error';

/** What a seat sees: always `legal_actions` (the actions accepted this turn; empty when not to move). */
export interface Observation {
  [key: string]: JsonValue;
  legal_actions: JsonValue[];
}

export interface GameInfo {
  id: string;
  name: string;
  players: { min: number; max: number };
  simultaneous: boolean;
  /** One paragraph for listings (GET /api/v1/games). */
  description: string;
  /** The rules page (Markdown): protocol, observation, actions, end, rewards. */
  rules: string;
  /** Turns after which the game ends as it stands (the judge's `max_turns` may lower it). */
  defaultMaxTurns: number;
  /** JSON Schemas (draft 2020-12) of a seat's observation and of an action. */
  observationSchema: Record<string, JsonValue>;
  actionSchema: Record<string, JsonValue>;
}

/** A baseline ("boss") bot: a real program players can play against, locally and on the server. */
export interface BaselineBot {
  language: 'python';
  file: string;
  source: string;
}

export interface GameEngine<State extends JsonValue = JsonValue> extends GameInfo {
  /**
   * The initial state of a game of `seats` players (within `players`), from a seed; the game ends
   * as it stands after `maxTurns` turns.
   */
  init(seats: number, seed: number, maxTurns: number): State;
  /** The seats to move this turn, ascending (one seat in a sequential game); [] once over. */
  toMove(state: State): number[];
  /** What `seat` may see now (with its legal actions, empty when it is not to move). */
  observe(state: State, seat: number): Observation;
  /** Whether `action` is one of `seat`'s legal actions now (deep JSON equality). */
  isLegal(state: State, seat: number, action: JsonValue): boolean;
  /**
   * The next state: every seat of `toMove` has a legal action in `actions` (the referee ends a
   * game with a fault before calling this). Pure: returns a new state, never changes `state`.
   */
  step(state: State, actions: ReadonlyMap<number, JsonValue>): State;
  /** Undefined while the game goes on; rewards per seat (index 0 is seat 1) once it is over. */
  outcome(state: State): number[] | undefined;
  /** Per seat (index 0 is seat 1): whether it is still in the game (a light cycle that crashed is not). */
  inGame(state: State): boolean[];
  boss: BaselineBot;
}

/** Deep equality of JSON values (actions are compared this way). */
export function sameJson(a: JsonValue, b: JsonValue): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((value, index) => sameJson(value, b[index]));
  }
  const ao = a as Record<string, JsonValue>;
  const bo = b as Record<string, JsonValue>;
  const keys = Object.keys(ao);
  return (
    keys.length === Object.keys(bo).length &&
    keys.every((key) => Object.prototype.hasOwnProperty.call(bo, key) && sameJson(ao[key], bo[key]))
  );
}

/** Rewards of a game a fault ended: every offender -1, everyone else +1 (DESIGN: the offender loses, the others win). */
export function faultRewards(seats: number, offenders: ReadonlySet<number>): number[] {
  return Array.from({ length: seats }, (_, index) => (offenders.has(index + 1) ? -1 : 1));
}
