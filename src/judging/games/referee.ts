/**
 * The referee: runs one game of a reducer between N player processes over DESIGN's line
 * protocol, and records it. The same code drives the server's games (players in the wall) and
 * the CLI's local runner (plain processes where no wall is available).
 *
 * Per turn: only the seat to move gets a line in a sequential game, every seat still in the game
 * in a simultaneous one (their turns run at the same time). CPU used beyond `turn_ms` (plus 5 s
 * on a player's first turn) is drawn from its bank; a bank below zero, or a turn past the wall
 * cap, is a `timeout`; an unparsable or illegal answer is `invalid`; a process that ends or
 * cannot start is an `error`. Any fault ends the game: the offender loses, everyone else wins.
 * Every player still running gets `{"done": true, "rewards", "statuses"}`, then end of input.
 */
import type { GameEngine, SeatFault, SeatStatus } from './engine';
import { type GameRecord, GameRun, type TurnAnswer } from './game-run';
import type { PlayerChannel } from './player';
import { bankAfter, doneLine, parseAnswer, turnAllowance, turnLine, MAX_ANSWER_BYTES } from './protocol';

export interface GameLimits {
  turnMs: number;
  bankMs: number;
  maxTurns: number;
}

/** Why a seat lost by a fault, in words for its owner (the validation breakdown). */
export interface SeatFaultDetail {
  seat: number;
  turn: number;
  fault: SeatFault;
  reason: string;
}

export interface RefereedGame {
  record: GameRecord;
  faults: SeatFaultDetail[];
  /** Each seat's stderr (bounded), index 0 is seat 1. */
  logs: string[];
  /** Each seat's bank at the end. */
  banksMs: number[];
}

export interface RefereeOptions {
  engine: GameEngine;
  seed: number;
  /** The labels of the seats (agent ids, file names); one player per seat. */
  seats: readonly string[];
  players: readonly PlayerChannel[];
  limits: GameLimits;
  signal?: AbortSignal;
  /** Called after every turn (heartbeats, progress). */
  onTurn?: (turn: number) => void;
}

export async function refereeGame(options: RefereeOptions): Promise<RefereedGame> {
  const { engine, seed, seats, players, limits } = options;
  if (players.length !== seats.length) throw new Error('one player per seat');
  const run = new GameRun(engine, seats.length, seed, limits.maxTurns);
  const banks = seats.map(() => limits.bankMs);
  const started = new Set<number>();
  const faults: SeatFaultDetail[] = [];
  const onAbort = () => players.forEach((player) => player.kill());
  options.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    while (!run.over) {
      options.signal?.throwIfAborted();
      const turn = run.turn + 1;
      const movers = run.pending();
      const answers = new Map<number, TurnAnswer>();
      await Promise.all(
        movers.map(async (seat) => {
          const firstTurn = !started.has(seat);
          started.add(seat);
          const bank = banks[seat - 1];
          const allowed = turnAllowance(limits.turnMs, bank, firstTurn);
          const line = turnLine(turn, seat, run.observation(seat), bank);
          const result = await players[seat - 1].turn(line, { cpuMs: allowed.cpuMs, wallMs: allowed.wallMs });
          const fault = (fault: SeatFault, reason: string) => {
            faults.push({ seat, turn, fault, reason });
            answers.set(seat, { kind: 'fault', fault });
          };
          if (result.kind === 'timeout') {
            banks[seat - 1] = 0;
            return fault('timeout', result.reason);
          }
          if (result.kind === 'crash') return fault('error', result.reason);
          if (result.kind === 'overlong') {
            return fault('invalid', `answer line longer than ${MAX_ANSWER_BYTES} bytes`);
          }
          banks[seat - 1] = bankAfter(bank, allowed.allowanceMs, result.cpuMs);
          if (banks[seat - 1] < 0) {
            banks[seat - 1] = 0;
            return fault(
              'timeout',
              `used ${Math.round(result.cpuMs)} ms of CPU: more than ${allowed.allowanceMs} ms and the ${Math.round(bank)} ms left in its bank`,
            );
          }
          const parsed = parseAnswer(result.text);
          if (!parsed.ok) return fault('invalid', `invalid answer: ${parsed.reason}`);
          let legal: boolean;
          try {
            legal = engine.isLegal(run.state(), seat, parsed.action);
          } catch {
            // Nothing a player sends may stop the referee: an action the reducer cannot even judge is invalid.
            return fault('invalid', 'invalid answer: the game could not read the action');
          }
          if (!legal) {
            faults.push({
              seat,
              turn,
              fault: 'invalid',
              reason: `illegal action ${Array.from(JSON.stringify(parsed.action)).slice(0, 80).join('')}`,
            });
          }
          answers.set(seat, { kind: 'action', action: parsed.action });
        }),
      );
      run.play(answers);
      options.onTurn?.(turn);
    }
    // Stopped mid-turn, the killed players' answers end the game as crashes: that game is not played.
    options.signal?.throwIfAborted();
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
    if (!run.over || options.signal?.aborted)
      await Promise.all(players.map((player) => player.close(undefined)));
  }
  const rewards = run.rewards();
  const statuses: SeatStatus[] = run.statuses();
  await Promise.all(players.map((player) => player.close(doneLine(rewards, statuses))));
  return {
    record: run.record([...seats]),
    faults: faults.sort((a, b) => a.seat - b.seat),
    logs: players.map((player) => player.stderr()),
    banksMs: banks.map((bank) => Math.max(0, Math.round(bank))),
  };
}
