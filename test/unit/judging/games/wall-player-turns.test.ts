/**
 * Issue 42: what a turn in the wall does to the player's sandbox. The sandbox starts when the
 * channel is made (the game's set-up), not at the first turn; each turn thaws, writes, and after
 * the answer freezes and then reads the CPU once (that reading is the next turn's baseline: a
 * frozen group cannot run); the turn is charged all the CPU used while thawed. A player that never
 * got a turn is killed at close, never written to. The sandbox is replaced by a scripted run.
 */
import type { InteractiveEnd, InteractiveRun } from '../../../../src/judging/sandbox/interactive-run';
import { wallPlayer } from '../../../../src/judging/games/wall-player';
import { LANGUAGES } from '../../../../src/judging/program/languages';

// jest.mock is hoisted above the imports.

let events: string[] = [];
let answer: (line: string) => void = () => {};

jest.mock('../../../../src/judging/sandbox/interactive-run', () => ({
  startInteractiveNative: async (
    _request: unknown,
    handlers: { stdout(chunk: Buffer): void },
  ): Promise<InteractiveRun> => {
    events.push('start');
    let frozen = false;
    let cpu = 100; // what the sandbox's start used: never a turn's
    let ended = false;
    let endNow: (end: InteractiveEnd) => void = () => {};
    const endPromise = new Promise<InteractiveEnd>((resolve) => (endNow = resolve));
    answer = (line) => handlers.stdout(Buffer.from(`${line}\n`));
    return {
      write: (text) => {
        events.push(`write ${text.trim()}`);
        // The program works 7 ms on each line, then answers.
        cpu += 7;
        setImmediate(() => answer('{"action":1}'));
      },
      endInput: () => events.push('endInput'),
      freeze: async (on) => {
        events.push(on ? 'freeze' : 'thaw');
        // Thawing lets it run: 2 ms before the host even writes the line are the turn's too.
        if (!on && frozen) cpu += 2;
        frozen = on;
      },
      cpuTimeMs: async () => {
        events.push('cpu');
        return cpu;
      },
      kill: () => {
        events.push('kill');
        if (ended) return;
        ended = true;
        endNow({ report: undefined, tampered: false, oomKilled: false });
      },
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

beforeEach(() => {
  events = [];
});

describe('turns of a player in the wall', () => {
  it('starts its sandbox when the game is set up, before its first turn', async () => {
    const seat = player();
    await new Promise((resolve) => setImmediate(resolve));
    expect(events).toEqual(['start']);
    await seat.turn('{"turn":1}\n', budget);
    expect(events.indexOf('start')).toBeLessThan(events.indexOf('write {"turn":1}'));
    seat.kill();
    await seat.close(undefined);
  });

  it('freezes before reading its CPU, reads it once per turn, and charges all it used thawed', async () => {
    const seat = player();
    const first = await seat.turn('{"turn":1}\n', budget);
    const firstEvents = events.splice(0);
    const second = await seat.turn('{"turn":3}\n', budget);
    expect(first).toEqual({ kind: 'line', text: '{"action":1}', cpuMs: 7 });
    expect(firstEvents).toEqual(['start', 'cpu', 'write {"turn":1}', 'freeze', 'cpu']);
    // The baseline is the reading after the last freeze: the 2 ms it ran before the line count.
    expect(second).toEqual({ kind: 'line', text: '{"action":1}', cpuMs: 9 });
    expect(events).toEqual(['thaw', 'write {"turn":3}', 'freeze', 'cpu']);
    seat.kill();
    await seat.close(undefined);
  });

  it('is killed at close, never written to, when it never got a turn', async () => {
    const seat = player();
    await seat.close('{"done":true}\n');
    expect(events[0]).toBe('start');
    expect(events).toContain('kill');
    expect(events.filter((event) => event.startsWith('write') || event === 'endInput')).toEqual([]);
  });
});
