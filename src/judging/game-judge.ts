/**
 * The `game` judge (DESIGN, "Games"): a submission is a program, validated by a game against
 * itself in the wall. Score 100 when that game finishes without a fault; else 0 with the reason
 * in the breakdown (compile error, invalid action at turn n, timeout, crash) and the player's
 * stderr excerpt. Matches between validated programs are the arena's (src/domain/games).
 */
import { createHash } from 'node:crypto';
import { type GameJudgeConfig, gameMaxTurns } from './config';
import { findGame } from './games/catalog';
import { buildGameProgram } from './games/programs';
import { playGameInWall } from './games/programs';
import type { SeatFaultDetail } from './games/referee';
import { InvalidJudgeConfigError } from './errors';
import { LANGUAGE_IDS } from './program/languages';
import {
  COUNTS_AGAINST_LIMITS,
  type CriterionResult,
  type JudgeOutcome,
  type JudgeRunOptions,
  type SubmissionForJudging,
} from './types';

const CRITERION = 'self-play game';
const EXCERPT_CHARS = 2_000;

const FAULT_WORDS = { invalid: 'invalid action', timeout: 'timeout', error: 'crash' } as const;

/**
 * The end of a player's log (where its fault shows): the marker goes first, so a log that says
 * bytes were replaced still ends saying so, and the cut never leaves half a surrogate pair.
 */
export function stderrExcerpt(text: string): string {
  if (text.length <= EXCERPT_CHARS) return text;
  const start = text.length - EXCERPT_CHARS;
  const from = /[\uDC00-\uDFFF]/.test(text[start]) ? start + 1 : start;
  return `(last ${EXCERPT_CHARS} characters) …${text.slice(from)}`;
}

/** A validation game's seed: fixed per program text, so a rejudge plays the same game. */
export function validationSeed(submission: SubmissionForJudging): number {
  const digest = createHash('sha256')
    .update(JSON.stringify([submission.content, submission.files]))
    .digest();
  return digest.readUInt32BE(0) & 0x7fffffff;
}

/** `invalid action at turn 3 (seat 2): illegal action 99` */
export function faultSummary(fault: SeatFaultDetail): string {
  return `${FAULT_WORDS[fault.fault]} at turn ${fault.turn} (seat ${fault.seat}): ${fault.reason}`;
}

function outcome(
  score: number,
  summary: string,
  feedback: string,
  details: Record<string, unknown>,
): JudgeOutcome {
  const criteria: CriterionResult[] = [
    {
      name: CRITERION,
      weight: 1,
      score,
      passed: score === 100,
      feedback: feedback.slice(0, 500),
      hidden: false,
    },
  ];
  return { score, resultState: 'scored', summary, criteria, details };
}

export async function runGameJudge(
  config: GameJudgeConfig,
  submission: SubmissionForJudging,
  options: JudgeRunOptions = {},
): Promise<JudgeOutcome> {
  const engine = findGame(config.game);
  if (engine === undefined) throw new InvalidJudgeConfigError(`unknown game ${config.game}`);
  const built = await buildGameProgram(submission, config.languages ?? LANGUAGE_IDS, options.signal);
  if (built.kind === 'compile_error') {
    const summary = `compile error: ${built.reason}`;
    return outcome(0, summary, summary, {
      game: engine.id,
      language: built.language,
      verdict: 'compile_error',
      reason: summary,
      compile_output: built.compileOutput,
      // Only the compiler's verdict within its limits is given back (DESIGN).
      [COUNTS_AGAINST_LIMITS]: built.byCompiler !== true,
    });
  }
  // An operator's dry run plays the program in seat 1 against the game's baseline bot in the others.
  const againstBoss = options.gameOpponent === 'boss';
  const boss = againstBoss
    ? await buildGameProgram(
        { content: '', files: [{ path: engine.boss.file, content: engine.boss.source }] },
        LANGUAGE_IDS,
        options.signal,
      )
    : null;
  try {
    if (boss && boss.kind !== 'built')
      throw new InvalidJudgeConfigError(`the baseline bot of ${engine.name} did not build: ${boss.reason}`);
    const seats = engine.players.min;
    const limits = { turnMs: config.turn_ms, bankMs: config.bank_ms, maxTurns: gameMaxTurns(config) };
    const game = await playGameInWall({
      engine,
      seed: validationSeed(submission),
      seats: Array.from({ length: seats }, (_, index) =>
        boss ? (index === 0 ? 'sample' : `boss-${index}`) : `self-${index + 1}`,
      ),
      programs: Array.from({ length: seats }, (_, index) => (boss && index > 0 ? boss : built)),
      limits,
      memoryMb: config.memory_mb,
      signal: options.signal,
      onTurn: (turn) => options.onProgress?.({ completed: turn, total: limits.maxTurns }),
    });
    const turns = game.record.steps.length - 1;
    const common = {
      game: engine.id,
      language: built.language.id,
      entry: built.entry,
      compile_output: built.compileOutput,
      seed: game.record.seed,
      turns,
      rewards: game.record.rewards,
      statuses: game.record.statuses,
      ...(boss ? { opponent: 'boss', seats: game.record.seats } : {}),
    };
    // Against the boss only the sample's own faults (seat 1) count.
    const [fault] = boss ? game.faults.filter((f) => f.seat === 1) : game.faults;
    if (fault === undefined) {
      const against = boss ? `the baseline bot (reward ${game.record.rewards[0]})` : 'itself';
      return outcome(
        100,
        `${built.language.name}: played a full game of ${engine.name} against ${against} without fault (${turns} turns)`,
        'the game finished without fault',
        { ...common, verdict: 'accepted' },
      );
    }
    const reason = faultSummary(fault);
    return outcome(0, `${built.language.name}: ${reason}`, reason, {
      ...common,
      verdict: fault.fault,
      reason,
      fault: { seat: fault.seat, turn: fault.turn, kind: fault.fault, reason: fault.reason },
      stderr_excerpt: stderrExcerpt(game.logs[fault.seat - 1] ?? ''),
    });
  } finally {
    await built.folder.remove();
    if (boss?.kind === 'built') await boss.folder.remove();
  }
}
