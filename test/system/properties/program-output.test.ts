/**
 * Whatever a program writes is data (issue 37; DESIGN, "Fifth-round extensions"), property-based:
 * random bytes and random JSON shapes (deep nesting, lone surrogates, NUL, huge numbers, invalid
 * UTF-8, very long lines) fed to the REAL program judge (in the wall) as a program's stdout and
 * stderr, to the REAL game judge as a player's action and stderr, and to the REAL referee (through
 * the real line reader and stderr log, players scripted in memory) as actions in whole matches.
 * Properties:
 *   - every judging resolves `scored` (never a thrown error, never `failed`), with the verdict the
 *     bytes call for (a correct stdout whatever stderr holds is accepted; stdout with anything but
 *     whitespace after it is a wrong answer), and excerpts that say when bytes were replaced;
 *   - every match completes (each game refereed once, every seat's final status, within the
 *     match's wall cap), its replay re-simulates, and its logs say when bytes were replaced;
 *   - what would be stored (the breakdown, the summary, the replay, the logs) is accepted by
 *     PostgreSQL as jsonb and text, and the sanitizer had nothing left to replace in it.
 *
 * Reproduce a failure with the printed seed: FC_SEED=<seed> npx jest test/system/properties/program-output.
 * FC_RUNS=<n> changes the number of matches (default 60).
 */
import fc from 'fast-check';
import { Client } from 'pg';
import { judgeConfigSchema } from '../../../src/judging/config';
import { runGameJudge } from '../../../src/judging/game-judge';
import { findGame } from '../../../src/judging/games/catalog';
import type { GameEngine } from '../../../src/judging/games/engine';
import { resimulate } from '../../../src/judging/games/game-run';
import { AnswerReader, BoundedLog } from '../../../src/judging/games/line-reader';
import { playMatch } from '../../../src/judging/games/match';
import type { PlayerChannel, TurnResult } from '../../../src/judging/games/player';
import { refereeGame } from '../../../src/judging/games/referee';
import { runProgramJudge } from '../../../src/judging/program-judge';
import { sandboxRuntime } from '../../../src/judging/sandbox/sandbox-runtime';
import type { JudgeOutcome } from '../../../src/judging/types';
import { matchWallCapMs, participantLogs } from '../../../src/domain/games/rules';
import { REPLACED_NOTE, sanitizeJson, sanitizeText, storableJson } from '../../../src/lib/storable-text';
import { testEnvironment } from '../../setup/test-env';
import { unicodeString } from '../../helpers/arbitraries';

const SEED = Number(process.env.FC_SEED ?? Math.floor(Math.random() * 2 ** 31));
const RUNS = Number(process.env.FC_RUNS ?? 60);
const seedNote = `(seed ${SEED}: FC_SEED=${SEED} npx jest test/system/properties/program-output)`;

jest.setTimeout(240_000);

// ---- PostgreSQL: what would be stored must be accepted as it is ---------------------------------

let pg: Client;
beforeAll(async () => {
  // The server's own `postgres` database: a cast needs no table, so no rows of anyone's are touched.
  pg = new Client({ connectionString: testEnvironment().DATABASE_URL.replace(/\/[^/]+$/, '/postgres') });
  await pg.connect();
});
afterAll(async () => {
  await pg?.end();
});

/** PostgreSQL's own answer: jsonb as stored (parsed back), or the error it refused the value with. */
async function storedJson(json: string): Promise<unknown> {
  const { rows } = await pg.query<{ value: unknown }>('SELECT $1::jsonb AS value', [json]);
  return rows[0].value;
}
async function storedText(text: string): Promise<string> {
  const { rows } = await pg.query<{ value: string }>('SELECT $1::text AS value', [text]);
  return rows[0].value;
}

/** Both halves of "storable": the sanitizer finds nothing to replace, and PostgreSQL accepts it. */
async function expectStorable(value: unknown, what: string): Promise<unknown> {
  const sanitized = sanitizeJson(value);
  expect({ what, replaced: sanitized.replaced }).toEqual({ what, replaced: false });
  return storedJson(sanitized.value);
}

// ---- what a program writes ---------------------------------------------------------------------

const utf8 = (text: string) => new Uint8Array(Buffer.from(text, 'utf8'));
const strict = new TextDecoder('utf-8', { fatal: true });

/** Bytes that are valid UTF-8 without NUL (what needs no replacing); anything else is flagged. */
function cleanText(bytes: Uint8Array): boolean {
  try {
    strict.decode(bytes);
  } catch {
    return false;
  }
  return !bytes.includes(0);
}

const NASTY_BYTES: readonly number[][] = [
  [0x00],
  [0x61, 0x00, 0x62],
  [0xff],
  [0xfe, 0xff],
  [0xc0, 0x80], // overlong NUL
  [0xed, 0xa0, 0x80], // an encoded surrogate
  [0xf4, 0x90, 0x80, 0x80], // beyond U+10FFFF
  [0xe6, 0x97], // truncated
  [0x80, 0x80],
  [0xef, 0xbb, 0xbf], // BOM
  [0xf0, 0x9f, 0x98, 0x80], // a valid emoji
];

/** JSON text of every shape that has broken a reader: deep, surrogates, NUL, huge numbers, long. */
const jsonShape: fc.Arbitrary<string> = fc.oneof(
  fc.integer({ min: 60, max: 8_000 }).map((depth) => `${'['.repeat(depth)}${']'.repeat(depth)}`),
  fc.integer({ min: 60, max: 3_000 }).map((depth) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`),
  fc.constantFrom(
    '"\\ud800"',
    '"x\\udfff"',
    '{"\\ud83d": 1}',
    '["\\ude00\\ud83d"]',
    '"a\\u0000b"',
    '{"\\u0000": 0}',
    '1e999',
    '-1e999',
    '[1e308, -1e400]',
    '123456789012345678901234567890123456789',
    '5e-324',
    '-0',
    '"\\ud83d\\ude00"',
  ),
  fc.jsonValue({ maxDepth: 6 }).map((value) => JSON.stringify(value)),
  unicodeString(0, 40).map((text) => JSON.stringify(text)),
);

/** Bytes a program may write: random, nasty sequences, JSON shapes, very long lines, all mixed. */
const outputPiece: fc.Arbitrary<Uint8Array> = fc.oneof(
  { weight: 3, arbitrary: fc.uint8Array({ maxLength: 200 }) },
  { weight: 3, arbitrary: fc.constantFrom(...NASTY_BYTES).map((bytes) => new Uint8Array(bytes)) },
  { weight: 2, arbitrary: jsonShape.map(utf8) },
  { weight: 2, arbitrary: unicodeString(0, 40).map(utf8) },
  { weight: 1, arbitrary: fc.integer({ min: 10_000, max: 40_000 }).map((n) => utf8('x'.repeat(n))) },
);
const programOutput: fc.Arbitrary<Uint8Array> = fc
  .array(outputPiece, { minLength: 1, maxLength: 5 })
  .map((pieces) => new Uint8Array(Buffer.concat(pieces)));
/** Under every stderr bound (64 KB): whatever is flagged is the program's, not a cut's. */
const smallOutput = programOutput.filter((bytes) => bytes.length < 60_000);

// ---- the program judge, in the wall ------------------------------------------------------------

/** A Python program: test i's stdin is `i`; it writes payload i to stderr, `ok` to stdout, and on odd tests payload i after it. */
function programWriting(payloads: readonly Uint8Array[]): string {
  const literals = payloads.map((bytes) => `"${Buffer.from(bytes).toString('base64')}"`).join(',\n');
  return `import base64, sys
P = [base64.b64decode(x) for x in [
${literals}
]]
i = int(sys.stdin.readline())
sys.stderr.buffer.write(P[i])
sys.stderr.buffer.flush()
sys.stdout.buffer.write(b"ok\\n")
if i % 2 == 1:
    sys.stdout.buffer.write(P[i])
sys.stdout.buffer.flush()
`;
}

interface TestDetail {
  verdict: string;
  stdout_excerpt: string;
  stderr_excerpt: string;
}

const ASCII_WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d, 0x0b, 0x0c]);

describe(`whatever a program writes is judged and storable ${seedNote}`, () => {
  beforeAll(async () => {
    expect((await sandboxRuntime()).launcher.isolation).toBe('bwrap');
  });

  it('the program judge: random bytes on stdout and stderr are judged (scored), with the verdict the bytes call for', async () => {
    const TESTS = 24;
    // stderr stays under its 64 KB bound here: a cut there is the bound's, checked elsewhere.
    const payloads = fc.sample(smallOutput, { seed: SEED, numRuns: TESTS });
    const config = judgeConfigSchema.parse({
      kind: 'program',
      time_limit_ms: 2_000,
      memory_mb: 128,
      tests: payloads.map((_, index) => ({
        name: `bytes ${index}`,
        stdin: `${index}\n`,
        expected_stdout: 'ok\n',
      })),
    });
    if (config.kind !== 'program') throw new Error('not a program judge');
    const outcome: JudgeOutcome = await runProgramJudge(config, {
      content: '',
      files: [{ path: 'main.py', content: programWriting(payloads) }],
    });
    expect(outcome.resultState).toBe('scored');
    const tests = (outcome.details as { tests: TestDetail[] }).tests;
    expect(tests).toHaveLength(TESTS);
    payloads.forEach((payload, index) => {
      const test = tests[index];
      const label = { index, payload: Buffer.from(payload).toString('base64').slice(0, 200) };
      if (index % 2 === 0) {
        // A correct answer, whatever its stderr holds.
        expect({ ...label, verdict: test.verdict }).toEqual({ ...label, verdict: 'accepted' });
      } else if (payload.some((byte) => !ASCII_WHITESPACE.has(byte))) {
        expect({ ...label, verdict: test.verdict }).toEqual({ ...label, verdict: 'wrong_answer' });
      }
      const stdout = index % 2 === 1 ? Buffer.concat([Buffer.from('ok\n'), payload]) : Buffer.from('ok\n');
      expect({ ...label, stdoutNote: test.stdout_excerpt.endsWith(REPLACED_NOTE) }).toEqual({
        ...label,
        stdoutNote: !cleanText(stdout),
      });
      expect({ ...label, stderrNote: test.stderr_excerpt.endsWith(REPLACED_NOTE) }).toEqual({
        ...label,
        stderrNote: !cleanText(payload),
      });
    });
    const stored = await expectStorable(outcome, 'the breakdown');
    expect((stored as { score: number }).score).toBe(outcome.score);
    expect(await storedText(sanitizeText(outcome.summary).value)).toBe(outcome.summary);
  });

  it('the game judge: a program whose first answer and stderr are random bytes is judged (scored)', async () => {
    const [stderr, answer] = fc.sample(fc.tuple(smallOutput, programOutput), { seed: SEED, numRuns: 1 })[0];
    const line = Buffer.from(answer.filter((byte) => byte !== 0x0a)).toString('base64');
    const source = `import base64, sys
sys.stderr.buffer.write(base64.b64decode("${Buffer.from(stderr).toString('base64')}"))
sys.stderr.buffer.flush()
for raw in sys.stdin:
    if '"done"' in raw:
        break
    sys.stdout.buffer.write(base64.b64decode("${line}") + b"\\n")
    sys.stdout.buffer.flush()
`;
    const config = judgeConfigSchema.parse({ kind: 'game', game: 'connect-four', turn_ms: 500 });
    if (config.kind !== 'game') throw new Error('not a game judge');
    const outcome = await runGameJudge(config, { content: '', files: [{ path: 'bot.py', content: source }] });
    expect(outcome.resultState).toBe('scored');
    // A line that is not an action (almost all of them) loses at once; the breakdown says why.
    expect([0, 100]).toContain(outcome.score);
    const details = outcome.details as { verdict: string; stderr_excerpt?: string };
    if (outcome.score === 0) {
      expect(details.verdict).toMatch(/^(invalid|timeout|error)$/);
      expect((details.stderr_excerpt ?? '').endsWith(REPLACED_NOTE)).toBe(!cleanText(stderr));
    }
    await expectStorable(outcome, 'the validation breakdown');
  });
});

// ---- the referee, players scripted in memory ---------------------------------------------------

/** What a scripted player does on one of its turns. */
type Move =
  | { kind: 'legal' }
  | { kind: 'bytes'; bytes: Uint8Array }
  | { kind: 'legal-with-junk'; junk: string }
  | { kind: 'silent' }
  | { kind: 'crash' };

const hostileLine: fc.Arbitrary<Uint8Array> = fc.oneof(
  { weight: 4, arbitrary: jsonShape.map((action) => utf8(`{"action": ${action}}`)) },
  { weight: 2, arbitrary: programOutput },
  {
    weight: 1,
    // A JSON string holding raw bytes: NUL (not JSON), invalid UTF-8 (decoded to U+FFFD: illegal).
    arbitrary: fc
      .constantFrom(...NASTY_BYTES)
      .map((bytes) => new Uint8Array(Buffer.concat([utf8('{"action": "'), Buffer.from(bytes), utf8('"}')]))),
  },
  // Around the 64 KB line limit.
  {
    weight: 1,
    arbitrary: fc.integer({ min: 65_400, max: 66_000 }).map((n) => utf8(`{"action": "${'x'.repeat(n)}"}`)),
  },
);

const move: fc.Arbitrary<Move> = fc.oneof(
  { weight: 6, arbitrary: fc.constant<Move>({ kind: 'legal' }) },
  { weight: 3, arbitrary: hostileLine.map((bytes): Move => ({ kind: 'bytes', bytes })) },
  { weight: 1, arbitrary: jsonShape.map((junk): Move => ({ kind: 'legal-with-junk', junk })) },
  { weight: 1, arbitrary: fc.constantFrom<Move>({ kind: 'silent' }, { kind: 'crash' }) },
);

interface ScriptedPlayer extends PlayerChannel {
  readonly stderrBytes: Uint8Array;
}

/**
 * A player in memory that answers through the real AnswerReader (bytes in, a line or `overlong`
 * out, as from a process's stdout) and writes its stderr through the real BoundedLog.
 */
function scriptedPlayer(moves: readonly Move[], stderrBytes: Uint8Array): ScriptedPlayer {
  const log = new BoundedLog();
  // Written as the program starts, so a seat that never gets a turn has its stderr too.
  log.push(Buffer.from(stderrBytes));
  let turns = 0;
  return {
    stderrBytes,
    async turn(line): Promise<TurnResult> {
      const next = moves[turns++] ?? { kind: 'legal' };
      if (next.kind === 'silent')
        return { kind: 'timeout', cpuMs: 1, reason: "no answer within the turn's wall cap" };
      if (next.kind === 'crash')
        return { kind: 'crash', reason: 'the program exited with code 1 before answering' };
      const legal = (JSON.parse(line) as { observation: { legal_actions: unknown[] } }).observation
        .legal_actions[0];
      const bytes =
        next.kind === 'bytes'
          ? next.bytes
          : next.kind === 'legal-with-junk'
            ? utf8(`{"junk": ${next.junk}, "action": ${JSON.stringify(legal)}}`)
            : utf8(JSON.stringify({ action: legal }));
      const reader = new AnswerReader();
      const answer = reader.expect();
      // In two chunks, then the end of the line (the program's newline, or a later one).
      const half = Math.floor(bytes.length / 2);
      reader.push(Buffer.from(bytes.subarray(0, half)));
      reader.push(Buffer.from(bytes.subarray(half)));
      reader.push(Buffer.from('\n'));
      const got = await answer;
      return 'overlong' in got ? { kind: 'overlong' } : { kind: 'line', text: got.line, cpuMs: 1 };
    },
    close: async () => {},
    stderr: () => log.text(),
    kill: () => {},
  };
}

const ENGINES: Readonly<Record<string, GameEngine>> = {
  'connect-four': findGame('connect-four')!,
  'light-cycles': findGame('light-cycles')!,
};

const matchCase = fc
  .record({
    game: fc.constantFrom(...Object.keys(ENGINES)),
    extraSeats: fc.nat({ max: 2 }),
    games: fc.integer({ min: 1, max: 3 }),
    seeds: fc.array(fc.nat({ max: 2 ** 31 - 1 }), { minLength: 3, maxLength: 3 }),
    scripts: fc.array(
      fc.record({
        moves: fc.array(move, { maxLength: 12 }),
        // Under the 64 KB log bound: a cut there is the bound's (test/unit/judging/games/line-reader).
        stderr: fc.oneof(smallOutput, fc.constant(new Uint8Array())),
      }),
      { minLength: 12, maxLength: 12 },
    ),
  })
  .map((c) => {
    const { players } = ENGINES[c.game];
    return { ...c, players: Math.min(players.max, players.min + c.extraSeats) };
  });

describe(`the referee facing random actions and stderr ${seedNote}`, () => {
  it('every match completes within its wall cap; its replay re-simulates; replay and logs are storable', async () => {
    const limits = { turnMs: 100, bankMs: 1_000, maxTurns: 30 };
    await fc.assert(
      fc.asyncProperty(matchCase, async (c) => {
        const started = performance.now();
        const engine = ENGINES[c.game];
        const participants = Array.from({ length: c.players }, (_, index) => `agent-${index + 1}`);
        const seeds = c.seeds.slice(0, c.games);
        const made: ScriptedPlayer[][] = [];
        let refereed = 0;
        const result = await playMatch({
          engine,
          matchId: 'property',
          participants,
          seeds,
          limits,
          players: (order, game) => {
            // Each participant plays each game with its own script (participants × games of them).
            const players = order.map((participant) => {
              const script = c.scripts[(game * c.players + participant) % c.scripts.length];
              return scriptedPlayer(script.moves, script.stderr);
            });
            made.push(players);
            return players;
          },
          play: async (options) => {
            refereed += 1;
            return refereeGame(options);
          },
        });
        // Each game refereed once (nothing is attempted again), every seat with its final status.
        expect(refereed).toBe(seeds.length);
        expect(result.replay.games).toHaveLength(seeds.length);
        for (const game of result.replay.games) {
          expect(game.rewards).toHaveLength(c.players);
          for (const status of game.statuses)
            expect(['done', 'invalid', 'timeout', 'error']).toContain(status);
        }
        // Within the match's wall cap (src/domain/games/rules.ts), which the deadline counts from.
        const capMs = matchWallCapMs(
          { turn_ms: limits.turnMs, bank_ms: limits.bankMs, games_per_match: seeds.length },
          c.players,
          limits.maxTurns,
        );
        expect(performance.now() - started).toBeLessThan(capMs);

        // The replay as stored: accepted by jsonb, and what comes back re-simulates to itself.
        const stored = (await expectStorable(result.replay, 'the replay')) as typeof result.replay;
        for (const game of stored.games) expect(resimulate(engine, game, limits.maxTurns)).toEqual(game);

        // Each participant's logs as stored; a log whose bytes were replaced says so.
        for (const [index, participant] of result.participants.entries()) {
          const logs = participantLogs(participant, index, c.players);
          await expectStorable(logs, `the logs of participant ${index + 1}`);
          logs.forEach((log, game) => {
            const player = made[game][log.seat - 1];
            expect({ game, replacedNote: log.stderr.includes(REPLACED_NOTE) }).toEqual({
              game,
              replacedNote: !cleanText(player.stderrBytes),
            });
          });
        }
        // storableJson is what the match step hands the insert: the same text.
        expect(storableJson(result.replay)).toBe(JSON.stringify(result.replay));
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
  });
});
