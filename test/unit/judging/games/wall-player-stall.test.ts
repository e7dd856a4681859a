/**
 * Issue 37, finding 5: a player that never answers is a `timeout`, not an `error` ("killed by
 * SIGKILL before answering"). The supervisor's whole-game backstops (its wall clock counts the
 * time the player sat frozen between turns) kill such a player with SIGKILL and report the limit
 * they hit; that is its time running out. The sandbox is replaced by a scripted run here.
 */
import type { InteractiveEnd, InteractiveRun } from '../../../../src/judging/sandbox/interactive-run';
import { wallPlayer } from '../../../../src/judging/games/wall-player';
import { LANGUAGES } from '../../../../src/judging/program/languages';

// jest.mock is hoisted above the imports.

let scriptedEnd: InteractiveEnd;

jest.mock('../../../../src/judging/sandbox/interactive-run', () => ({
  startInteractiveNative: async (): Promise<InteractiveRun> => {
    let ended = false;
    let endNow: (end: InteractiveEnd) => void = () => {};
    const endPromise = new Promise<InteractiveEnd>((resolve) => (endNow = resolve));
    return {
      // The program reads its turn line and never answers: the supervisor's backstop ends it.
      write: () => {
        setImmediate(() => {
          ended = true;
          endNow(scriptedEnd);
        });
      },
      endInput: () => {},
      freeze: async () => {},
      cpuTimeMs: async () => 0,
      kill: () => {},
      ended: endPromise,
      isEnded: () => ended,
    };
  },
}));

const limits = { turnMs: 200, bankMs: 300, maxTurns: 42 };
const budget = { cpuMs: 5_500, wallMs: 60_000 };

const player = () =>
  wallPlayer({
    language: LANGUAGES.python,
    folder: '/nonexistent',
    entry: 'main.py',
    memoryMb: 64,
    limits,
    slot: 0,
  });

const killedAt = (limit: 'wall' | 'cpu' | 'none', signal = 9): InteractiveEnd => ({
  report: { exit: { kind: 'signaled', signal }, limit, cpuMs: 12, maxrssKb: 1 },
  tampered: false,
  oomKilled: false,
});

describe('a stalling player in the wall', () => {
  it.each([
    ['the whole-game wall clock', killedAt('wall')],
    ['the whole-game CPU', killedAt('cpu')],
    ['the kernel CPU limit (SIGXCPU)', killedAt('none', 24)],
  ])('stopped by %s is a timeout, not a crash', async (_what, end) => {
    scriptedEnd = end;
    const result = await player().turn('{"turn":1}\n', budget);
    expect(result).toEqual({
      kind: 'timeout',
      cpuMs: expect.any(Number),
      reason: expect.stringMatching(/time|CPU/),
    });
    expect(result.kind === 'timeout' && result.reason).not.toMatch(/SIGKILL/);
  });

  it('a program killed by a signal of its own is still a crash', async () => {
    scriptedEnd = killedAt('none', 11);
    expect(await player().turn('{"turn":1}\n', budget)).toEqual({
      kind: 'crash',
      reason: 'the program was killed by SIGSEGV before answering',
    });
  });
});
