import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findGame } from '../../../../src/judging/games/catalog';
import { resimulate } from '../../../../src/judging/games/game-run';
import { processPlayer } from '../../../../src/judging/games/process-player';
import { refereeGame } from '../../../../src/judging/games/referee';

const dir = mkdtempSync(path.join(os.tmpdir(), 'referee-test-'));

function python(name: string, source: string) {
  const file = path.join(dir, `${name}.py`);
  writeFileSync(file, source);
  return processPlayer({ argv: ['/usr/bin/python3', '-u', file], cwd: dir });
}

/** Answers the first legal action every turn; on turn `faultTurn` does `fault` instead. */
const faulty = (faultTurn: number, fault: string) => `import json, sys, time
for line in sys.stdin:
    m = json.loads(line)
    if m.get("done"):
        sys.stderr.write("done line: " + line)
        break
    sys.stderr.write("turn %d seat %d\\n" % (m["turn"], m["seat"]))
    if m["turn"] >= ${faultTurn}:
        ${fault}
    print(json.dumps({"action": m["observation"]["legal_actions"][0]}), flush=True)
`;

const connectFour = findGame('connect-four')!;
const lightCycles = findGame('light-cycles')!;
const limits = { turnMs: 200, bankMs: 300, maxTurns: 42 };

describe('the referee (plain processes)', () => {
  it('plays a whole game of the two boss bots; the record re-simulates; both get the end line', async () => {
    const game = await refereeGame({
      engine: connectFour,
      seed: 1,
      seats: ['a', 'b'],
      players: [python('boss-a', connectFour.boss.source), python('boss-b', faulty(99, 'pass'))],
      limits,
    });
    expect(game.faults).toEqual([]);
    expect(game.record.statuses).toEqual(['done', 'done']);
    expect(resimulate(connectFour, game.record, limits.maxTurns)).toEqual(game.record);
    expect(game.logs[1]).toMatch(/^turn 2 seat 2$/m);
    expect(game.logs[1]).toMatch(
      /done line: \{"done":true,"rewards":\[-?\d,-?\d\],"statuses":\["done","done"\]\}/,
    );
    // Only the seat to move gets a line: seat 2 saw only even turns.
    expect(game.logs[1]).not.toMatch(/^turn 1 /m);
  }, 60_000);

  it("keeps what a player writes to stderr as it ends: the log is read to the pipe's end, not to the exit", async () => {
    // 40 KB and a marker after the end line, then an immediate exit. Node may report a child's
    // exit before its pipes are drained; the player now waits for them to close. (This case passed
    // on the old code here too: it guards the behaviour, it did not reproduce CI's one failure.)
    const loud = `import json, os, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("done"):
        sys.stderr.write("x" * 40000 + "\\nEND-OF-LOG\\n")
        os._exit(0)
    print(json.dumps({"action": m["observation"]["legal_actions"][0]}), flush=True)
`;
    for (let round = 0; round < 5; round++) {
      const game = await refereeGame({
        engine: connectFour,
        seed: round,
        seats: ['a', 'b'],
        players: [python(`boss-${round}`, connectFour.boss.source), python(`loud-${round}`, loud)],
        limits,
      });
      expect(game.logs[1]).toMatch(/END-OF-LOG\n?$/);
    }
  }, 60_000);

  it('a player that ignores the end line is ended after its grace: a sleeper earns no extra time, the game completes', async () => {
    // The grace counts the player's own time (time it waited for a CPU is added): a sleeper waits
    // off the run queue, so it gets none and is killed once the grace is over.
    const stubborn = `import json, sys, time
for line in sys.stdin:
    m = json.loads(line)
    if m.get("done"):
        sys.stderr.write("ignoring the end\\n")
        sys.stderr.flush()
        time.sleep(600)
    print(json.dumps({"action": m["observation"]["legal_actions"][0]}), flush=True)
`;
    const game = await refereeGame({
      engine: connectFour,
      seed: 7,
      seats: ['boss', 'stubborn'],
      players: [python('boss-grace', connectFour.boss.source), python('stubborn-grace', stubborn)],
      limits,
    });
    expect(game.record.statuses).toEqual(['done', 'done']);
    expect(game.logs[1]).toMatch(/ignoring the end\n?$/);
  }, 60_000);

  it.each([
    ['garbage', 'print("this is not json", flush=True); continue', 'invalid', /not JSON/],
    [
      'an illegal move',
      'print(json.dumps({"action": 99}), flush=True); continue',
      'invalid',
      /illegal action 99/,
    ],
    ['a sleep past its bank', 'time.sleep(30)', 'timeout', /wall cap/],
    // Its CPU runs out first, or the wall cap on a machine too busy to give it the CPU in time.
    ['a CPU burn past its bank', 'exec("while True: pass")', 'timeout', /CPU|wall cap/],
    ['a crash', 'sys.exit(3)', 'error', /exited with code 3/],
  ])(
    '%s on its second turn loses that game, the other seat wins, the game completes',
    async (_what, fault, status, reason) => {
      const game = await refereeGame({
        engine: connectFour,
        seed: 2,
        seats: ['boss', 'faulty'],
        players: [
          python(`boss-${status}`, connectFour.boss.source),
          python(`faulty-${status}`, faulty(3, fault)),
        ],
        limits,
      });
      expect(game.record.statuses).toEqual(['done', status]);
      expect(game.record.rewards).toEqual([1, -1]);
      expect(game.faults).toEqual([
        { seat: 2, turn: 4, fault: status, reason: expect.stringMatching(reason) },
      ]);
      expect(resimulate(connectFour, game.record, limits.maxTurns)).toEqual(game.record);
    },
    60_000,
  );

  it('simultaneous: every seat still riding gets a line each turn, each with its own seat and observation', async () => {
    const echo = `import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("done"):
        break
    o = m["observation"]
    sys.stderr.write("turn %d seat %d obs-seat %d\\n" % (m["turn"], m["seat"], o["seat"]))
    print(json.dumps({"action": o["legal_actions"][0]}), flush=True)
`;
    const players = [1, 2, 3].map((seat) => python(`echo-${seat}`, echo));
    const game = await refereeGame({
      engine: lightCycles,
      seed: 5,
      seats: ['x', 'y', 'z'],
      players,
      limits: { ...limits, maxTurns: 144 },
    });
    expect(game.faults).toEqual([]);
    game.logs.forEach((log, index) => {
      const seat = index + 1;
      const lines = log.trim().split('\n');
      expect(lines.length).toBeGreaterThan(0);
      for (const line of lines) expect(line).toMatch(new RegExp(`^turn \\d+ seat ${seat} obs-seat ${seat}$`));
      // Turns count from 1 and go up by one while the seat rides.
      expect(lines[0]).toMatch(/^turn 1 /);
    });
    expect(resimulate(lightCycles, game.record, 144)).toEqual(game.record);
  }, 60_000);

  it('an abort mid-turn stops the game: the referee rejects and every player is ended', async () => {
    // Seat 1 answers; seat 2 sleeps in its turn (well within the wall cap) until it is killed.
    const sleeper = faulty(2, 'time.sleep(30)');
    const players = [python('abort-a', faulty(99, 'pass')), python('abort-b', sleeper)];
    const stopped = new AbortController();
    const game = refereeGame({
      engine: connectFour,
      seed: 1,
      seats: ['a', 'b'],
      players,
      limits: { turnMs: 10_000, bankMs: 0, maxTurns: 42 },
      signal: stopped.signal,
      onTurn: (turn) => {
        if (turn === 1) setTimeout(() => stopped.abort(new Error('voided')), 200);
      },
    });
    await expect(game).rejects.toThrow('voided');
    // Both players' processes are gone: a turn now finds them ended.
    for (const player of players) {
      await expect(player.turn('{}\n', { cpuMs: 1_000, wallMs: 1_000 })).resolves.toMatchObject({
        kind: 'crash',
      });
    }
  }, 60_000);
});
