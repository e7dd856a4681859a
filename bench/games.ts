/**
 * Games, measured (part `games` of `npm run bench`; alone: `npx tsx bench/games.ts [--games 6]`).
 * No stack: the referee and the OS wall only (bwrap). Per built-in game, its baseline bot against
 * itself, the same two programs (two builds of the bot, one per seat) both ways, alternating game by
 * game with the same seeds:
 *  - in the wall: `playGameInWall`, each player one long-running sandbox for the whole game
 *    (bwrap, seccomp, its own uid and cgroup), frozen between its turns, its CPU read on the host
 *    (what the arena's matches and the self-play validation run); as in a match, the sandboxes of
 *    the next game are launched while one plays (`followed`), so a game takes them warm;
 *  - as plain processes (the anchor): `refereeGame` with `processPlayer`, the built program's run
 *    command on the host (what `cli play` does where no wall is available).
 * A turn is one referee turn (one line to the seat to move in a sequential game; to every seat
 * still in the game in a simultaneous one). Starting the players is inside each game's time, so
 * the added time per turn includes the sandboxes' start spread over the game's turns; the first
 * turn (the players' start) and the turns after it are reported apart too.
 *
 * Prints one JSON line `GAMES_RESULT {...}`.
 */
import { performance } from 'node:perf_hooks';
import { GAMES } from '../src/judging/games/catalog';
import type { GameEngine } from '../src/judging/games/engine';
import { processPlayer } from '../src/judging/games/process-player';
import { buildGameProgram, playGameInWall } from '../src/judging/games/programs';
import { type RefereedGame, refereeGame } from '../src/judging/games/referee';
import { BUILD_DIR } from '../src/judging/program/languages';
import {
  configureSandboxRuntime,
  defaultJudgeSlots,
  sandboxRuntime,
} from '../src/judging/sandbox/sandbox-runtime';
import { benchArg } from './lib/args';

const arg = benchArg;
const GAMES_EACH = Number(arg('games', '6'));
const MEMORY_MB = 256;

interface Side {
  ms: number;
  turns: number;
  firstTurnMs: number[];
}

async function benchGame(engine: GameEngine): Promise<Record<string, unknown>> {
  // Two builds of the bot, one per seat, as a match's two opponents are two programs (each its
  // own folder: in the wall, each its own sandboxes launched ahead).
  const builds = await Promise.all(
    [0, 1].map(() =>
      buildGameProgram({ content: '', files: [{ path: engine.boss.file, content: engine.boss.source }] }),
    ),
  );
  const failed = builds.find((build) => build.kind !== 'built');
  if (failed !== undefined && failed.kind === 'compile_error') {
    for (const build of builds) if (build.kind === 'built') await build.folder.remove();
    throw new Error(`${engine.id}'s baseline bot did not build: ${failed.reason}`);
  }
  const programs = builds as Extract<(typeof builds)[number], { kind: 'built' }>[];
  try {
    const limits = { turnMs: 1_000, bankMs: 10_000, maxTurns: engine.defaultMaxTurns };
    const plainCommands = programs.map((built) => {
      const command = built.language.runCommand({
        memoryMb: MEMORY_MB,
        entry: built.folder.entry ?? built.language.entryFile,
      });
      return {
        argv: command.argv.map((part) => part.split(BUILD_DIR).join(built.folder.dir)),
        cwd: built.folder.dir,
        env: { PATH: '/usr/bin:/bin', ...command.env },
      };
    });
    const seats = ['a', 'b'];
    const wall: Side = { ms: 0, turns: 0, firstTurnMs: [] };
    const plain: Side = { ms: 0, turns: 0, firstTurnMs: [] };
    const timed = async (side: Side, play: (onTurn: (turn: number) => void) => Promise<RefereedGame>) => {
      const started = performance.now();
      const game = await play((turn) => {
        if (turn === 1) side.firstTurnMs.push(performance.now() - started);
      });
      side.ms += performance.now() - started;
      side.turns += game.record.steps.length - 1;
      if (game.faults.length > 0) throw new Error(`${engine.id}: ${JSON.stringify(game.faults)}`);
    };
    // As a match's games: the sandboxes of each game but the last are launched ahead, while the
    // game before it plays (the plain processes have nothing to launch ahead).
    const inTheWall = (seed: number, followed: boolean) =>
      timed(wall, (onTurn) =>
        playGameInWall({
          engine,
          seed,
          seats,
          programs,
          limits,
          memoryMb: MEMORY_MB,
          onTurn,
          followed,
        }),
      );
    const asProcesses = (seed: number) =>
      timed(plain, (onTurn) =>
        refereeGame({
          engine,
          seed,
          seats,
          players: plainCommands.map((command) => processPlayer(command)),
          limits,
          onTurn,
        }),
      );
    // Warm-up (page cache, the sandbox pool), not counted.
    await playGameInWall({
      engine,
      seed: 1,
      seats,
      programs,
      limits,
      memoryMb: MEMORY_MB,
      followed: true,
    });
    for (let i = 0; i < GAMES_EACH; i++) {
      const seed = 1_000 + i;
      await inTheWall(seed, i < GAMES_EACH - 1);
      await asProcesses(seed);
    }
    const perTurn = (side: Side) => side.ms / side.turns;
    // After each game's first turn (the players' start): the per-turn cost itself (thaw, line,
    // answer, freeze, the cgroup's CPU read).
    const laterPerTurn = (side: Side) =>
      (side.ms - side.firstTurnMs.reduce((a, b) => a + b, 0)) / (side.turns - side.firstTurnMs.length);
    const median = (values: number[]) =>
      [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)];
    return {
      id: engine.id,
      simultaneous: engine.simultaneous,
      games: GAMES_EACH,
      wallTurns: wall.turns,
      plainTurns: plain.turns,
      wallTurnsPerSec: Number((wall.turns / (wall.ms / 1000)).toFixed(1)),
      plainTurnsPerSec: Number((plain.turns / (plain.ms / 1000)).toFixed(1)),
      wallMsPerTurn: Number(perTurn(wall).toFixed(2)),
      plainMsPerTurn: Number(perTurn(plain).toFixed(2)),
      addedMsPerTurn: Number((perTurn(wall) - perTurn(plain)).toFixed(2)),
      wallLaterMsPerTurn: Number(laterPerTurn(wall).toFixed(2)),
      plainLaterMsPerTurn: Number(laterPerTurn(plain).toFixed(2)),
      addedLaterMsPerTurn: Number((laterPerTurn(wall) - laterPerTurn(plain)).toFixed(2)),
      wallFirstTurnP50Ms: Number(median(wall.firstTurnMs).toFixed(1)),
      plainFirstTurnP50Ms: Number(median(plain.firstTurnMs).toFixed(1)),
    };
  } finally {
    for (const built of programs) await built.folder.remove();
  }
}

async function main(): Promise<void> {
  const slots = Math.max(2, defaultJudgeSlots());
  await configureSandboxRuntime({ mode: 'bwrap', slots });
  const runtime = await sandboxRuntime();
  const games: Record<string, unknown>[] = [];
  for (const engine of GAMES) games.push(await benchGame(engine));
  process.stdout.write(
    `GAMES_RESULT ${JSON.stringify({ slots: runtime.slots.size, gamesEach: GAMES_EACH, games })}\n`,
  );
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
