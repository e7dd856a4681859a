import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import {
  ALLOWED_REGEX_FLAGS,
  MAX_REGEX_PATTERN_LENGTH,
  findNestedQuantifier,
  regexSyntaxError,
} from './regex-safety';
import { LANGUAGE_IDS } from './program/languages';
import { GAME_IDS, findGame } from './games/catalog';

/** Bounds of a judge config (admin input, stored per challenge). */
export const JUDGE_CONFIG_LIMITS = {
  maxCriteria: 50,
  maxTests: 200,
  maxNameLength: 200,
  maxWeight: 1_000_000,
  maxCheckValueLength: 100_000,
  maxTestCaseJsonChars: 100_000,
  maxArgs: 32,
  defaultTestTimeoutMs: 2_000,
  minTestTimeoutMs: 50,
  maxTestTimeoutMs: 10_000,
  defaultMemoryMb: 64,
  minMemoryMb: 32,
  maxMemoryMb: 256,
  defaultHttpTimeoutMs: 10_000,
  minHttpTimeoutMs: 100,
  maxHttpTimeoutMs: 120_000,
  maxHeaders: 50,
  defaultProgramTimeLimitMs: 2_000,
  minProgramTimeLimitMs: 50,
  maxProgramTimeLimitMs: 10_000,
  defaultProgramMemoryMb: 256,
  minProgramMemoryMb: 32,
  maxProgramMemoryMb: 1024,
  defaultFloatTolerance: 1e-6,
  /** Each test's stdin and expected_stdout (characters of the JSON string; ASCII-sized bytes). */
  maxProgramTestDataChars: 1024 * 1024,
  /** A whole judge config, as JSON. */
  maxJudgeConfigJsonChars: 8 * 1024 * 1024,
} as const;

// Needed here because this module's schemas are built at import, before the API module extends zod.
extendZodWithOpenApi(z);

type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

const jsonValueSchema: z.ZodType<JsonValue> = z
  .lazy(
    () =>
      z.union([
        z.string(),
        z.number().finite(),
        z.boolean(),
        z.null(),
        z.array(jsonValueSchema),
        z.record(jsonValueSchema),
      ]),
    // A recursive schema has no finite OpenAPI rendering: the judge config is documented as "any JSON value".
  )
  .openapi({ type: ['string', 'number', 'boolean', 'null', 'array', 'object'] } as never);

const nameSchema = z.string().trim().min(1).max(JUDGE_CONFIG_LIMITS.maxNameLength);
const weightSchema = z.number().finite().positive().max(JUDGE_CONFIG_LIMITS.maxWeight).default(1);

function uniqueNames(items: readonly { name: string }[], ctx: z.RefinementCtx): void {
  const seen = new Set<string>();
  items.forEach((item, index) => {
    if (seen.has(item.name)) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: [index, 'name'],
        message: `duplicate name "${item.name}"`,
      });
    }
    seen.add(item.name);
  });
}

// ---- rubric ----------------------------------------------------------------------------------

const exactCheckSchema = z
  .object({
    type: z.literal('exact'),
    value: z.string().max(JUDGE_CONFIG_LIMITS.maxCheckValueLength),
    case_sensitive: z.boolean().default(true),
    trim: z.boolean().default(true),
  })
  .strict();

const containsCheckSchema = z
  .object({
    type: z.literal('contains'),
    value: z.string().min(1).max(JUDGE_CONFIG_LIMITS.maxCheckValueLength),
    case_sensitive: z.boolean().default(true),
  })
  .strict();

const regexCheckSchema = z
  .object({
    type: z.literal('regex'),
    pattern: z.string().min(1).max(MAX_REGEX_PATTERN_LENGTH),
    flags: z
      .string()
      .max(ALLOWED_REGEX_FLAGS.length)
      .regex(new RegExp(`^[${ALLOWED_REGEX_FLAGS}]*$`), `flags may only contain "${ALLOWED_REGEX_FLAGS}"`)
      .default(''),
  })
  .strict();

const numericCheckSchema = z
  .object({
    type: z.literal('numeric'),
    value: z.number().finite(),
    tolerance: z.number().finite().nonnegative().default(0),
  })
  .strict();

const lengthCheckSchema = z
  .object({
    type: z.literal('length'),
    min: z.number().int().nonnegative().max(10_000_000).optional(),
    max: z.number().int().nonnegative().max(10_000_000).optional(),
  })
  .strict();

export const rubricCheckSchema = z.discriminatedUnion('type', [
  exactCheckSchema,
  containsCheckSchema,
  regexCheckSchema,
  numericCheckSchema,
  lengthCheckSchema,
]);

/** Cross-field rules of a check (a discriminated union member must stay a plain object schema). */
function validateCheck(check: z.infer<typeof rubricCheckSchema>, ctx: z.RefinementCtx): void {
  if (check.type === 'regex') {
    if (new Set(check.flags).size !== check.flags.length) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: ['check', 'flags'],
        message: 'duplicate regex flag',
      });
    }
    const syntaxError = regexSyntaxError(check.pattern, check.flags);
    if (syntaxError) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, path: ['check', 'pattern'], message: syntaxError });
      return;
    }
    const nested = findNestedQuantifier(check.pattern);
    if (nested) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: ['check', 'pattern'],
        message: `pattern may backtrack catastrophically: ${nested}`,
      });
    }
  }
  if (check.type === 'length') {
    if (check.min === undefined && check.max === undefined) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: ['check'],
        message: 'length check needs min or max',
      });
    } else if (check.min !== undefined && check.max !== undefined && check.min > check.max) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: ['check', 'min'],
        message: 'min must not exceed max',
      });
    }
  }
}

const rubricCriterionSchema = z
  .object({
    name: nameSchema,
    weight: weightSchema,
    description: z.string().max(2_000).optional(),
    hidden: z.boolean().default(false),
    /** Counted only in private_score; invisible to competitors until the challenge is complete. */
    private: z.boolean().default(false),
    check: rubricCheckSchema,
  })
  .strict()
  .superRefine((criterion, ctx) => validateCheck(criterion.check, ctx));

export const rubricJudgeConfigSchema = z
  .object({
    kind: z.literal('rubric'),
    criteria: z
      .array(rubricCriterionSchema)
      .min(1)
      .max(JUDGE_CONFIG_LIMITS.maxCriteria)
      .superRefine(uniqueNames),
  })
  .strict();

// ---- tests -------------------------------------------------------------------------------------

const testCaseSchema = z
  .object({
    name: nameSchema,
    hidden: z.boolean().default(false),
    /** Counted only in private_score; invisible to competitors until the challenge is complete. */
    private: z.boolean().default(false),
    weight: weightSchema,
    /** Name of the function exported by the entry module ("default" for the default export). */
    export: z
      .string()
      .min(1)
      .max(100)
      .regex(/^[A-Za-z_$][\w$]*$/, 'export must be a JavaScript identifier'),
    args: z.array(jsonValueSchema).max(JUDGE_CONFIG_LIMITS.maxArgs).default([]),
    expected: jsonValueSchema,
  })
  .strict()
  .superRefine((testCase, ctx) => {
    if (
      JSON.stringify([testCase.args, testCase.expected]).length > JUDGE_CONFIG_LIMITS.maxTestCaseJsonChars
    ) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        message: `args and expected together must stay under ${JUDGE_CONFIG_LIMITS.maxTestCaseJsonChars} characters of JSON`,
      });
    }
  });

export const testsJudgeConfigSchema = z
  .object({
    kind: z.literal('tests'),
    /** Path of the module whose exports are tested; default: the first JS/TS file of the submission. */
    entry: z
      .string()
      .min(1)
      .max(255)
      .refine((path) => !path.split(/[\\/]/).includes('..'), 'entry must stay inside the submission')
      .optional(),
    timeout_ms_per_test: z
      .number()
      .int()
      .min(JUDGE_CONFIG_LIMITS.minTestTimeoutMs)
      .max(JUDGE_CONFIG_LIMITS.maxTestTimeoutMs)
      .default(JUDGE_CONFIG_LIMITS.defaultTestTimeoutMs),
    memory_mb: z
      .number()
      .int()
      .min(JUDGE_CONFIG_LIMITS.minMemoryMb)
      .max(JUDGE_CONFIG_LIMITS.maxMemoryMb)
      .default(JUDGE_CONFIG_LIMITS.defaultMemoryMb),
    tests: z.array(testCaseSchema).min(1).max(JUDGE_CONFIG_LIMITS.maxTests).superRefine(uniqueNames),
  })
  .strict();

// ---- http --------------------------------------------------------------------------------------

const HTTP_TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Managed by fetch itself; setting them would fail at request time. */
const RESERVED_HEADERS = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'expect',
]);

export const httpJudgeConfigSchema = z
  .object({
    kind: z.literal('http'),
    url: z
      .string()
      .max(2_048)
      .url()
      .refine((url) => {
        try {
          return /^https?:$/.test(new URL(url).protocol);
        } catch {
          return false; // reported by .url()
        }
      }, 'url must be http or https'),
    timeout_ms: z
      .number()
      .int()
      .min(JUDGE_CONFIG_LIMITS.minHttpTimeoutMs)
      .max(JUDGE_CONFIG_LIMITS.maxHttpTimeoutMs)
      .default(JUDGE_CONFIG_LIMITS.defaultHttpTimeoutMs),
    headers: z
      .record(
        z
          .string()
          .max(8_192)
          .regex(/^[^\r\n\0]*$/, 'header values must not contain line breaks'),
      )
      .superRefine((headers, ctx) => {
        const names = Object.keys(headers);
        if (names.length > JUDGE_CONFIG_LIMITS.maxHeaders) {
          ctx.addIssue({
            code: z.ZodIssueCode.custom,
            message: `at most ${JUDGE_CONFIG_LIMITS.maxHeaders} headers`,
          });
        }
        for (const name of names) {
          if (!HTTP_TOKEN.test(name) || name.length > 256) {
            ctx.addIssue({ code: z.ZodIssueCode.custom, path: [name], message: 'invalid header name' });
          } else if (RESERVED_HEADERS.has(name.toLowerCase())) {
            ctx.addIssue({
              code: z.ZodIssueCode.custom,
              path: [name],
              message: 'header is managed by the client',
            });
          }
        }
      })
      .optional(),
  })
  .strict();

// ---- program -----------------------------------------------------------------------------------

const programTestSchema = z
  .object({
    name: nameSchema,
    hidden: z.boolean().default(false),
    /** Counted only in private_score; invisible to competitors until the challenge is complete. */
    private: z.boolean().default(false),
    weight: weightSchema,
    stdin: z.string().max(JUDGE_CONFIG_LIMITS.maxProgramTestDataChars).default(''),
    expected_stdout: z.string().max(JUDGE_CONFIG_LIMITS.maxProgramTestDataChars),
  })
  .strict();

export const programJudgeConfigSchema = z
  .object({
    kind: z.literal('program'),
    /** Languages a submission may use; default: all of them. */
    languages: z
      .array(z.enum(LANGUAGE_IDS))
      .min(1)
      .max(LANGUAGE_IDS.length)
      .refine((ids) => new Set(ids).size === ids.length, 'duplicate language')
      .optional(),
    /** CPU time per test. */
    time_limit_ms: z
      .number()
      .int()
      .min(JUDGE_CONFIG_LIMITS.minProgramTimeLimitMs)
      .max(JUDGE_CONFIG_LIMITS.maxProgramTimeLimitMs)
      .default(JUDGE_CONFIG_LIMITS.defaultProgramTimeLimitMs),
    memory_mb: z
      .number()
      .int()
      .min(JUDGE_CONFIG_LIMITS.minProgramMemoryMb)
      .max(JUDGE_CONFIG_LIMITS.maxProgramMemoryMb)
      .default(JUDGE_CONFIG_LIMITS.defaultProgramMemoryMb),
    compare: z.enum(['lines', 'exact', 'tokens', 'float']).default('lines'),
    float_tolerance: z
      .number()
      .finite()
      .nonnegative()
      .max(1e6)
      .default(JUDGE_CONFIG_LIMITS.defaultFloatTolerance),
    tests: z.array(programTestSchema).min(1).max(JUDGE_CONFIG_LIMITS.maxTests).superRefine(uniqueNames),
  })
  .strict();

// ---- game ----------------------------------------------------------------------------------------

/** DESIGN, "Games": the ranges of a `game` judge. */
export const GAME_JUDGE_LIMITS = {
  minTurnMs: 10,
  maxTurnMs: 10_000,
  defaultTurnMs: 1_000,
  minBankMs: 0,
  maxBankMs: 60_000,
  defaultBankMs: 10_000,
  minMemoryMb: 32,
  maxMemoryMb: 1024,
  defaultMemoryMb: 256,
  minGamesPerMatch: 1,
  maxGamesPerMatch: 9,
  defaultGamesPerMatch: 2,
  maxTurns: 10_000,
} as const;

export const gameJudgeConfigSchema = z
  .object({
    kind: z.literal('game'),
    /** A built-in game (GET /api/v1/games). */
    game: z.enum(GAME_IDS),
    languages: z
      .array(z.enum(LANGUAGE_IDS))
      .min(1)
      .max(LANGUAGE_IDS.length)
      .refine((ids) => new Set(ids).size === ids.length, 'duplicate language')
      .optional(),
    /** CPU per turn; beyond it a turn draws on the bank. */
    turn_ms: z
      .number()
      .int()
      .min(GAME_JUDGE_LIMITS.minTurnMs)
      .max(GAME_JUDGE_LIMITS.maxTurnMs)
      .default(GAME_JUDGE_LIMITS.defaultTurnMs),
    bank_ms: z
      .number()
      .int()
      .min(GAME_JUDGE_LIMITS.minBankMs)
      .max(GAME_JUDGE_LIMITS.maxBankMs)
      .default(GAME_JUDGE_LIMITS.defaultBankMs),
    memory_mb: z
      .number()
      .int()
      .min(GAME_JUDGE_LIMITS.minMemoryMb)
      .max(GAME_JUDGE_LIMITS.maxMemoryMb)
      .default(GAME_JUDGE_LIMITS.defaultMemoryMb),
    /** Games of one match (seats alternate). */
    games_per_match: z
      .number()
      .int()
      .min(GAME_JUDGE_LIMITS.minGamesPerMatch)
      .max(GAME_JUDGE_LIMITS.maxGamesPerMatch)
      .default(GAME_JUDGE_LIMITS.defaultGamesPerMatch),
    /** Turns after which a game ends as it stands (default and upper bound: the game's own). */
    max_turns: z.number().int().min(1).max(GAME_JUDGE_LIMITS.maxTurns).optional(),
  })
  .strict();

/** The turns a game of this config lasts at most: `max_turns`, never beyond the game's own. */
export function gameMaxTurns(config: Pick<GameJudgeConfig, 'game' | 'max_turns'>): number {
  const own = findGame(config.game)?.defaultMaxTurns ?? GAME_JUDGE_LIMITS.maxTurns;
  return Math.min(config.max_turns ?? own, own);
}

// ---- the union ---------------------------------------------------------------------------------

export const judgeConfigSchema = z
  .discriminatedUnion('kind', [
    rubricJudgeConfigSchema,
    testsJudgeConfigSchema,
    httpJudgeConfigSchema,
    programJudgeConfigSchema,
    gameJudgeConfigSchema,
  ])
  .superRefine((config, ctx) => {
    // Only a program judge's tests can get near the bound; measuring the others costs a stringify.
    if (config.kind !== 'program') return;
    if (JSON.stringify(config).length > JUDGE_CONFIG_LIMITS.maxJudgeConfigJsonChars) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        message: `a judge config must stay under ${JUDGE_CONFIG_LIMITS.maxJudgeConfigJsonChars} characters of JSON`,
      });
    }
  });

/** A parsed judge config (defaults applied). */
export type JudgeConfig = z.infer<typeof judgeConfigSchema>;
/** What an admin may send (defaults optional). */
export type JudgeConfigInput = z.input<typeof judgeConfigSchema>;
export type RubricJudgeConfig = z.infer<typeof rubricJudgeConfigSchema>;
export type RubricCriterionConfig = RubricJudgeConfig['criteria'][number];
export type RubricCheck = z.infer<typeof rubricCheckSchema>;
export type TestsJudgeConfig = z.infer<typeof testsJudgeConfigSchema>;
export type TestCaseConfig = TestsJudgeConfig['tests'][number];
export type HttpJudgeConfig = z.infer<typeof httpJudgeConfigSchema>;
export type ProgramJudgeConfig = z.infer<typeof programJudgeConfigSchema>;
export type ProgramTestConfig = ProgramJudgeConfig['tests'][number];
export type GameJudgeConfig = z.infer<typeof gameJudgeConfigSchema>;
