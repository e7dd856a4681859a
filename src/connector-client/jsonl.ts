import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import type { ScriptedEvent } from './runner';
import { LIVE_EVENT_TYPES, type LiveEventInput, type LiveEventType } from '../wire/connector';

/**
 * Parses one JSONL line into an event to stream. Accepted forms:
 *   {"type":"thinking","summary":"..."}                          (goes to the first assignment)
 *   {"type":"thinking","challengeId":"<uuid>","delay_ms":2000}   (target and pacing inline)
 *   {"challengeId":"<uuid>","delay_ms":2000,"event":{"type":"progress","percent":50}}
 * Blank lines and lines starting with # are skipped (null).
 */
export function parseEventLine(line: string, lineNumber = 0): ScriptedEvent | null {
  const trimmed = line.trim();
  if (trimmed === '' || trimmed.startsWith('#')) return null;
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch {
    throw new Error(`line ${lineNumber}: not valid JSON`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value))
    throw new Error(`line ${lineNumber}: expected a JSON object`);
  const { challengeId, delay_ms, event, ...rest } = value as Record<string, unknown>;
  const body = (event ?? rest) as Record<string, unknown>;
  if (!body || typeof body !== 'object' || !LIVE_EVENT_TYPES.includes(body.type as LiveEventType)) {
    throw new Error(`line ${lineNumber}: "type" must be one of ${LIVE_EVENT_TYPES.join(', ')}`);
  }
  if (challengeId !== undefined && typeof challengeId !== 'string')
    throw new Error(`line ${lineNumber}: challengeId must be a string`);
  if (delay_ms !== undefined && (typeof delay_ms !== 'number' || delay_ms < 0))
    throw new Error(`line ${lineNumber}: delay_ms must be a number >= 0`);
  return {
    challengeId: challengeId as string | undefined,
    delayMs: delay_ms as number | undefined,
    event: body as unknown as LiveEventInput,
    line: lineNumber || undefined,
  };
}

/**
 * Streams the events of a JSONL file (or stdin with "-") lazily, line by line. A bad line goes to
 * `onInvalid` (with its number) and is skipped; without it, a bad line ends the stream with an error.
 */
export async function* readJsonlEvents(
  pathOrStream: string | Readable,
  onInvalid?: (message: string, lineNumber: number) => void,
): AsyncGenerator<ScriptedEvent> {
  const input =
    typeof pathOrStream === 'string'
      ? pathOrStream === '-'
        ? process.stdin
        : createReadStream(pathOrStream, 'utf8')
      : pathOrStream;
  const lines = createInterface({ input, crlfDelay: Infinity });
  let n = 0;
  try {
    for await (const line of lines) {
      n += 1;
      let parsed: ScriptedEvent | null;
      try {
        parsed = parseEventLine(line, n);
      } catch (err) {
        if (!onInvalid) throw err;
        onInvalid((err as Error).message, n);
        continue;
      }
      if (parsed) yield parsed;
    }
  } finally {
    lines.close();
  }
}
