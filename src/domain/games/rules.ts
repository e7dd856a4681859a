/**
 * Games' pure decisions the match's life reads (unit-tested in test/unit/domain/games/rules.test.ts): the
 * whole-match wall cap (DESIGN: "a match never hangs"), and each participant's logs as stored.
 */
import { type GameJudgeConfig, gameJudgeConfigSchema, gameMaxTurns } from '../../judging/config';
import { seatingOf } from '../../judging/games/match';
import { REPLACED_NOTE, sanitizeText } from '../../lib/storable-text';

/** Room for building every participant's program before the first game. */
const BUILD_ALLOWANCE_MS = 120_000;
/** The first turn of each player adds 5 s of CPU for start-up (DESIGN). */
const START_UP_MS = 5_000;

/**
 * The longest a whole match may take on the wall clock: per game, twice every CPU allowance the
 * players may use (start-up, bank, turn_ms per turn each), plus 100 ms per turn and 1 s per player
 * of slack; then the builds. A match past it is stopped and voided.
 */
export function matchWallCapMs(
  config: Pick<GameJudgeConfig, 'turn_ms' | 'bank_ms' | 'games_per_match'>,
  players: number,
  maxTurns: number,
): number {
  const cpu = players * (START_UP_MS + config.bank_ms) + players * maxTurns * config.turn_ms;
  const perGame = 2 * cpu + maxTurns * 100 + players * 1_000 + 10_000;
  return config.games_per_match * perGame + BUILD_ALLOWANCE_MS;
}

/** The whole-match wall cap (ms) of a match under this stored `game` judge config. */
export function gameMatchCapMs(judge: unknown, players: number): number {
  const config = gameJudgeConfigSchema.parse(judge);
  return matchWallCapMs(config, players, gameMaxTurns(config));
}

/** A participant's stored stderr per game (its owner and operators read it). */
export interface ParticipantLogGame {
  game: number;
  seat: number;
  /** Storable: NUL and lone surrogates shown as U+FFFD, and the log says so. */
  stderr: string;
  fault: { kind: string; turn: number; reason: string } | null;
}

/**
 * The logs of participant `index` (entry order) from its results in a match's games (seats rotate
 * from game to game: match.ts's seatingOf).
 */
/** A player's stderr as its owner reads it: storable, saying when bytes were replaced. */
function logText(stderr: string): string {
  const { value, replaced } = sanitizeText(stderr);
  return replaced ? `${value}\n${REPLACED_NOTE}` : value;
}

export function participantLogs(
  result: {
    logs: string[];
    faults: { game: number; seat: number; turn: number; fault: string; reason: string }[];
  },
  index: number,
  players: number,
): ParticipantLogGame[] {
  return result.logs.map((stderr, game) => {
    const seat = seatingOf(players, game).indexOf(index) + 1;
    const fault = result.faults.find((f) => f.game === game);
    return {
      game: game + 1,
      seat,
      stderr: logText(stderr),
      fault: fault ? { kind: fault.fault, turn: fault.turn, reason: fault.reason } : null,
    };
  });
}
