/**
 * The public part of a judge (`judge_public` on GET /api/v1/challenges/{id}): what a competitor
 * needs to take part, never what would give the judging away.
 *
 * - kind, the languages a submission may be written in, the limits a run gets;
 * - visible tests (program: stdin and expected stdout; tests: export, args, expected), each
 *   datum over PUBLIC_TEST_DATA_LIMIT bytes cut (and `truncated: true`);
 * - visible rubric criteria: name, weight, description and the kind of check, not its value
 *   (the value is the answer);
 * - hidden tests and criteria only as a count; an http judge's url and headers never.
 *
 * A pure function over the stored config. It reads the documented shapes (DESIGN.md "Program
 * judge") defensively instead of parsing with the admin schema, so that a stored config from
 * another version of the schema still renders and nothing here can throw.
 */

/** Visible test data over this many UTF-8 bytes is cut in public views (DESIGN.md). */
export const PUBLIC_TEST_DATA_LIMIT = 4096;

/** The program judge's language ids (DESIGN.md), the default when a config names none. */
export const PROGRAM_LANGUAGE_IDS = [
  'python',
  'c',
  'cpp',
  'go',
  'rust',
  'java',
  'javascript',
  'typescript',
] as const;

/** The `tests` judge loads JavaScript or TypeScript modules (src/judging/sandbox/prepare-submission.ts). */
const TESTS_JUDGE_LANGUAGES = ['javascript', 'typescript'];

/** Defaults the admin schemas apply (src/judging/config.ts; DESIGN.md for `program`). */
const DEFAULTS = {
  tests: { time_limit_ms: 2_000, memory_mb: 64 },
  program: { time_limit_ms: 2_000, memory_mb: 256, compare: 'lines', float_tolerance: 1e-6 },
  game: { turn_ms: 1_000, bank_ms: 10_000, memory_mb: 256, games_per_match: 2 },
} as const;

export interface PublicProgramTest {
  name: string;
  weight: number;
  stdin: string;
  expected_stdout: string;
  truncated: boolean;
}

export interface PublicFunctionTest {
  name: string;
  weight: number;
  export: string;
  /** null when its JSON is over the limit (then `truncated`). */
  args: unknown[] | null;
  expected: unknown;
  truncated: boolean;
}

export interface PublicCriterion {
  name: string;
  weight: number;
  description: string | null;
  check: string | null;
}

export interface JudgePublic {
  kind: string;
  /** Language ids a submission may use; null: any text (rubric, http). */
  languages: string[] | null;
  /** The file a `tests` judge loads (its config's `entry`); null when none is configured. */
  entry: string | null;
  limits: {
    time_limit_ms: number;
    memory_mb: number;
    compare?: string;
    float_tolerance?: number;
    /** `game` judge: CPU per turn (also time_limit_ms), the bank, games per match, the turn cap. */
    turn_ms?: number;
    bank_ms?: number;
    games_per_match?: number;
    max_turns?: number | null;
  } | null;
  /** `game` judge: the game's id (GET /api/v1/games). */
  game?: string;
  tests: Array<PublicProgramTest | PublicFunctionTest>;
  hidden_test_count: number;
  criteria: PublicCriterion[];
  hidden_criteria_count: number;
}

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const asArray = (v: unknown): Json[] => (Array.isArray(v) ? v.filter(isObject) : []);
const asNumber = (v: unknown, fallback: number): number =>
  typeof v === 'number' && Number.isFinite(v) ? v : fallback;
const asString = (v: unknown): string => (typeof v === 'string' ? v : '');

/** The first `limit` bytes of `text` as UTF-8, never splitting a character. */
export function cutUtf8(text: string, limit = PUBLIC_TEST_DATA_LIMIT): { text: string; cut: boolean } {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= limit) return { text, cut: false };
  let end = limit;
  // Back off continuation bytes (10xxxxxx) so the cut lands on a character boundary.
  while (end > 0 && (bytes[end] & 0xc0) === 0x80) end -= 1;
  return { text: bytes.subarray(0, end).toString('utf8'), cut: true };
}

/**
 * Private tests and criteria (fair contests) leave no trace here, not even in the hidden counts:
 * they exist only for private_score, which competitors learn at completion.
 */
const notPrivate = (items: Json[]) => items.filter((item) => item.private !== true);
const visible = (items: Json[]) => notPrivate(items).filter((item) => item.hidden !== true);

function programTest(test: Json): PublicProgramTest {
  const stdin = cutUtf8(asString(test.stdin));
  const expected = cutUtf8(asString(test.expected_stdout));
  return {
    name: asString(test.name),
    weight: asNumber(test.weight, 1),
    stdin: stdin.text,
    expected_stdout: expected.text,
    truncated: stdin.cut || expected.cut,
  };
}

function functionTest(test: Json): PublicFunctionTest {
  const args = Array.isArray(test.args) ? test.args : [];
  const fits = (value: unknown) =>
    Buffer.byteLength(JSON.stringify(value ?? null), 'utf8') <= PUBLIC_TEST_DATA_LIMIT;
  const argsFit = fits(args);
  const expectedFits = fits(test.expected);
  return {
    name: asString(test.name),
    weight: asNumber(test.weight, 1),
    export: asString(test.export),
    args: argsFit ? args : null,
    expected: expectedFits ? (test.expected ?? null) : null,
    truncated: !argsFit || !expectedFits,
  };
}

export function judgePublicView(judge: unknown): JudgePublic {
  const config: Json = isObject(judge) ? judge : {};
  const kind = asString(config.kind) || 'unknown';
  const base: JudgePublic = {
    kind,
    languages: null,
    entry: null,
    limits: null,
    tests: [],
    hidden_test_count: 0,
    criteria: [],
    hidden_criteria_count: 0,
  };
  const tests = notPrivate(asArray(config.tests));
  switch (kind) {
    case 'program': {
      const languages = Array.isArray(config.languages)
        ? config.languages.filter((l): l is string => typeof l === 'string')
        : [];
      return {
        ...base,
        languages: languages.length > 0 ? languages : [...PROGRAM_LANGUAGE_IDS],
        limits: {
          time_limit_ms: asNumber(config.time_limit_ms, DEFAULTS.program.time_limit_ms),
          memory_mb: asNumber(config.memory_mb, DEFAULTS.program.memory_mb),
          compare: asString(config.compare) || DEFAULTS.program.compare,
          float_tolerance: asNumber(config.float_tolerance, DEFAULTS.program.float_tolerance),
        },
        tests: visible(tests).map(programTest),
        hidden_test_count: tests.length - visible(tests).length,
      };
    }
    case 'game': {
      const languages = Array.isArray(config.languages)
        ? config.languages.filter((l): l is string => typeof l === 'string')
        : [];
      const turnMs = asNumber(config.turn_ms, DEFAULTS.game.turn_ms);
      return {
        ...base,
        game: asString(config.game),
        languages: languages.length > 0 ? languages : [...PROGRAM_LANGUAGE_IDS],
        limits: {
          time_limit_ms: turnMs,
          memory_mb: asNumber(config.memory_mb, DEFAULTS.game.memory_mb),
          turn_ms: turnMs,
          bank_ms: asNumber(config.bank_ms, DEFAULTS.game.bank_ms),
          games_per_match: asNumber(config.games_per_match, DEFAULTS.game.games_per_match),
          max_turns: typeof config.max_turns === 'number' ? config.max_turns : null,
        },
      };
    }
    case 'tests':
      return {
        ...base,
        languages: [...TESTS_JUDGE_LANGUAGES],
        entry: typeof config.entry === 'string' && config.entry !== '' ? config.entry : null,
        limits: {
          time_limit_ms: asNumber(config.timeout_ms_per_test, DEFAULTS.tests.time_limit_ms),
          memory_mb: asNumber(config.memory_mb, DEFAULTS.tests.memory_mb),
        },
        tests: visible(tests).map(functionTest),
        hidden_test_count: tests.length - visible(tests).length,
      };
    case 'rubric': {
      const criteria = notPrivate(asArray(config.criteria));
      const shown = visible(criteria);
      return {
        ...base,
        criteria: shown.map((c) => ({
          name: asString(c.name),
          weight: asNumber(c.weight, 1),
          description: typeof c.description === 'string' ? c.description : null,
          check: isObject(c.check) && typeof c.check.type === 'string' ? c.check.type : null,
        })),
        hidden_criteria_count: criteria.length - shown.length,
      };
    }
    default:
      // http (and anything unknown): the kind only; the grader's url and headers are secrets.
      return base;
  }
}
