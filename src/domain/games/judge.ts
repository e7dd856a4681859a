/**
 * The game judge: plays a match between the given programs, in the worker's wall, under the
 * challenge's `game` judge (`games_per_match` games, seats alternating, server-chosen seeds), and
 * answers its result: the replay in DESIGN's shape (`GET /api/v1/matches/{id}/replay`), each
 * participant's total reward, stderr logs and faults. It knows nothing of the match's life:
 * src/domain/matches/game.ts calls it as one step and queues, bounds, stores, places and voids.
 */
import { type GameJudgeConfig, gameJudgeConfigSchema, gameMaxTurns } from '../../judging/config';
import { findGame } from '../../judging/games/catalog';
import { type MatchResult, chooseSeeds } from '../../judging/games/match';
import { type BuiltProgram, buildGameProgram, playMatchInWall } from '../../judging/games/programs';
import { LANGUAGE_IDS } from '../../judging/program/languages';
import type { SubmissionForJudging } from '../../judging/types';

export type { MatchResult, Replay } from '../../judging/games/match';

export interface GameMatchInput {
  /** The challenge's judge config (stored JSON; must be a `game` judge). */
  judge: unknown;
  matchId: string;
  /** Participants in entry order, each with its latest validated program. */
  participants: readonly { agentId: string; program: SubmissionForJudging }[];
  /** Seeds per game; default: chosen now (games_per_match of them). */
  seeds?: readonly number[];
  signal?: AbortSignal;
}

export function parseGameJudge(judge: unknown): GameJudgeConfig {
  const parsed = gameJudgeConfigSchema.safeParse(judge);
  if (!parsed.success) throw new Error(`not a game judge: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  return parsed.data;
}

/** Plays the match; rejects with the judging's SandboxUnavailableError (retryable) when the wall failed. */
export async function playGameMatch(input: GameMatchInput): Promise<MatchResult> {
  const config = parseGameJudge(input.judge);
  const engine = findGame(config.game);
  if (engine === undefined) throw new Error(`unknown game ${config.game}`);
  if (input.participants.length < engine.players.min || input.participants.length > engine.players.max) {
    throw new Error(`${engine.name} is played by ${engine.players.min} to ${engine.players.max} players`);
  }
  const programs: BuiltProgram[] = [];
  try {
    for (const participant of input.participants) {
      programs.push(
        await buildGameProgram(participant.program, config.languages ?? LANGUAGE_IDS, input.signal),
      );
    }
    return await playMatchInWall({
      engine,
      matchId: input.matchId,
      participants: input.participants.map((participant, index) => ({
        id: participant.agentId,
        program: programs[index],
      })),
      seeds: input.seeds ?? chooseSeeds(config.games_per_match),
      limits: { turnMs: config.turn_ms, bankMs: config.bank_ms, maxTurns: gameMaxTurns(config) },
      memoryMb: config.memory_mb,
      signal: input.signal,
    });
  } finally {
    await Promise.all(
      programs.map((program) => (program.kind === 'built' ? program.folder.remove() : undefined)),
    );
  }
}
