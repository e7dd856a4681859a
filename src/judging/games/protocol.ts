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

/** One answer line: `{"action": …}` → the action; anything else is the seat's `invalid`. */
export function parseAnswer(line: string): { ok: true; action: JsonValue } | { ok: false; reason: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return { ok: false, reason: `not JSON: ${JSON.stringify(line.slice(0, 80))}` };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed) || !('action' in parsed)) {
    return { ok: false, reason: `not an object with "action": ${JSON.stringify(line.slice(0, 80))}` };
  }
  return { ok: true, action: (parsed as { action: JsonValue }).action };
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
