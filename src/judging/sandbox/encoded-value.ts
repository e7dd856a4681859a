/**
 * The sandbox reports a returned value as a tagged tree (see `encode` in sandbox-runner.cjs) so
 * that values JSON cannot express (undefined, NaN, 1n, functions...) never compare equal to a
 * JSON `expected`. Everything here treats that tree as untrusted input.
 */
export type EncodedValue =
  | readonly ['u'] // undefined
  | readonly ['z'] // null
  | readonly ['b', boolean]
  | readonly ['n', number | 'NaN' | 'Infinity' | '-Infinity' | '-0']
  | readonly ['s', string]
  | readonly ['i', string] // bigint digits
  | readonly ['y', string] // symbol description
  | readonly ['f', string] // function name
  | readonly ['m', number] // Map size
  | readonly ['t', number] // Set size
  | readonly ['a', readonly EncodedValue[]]
  | readonly ['o', readonly (readonly [string, EncodedValue])[]];

const MAX_DEPTH = 128;
const SPECIAL_NUMBERS = new Set(['NaN', 'Infinity', '-Infinity', '-0']);

/** Returns the value when `raw` is a well-formed encoded tree, null otherwise. */
export function parseEncodedValue(raw: unknown, depth = 0): EncodedValue | null {
  if (depth > MAX_DEPTH || !Array.isArray(raw) || raw.length === 0) return null;
  const [tag, payload] = raw as unknown[];
  switch (tag) {
    case 'u':
    case 'z':
      return raw.length === 1 ? [tag] : null;
    case 'b':
      return raw.length === 2 && typeof payload === 'boolean' ? ['b', payload] : null;
    case 'n':
      if (raw.length !== 2) return null;
      if (typeof payload === 'number' && Number.isFinite(payload)) return ['n', payload];
      if (typeof payload === 'string' && SPECIAL_NUMBERS.has(payload)) {
        return ['n', payload as 'NaN' | 'Infinity' | '-Infinity' | '-0'];
      }
      return null;
    case 's':
    case 'i':
    case 'y':
    case 'f':
      return raw.length === 2 && typeof payload === 'string' ? [tag, payload] : null;
    case 'm':
    case 't':
      return raw.length === 2 && Number.isSafeInteger(payload) ? [tag, payload as number] : null;
    case 'a': {
      if (raw.length !== 2 || !Array.isArray(payload)) return null;
      const items: EncodedValue[] = [];
      for (const item of payload as unknown[]) {
        const parsed = parseEncodedValue(item, depth + 1);
        if (parsed === null) return null;
        items.push(parsed);
      }
      return ['a', items];
    }
    case 'o': {
      if (raw.length !== 2 || !Array.isArray(payload)) return null;
      const entries: [string, EncodedValue][] = [];
      const keys = new Set<string>();
      for (const entry of payload as unknown[]) {
        if (
          !Array.isArray(entry) ||
          entry.length !== 2 ||
          typeof entry[0] !== 'string' ||
          keys.has(entry[0])
        ) {
          return null;
        }
        const parsed = parseEncodedValue(entry[1], depth + 1);
        if (parsed === null) return null;
        keys.add(entry[0]);
        entries.push([entry[0], parsed]);
      }
      return ['o', entries];
    }
    default:
      return null;
  }
}

function decodeNumber(payload: number | string): number {
  if (typeof payload === 'number') return payload;
  return payload === '-0' ? -0 : Number(payload);
}

/** Deep equality between a returned value and a JSON `expected` (object key order ignored). */
export function encodedEqualsJson(actual: EncodedValue, expected: unknown): boolean {
  switch (actual[0]) {
    case 'z':
      return expected === null;
    case 'b':
      return expected === actual[1];
    case 'n':
      return typeof expected === 'number' && decodeNumber(actual[1]) === expected;
    case 's':
      return expected === actual[1];
    case 'a': {
      if (!Array.isArray(expected) || expected.length !== actual[1].length) return false;
      return actual[1].every((item, index) => encodedEqualsJson(item, expected[index]));
    }
    case 'o': {
      if (expected === null || typeof expected !== 'object' || Array.isArray(expected)) return false;
      const expectedKeys = Object.keys(expected);
      if (expectedKeys.length !== actual[1].length) return false;
      return actual[1].every(
        ([key, value]) =>
          Object.hasOwn(expected, key) &&
          encodedEqualsJson(value, (expected as Record<string, unknown>)[key]),
      );
    }
    default:
      // undefined, bigint, symbol, function, Map, Set: JSON cannot express them.
      return false;
  }
}

function clip(text: string, maxChars: number): string {
  return text.length > maxChars ? `${text.slice(0, maxChars)}…` : text;
}

/** Short human-readable rendering for feedback strings. */
export function previewEncoded(value: EncodedValue, maxChars = 200): string {
  const render = (node: EncodedValue, budget: { left: number }): string => {
    if (budget.left <= 0) return '…';
    let text: string;
    switch (node[0]) {
      case 'u':
        text = 'undefined';
        break;
      case 'z':
        text = 'null';
        break;
      case 'b':
        text = String(node[1]);
        break;
      case 'n':
        text = String(node[1]);
        break;
      case 's':
        text = JSON.stringify(clip(node[1], maxChars));
        break;
      case 'i':
        text = `${node[1]}n`;
        break;
      case 'y':
        text = `Symbol(${node[1]})`;
        break;
      case 'f':
        text = node[1] ? `[Function ${node[1]}]` : '[Function]';
        break;
      case 'm':
        text = `Map(${node[1]})`;
        break;
      case 't':
        text = `Set(${node[1]})`;
        break;
      case 'a': {
        const parts: string[] = [];
        for (const item of node[1]) {
          if (budget.left <= 0) break;
          parts.push(render(item, budget));
        }
        text = `[${parts.join(',')}${parts.length < node[1].length ? ',…' : ''}]`;
        break;
      }
      case 'o': {
        const parts: string[] = [];
        for (const [key, item] of node[1]) {
          if (budget.left <= 0) break;
          parts.push(`${JSON.stringify(key)}:${render(item, budget)}`);
        }
        text = `{${parts.join(',')}${parts.length < node[1].length ? ',…' : ''}}`;
        break;
      }
    }
    budget.left -= text.length;
    return text;
  };
  return clip(render(value, { left: maxChars }), maxChars);
}

export function previewJson(value: unknown, maxChars = 200): string {
  return clip(JSON.stringify(value) ?? 'undefined', maxChars);
}
