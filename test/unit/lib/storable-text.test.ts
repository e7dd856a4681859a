/**
 * The sanitizer that alone turns outside text into storable text (DESIGN, "Whatever a program
 * writes is data"): NUL, invalid UTF-8 and lone surrogates become U+FFFD and are flagged; valid
 * text is kept byte for byte.
 */
import {
  REPLACED_NOTE,
  sanitizeJson,
  sanitizeText,
  storableExcerpt,
  storableJson,
  storableText,
} from '../../../src/lib/storable-text';

const FFFD = '\uFFFD';
const bytes = (...values: number[]) => Buffer.from(values);

/** What PostgreSQL refuses: NUL (text and jsonb), a lone surrogate (jsonb's escape). */
function storable(text: string): boolean {
  return !/\u0000|[\uD800-\uDFFF]/u.test(text);
}

describe('sanitizeText from bytes', () => {
  test.each([
    ['NUL', bytes(0x61, 0x00, 0x62), `a${FFFD}b`],
    ['a lone continuation byte', bytes(0x61, 0x80, 0x62), `a${FFFD}b`],
    ['an invalid byte (0xff)', bytes(0xff, 0x0a), `${FFFD}\n`],
    ['an overlong NUL (c0 80)', bytes(0xc0, 0x80), `${FFFD}${FFFD}`],
    ['an overlong slash (e0 80 af)', bytes(0xe0, 0x80, 0xaf), `${FFFD}${FFFD}${FFFD}`],
    ['a truncated sequence at the end', bytes(0x61, 0xe2, 0x82), `a${FFFD}`],
    ['a truncated sequence before ASCII', bytes(0xf0, 0x9f, 0x98, 0x61), `${FFFD}a`],
    ['an encoded surrogate (ed a0 80)', bytes(0xed, 0xa0, 0x80), `${FFFD}${FFFD}${FFFD}`],
    ['a code point beyond U+10FFFF', bytes(0xf4, 0x90, 0x80, 0x80), FFFD.repeat(4)],
  ])('%s becomes U+FFFD and is flagged', (_label, input, expected) => {
    const out = sanitizeText(input);
    expect(out).toEqual({ value: expected, replaced: true });
    expect(storable(out.value)).toBe(true);
  });

  test('valid UTF-8 (emoji, a BOM, accents, tabs) is kept and not flagged', () => {
    const text = '\uFEFFhé 😀 \t ok\n日本';
    expect(sanitizeText(Buffer.from(text, 'utf8'))).toEqual({ value: text, replaced: false });
    expect(sanitizeText(new Uint8Array(0))).toEqual({ value: '', replaced: false });
  });

  test('a U+FFFD the program wrote itself is kept and not flagged', () => {
    expect(sanitizeText(Buffer.from(`x${FFFD}`, 'utf8'))).toEqual({ value: `x${FFFD}`, replaced: false });
  });
});

describe('sanitizeText from strings', () => {
  test.each([
    ['NUL', 'a\u0000b', `a${FFFD}b`],
    ['a lone high surrogate', '\uD800', FFFD],
    ['a lone low surrogate', 'x\uDFFFy', `x${FFFD}y`],
    ['a high surrogate at the end after a pair', '😀\uD83D', `😀${FFFD}`],
    ['two highs in a row', '\uD800\uD800\uDC00', `${FFFD}\uD800\uDC00`],
    ['a low before a high', '\uDC00\uD800', `${FFFD}${FFFD}`],
  ])('%s becomes U+FFFD and is flagged', (_label, input, expected) => {
    expect(sanitizeText(input)).toEqual({ value: expected, replaced: true });
  });

  test('well-formed text (emoji, controls but NUL) is kept and not flagged', () => {
    const text = 'ok 😀 \u0001\u007f \uD83D\uDE00';
    expect(sanitizeText(text)).toEqual({ value: text, replaced: false });
    expect(storableText(text)).toBe(text);
  });
});

describe('sanitizeJson (jsonb)', () => {
  test('strings and keys with NUL or lone surrogates become U+FFFD, at any depth', () => {
    const value = { 'k\u0000': ['a\u0000b', { deep: '\uD800', ok: '😀' }], n: 1, t: true, z: null };
    const out = sanitizeJson(value);
    expect(out.replaced).toBe(true);
    expect(JSON.parse(out.value)).toEqual({
      [`k${FFFD}`]: [`a${FFFD}b`, { deep: FFFD, ok: '😀' }],
      n: 1,
      t: true,
      z: null,
    });
    expect(out.value).not.toMatch(/\\u0000|\\ud[89a-f]/i);
  });

  test('an escaped backslash before u0000 is text, kept as it is', () => {
    const value = { text: '\\u0000 and \\ud800 are six characters', tail: '\\\u0000' };
    const out = sanitizeJson(value);
    expect(JSON.parse(out.value)).toEqual({ text: value.text, tail: `\\${FFFD}` });
    expect(out.replaced).toBe(true);
    expect(sanitizeJson({ text: value.text })).toEqual({
      value: JSON.stringify({ text: value.text }),
      replaced: false,
    });
  });

  test('storable values pass unchanged; undefined is null', () => {
    const value = { a: [1, 'é', '😀'], b: { c: '' } };
    expect(sanitizeJson(value)).toEqual({ value: JSON.stringify(value), replaced: false });
    expect(storableJson(undefined)).toBe('null');
  });
});

describe('storableExcerpt', () => {
  test('says that bytes were replaced, and how long the whole was', () => {
    const out = storableExcerpt(bytes(0x61, 0x00, 0x62, 0xff), 100);
    expect(out).toEqual({ value: `a${FFFD}b${FFFD}\n${REPLACED_NOTE}`, replaced: true });
    expect(storableExcerpt('abcdef', 3).value).toBe('abc… (6 characters)');
    expect(storableExcerpt('abc', 3)).toEqual({ value: 'abc', replaced: false });
  });

  test('never cuts a surrogate pair in half', () => {
    const out = storableExcerpt(`ab😀cd`, 3);
    expect(out.value).toBe('ab… (6 characters)');
    expect(storable(out.value)).toBe(true);
  });
});
