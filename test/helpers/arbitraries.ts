/**
 * fast-check arbitraries for hostile input: nasty strings, junk JSON, malformed ids, query strings,
 * headers, and "near-valid" values derived from a route's own zod schema (so requests get past
 * validation often enough to reach handler code), with every string drawn from a unicode-heavy pool.
 */
import fc from 'fast-check';
import type { ZodTypeAny } from 'zod';

/** Strings that have broken parsers, databases and renderers before. */
export const NASTY_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\uD800', // lone high surrogate
  '\uDFFF', // lone low surrogate
  'x\uD83D', // truncated emoji
  '\u202Egnp.exe', // right-to-left override
  '\u200F\u200E\u2066',
  '😀',
  '👨‍👩‍👧‍👦',
  '\uFEFF',
  'e\u0301\u0301\u0301',
  'ﷺ',
  '\u0085\u2028\u2029',
  '%00',
  '%',
  '..',
  '../../etc/passwd',
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  '"; DROP TABLE users; --',
  '${7*7}{{7*7}}',
  '\r\nX-Injected: 1',
  'null',
  'NaN',
  '-1',
  '1e309',
  '__proto__',
  'constructor',
  '\\',
  '\t',
];

const UNICODE_UNITS = [
  'a',
  'Z',
  '0',
  ' ',
  'é',
  'ß',
  '中',
  '😀',
  '👍🏽',
  '\u202E',
  '\u200F',
  '\u0301',
  '\uD800',
  '\uDFFF',
  'Ω',
  '\u00A0',
  '\n',
  '"',
  '\\',
  '/',
];
/** Mostly printable unicode; NUL now and then (PostgreSQL text and jsonb cannot hold it). */
const unicodeUnit = fc.oneof(
  { weight: 150, arbitrary: fc.constantFrom(...UNICODE_UNITS) },
  { weight: 1, arbitrary: fc.constant('\u0000') },
);
export const unicodeString = (minLength = 0, maxLength = 24) =>
  fc.string({ unit: unicodeUnit, minLength, maxLength });

export const nastyString: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
  { weight: 3, arbitrary: unicodeString() },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 24 }) },
  { weight: 1, arbitrary: fc.string({ maxLength: 24 }) },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.constantFrom(...NASTY_STRINGS), unicodeString()).map(([a, b]) => a + b),
  },
  // long strings (beyond every documented maximum; bodies stay under the 2 MiB limit)
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(101, 256, 1001, 2001, 100_001, 300_000)
      .map((n) => '😀x'.repeat(Math.ceil(n / 3)).slice(0, n)),
  },
);

const junkNumber = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0, -0, -1, 0.5, 2 ** 31, 2 ** 31 - 1, -(2 ** 31) - 1, 2 ** 53 + 2, 1e308, -1e308, 5e-324),
);

const junkLeaf: fc.Arbitrary<unknown> = fc.oneof(nastyString, junkNumber, fc.boolean(), fc.constant(null));

/** Arbitrary JSON values with hostile leaves and (some of) the given keys. */
export function junkJson(keys: string[] = [], maxDepth = 4): fc.Arbitrary<unknown> {
  const key = keys.length ? fc.oneof(fc.constantFrom(...keys), nastyString) : nastyString;
  return fc.letrec<{ value: unknown }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', maxDepth, withCrossShrink: true },
      junkLeaf,
      fc.array(tie('value'), { maxLength: 4 }),
      fc.dictionary(key, tie('value'), { maxKeys: 5 }),
    ),
  })).value;
}

// ---- near-valid values from zod schemas ------------------------------------------------------------

export interface ZodArbContext {
  /** Real ids of fixtures, used for uuid fields most of the time (so lookups can succeed). */
  uuidPool: string[];
  /** Preferred real ids by what a field's name mentions (`challengeId`, `agent_id` → challenge, agent). */
  namedIds: Record<string, string>;
  /** Values for fields named `url`. */
  urlPool: string[];
  /** Plausible values for free-text fields by name (`events` → event types, `cursor` → crafted cursors). */
  vocabulary: Record<string, string[]>;
}

/** The real ids a field or path parameter most likely refers to, given its name (or the path segment before it). */
export function preferredIds(name: string, ctx: ZodArbContext): string[] {
  const lower = name.toLowerCase();
  const hits = Object.entries(ctx.namedIds)
    .filter(([k]) => lower.includes(k))
    .map(([, v]) => v);
  return hits.length ? hits : ctx.uuidPool;
}

function uuidArb(name: string | undefined, ctx: ZodArbContext): fc.Arbitrary<string> {
  const preferred = name ? preferredIds(name, ctx) : ctx.uuidPool;
  return fc.oneof(
    { weight: 12, arbitrary: preferred.length ? fc.constantFrom(...preferred) : fc.uuid() },
    { weight: 1, arbitrary: ctx.uuidPool.length ? fc.constantFrom(...ctx.uuidPool) : fc.uuid() },
    { weight: 1, arbitrary: fc.uuid() },
    { weight: 1, arbitrary: nastyString },
  );
}

interface Check {
  kind: string;
  value?: unknown;
  inclusive?: boolean;
  regex?: RegExp;
}

const DATETIMES = [
  '2030-01-01T00:00:00Z',
  '2000-02-29T12:00:00.123+02:00',
  '1970-01-01T00:00:00Z',
  '0000-01-01T00:00:00Z', // year zero: valid ISO 8601, no such year in PostgreSQL
  '0001-01-01T00:00:00+14:00',
  '9999-12-31T23:59:59.999999999-12:00',
  '2024-01-01T00:00:00',
  '2024-13-01T00:00:00Z',
  'yesterday',
];

// zod's internal definitions differ per schema type; this walker reads them untyped on purpose.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type ZodDef = { typeName: string } & Record<string, any>;
function defOf(schema: ZodTypeAny): ZodDef {
  return (schema as unknown as { _def: ZodDef })._def;
}

/** The object shape of a schema, looking through effects/optional/default wrappers. */
export function objectShape(schema: ZodTypeAny | undefined): Record<string, ZodTypeAny> | undefined {
  let s = schema;
  for (let i = 0; s && i < 10; i++) {
    const def = defOf(s);
    if (def.typeName === 'ZodObject') return (s as unknown as { shape: Record<string, ZodTypeAny> }).shape;
    s = def.schema ?? def.innerType ?? def.in;
  }
  return undefined;
}

function stringArb(checks: Check[], fieldName: string | undefined, ctx: ZodArbContext): fc.Arbitrary<string> {
  const has = (kind: string) => checks.find((c) => c.kind === kind);
  if (has('uuid')) return uuidArb(fieldName, ctx);
  if (has('datetime')) {
    return fc.oneof(
      { weight: 2, arbitrary: fc.constantFrom(...DATETIMES) },
      {
        weight: 8,
        arbitrary: fc
          .date({ noInvalidDate: true, min: new Date('1900-01-01'), max: new Date('2100-01-01') })
          .map((d) => d.toISOString()),
      },
      { weight: 1, arbitrary: nastyString },
    );
  }
  if (has('url') || fieldName === 'url')
    return fc.oneof(
      { weight: 8, arbitrary: fc.constantFrom(...ctx.urlPool) },
      { weight: 1, arbitrary: nastyString },
    );
  const vocabulary = fieldName ? ctx.vocabulary[fieldName] : undefined;
  if (vocabulary?.length)
    return fc.oneof(
      { weight: 10, arbitrary: fc.constantFrom(...vocabulary) },
      { weight: 1, arbitrary: nastyString },
    );
  const regex = has('regex');
  if (regex?.regex)
    return fc.oneof(
      { weight: 8, arbitrary: fc.stringMatching(regex.regex) },
      { weight: 1, arbitrary: nastyString },
    );
  const min = (has('min')?.value as number | undefined) ?? (has('length')?.value as number | undefined) ?? 0;
  const max = (has('max')?.value as number | undefined) ?? (has('length')?.value as number | undefined) ?? 40;
  return fc.oneof(
    {
      weight: 16,
      arbitrary: unicodeString(Math.min(min, 40), Math.max(Math.min(max, 40), Math.min(min, 40))),
    },
    { weight: 1, arbitrary: fc.constant('😀'.repeat(Math.ceil((max + 1) / 2))) }, // just over max in UTF-16 units
    { weight: 1, arbitrary: nastyString },
  );
}

function numberArb(checks: Check[]): fc.Arbitrary<number> {
  const isInt = checks.some((c) => c.kind === 'int');
  const min = checks.find((c) => c.kind === 'min')?.value as number | undefined;
  const max = checks.find((c) => c.kind === 'max')?.value as number | undefined;
  const lo = Math.max(min ?? -1e6, -1e9);
  const hi = Math.min(max ?? 1e6, 1e9);
  const inRange = isInt
    ? fc.integer({ min: Math.ceil(lo), max: Math.floor(hi) })
    : fc.double({ min: lo, max: hi, noNaN: true });
  const edges = [
    min,
    max,
    min !== undefined ? min - 1 : undefined,
    max !== undefined ? max + 1 : undefined,
    0.5,
  ].filter((v): v is number => v !== undefined);
  return fc.oneof(
    { weight: 12, arbitrary: inRange },
    { weight: 2, arbitrary: fc.constantFrom(...edges) },
    { weight: 1, arbitrary: junkNumber },
  );
}

/**
 * Values that mostly satisfy the schema (types, bounds, enums, shapes), with hostile strings and
 * off-by-one numbers mixed in. Refinements are not solved: those values are simply rejected.
 */
export function zodArb(
  schema: ZodTypeAny,
  ctx: ZodArbContext,
  depth = 0,
  fieldName?: string,
): fc.Arbitrary<unknown> {
  if (depth > 8) return junkLeaf;
  const def = defOf(schema);
  const rec = (s: ZodTypeAny, name?: string) => zodArb(s, ctx, depth + 1, name ?? fieldName);
  switch (def.typeName) {
    case 'ZodString':
      return stringArb(def.checks ?? [], fieldName, ctx);
    case 'ZodNumber':
      return numberArb(def.checks ?? []);
    case 'ZodBoolean':
      return fc.oneof({ weight: 12, arbitrary: fc.boolean() }, { weight: 1, arbitrary: junkLeaf });
    case 'ZodLiteral':
      return fc.oneof({ weight: 12, arbitrary: fc.constant(def.value) }, { weight: 1, arbitrary: junkLeaf });
    case 'ZodEnum':
      return fc.oneof(
        { weight: 12, arbitrary: fc.constantFrom(...(def.values as string[])) },
        { weight: 1, arbitrary: nastyString },
      );
    case 'ZodNull':
      return fc.constant(null);
    case 'ZodOptional':
      return fc.oneof(
        { weight: 1, arbitrary: fc.constant(undefined) },
        { weight: 2, arbitrary: rec(def.innerType) },
      );
    case 'ZodNullable':
      return fc.oneof(
        { weight: 1, arbitrary: fc.constant(null) },
        { weight: 3, arbitrary: rec(def.innerType) },
      );
    case 'ZodDefault':
    case 'ZodCatch':
    case 'ZodBranded':
    case 'ZodReadonly':
      return fc.oneof(
        { weight: 1, arbitrary: fc.constant(undefined) },
        { weight: 3, arbitrary: rec(def.innerType ?? def.type) },
      );
    case 'ZodEffects':
      return rec(def.schema);
    case 'ZodPipeline':
      return rec(def.in);
    case 'ZodLazy':
      return rec(def.getter());
    case 'ZodArray': {
      const minLength = Math.min(def.minLength?.value ?? def.exactLength?.value ?? 0, 4);
      const maxLength = Math.max(minLength, Math.min(def.maxLength?.value ?? def.exactLength?.value ?? 4, 4));
      return fc.oneof(
        { weight: 12, arbitrary: fc.array(rec(def.type), { minLength, maxLength }) },
        { weight: 1, arbitrary: junkLeaf },
      );
    }
    case 'ZodTuple':
      return fc.tuple(...(def.items as ZodTypeAny[]).map((s) => rec(s)));
    case 'ZodUnion':
    case 'ZodDiscriminatedUnion':
      return fc.oneof(...(def.options as ZodTypeAny[]).map((s) => rec(s)));
    case 'ZodRecord':
      return fc.dictionary(fc.oneof(unicodeString(1, 8), nastyString), rec(def.valueType), { maxKeys: 3 });
    case 'ZodObject': {
      const shape = (schema as unknown as { shape: Record<string, ZodTypeAny> }).shape;
      // Optional fields are left out by their own arbitrary (undefined); dropping required ones is a mutation.
      const entries = Object.entries(shape).map(([k, s]) => [k, rec(s, k)] as const);
      return fc
        .record(Object.fromEntries(entries))
        .map((obj) =>
          Object.fromEntries(
            Object.entries(obj as Record<string, unknown>).filter(([, v]) => v !== undefined),
          ),
        );
    }
    default:
      return junkJson([], 2);
  }
}

/** A near-valid object, then one of: unchanged, a key dropped, a key with a wrong type, an unknown key. */
export function nearValidBody(schema: ZodTypeAny, ctx: ZodArbContext): fc.Arbitrary<unknown> {
  const keys = Object.keys(objectShape(schema) ?? {});
  const base = zodArb(schema, ctx);
  return fc
    .tuple(base, fc.nat({ max: 9 }), fc.nat(), junkJson(keys, 2), nastyString)
    .map(([value, op, pick, junk, name]) => {
      if (!value || typeof value !== 'object' || Array.isArray(value) || op < 5) return value;
      const obj = { ...(value as Record<string, unknown>) };
      const present = Object.keys(obj);
      const target = present.length ? present[pick % present.length] : keys[pick % Math.max(1, keys.length)];
      if (op <= 6 && target !== undefined) delete obj[target];
      else if (op <= 8 && target !== undefined) obj[target] = junk;
      else obj[name || 'extra'] = junk;
      return obj;
    });
}

// ---- paths, queries, headers -----------------------------------------------------------------------

/** Percent-encodes every byte outside the unreserved set (lone surrogates become U+FFFD). */
export function pctEncode(s: string): string {
  return [...Buffer.from(s, 'utf8')]
    .map((b) =>
      /[A-Za-z0-9\-._~]/.test(String.fromCharCode(b))
        ? String.fromCharCode(b)
        : `%${b.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('');
}

/** Path segments that are not well-formed ids, sent exactly as written. */
export const MALFORMED_SEGMENTS = [
  '..',
  '.',
  '%2e%2e',
  '%2E%2E%2F%2E%2E',
  '%00',
  'abc%00',
  '%2F',
  'x%2Fy',
  '%zz',
  '%E0%A4%A',
  '%C0%AE%C0%AE',
  '%uD800',
  '%ED%A0%80',
  '%F0%9F%98%80',
  'null',
  'undefined',
  '0',
  '-1',
  'NaN',
  '1e309',
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
  '{12345678-1234-1234-1234-123456789012}',
  '12345678-1234-1234-1234-1234567890123',
  '12345678123412341234123456789012',
  'whd_' + '0'.repeat(32),
  'a'.repeat(2000),
];

export function pathSegment(pool: string[], preferred: string[] = pool): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 3, arbitrary: preferred.length ? fc.constantFrom(...preferred) : fc.uuid() },
    { weight: 1, arbitrary: pool.length ? fc.constantFrom(...pool) : fc.uuid() },
    { weight: 2, arbitrary: fc.uuid() },
    { weight: 1, arbitrary: fc.uuid().map((u) => u.toUpperCase()) },
    { weight: 4, arbitrary: fc.constantFrom(...MALFORMED_SEGMENTS) },
    { weight: 3, arbitrary: nastyString.filter((s) => s.length <= 300).map(pctEncode) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.uuid(), fc.constantFrom('%00', '%20', '..', ';x=1', '%0A'))
        .map(([u, s]) => u + s),
    },
  );
}

/**
 * Hostile strings short enough for a request line: Node's HTTP parser answers 431 by itself when the
 * request line and headers exceed 16 KiB (docs/decisions/security.md), before the app sees anything.
 */
export const shortNasty = nastyString.filter((s) => s.length <= 300);

/** A query string: known keys with near-valid or junk values, unknown keys, repeats, raw junk. */
export function queryString(schema: ZodTypeAny | undefined, ctx: ZodArbContext): fc.Arbitrary<string> {
  const shape = objectShape(schema) ?? {};
  const known = Object.entries(shape);
  const valueFor = (s: ZodTypeAny, name: string) =>
    fc
      .oneof(zodArb(s, ctx, 0, name), shortNasty)
      .map((v) =>
        typeof v === 'string'
          ? v
          : v === undefined
            ? ''
            : typeof v === 'object'
              ? JSON.stringify(v)
              : String(v),
      )
      .map((v) => v.slice(0, 300));
  const pair = known.length
    ? fc.oneof(
        {
          weight: 3,
          arbitrary: fc
            .constantFrom(...known)
            .chain(([name, s]) => valueFor(s, name).map((v) => [name, v] as const)),
        },
        { weight: 1, arbitrary: fc.tuple(shortNasty, shortNasty) },
      )
    : fc.tuple(shortNasty, shortNasty);
  return fc
    .tuple(
      fc.array(pair, { maxLength: 5 }),
      fc.constantFrom(
        '',
        '',
        '',
        '&',
        '&&==&',
        '&%zz=%E0%A4%A',
        '&a[b]=1&a[c]=2',
        '&=x',
        '&x',
        `&${'p'.repeat(1500)}=1`,
      ),
    )
    .map(([pairs, raw]) => {
      const q = pairs.map(([k, v]) => `${pctEncode(k)}=${pctEncode(v)}`).join('&') + raw;
      return q ? `?${q}` : '';
    });
}

/** Header values Node will send (tab, printable ASCII, latin-1), so junk reaches the server. */
export const headerValue: fc.Arbitrary<string> = fc.oneof(
  fc.string({
    unit: fc
      .integer({ min: 0x20, max: 0xff })
      .filter((c) => c !== 0x7f && (c < 0x80 || c >= 0xa0))
      .map((c) => String.fromCharCode(c)),
    maxLength: 80,
  }),
  fc.constantFrom('', ' ', '\t', 'null', 'x'.repeat(1000)),
);

export const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=UTF-8',
  'application/json; charset=utf-16',
  'application/json; charset=utf-16le',
  'application/json; charset=latin1',
  'application/json; charset=bogus-42',
  'APPLICATION/JSON',
  'application/json;;;',
  'application/vnd.api+json',
  'application/merge-patch+json',
  'text/plain',
  'text/plain; charset=utf-8',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=xyz',
  'application/octet-stream',
  '*/*',
  'json',
  '',
];

export const idempotencyKeyJunk: fc.Arbitrary<string> = fc.oneof(
  fc.stringMatching(/^[0-9a-f]{64}$/),
  fc.stringMatching(/^[0-9A-F]{64}$/),
  fc.stringMatching(/^[0-9a-f]{63}$/),
  fc.stringMatching(/^[0-9a-f]{65}$/),
  fc.stringMatching(/^[0-9a-g]{64}$/),
  headerValue,
);
