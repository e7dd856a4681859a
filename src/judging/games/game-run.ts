/**
 * One game as the referee records it (pure: no clock, no processes): the reducer's state, the
 * turn count, per-seat statuses and the replay's steps. The referee (referee.ts) feeds it each
 * turn's answers; `resimulate` rebuilds a recorded game from its seed and actions, so a stored
 * replay can be checked against the reducer (determinism).
 *
 * Replay steps (DESIGN's shape, Kaggle-like): `steps[0]` is the position before turn 1, `steps[t]`
 * the position after turn t; one entry per seat `{action, observation, reward, status}`: the
 * action the seat sent in that turn (null when it was not to move, or when its answer was not
 * JSON), what the seat sees after it (with its legal actions for the next turn), its reward (0
 * until the end, then the game's), its status after the turn.
 */
import {
  type GameEngine,
  type JsonValue,
  type Observation,
  type SeatFault,
  type SeatStatus,
  faultRewards,
} from './engine';

export interface StepEntry {
  action: JsonValue;
  observation: Observation;
  reward: number;
  status: SeatStatus;
}

/** One game of a replay (DESIGN: `{seed, seats, steps, rewards, statuses}`). */
export interface GameRecord {
  seed: number;
  /** seats[0] is seat 1 (an agent id on the server, a file name in the CLI). */
  seats: string[];
  steps: StepEntry[][];
  rewards: number[];
  statuses: SeatStatus[];
}

/** A seat's answer to one turn: an action the referee parsed, or the fault it saw. */
export type TurnAnswer =
  { kind: 'action'; action: JsonValue } | { kind: 'fault'; fault: SeatFault; action?: JsonValue };

export class GameRun {
  private current: JsonValue;
  private turnsPlayed = 0;
  private finalRewards: number[] | undefined;
  private finalStatuses: SeatStatus[] | undefined;
  readonly steps: StepEntry[][] = [];

  constructor(
    readonly engine: GameEngine,
    readonly seatCount: number,
    readonly seed: number,
    maxTurns: number,
  ) {
    if (seatCount < engine.players.min || seatCount > engine.players.max) {
      throw new Error(`${engine.id} is played by ${engine.players.min} to ${engine.players.max} players`);
    }
    this.current = engine.init(seatCount, seed, maxTurns);
    this.steps.push(this.entries(new Map()));
    this.settle();
  }

  get over(): boolean {
    return this.finalRewards !== undefined;
  }

  /** Turns played so far; the next turn is `turn + 1`. */
  get turn(): number {
    return this.turnsPlayed;
  }

  /** The seats to move in the next turn (none once over). */
  pending(): number[] {
    return this.over ? [] : this.engine.toMove(this.current);
  }

  /** The reducer's current state (read-only). */
  state(): JsonValue {
    return this.current;
  }

  observation(seat: number): Observation {
    return this.engine.observe(this.current, seat);
  }

  /**
   * Plays one turn. Every pending seat must have an answer (a missing one is an `error`). An
   * action that is not legal is the seat's `invalid`. Any fault ends the game: offenders lose,
   * everyone else wins.
   */
  play(answers: ReadonlyMap<number, TurnAnswer>): void {
    if (this.over) throw new Error('the game is over');
    const movers = this.pending();
    const faults = new Map<number, SeatFault>();
    const actions = new Map<number, JsonValue>();
    const sent = new Map<number, JsonValue>();
    for (const seat of movers) {
      const answer = answers.get(seat) ?? { kind: 'fault', fault: 'error' };
      if (answer.kind === 'fault') {
        faults.set(seat, answer.fault);
        sent.set(seat, answer.action ?? null);
      } else if (!this.engine.isLegal(this.current, seat, answer.action)) {
        faults.set(seat, 'invalid');
        sent.set(seat, answer.action);
      } else {
        actions.set(seat, answer.action);
        sent.set(seat, answer.action);
      }
    }
    this.turnsPlayed += 1;
    if (faults.size > 0) {
      this.finalRewards = faultRewards(this.seatCount, new Set(faults.keys()));
      this.finalStatuses = Array.from(
        { length: this.seatCount },
        (_, index): SeatStatus => faults.get(index + 1) ?? 'done',
      );
      this.steps.push(this.entries(sent));
      return;
    }
    this.current = this.engine.step(this.current, actions);
    this.settle();
    this.steps.push(this.entries(sent));
  }

  /** Once the reducer says the game is over, its rewards and every seat `done`. */
  private settle(): void {
    const rewards = this.engine.outcome(this.current);
    if (rewards === undefined) return;
    this.finalRewards = rewards;
    this.finalStatuses = rewards.map((): SeatStatus => 'done');
  }

  private entries(sent: ReadonlyMap<number, JsonValue>): StepEntry[] {
    const movers = new Set(this.pending());
    const inGame = this.engine.inGame(this.current);
    return Array.from({ length: this.seatCount }, (_, index) => {
      const seat = index + 1;
      const status: SeatStatus =
        this.finalStatuses?.[index] ?? (movers.has(seat) ? 'active' : inGame[index] ? 'inactive' : 'done');
      return {
        action: sent.get(seat) ?? null,
        observation: this.observation(seat),
        reward: this.finalRewards?.[index] ?? 0,
        status,
      };
    });
  }

  rewards(): number[] {
    if (this.finalRewards === undefined) throw new Error('the game is not over');
    return [...this.finalRewards];
  }

  statuses(): SeatStatus[] {
    if (this.finalStatuses === undefined) throw new Error('the game is not over');
    return [...this.finalStatuses];
  }

  record(seats: readonly string[]): GameRecord {
    return {
      seed: this.seed,
      seats: [...seats],
      steps: this.steps,
      rewards: this.rewards(),
      statuses: this.statuses(),
    };
  }
}

const FAULTS: ReadonlySet<SeatStatus> = new Set(['invalid', 'timeout', 'error']);

/**
 * Plays a recorded game again from its seed and the actions (and faults) in its steps: the
 * result equals the record when the record came from this reducer.
 */
export function resimulate(engine: GameEngine, record: GameRecord, maxTurns: number): GameRecord {
  const run = new GameRun(engine, record.seats.length, record.seed, maxTurns);
  for (let turn = 1; turn < record.steps.length && !run.over; turn++) {
    const answers = new Map<number, TurnAnswer>();
    for (const seat of run.pending()) {
      const entry = record.steps[turn][seat - 1];
      answers.set(
        seat,
        FAULTS.has(entry.status) && entry.status !== 'invalid'
          ? { kind: 'fault', fault: entry.status as SeatFault, action: entry.action }
          : entry.status === 'invalid' && entry.action === null
            ? { kind: 'fault', fault: 'invalid' }
            : { kind: 'action', action: entry.action },
      );
    }
    run.play(answers);
  }
  return run.record(record.seats);
}
