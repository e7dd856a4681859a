/**
 * The one boundary where text from outside (a program's output, a player's stderr and actions, a
 * connector's events, a webhook receiver's answer, an HTTP grader's answer, what people type)
 * becomes text PostgreSQL stores: valid UTF-8 without NUL (DESIGN, "Whatever a program writes is
 * data"). NUL and invalid UTF-8 sequences (from bytes) or lone surrogates (from strings) become
 * U+FFFD, and the caller learns whether anything was replaced, so what it shows can say so.
 *
 * The branded types are minted only here: the query layer accepts them for columns that hold
 * outside text, so the compiler finds every place that stores such text.
 */

declare const storableBrand: unique symbol;
declare const storableJsonBrand: unique symbol;

/** Text PostgreSQL accepts in `text` and in jsonb strings: no NUL, no lone surrogate. */
export type StorableText = string & { readonly [storableBrand]: true };
/** A JSON document (its text) that jsonb accepts: no `\u0000`, no lone surrogate, in values or keys. */
export type StorableJson = string & { readonly [storableJsonBrand]: true };

export const REPLACEMENT_CHARACTER = '\uFFFD';

/** Shown after an excerpt whose bytes were replaced (DESIGN: a shown excerpt says so). */
export const REPLACED_NOTE = '(bytes that are not UTF-8 text, or NUL, are shown as \uFFFD)';

export interface Sanitized<T> {
  value: T;
  /** True when a NUL, an invalid UTF-8 sequence or a lone surrogate was replaced by U+FFFD. */
  replaced: boolean;
}

/** A NUL, or a surrogate half without its other half (with the u flag a pair is one code point). */
const UNSTORABLE = /\u0000|[\uD800-\uDFFF]/u;
const UNSTORABLE_ALL = new RegExp(UNSTORABLE.source, 'gu');

// Replacement, not fatal: a program's invalid bytes are its output, never the service's error.
const lenient = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });
const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function fromString(text: string): Sanitized<StorableText> {
  if (!UNSTORABLE.test(text)) return { value: text as StorableText, replaced: false };
  return { value: text.replace(UNSTORABLE_ALL, REPLACEMENT_CHARACTER) as StorableText, replaced: true };
}

function fromBytes(bytes: Uint8Array): Sanitized<StorableText> {
  let valid = true;
  let text: string;
  try {
    text = strict.decode(bytes);
  } catch {
    valid = false;
    text = lenient.decode(bytes);
  }
  const cleaned = fromString(text);
  return { value: cleaned.value, replaced: cleaned.replaced || !valid };
}

/**
 * Outside text → storable text. From bytes, invalid UTF-8 sequences (overlong, truncated,
 * surrogate encodings, stray continuation bytes) and NUL become U+FFFD; from a string, NUL and
 * lone surrogates do. Valid text (emoji included) is kept as it is.
 */
export function sanitizeText(input: string | Uint8Array): Sanitized<StorableText> {
  return typeof input === 'string' ? fromString(input) : fromBytes(input);
}

/** sanitizeText's value, for callers that do not show whether anything was replaced. */
export function storableText(input: string | Uint8Array): StorableText {
  return sanitizeText(input).value;
}

/** storableText, keeping null as null (nullable columns). */
export function storableTextOrNull(input: string | Uint8Array | null | undefined): StorableText | null {
  return input === null || input === undefined ? null : storableText(input);
}

/**
 * `\u0000` or a surrogate escape in JSON text, preceded by an even run of backslashes (an odd run
 * means the backslash itself is escaped: `"\\u0000"` is six plain characters). JSON.stringify
 * writes NUL as `\u0000` and a lone surrogate as its `\udXXX` escape, and a well-formed pair as
 * the characters themselves, so every surrogate escape in its output is a lone one.
 */
const UNSTORABLE_ESCAPE = /(?<!\\)((?:\\\\)*)\\u(?:0000|[dD][89a-fA-F][0-9a-fA-F]{2})/;
const UNSTORABLE_ESCAPE_ALL = new RegExp(UNSTORABLE_ESCAPE.source, 'g');

/**
 * A JSON value bound for jsonb → its JSON text with every string (values and keys) storable.
 * Works on JSON.stringify's output, so it sees exactly what the statement would send (toJSON,
 * dropped undefined) and needs no recursion of its own. `undefined` (nothing to store) is `null`.
 */
export function sanitizeJson(value: unknown): Sanitized<StorableJson> {
  const text = JSON.stringify(value) ?? 'null';
  if (!UNSTORABLE_ESCAPE.test(text)) return { value: text as StorableJson, replaced: false };
  return { value: text.replace(UNSTORABLE_ESCAPE_ALL, '$1\\ufffd') as StorableJson, replaced: true };
}

/** sanitizeJson's value. */
export function storableJson(value: unknown): StorableJson {
  return sanitizeJson(value).value;
}

/** storableJson, keeping null and undefined as SQL NULL (nullable jsonb columns). */
export function storableJsonOrNull(value: unknown): StorableJson | null {
  return value === null || value === undefined ? null : storableJson(value);
}

/**
 * `bytes` without the start of a UTF-8 sequence that a cut at a byte bound left incomplete at its
 * end (a log or an excerpt read up to N bytes). Only for such cuts: bytes that are invalid
 * elsewhere are the writer's, replaced and flagged by sanitizeText.
 */
export function cutAtCharacter(bytes: Uint8Array): Uint8Array {
  for (let back = 1; back <= Math.min(3, bytes.length); back++) {
    const byte = bytes[bytes.length - back];
    if ((byte & 0xc0) === 0x80) continue; // a continuation byte: look further back
    const needs = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return needs > back ? bytes.subarray(0, bytes.length - back) : bytes;
  }
  return bytes;
}

/**
 * A storable excerpt of at most `maxChars` characters of outside text (never splitting a
 * surrogate pair), saying how long the whole was and, when bytes were replaced, that they were.
 */
export function storableExcerpt(input: string | Uint8Array, maxChars: number): Sanitized<StorableText> {
  const { value, replaced } = sanitizeText(input);
  let text: string = value;
  if (text.length > maxChars) {
    // A cut between the halves of a pair would leave a lone surrogate: cut before the pair.
    const end = /[\uD800-\uDBFF]/.test(text[maxChars - 1] ?? '') ? maxChars - 1 : maxChars;
    text = `${text.slice(0, end)}… (${value.length} characters)`;
  }
  if (replaced) text = `${text}\n${REPLACED_NOTE}`;
  return { value: text as StorableText, replaced };
}
