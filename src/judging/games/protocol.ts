/**
 * The line protocol between the referee and a player (DESIGN, "Games"), as pure functions: the
 * turn line, the end line, parsing an answer, and the bank's arithmetic.
 */
import type { JsonValue, Observation, SeatStatus } from './engine';

/** CPU added to a player's first turn for its start-up (a runtime booting, a JVM warming). */
export const FIRST_TURN_BONUS_MS = 5_000;
/** An answer line longer than this is `invalid` (the line is not read further). */
export const MAX_ANSWER_BYTES = 64 * 1024;
/** stderr kept per player and game (a log for its owner and operators). */
export const PLAYER_LOG_BYTES = 64 * 1024;

export function turnLine(
  turn: number,
  seat: number,
  observation: Observation,
  remainingBankMs: number,
): string {
  return `${JSON.stringify({ turn, seat, observation, remaining_bank_ms: Math.max(0, Math.round(remainingBankMs)) })}\n`;
}

export function doneLine(rewards: readonly number[], statuses: readonly SeatStatus[]): string {
  return `${JSON.stringify({ done: true, rewards, statuses })}\n`;
}

/** An action nested deeper than this (arrays and objects) is `invalid` (DESIGN: depth ≤ 64). */
export const MAX_ACTION_DEPTH = 64;

/**
 * How deep `line` nests arrays and objects, scanning the text without parsing it (no recursion,
 * so a 6,000-deep `[[[…]]]` costs one pass); stops counting once past `limit`.
 */
export function nestingDepth(line: string, limit = MAX_ACTION_DEPTH): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // the escaped character, whatever it is
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      depth++;
      if (depth > deepest) deepest = depth;
      if (deepest > limit) return deepest;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return deepest;
}

// A lone surrogate: with the u flag a well-formed pair is one code point and does not match.
const LONE_SURROGATE = /\p{Surrogate}/u;

/**
 * What in a parsed action PostgreSQL's jsonb or a reader cannot hold: a string (value or key)
 * with a lone surrogate or NUL, a number beyond the double range (`1e999` parses as Infinity and
 * would be stored as null). Depth is already bounded, so a plain walk is safe.
 */
function unstorable(value: unknown): string | undefined {
  if (typeof value === 'string') {
    if (LONE_SURROGATE.test(value)) return 'a string with a lone surrogate';
    if (value.includes('\u0000')) return 'a string with a NUL character';
    return undefined;
  }
  if (typeof value === 'number')
    return Number.isFinite(value) ? undefined : 'a number beyond the double range';
  if (typeof value !== 'object' || value === null) return undefined;
  if (Array.isArray(value)) {
    for (const item of value) {
      const found = unstorable(item);
      if (found) return found;
    }
    return undefined;
  }
  for (const [key, item] of Object.entries(value)) {
    const found = unstorable(key) ?? unstorable(item);
    if (found) return found;
  }
  return undefined;
}

/** The start of a line for a reason, printable and storable (JSON-escaped, cut on a code point). */
function quoteStart(line: string): string {
  return JSON.stringify(Array.from(line.slice(0, 81)).slice(0, 80).join(''));
}

/**
 * One answer line: `{"action": …}` → the action; anything else is the seat's `invalid`: not JSON,
 * no `action`, nested deeper than MAX_ACTION_DEPTH, or holding what cannot be stored (DESIGN,
 * "Whatever a program writes is data"). Never throws, whatever the line.
 */
export function parseAnswer(line: string): { ok: true; action: JsonValue } | { ok: false; reason: string } {
  const depth = nestingDepth(line, MAX_ACTION_DEPTH + 1);
  // The answer object itself is one level: the action may nest MAX_ACTION_DEPTH below it.
  if (depth > MAX_ACTION_DEPTH + 1)
    return { ok: false, reason: `nested deeper than ${MAX_ACTION_DEPTH} levels` };
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return { ok: false, reason: `not JSON: ${quoteStart(line)}` };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed) || !('action' in parsed)) {
    return { ok: false, reason: `not an object with "action": ${quoteStart(line)}` };
  }
  const action = (parsed as { action: unknown }).action;
  const refused = unstorable(action);
  if (refused) return { ok: false, reason: `the action holds ${refused}` };
  return { ok: true, action: action as JsonValue };
}

/** What one turn allows a seat: CPU (turn_ms, plus the start-up bonus on its first turn, plus its bank) and the wall cap. */
export function turnAllowance(
  turnMs: number,
  bankMs: number,
  firstTurn: boolean,
): { allowanceMs: number; cpuMs: number; wallMs: number } {
  const allowanceMs = turnMs + (firstTurn ? FIRST_TURN_BONUS_MS : 0);
  return {
    allowanceMs,
    cpuMs: allowanceMs + bankMs,
    // DESIGN: 2 × (turn_ms + bank left) + 1 s (the first turn's start-up CPU counts as turn time).
    wallMs: 2 * (allowanceMs + bankMs) + 1_000,
  };
}

/** The bank after a turn that used `usedMs` of CPU: what went beyond the allowance is drawn from it (below zero: timeout). */
export function bankAfter(bankMs: number, allowanceMs: number, usedMs: number): number {
  return bankMs - Math.max(0, usedMs - allowanceMs);
}
