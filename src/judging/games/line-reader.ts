/**
 * Collects a player's output into lines for the referee: while a turn waits, the first complete
 * line answers it; output outside a turn is dropped (a player answers each turn with one line,
 * DESIGN). stderr is kept up to a bound.
 */
import { REPLACED_NOTE, type StorableText, cutAtCharacter, sanitizeText } from '../../lib/storable-text';
import { MAX_ANSWER_BYTES, PLAYER_LOG_BYTES } from './protocol';

export class AnswerReader {
  private partial: Buffer[] = [];
  private partialBytes = 0;
  private waiter: ((answer: { line: string } | { overlong: true }) => void) | undefined;

  /** Starts waiting for the turn's line; output before this call is dropped. */
  expect(): Promise<{ line: string } | { overlong: true }> {
    this.partial = [];
    this.partialBytes = 0;
    return new Promise((resolve) => {
      this.waiter = resolve;
    });
  }

  /** Stops waiting (the turn ended another way). */
  cancel(): void {
    this.waiter = undefined;
  }

  push(chunk: Buffer): void {
    if (this.waiter === undefined) return;
    const newline = chunk.indexOf(0x0a);
    if (newline < 0) {
      this.partial.push(chunk);
      this.partialBytes += chunk.length;
      if (this.partialBytes > MAX_ANSWER_BYTES) this.resolve({ overlong: true });
      return;
    }
    this.partial.push(chunk.subarray(0, newline));
    this.partialBytes += newline;
    if (this.partialBytes > MAX_ANSWER_BYTES) return this.resolve({ overlong: true });
    const line = Buffer.concat(this.partial).toString('utf8').replace(/\r$/, '');
    this.resolve({ line });
  }

  private resolve(answer: { line: string } | { overlong: true }): void {
    const waiter = this.waiter;
    this.waiter = undefined;
    this.partial = [];
    this.partialBytes = 0;
    waiter?.(answer);
  }
}

export class BoundedLog {
  private chunks: Buffer[] = [];
  private bytes = 0;
  private dropped = 0;

  constructor(private readonly limit = PLAYER_LOG_BYTES) {}

  push(chunk: Buffer): void {
    const room = this.limit - this.bytes;
    if (room <= 0) {
      this.dropped += chunk.length;
      return;
    }
    const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
    this.chunks.push(Buffer.from(kept));
    this.bytes += kept.length;
    this.dropped += chunk.length - kept.length;
  }

  /**
   * The log as its owner reads it: the bytes through the one sanitizer (NUL and invalid UTF-8 as
   * U+FFFD), ending with REPLACED_NOTE when anything was replaced (DESIGN: a shown excerpt says so).
   */
  text(): StorableText {
    let bytes: Uint8Array = Buffer.concat(this.chunks);
    let dropped = this.dropped;
    if (dropped > 0) {
      // The bound may fall inside a character: drop its first bytes too rather than flag them.
      const kept = cutAtCharacter(bytes);
      dropped += bytes.length - kept.length;
      bytes = kept;
    }
    const { value, replaced } = sanitizeText(bytes);
    const text = dropped > 0 ? `${value}\n… (${dropped} more bytes of stderr dropped)` : value;
    return sanitizeText(replaced ? `${text}\n${REPLACED_NOTE}` : text).value;
  }
}
