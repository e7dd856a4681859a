/**
 * A player process as the referee sees it, whatever runs it (the wall: wall-player.ts; plain
 * processes for the CLI where no wall is available: process-player.ts).
 */
export interface TurnBudget {
  /** CPU the process may use in this turn (host-measured) before it is stopped: a timeout. */
  cpuMs: number;
  /** The turn's wall cap. */
  wallMs: number;
}

export type TurnResult =
  /** The process answered one line (without its newline) having used `cpuMs` of CPU. */
  | { kind: 'line'; text: string; cpuMs: number }
  /** It went past its CPU budget or the wall cap (and was killed). */
  | { kind: 'timeout'; cpuMs: number; reason: string }
  /** It ended (or closed its output) before answering, or could not start. */
  | { kind: 'crash'; reason: string }
  /** Its answer line went past MAX_ANSWER_BYTES. */
  | { kind: 'overlong' };

export interface PlayerChannel {
  /**
   * Lets the process run (started on its first turn, thawed after), writes `line`, waits for one
   * line of output within the budget, then freezes it again. Never rejects for anything the
   * program does.
   */
  turn(line: string, budget: TurnBudget): Promise<TurnResult>;
  /** Sends `endLine` when the process is still alive, closes its input, gives it a moment to exit, then ends it. */
  close(endLine: string | undefined): Promise<void>;
  /** What it wrote to stderr so far (bounded). */
  stderr(): string;
  /** Kills it at once (the referee's abort); `close` still has to be called. */
  kill(): void;
}

/**
 * How long a player may take to exit after its end line before it is killed: of its own time, so
 * where its threads can be watched, the time they waited for a CPU (a busy machine) is added, up
 * to EXIT_GRACE_MAX_EXTRA_MS (src/judging/wall-deadline.ts).
 */
export const EXIT_GRACE_MS = 500;
export const EXIT_GRACE_MAX_EXTRA_MS = 5_000;
