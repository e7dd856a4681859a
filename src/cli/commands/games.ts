/**
 * `play --game <id> <file> <file> …`: the server's games on this machine. The very same reducer
 * and referee (src/judging/games) and the same limits as a `game` challenge's defaults; each
 * player runs in the wall when this machine has one (bwrap with cgroups, as the worker), else as
 * a plain process, and the command says which. `boss` as a file plays the game's baseline bot;
 * a folder is a program of many files (every file compiled, as on the server).
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { rm } from 'node:fs/promises';
import { GAME_JUDGE_LIMITS } from '../../judging/config';
import { GAMES, findGame } from '../../judging/games/catalog';
import {
  type MatchResult,
  STATUS_WORDS,
  chooseSeeds,
  playMatch,
  unavailablePlayer,
} from '../../judging/games/match';
import { type LocalProgram, prepareLocalProgram } from '../../judging/games/local-programs';
import { processPlayer } from '../../judging/games/process-player';
import { type BuiltProgram, buildGameProgram, playMatchInWall } from '../../judging/games/programs';
import { LANGUAGES, languageByExtension } from '../../judging/program/languages';
import {
  configureSandboxRuntime,
  defaultJudgeSlots,
  sandboxRuntime,
} from '../../judging/sandbox/sandbox-runtime';
import { readFile, stat } from 'node:fs/promises';
import type { SubmissionForJudging } from '../../judging/types';
import { CliError, usageError, type CliCommand } from '../framework';
import { collectProjectFiles } from '../project-files';

const USAGE = `play --game <id> <file|folder|boss> <file|folder|boss> [more players] [--games N] [--seed N]
     [--turn-ms N] [--bank-ms N] [--memory-mb N] [--max-turns N] [--replay out.json] [--logs] [--no-wall]
  A folder is a program of many files, as \`submit --dir\` sends it: every file is compiled, the
  entry is main.<ext> or Main.java (the shallowest).`;

function intFlag(value: unknown, name: string, min: number, max: number, fallback: number): number {
  if (value === undefined) return fallback;
  const number = Number(value);
  if (!Number.isInteger(number) || number < min || number > max) {
    throw usageError(`--${name} must be an integer from ${min} to ${max}`);
  }
  return number;
}

/**
 * Why this machine cannot run players in the wall (undefined: it can). A local game owns the
 * machine's slots, and the wall holds one per seat: a 3-player game on 2 cores still gets 3.
 */
async function wallUnavailable(players: number): Promise<string | undefined> {
  try {
    await configureSandboxRuntime({ mode: 'bwrap', slots: Math.max(defaultJudgeSlots(), players) });
    const runtime = await sandboxRuntime();
    if (runtime.launcher.report.cgroup === 'none') {
      return `the sandbox has no cgroup here (${runtime.launcher.report.cgroupNote ?? 'not delegated'})`;
    }
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

export const commands: CliCommand[] = [
  {
    name: 'games',
    summary: 'List the built-in games (the ids `play --game` takes)',
    usage: 'games',
    options: {},
    async run(_args, ctx) {
      for (const game of GAMES) {
        ctx.out(
          `${game.id.padEnd(14)} ${game.players.min}-${game.players.max} players, ${game.simultaneous ? 'simultaneous' : 'sequential'}: ${game.description}`,
        );
      }
    },
  },
  {
    name: 'play',
    summary: 'Play a built-in game between local programs with the server’s referee and limits',
    usage: USAGE,
    options: {
      game: { type: 'string' },
      games: { type: 'string' },
      seed: { type: 'string' },
      'turn-ms': { type: 'string' },
      'bank-ms': { type: 'string' },
      'memory-mb': { type: 'string' },
      'max-turns': { type: 'string' },
      replay: { type: 'string' },
      logs: { type: 'boolean' },
      'no-wall': { type: 'boolean' },
    },
    async run(args, ctx) {
      const gameId = args.values.game;
      if (typeof gameId !== 'string') throw usageError('--game is required (see `games`)');
      const engine = findGame(gameId);
      if (engine === undefined) {
        throw usageError(`unknown game "${gameId}" (games: ${GAMES.map((game) => game.id).join(', ')})`);
      }
      const files = args.positionals;
      const at = (file: string) => (file === 'boss' ? file : path.resolve(ctx.cwd(), file));
      if (files.length < engine.players.min || files.length > engine.players.max) {
        throw usageError(
          `${engine.name} is played by ${engine.players.min} to ${engine.players.max} players`,
        );
      }
      const L = GAME_JUDGE_LIMITS;
      const limits = {
        turnMs: intFlag(args.values['turn-ms'], 'turn-ms', L.minTurnMs, L.maxTurnMs, L.defaultTurnMs),
        bankMs: intFlag(args.values['bank-ms'], 'bank-ms', L.minBankMs, L.maxBankMs, L.defaultBankMs),
        maxTurns: Math.min(
          intFlag(args.values['max-turns'], 'max-turns', 1, L.maxTurns, engine.defaultMaxTurns),
          engine.defaultMaxTurns,
        ),
      };
      const memoryMb = intFlag(
        args.values['memory-mb'],
        'memory-mb',
        L.minMemoryMb,
        L.maxMemoryMb,
        L.defaultMemoryMb,
      );
      const count = intFlag(args.values.games, 'games', L.minGamesPerMatch, L.maxGamesPerMatch, 1);
      const seeds =
        args.values.seed === undefined
          ? chooseSeeds(count)
          : Array.from(
              { length: count },
              (_, index) => intFlag(args.values.seed, 'seed', 0, 0x7fffffff, 0) + index,
            );
      const labels = files.map((file, index) =>
        files.indexOf(file) === index ? file : `${file}#${index + 1}`,
      );
      // What each player submits: the game's bot, a folder's files (as `submit --dir`), or one file.
      const playerSources = new Map<string, SubmissionForJudging>();
      for (const file of files) {
        if (file === 'boss' || playerSources.has(file)) continue;
        const isFolder = await stat(at(file)).then(
          (info) => info.isDirectory(),
          () => false,
        );
        if (!isFolder) continue;
        try {
          playerSources.set(file, { content: '', files: (await collectProjectFiles(at(file))).files });
        } catch (e) {
          throw new CliError(
            `cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
          );
        }
      }
      const sourceOf = async (file: string): Promise<SubmissionForJudging> =>
        file === 'boss'
          ? { content: '', files: [{ path: engine.boss.file, content: engine.boss.source }] }
          : (playerSources.get(file) ?? {
              content: '',
              files: [{ path: path.basename(file), content: await readFile(at(file), 'utf8') }],
            });
      for (const file of files) {
        if (file !== 'boss' && !playerSources.has(file) && languageByExtension(file) === undefined) {
          throw usageError(
            `cannot tell the language of ${file} (extensions: ${Object.values(LANGUAGES)
              .flatMap((l) => l.extensions)
              .join(' ')})`,
          );
        }
      }

      const noWall =
        args.values['no-wall'] === true ? 'asked with --no-wall' : await wallUnavailable(files.length);
      let result: MatchResult;
      if (noWall === undefined) {
        ctx.err(
          'players run in the wall (bwrap sandbox, cgroup freezer, CPU per turn from the cgroup), as on the server',
        );
        const programs: BuiltProgram[] = [];
        try {
          for (const file of files) {
            const built = await buildGameProgram(await sourceOf(file));
            if (built.kind === 'compile_error')
              ctx.err(`${file}: compile error: ${built.reason}\n${built.compileOutput}`);
            programs.push(built);
          }
          result = await playMatchInWall({
            engine,
            matchId: null,
            participants: labels.map((id, index) => ({ id, program: programs[index] })),
            seeds,
            limits,
            memoryMb,
          });
        } finally {
          await Promise.all(
            programs.map((program) => (program.kind === 'built' ? program.folder.remove() : undefined)),
          );
        }
      } else {
        ctx.err(
          `no wall here (${noWall}): players run as plain processes on this machine, with the same referee and limits`,
        );
        const programs: LocalProgram[] = [];
        try {
          for (const file of files) {
            const program = await prepareLocalProgram(
              file,
              file === 'boss' ? undefined : await sourceOf(file),
              file === 'boss' ? engine.boss : undefined,
            );
            if (program.kind === 'compile_error') ctx.err(`${file}: compile error: ${program.reason}`);
            programs.push(program);
          }
          result = await playMatch({
            engine,
            matchId: null,
            participants: labels,
            seeds,
            limits,
            players: (order) =>
              order.map((participant) => {
                const program = programs[participant];
                return program.kind === 'ready'
                  ? processPlayer(program.command)
                  : unavailablePlayer(`the program did not build: ${program.reason}`);
              }),
          });
        } finally {
          await Promise.all(
            programs.map((program) =>
              program.kind === 'ready' ? rm(program.dir, { recursive: true, force: true }) : undefined,
            ),
          );
        }
      }

      result.replay.games.forEach((game, index) => {
        const turns = game.steps.length - 1;
        ctx.out(`game ${index + 1} (seed ${game.seed}, ${turns} turns):`);
        game.seats.forEach((seat, seatIndex) => {
          const reward = game.rewards[seatIndex];
          ctx.out(
            `  seat ${seatIndex + 1} ${seat}: reward ${reward > 0 ? `+${reward}` : reward}, ${STATUS_WORDS[game.statuses[seatIndex]]}`,
          );
        });
      });
      for (const participant of result.participants) {
        for (const fault of participant.faults) {
          ctx.out(
            `  ${participant.id} lost game ${fault.game + 1}: ${STATUS_WORDS[fault.fault]} at turn ${fault.turn}: ${fault.reason}`,
          );
        }
      }
      ctx.out('total:');
      for (const participant of result.participants) ctx.out(`  ${participant.id}: ${participant.total}`);
      if (args.values.logs === true) {
        for (const participant of result.participants) {
          participant.logs.forEach((log, index) => {
            if (log.trim() !== '')
              ctx.err(`--- ${participant.id}, game ${index + 1}, stderr ---\n${log.trimEnd()}`);
          });
        }
      }
      if (typeof args.values.replay === 'string') {
        await writeFile(path.resolve(ctx.cwd(), args.values.replay), `${JSON.stringify(result.replay)}\n`);
        ctx.err(`replay written to ${args.values.replay}`);
      }
      if (result.replay.games.length === 0) throw new CliError('no game was played');
      // A player's fault is a game's outcome, not the command's failure.
      return 0;
    },
  },
];
