/**
 * Games in the wall: each player one program in its own sandbox for the whole game, frozen
 * between its turns, its CPU read from its cgroup by the host (src/judging/games/wall-player.ts).
 */
import { judgeConfigSchema } from '../../../src/judging/config';
import { runGameJudge } from '../../../src/judging/game-judge';
import { findGame } from '../../../src/judging/games/catalog';
import { resimulate } from '../../../src/judging/games/game-run';
import { buildGameProgram, playGameInWall, type BuiltProgram } from '../../../src/judging/games/programs';
import { sandboxRuntime } from '../../../src/judging/sandbox/sandbox-runtime';
import { playGameMatch } from '../../../src/domain/games/judge';
import { forgerSource } from './forgery';

jest.setTimeout(300_000);

const connectFour = findGame('connect-four')!;
const limits = { turnMs: 200, bankMs: 300, maxTurns: 42 };
type Built = Extract<BuiltProgram, { kind: 'built' }>;
const built: Built[] = [];

async function build(file: string, content: string): Promise<Built> {
  const program = await buildGameProgram({ content: '', files: [{ path: file, content }] });
  if (program.kind !== 'built') throw new Error(`${file}: ${program.reason}\n${program.compileOutput}`);
  built.push(program);
  return program;
}

/** C: answers the first legal column it finds in each turn line; logs the turn and seat to stderr. */
const C_FIRST_LEGAL = `#include <stdio.h>
#include <string.h>
#include <stdlib.h>
static char line[1 << 20];
int main(void) {
  while (fgets(line, sizeof line, stdin)) {
    if (strstr(line, "\\"done\\":true")) { fprintf(stderr, "got done\\n"); break; }
    char *legal = strstr(line, "\\"legal_actions\\":[");
    char *turn = strstr(line, "\\"turn\\":");
    char *seat = strstr(line, "\\"seat\\":");
    fprintf(stderr, "turn %d seat %d\\n", turn ? atoi(turn + 7) : -1, seat ? atoi(seat + 7) : -1);
    printf("{\\"action\\": %d}\\n", legal ? atoi(legal + 17) : 0);
    fflush(stdout);
  }
  return 0;
}
`;

const faulty = (fault: string) => `import json, sys, time, os
for line in sys.stdin:
    m = json.loads(line)
    if m.get("done"):
        break
    sys.stderr.write("turn %d\\n" % m["turn"])
    if m["turn"] >= 3:
        ${fault}
    print(json.dumps({"action": m["observation"]["legal_actions"][0]}), flush=True)
`;

let boss: Built;
let cPlayer: Built;

/** One game of connect-four in the wall, seat 1 first, at this file's limits. */
const playConnectFour = (seed: number, seats: string[], programs: Built[]) =>
  playGameInWall({ engine: connectFour, seed, seats, programs, limits, memoryMb: 128 });

beforeAll(async () => {
  expect((await sandboxRuntime()).launcher.isolation).toBe('bwrap');
  boss = await build('main.py', connectFour.boss.source);
  cPlayer = await build('main.c', C_FIRST_LEGAL);
});

afterAll(async () => {
  await Promise.all(built.map((program) => program.folder.remove()));
});

describe('games in the wall', () => {
  it('a Python program and a C program play a full game; the record re-simulates', async () => {
    const game = await playConnectFour(3, ['python', 'c'], [boss, cPlayer]);
    expect(game.faults).toEqual([]);
    expect(game.record.statuses).toEqual(['done', 'done']);
    // The boss beats a player that always takes the first legal column.
    expect(game.record.rewards).toEqual([1, -1]);
    expect(resimulate(connectFour, game.record, limits.maxTurns)).toEqual(game.record);
    // Seat 2 got only its own turns (even ones), numbered from 1, with its own seat, then the end line.
    const lines = game.logs[1].trim().split('\n');
    expect(lines[0]).toBe('turn 2 seat 2');
    expect(lines.slice(0, -1).every((line) => /^turn \d*[02468] seat 2$/.test(line))).toBe(true);
    expect(lines[lines.length - 1]).toBe('got done');
  });

  it("a match's next game takes its players' sandboxes launched ahead; its last game leaves none behind", async () => {
    const { launcher, slots } = await sandboxRuntime();
    await launcher.warmed();
    const before = launcher.warmCount();
    const game = (seed: number, followed: boolean) =>
      playGameInWall({
        engine: connectFour,
        seed,
        seats: ['python', 'c'],
        programs: [boss, cPlayer],
        limits,
        memoryMb: 128,
        followed,
      });
    launcher.setWarmCapacity(before + 2);
    try {
      // A game another follows: each program's sandbox for the next game is launched while it plays.
      const first = await game(5, true);
      expect(first.faults).toEqual([]);
      await launcher.warmed();
      expect(launcher.warmCount()).toBe(before + 2);
      // The next game takes both (warm, each waiting for its go byte) and plays as the first did.
      const last = await game(5, false);
      expect(last.faults).toEqual([]);
      expect(last.record).toEqual(first.record);
      await launcher.warmed();
      expect(launcher.warmCount()).toBe(before);
    } finally {
      launcher.setWarmCapacity(slots.size); // the runtime's own (one per judging slot)
    }
  });

  it.each([
    ['prints garbage', 'print("garbage", flush=True); continue', 'invalid', 3],
    ['sleeps past its bank', 'time.sleep(60)', 'timeout', 3],
    ['burns CPU past its bank', 'exec("while True: pass")', 'timeout', 3],
    ['crashes', 'os.abort()', 'error', 3],
  ])(
    'a program that %s loses the game it faults in; the game completes',
    async (_what, fault, status, turn) => {
      const bad = await build('main.py', faulty(fault));
      const game = await playConnectFour(4, ['bad', 'boss'], [bad, boss]);
      expect(game.record.statuses).toEqual([status, 'done']);
      expect(game.record.rewards).toEqual([-1, 1]);
      expect(game.faults).toEqual([expect.objectContaining({ seat: 1, turn, fault: status })]);
      expect(game.logs[0]).toMatch(new RegExp(`^turn ${turn}$`, 'm'));
    },
  );

  it('a program whose forked child burns CPU while it only sleeps loses at that turn: every process of the run is charged', async () => {
    // The parent answers only once its child has used more CPU than the turn allows with the whole
    // bank (500 ms), read from /proc: a fixed sleep left the child too little CPU on a busy machine
    // (load 42), so the turn was never overrun. Either the host's poll sees the cgroup's CPU pass the
    // budget, or the answer comes and the CPU read after the freeze overdraws the bank; only a
    // machine that gives the child under 600 ms in the turn's 2 s wall cap ends it by the cap.
    const bad = await build(
      'main.py',
      `import json, os, sys, time
def cpu_s(pid):
    fields = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
for line in sys.stdin:
    m = json.loads(line)
    if m.get("done"):
        break
    sys.stderr.write("turn %d\\n" % m["turn"])
    if m["turn"] >= 3:
        child = os.fork()
        if child == 0:
            while True:
                pass
        while cpu_s(child) < 0.6:
            time.sleep(0.01)
    print(json.dumps({"action": m["observation"]["legal_actions"][0]}), flush=True)
`,
    );
    const game = await playConnectFour(4, ['bad', 'boss'], [bad, boss]);
    expect(game.record.statuses).toEqual(['timeout', 'done']);
    expect(game.record.rewards).toEqual([-1, 1]);
    expect(game.faults).toEqual([
      {
        seat: 1,
        turn: 3,
        fault: 'timeout',
        reason: expect.stringMatching(
          /^(used more than \d+ ms of CPU in one turn|used \d+ ms of CPU: more than|no answer within the turn's wall cap)/,
        ),
      },
    ]);
    expect(game.logs[0]).toMatch(/^turn 3$/m);
  });

  it('a hostile player gets nothing: no network, no host files, no sight of or write to its opponent', async () => {
    // Probes at its first turn, reports on stderr, then plays legal moves; its opponent is the C player.
    const hostile = await build(
      'main.py',
      `import json, os, socket, sys
found = {}
def probe(name, fn):
    try:
        found[name] = ["ok", str(fn())[:200]]
    except Exception as e:
        found[name] = ["denied", type(e).__name__]
def others():
    seen = {}
    for pid in os.listdir("/proc"):
        if pid.isdigit() and int(pid) != os.getpid():
            try:
                seen[pid] = open("/proc/%s/cmdline" % pid, "rb").read().replace(b"\\0", b" ").decode()
            except Exception as e:
                seen[pid] = type(e).__name__
    return seen
def write_others():
    wrote = []
    for pid in os.listdir("/proc"):
        if pid.isdigit() and int(pid) != os.getpid():
            for fd in ("0", "1"):
                try:
                    with open("/proc/%s/fd/%s" % (pid, fd), "w") as f:
                        f.write('{"action": 0}\\n')
                    wrote.append(pid + "/" + fd)
                except Exception:
                    pass
    if wrote:
        return wrote
    raise PermissionError("nothing written")
probe("tcp postgres", lambda: socket.create_connection(("127.0.0.1", 5432), timeout=1))
probe("tcp outside", lambda: socket.create_connection(("93.184.216.34", 80), timeout=1))
probe("read /etc/shadow", lambda: open("/etc/shadow").read(10))
probe("list host repo", lambda: os.listdir(${JSON.stringify(process.cwd())}))
probe("write host tmp", lambda: open("/var/tmp/game-wall-hostile", "w").write("x"))
probe("write opponent", write_others)
sys.stderr.write("PROBES " + json.dumps({"found": found, "others": others()}) + "\\n")
sys.stderr.flush()
for line in sys.stdin:
    m = json.loads(line)
    if m.get("done"):
        break
    print(json.dumps({"action": m["observation"]["legal_actions"][0]}), flush=True)
`,
    );
    const game = await playConnectFour(6, ['hostile', 'c'], [hostile, cPlayer]);
    const report = JSON.parse(/^PROBES (.*)$/m.exec(game.logs[0])![1]) as {
      found: Record<string, [string, string]>;
      others: Record<string, string>;
    };
    for (const [name, [outcome]] of Object.entries(report.found))
      expect([name, outcome]).toEqual([name, 'denied']);
    // Its own sandbox holds only its own processes: nothing of the C player's is even visible.
    expect(Object.values(report.others).filter((cmd) => !/python|bwrap/.test(cmd))).toEqual([]);
    // The game is the one the moves make: the opponent's every line came from the referee.
    expect(game.record.statuses).toEqual(['done', 'done']);
    expect(resimulate(connectFour, game.record, limits.maxTurns)).toEqual(game.record);
    expect(game.logs[1]).not.toMatch(/action/);
  });

  it.each(['python', 'c'] as const)(
    'the verdict forger (%s) as a player gets nothing: it cannot answer for itself or end the game',
    async (language) => {
      const source = forgerSource(language, '{"action": 0}\n');
      const forger = await build(source.path, source.content);
      const game = await playConnectFour(5, ['forger', 'boss'], [forger, boss]);
      expect(['timeout', 'error']).toContain(game.record.statuses[0]);
      expect(game.record.rewards).toEqual([-1, 1]);
      expect(game.record.steps).toHaveLength(2);
      expect(game.faults[0]).toMatchObject({ seat: 1, turn: 1 });
    },
  );
});

describe('a match for the arena (src/domain/games)', () => {
  it('plays games_per_match games with alternating seats and server-chosen seeds; totals are the sums of rewards', async () => {
    const result = await playGameMatch({
      judge: {
        kind: 'game',
        game: 'connect-four',
        turn_ms: 200,
        bank_ms: 300,
        memory_mb: 128,
        games_per_match: 2,
      },
      matchId: 'match-1',
      participants: [
        {
          agentId: 'agent-python',
          program: { content: '', files: [{ path: 'main.py', content: connectFour.boss.source }] },
        },
        { agentId: 'agent-c', program: { content: '', files: [{ path: 'main.c', content: C_FIRST_LEGAL }] } },
      ],
    });
    expect(result.replay).toMatchObject({ schema_version: 1, game: 'connect-four', match_id: 'match-1' });
    expect(result.replay.games.map((game) => game.seats)).toEqual([
      ['agent-python', 'agent-c'],
      ['agent-c', 'agent-python'],
    ]);
    for (const game of result.replay.games) {
      expect(Number.isInteger(game.seed)).toBe(true);
      expect(resimulate(connectFour, game, 42)).toEqual(game);
    }
    const [python, c] = result.participants;
    expect(python.total).toBe(result.replay.games[0].rewards[0] + result.replay.games[1].rewards[1]);
    expect(c.total).toBe(result.replay.games[0].rewards[1] + result.replay.games[1].rewards[0]);
    expect(python.total).toBe(2);
    // The C player's log: in game 1 it sat in seat 2, in game 2 in seat 1; every line it got was its own.
    expect(c.logs[0]).toMatch(/^turn 2 seat 2$/m);
    expect(c.logs[0]).not.toMatch(/seat 1$/m);
    expect(c.logs[1]).toMatch(/^turn 1 seat 1$/m);
    expect(c.logs[1]).not.toMatch(/seat 2$/m);
  });
});

describe('the game judge (self-play validation)', () => {
  const config = judgeConfigSchema.parse({ kind: 'game', game: 'connect-four', turn_ms: 200, bank_ms: 300 });
  if (config.kind !== 'game') throw new Error('not a game judge');

  it('scores 100 for a program that finishes a game against itself', async () => {
    const outcome = await runGameJudge(config, {
      content: '',
      files: [{ path: 'main.py', content: connectFour.boss.source }],
    });
    expect(outcome).toMatchObject({ score: 100, resultState: 'scored' });
    expect(outcome.details).toMatchObject({
      game: 'connect-four',
      verdict: 'accepted',
      statuses: ['done', 'done'],
    });
  });

  it('scores 0 naming the invalid action, its turn and the player\u2019s stderr', async () => {
    const outcome = await runGameJudge(config, {
      content: '',
      files: [
        {
          path: 'main.py',
          content:
            'import sys\nsys.stderr.write("about to fail\\n")\nprint("nope", flush=True)\nsys.stdin.readline()\n',
        },
      ],
    });
    expect(outcome.score).toBe(0);
    expect(outcome.details).toMatchObject({
      verdict: 'invalid',
      reason: expect.stringMatching(/^invalid action at turn 1 \(seat 1\)/),
      stderr_excerpt: expect.stringContaining('about to fail'),
    });
  });

  it('scores 0 for a compile error, with the compiler\u2019s words', async () => {
    const outcome = await runGameJudge(config, {
      content: '',
      files: [{ path: 'main.c', content: 'int main( {' }],
    });
    expect(outcome.score).toBe(0);
    expect(outcome.details).toMatchObject({
      verdict: 'compile_error',
      reason: expect.stringMatching(/^compile error/),
    });
    expect(String((outcome.details as { compile_output: string }).compile_output)).toMatch(/error/);
  });
});
