/**
 * Opaque keyset cursors (`pagination.next_cursor`): base64url of the JSON array of the last row's
 * sort key. One codec for every newest-first listing; each listing says what its key looks like.
 * Anything that is not a cursor this service wrote is refused with `invalid()` (a 400, never a 500).
 */

/** Keyset position newest first on (a timestamp to the microsecond, a uuid). */
export interface TimeIdKey {
  /** UTC text with microseconds (a JavaScript Date would drop those and skip or repeat rows). */
  createdAt: string;
  id: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Exactly what the queries' to_char writes: UTC, microseconds. */
const MICRO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

export function encodeCursor(parts: (string | number)[]): string {
  return Buffer.from(JSON.stringify(parts)).toString('base64url');
}

/** The cursor's parts when it is well formed and `check` accepts them; else `invalid()` is thrown. */
export function decodeCursor<T>(
  cursor: string,
  check: (parts: unknown[]) => T | null,
  invalid: () => Error,
): T {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) throw invalid();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  const key = Array.isArray(parsed) ? check(parsed) : null;
  if (key === null) throw invalid();
  return key;
}

export const encodeTimeIdCursor = (key: TimeIdKey) => encodeCursor([key.createdAt, key.id]);

export function decodeTimeIdCursor(cursor: string, invalid: () => Error): TimeIdKey {
  return decodeCursor(
    cursor,
    (parts) => {
      if (parts.length !== 2) return null;
      const [createdAt, id] = parts;
      // The regex alone admits month 13 or hour 25, which PostgreSQL would reject with an error (a 500).
      if (typeof createdAt !== 'string' || !MICRO_UTC.test(createdAt) || Number.isNaN(Date.parse(createdAt)))
        return null;
      if (typeof id !== 'string' || !UUID.test(id)) return null;
      return { createdAt, id };
    },
    invalid,
  );
}

/** Keyset position on a bigserial (creation order), newest first. */
export const encodeSeqCursor = (seq: string) => encodeCursor([seq]);

export function decodeSeqCursor(cursor: string, invalid: () => Error): string {
  return decodeCursor(
    cursor,
    (parts) =>
      parts.length === 1 && typeof parts[0] === 'string' && /^[1-9][0-9]{0,17}$/.test(parts[0])
        ? parts[0]
        : null,
    invalid,
  );
}

/** The page (limit rows of the limit + 1 read) and its pagination, the cursor made from the last row. */
export function keysetPage<R>(
  page: R[],
  limit: number,
  cursorOf: (last: R) => string,
): { rows: R[]; pagination: { limit: number; has_more: boolean; next_cursor: string | null } } {
  const hasMore = page.length > limit;
  const rows = hasMore ? page.slice(0, limit) : page;
  return {
    rows,
    pagination: { limit, has_more: hasMore, next_cursor: hasMore ? cursorOf(rows[rows.length - 1]) : null },
  };
}
