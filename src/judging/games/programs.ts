/**
 * Game players from submitted programs: detect the language, build it in the wall (the program
 * judge's build, src/judging/program/build.ts), and play a game with every player in a sandbox
 * of its own, each holding one of this worker's judging slots for the whole game.
 */
import { buildProgram, newBuildFolder, type BuildFolder } from '../program/build';
import { detectProgram } from '../program/detect';
import { LANGUAGES, LANGUAGE_IDS, type LanguageId, type LanguageSpec } from '../program/languages';
import { SandboxUnavailableError } from '../errors';
import { sandboxRuntime } from '../sandbox/sandbox-runtime';
import type { SubmissionForJudging } from '../types';
import type { GameEngine } from './engine';
import { type MatchResult, playMatch, unavailablePlayer } from './match';
import type { PlayerChannel } from './player';
import { type GameLimits, type RefereedGame, refereeGame } from './referee';
import { wallPlayer } from './wall-player';

export type BuiltProgram =
  | {
      kind: 'built';
      language: LanguageSpec;
      /** The entry as submitted (`content` for a program in the body). */
      entry: string;
      folder: BuildFolder;
      compileOutput: string;
    }
  | {
      kind: 'compile_error';
      language: LanguageId | null;
      reason: string;
      compileOutput: string;
      /** The compiler's own verdict within its limits (not a toolchain crash, nor a refused language). */
      byCompiler?: true;
    };

/** Detects and builds one program; anything the submission does is a `compile_error` with its reason. */
export async function buildGameProgram(
  submission: SubmissionForJudging,
  allowed: readonly LanguageId[] = LANGUAGE_IDS,
  signal?: AbortSignal,
): Promise<BuiltProgram> {
  const detection = detectProgram(submission);
  if (detection.kind === 'undetectable') {
    return { kind: 'compile_error', language: null, reason: detection.reason, compileOutput: '' };
  }
  if (!allowed.includes(detection.language)) {
    return {
      kind: 'compile_error',
      language: detection.language,
      reason: `${detection.language} is not allowed here (allowed: ${allowed.join(', ')})`,
      compileOutput: '',
    };
  }
  const language = LANGUAGES[detection.language];
  if (language.runtimeBinary() === undefined) {
    throw new SandboxUnavailableError(`this worker has no ${language.name} runtime`);
  }
  const folder = await newBuildFolder();
  try {
    const built = await buildProgram(language, detection.program, folder, signal);
    if (built.kind === 'compile_error') {
      await folder.remove();
      return {
        kind: 'compile_error',
        language: language.id,
        reason: built.reason ?? 'compilation failed',
        compileOutput: built.compileOutput,
        ...(built.reason === undefined ? { byCompiler: true as const } : {}),
      };
    }
    return { kind: 'built', language, entry: detection.entry, folder, compileOutput: built.compileOutput };
  } catch (error) {
    await folder.remove();
    throw error;
  }
}

/** The players a game can seat at once on this worker: one judging slot (a sandbox of its own) each. */
export async function wallSeats(): Promise<number> {
  return (await sandboxRuntime()).slots.size;
}

/** One game at a time takes its slots, so two games never each hold a part of what they need. */
let slotTaking: Promise<void> = Promise.resolve();

async function takeSlots(count: number, signal?: AbortSignal) {
  const runtime = await sandboxRuntime();
  if (count > runtime.slots.size) {
    throw new SandboxUnavailableError(
      `a game of ${count} players needs ${count} judging slots; this worker has ${runtime.slots.size}`,
    );
  }
  const previous = slotTaking;
  let done: () => void = () => {};
  slotTaking = new Promise((resolve) => (done = resolve));
  await previous;
  const taken: { index: number; release: () => void }[] = [];
  try {
    for (let i = 0; i < count; i++) taken.push(await runtime.slots.acquire(signal));
    return taken;
  } catch (error) {
    taken.forEach((slot) => slot.release());
    throw error;
  } finally {
    done();
  }
}

export interface WallGameOptions {
  engine: GameEngine;
  seed: number;
  seats: readonly string[];
  /** One built program per seat (the same one may sit in several seats). */
  programs: readonly Extract<BuiltProgram, { kind: 'built' }>[];
  limits: GameLimits;
  memoryMb: number;
  signal?: AbortSignal;
  onTurn?: (turn: number) => void;
  /** Another game of the same programs follows: their sandboxes for it are launched ahead (wallPlayer). */
  followed?: boolean;
}

/** Plays one game with every player in the wall; rejects only when the wall itself failed. */
export async function playGameInWall(options: WallGameOptions): Promise<RefereedGame> {
  const slots = await takeSlots(options.programs.length, options.signal);
  try {
    const players = options.programs.map((program, index) =>
      wallPlayer({
        language: program.language,
        folder: program.folder.dir,
        entry: program.folder.entry ?? program.language.entryFile,
        memoryMb: options.memoryMb,
        limits: options.limits,
        slot: slots[index].index,
        ...(options.followed === undefined ? {} : { followed: options.followed }),
      }),
    );
    try {
      return await refereeGame({
        engine: options.engine,
        seed: options.seed,
        seats: options.seats,
        players,
        limits: options.limits,
        signal: options.signal,
        onTurn: options.onTurn,
      });
    } finally {
      await Promise.all(players.map((player) => player.close(undefined)));
    }
  } finally {
    slots.forEach((slot) => slot.release());
  }
}

export interface WallMatchOptions {
  engine: GameEngine;
  matchId: string | null;
  /** Each participant (an agent id) with its program; one that did not build loses each game at its first turn (`error`). */
  participants: readonly { id: string; program: BuiltProgram }[];
  seeds: readonly number[];
  limits: GameLimits;
  memoryMb: number;
  signal?: AbortSignal;
}

/** A whole match in the wall: each game's players take one slot each for that game. */
export async function playMatchInWall(options: WallMatchOptions): Promise<MatchResult> {
  let held: { index: number; release: () => void }[] = [];
  return playMatch({
    engine: options.engine,
    matchId: options.matchId,
    participants: options.participants.map((participant) => participant.id),
    seeds: options.seeds,
    limits: options.limits,
    signal: options.signal,
    async players(order, game): Promise<PlayerChannel[]> {
      held = await takeSlots(order.length, options.signal);
      // The match's next game runs the same programs: their sandboxes are launched while this one plays.
      const followed = game < options.seeds.length - 1;
      return order.map((participant, seat) => {
        const program = options.participants[participant].program;
        if (program.kind !== 'built')
          return unavailablePlayer(`the program did not build: ${program.reason}`);
        return wallPlayer({
          language: program.language,
          folder: program.folder.dir,
          entry: program.folder.entry ?? program.language.entryFile,
          memoryMb: options.memoryMb,
          limits: options.limits,
          slot: held[seat].index,
          followed,
        });
      });
    },
    async play(game) {
      try {
        return await refereeGame(game);
      } finally {
        await Promise.all(game.players.map((player) => player.close(undefined)));
        held.forEach((slot) => slot.release());
        held = [];
      }
    },
  });
}
