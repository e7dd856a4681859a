/**
 * A player inside the wall: one long-running program in its own sandbox for the whole game
 * (src/judging/sandbox/interactive-run.ts: the program judge's bwrap profile, supervisor, uid and
 * cgroup), frozen between its turns through its cgroup's freezer. A turn's CPU is the cgroup's
 * CPU time across the turn, read on the host; kills and the wall cap are the host's.
 */
import { type LanguageSpec, BUILD_DIR } from '../program/languages';
import { languageBinds } from '../program/build';
import { type InteractiveEnd, type InteractiveRun, startInteractiveNative } from '../sandbox/interactive-run';
import { AnswerReader, BoundedLog } from './line-reader';
import { EXIT_GRACE_MS, type PlayerChannel, type TurnBudget, type TurnResult } from './player';
import { FIRST_TURN_BONUS_MS, PLAYER_LOG_BYTES } from './protocol';
import type { GameLimits } from './referee';

/** stdout a player may write in a whole game (its answers). */
const GAME_OUTPUT_BYTES = 16 * 1024 * 1024;
const CPU_POLL_MS = 25;

export interface WallPlayerSpec {
  language: LanguageSpec;
  /** The host build folder holding the built program (bound read-only at BUILD_DIR). */
  folder: string;
  /** The entry's path in the program (the run command of Python needs it). */
  entry: string;
  memoryMb: number;
  limits: GameLimits;
  /** The judging slot this player holds for the whole game. */
  slot: number;
  /**
   * Another game of the same program follows (a match's games before its last): its sandbox is
   * taken from the warm pool and the next one launched ahead, while this game plays, as the
   * program judge does for a program's tests. Undefined: launched cold, nothing ahead.
   */
  followed?: boolean;
}

const SIGNALS: Readonly<Record<number, string>> = {
  6: 'SIGABRT',
  9: 'SIGKILL',
  11: 'SIGSEGV',
  8: 'SIGFPE',
  24: 'SIGXCPU',
};
const SIGXCPU = 24;

/**
 * How a run that ended before answering its turn is judged. The supervisor's whole-game backstops
 * (CPU, and a wall clock that counts the time the player sat frozen between turns) and the kernel's
 * CPU limit stop a player that never answers: that is its time running out (`timeout`), though the
 * kill itself is a SIGKILL or SIGXCPU. Anything else is the program's crash (`error`).
 */
export function endedBeforeAnswering(end: InteractiveEnd, memoryMb: number): TurnResult {
  const crash = (reason: string): TurnResult => ({ kind: 'crash', reason });
  if (end.tampered) return crash('the program broke its sandbox’s output channel');
  if (end.oomKilled) return crash(`ran out of memory (${memoryMb} MB)`);
  const report = end.report;
  if (report === undefined) return crash('the program was killed');
  if (report.limit === 'output') return crash('wrote more output than a game allows');
  if (report.limit === 'wall')
    return {
      kind: 'timeout',
      cpuMs: report.cpuMs,
      reason: 'no answer: the game’s whole time allowance ran out',
    };
  if (report.limit === 'cpu' || (report.exit.kind === 'signaled' && report.exit.signal === SIGXCPU))
    return { kind: 'timeout', cpuMs: report.cpuMs, reason: 'no answer: used all the CPU a game allows' };
  if (report.exit.kind === 'exited')
    return crash(`the program exited with code ${report.exit.code} before answering`);
  return crash(
    `the program was killed by ${SIGNALS[report.exit.signal] ?? `signal ${report.exit.signal}`} before answering`,
  );
}

export function wallPlayer(spec: WallPlayerSpec): PlayerChannel {
  const reader = new AnswerReader();
  const log = new BoundedLog();
  let run: InteractiveRun | undefined;
  let closed: Promise<void> | undefined;
  let killed = false;
  const { limits } = spec;
  // Backstops for the whole game; the referee enforces every turn's limits.
  const gameCpuMs = FIRST_TURN_BONUS_MS + limits.bankMs + limits.turnMs * limits.maxTurns + 1_000;
  const gameWallMs = 2 * gameCpuMs + 1_000 * limits.maxTurns + 60_000;

  const start = async (): Promise<InteractiveRun> => {
    const command = spec.language.runCommand({ memoryMb: spec.memoryMb, entry: spec.entry });
    return startInteractiveNative(
      {
        argv: command.argv,
        env: command.env,
        binds: [{ host: spec.folder, path: BUILD_DIR }, ...(await languageBinds(spec.language))],
        cpuMs: gameCpuMs,
        wallMs: gameWallMs,
        memoryMb: spec.memoryMb + spec.language.runtimeOverheadMb,
        outputBytes: GAME_OUTPUT_BYTES,
        stderrBytes: PLAYER_LOG_BYTES,
        ...(spec.followed === undefined ? {} : { followed: spec.followed }),
      },
      { stdout: (chunk) => reader.push(chunk), stderr: (chunk) => log.push(chunk) },
      spec.slot,
    );
  };

  const howItEnded = async (current: InteractiveRun): Promise<TurnResult> =>
    endedBeforeAnswering(await current.ended, spec.memoryMb);

  // Both players' sandboxes start while the game is set up (this channel is made once the
  // game's slots are held), not at each one's first turn: in a sequential game the second seat's
  // start then overlaps the first seat's first turn instead of adding to its own (issue 42).
  let starting: Promise<InteractiveRun> | undefined = start().then((started) => {
    run = started;
    if (killed) started.kill();
    return started;
  });
  starting.catch(() => {}); // the first turn reports it (the wall's failure rejects)
  /**
   * The run's CPU when it was last frozen (confirmed): it cannot run until thawed, so this is the
   * next turn's baseline and the turn reads its CPU once, after its freeze (issue 42).
   */
  let cpuAtFreeze: number | undefined;
  let played = false;

  return {
    async turn(line: string, budget: TurnBudget): Promise<TurnResult> {
      if (starting !== undefined) {
        const first = starting;
        starting = undefined;
        // A sandbox that cannot be started is the wall's failure, not the program's: it rejects.
        await first;
        if (killed) return { kind: 'crash', reason: 'the game was stopped' };
      }
      if (run === undefined) return { kind: 'crash', reason: 'the game was stopped' };
      if (run.isEnded()) return howItEnded(run);
      let baseline: number;
      if (!played) {
        // The program has not run yet (it waits for its go byte): what the start used is not its.
        played = true;
        baseline = await run.cpuTimeMs();
      } else {
        const frozenAt = cpuAtFreeze;
        cpuAtFreeze = undefined;
        await run.freeze(false);
        baseline = frozenAt ?? (await run.cpuTimeMs());
      }
      const current = run;
      const answer = reader.expect();
      current.write(line);
      return new Promise<TurnResult>((resolve) => {
        let settled = false;
        const finish = async (make: () => Promise<TurnResult>, stop: boolean) => {
          if (settled) return;
          settled = true;
          clearTimeout(wall);
          clearInterval(cpu);
          reader.cancel();
          if (stop) current.kill();
          else {
            try {
              await current.freeze(true);
              if (!current.isEnded()) cpuAtFreeze = await current.cpuTimeMs();
            } catch {
              current.kill();
            }
          }
          resolve(await make());
        };
        const used = async () => (cpuAtFreeze ?? (await current.cpuTimeMs())) - baseline;
        const wall = setTimeout(() => {
          void finish(
            async () => ({
              kind: 'timeout',
              cpuMs: await used(),
              reason: `no answer within the turn's wall cap (${budget.wallMs} ms)`,
            }),
            true,
          );
        }, budget.wallMs);
        let reading = false;
        const cpu = setInterval(() => {
          if (reading || settled) return;
          reading = true;
          void used()
            .then((spent) => {
              if (spent > budget.cpuMs) {
                void finish(
                  async () => ({
                    kind: 'timeout',
                    cpuMs: spent,
                    reason: `used more than ${budget.cpuMs} ms of CPU in one turn`,
                  }),
                  true,
                );
              }
            })
            .finally(() => (reading = false));
        }, CPU_POLL_MS);
        void current.ended.then(() => finish(() => howItEnded(current), true));
        void answer.then((got) =>
          finish(
            async () =>
              'overlong' in got
                ? { kind: 'overlong' }
                : { kind: 'line', text: got.line, cpuMs: await used() },
            false,
          ),
        );
      });
    },
    close(endLine: string | undefined): Promise<void> {
      closed ??= (async () => {
        if (starting !== undefined) {
          // Never played a turn: its program never started, so it is ended, not told the result.
          const pending = starting;
          starting = undefined;
          killed = true;
          const started = await pending.catch(() => undefined);
          if (started !== undefined) {
            started.kill();
            await started.ended;
          }
          return;
        }
        const current = run;
        if (current === undefined) return;
        if (!current.isEnded()) {
          await current.freeze(false).catch(() => current.kill());
          if (endLine !== undefined) current.write(endLine);
          current.endInput();
          const timer = setTimeout(() => current.kill(), EXIT_GRACE_MS);
          await current.ended;
          clearTimeout(timer);
        }
        await current.ended;
      })();
      return closed;
    },
    stderr: () => log.text(),
    kill() {
      killed = true;
      run?.kill();
    },
  };
}
