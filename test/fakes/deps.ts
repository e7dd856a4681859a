/**
 * ServiceDeps for unit tests: the Temporal client and the clock are in-memory fakes, the database
 * a recorder of the statements it is sent (answering with no rows, or what a test queues), the
 * logger silent. No PostgreSQL, no Temporal server, no worker: the integration tests prove those.
 */
import pino from 'pino';
import type { Pool } from 'pg';
import { loadConfig } from '../../src/config';
import type { ServiceDeps } from '../../src/service-deps';
import { FakeClock } from './clock';
import { FakeTemporal } from './temporal';

export interface RecordedQuery {
  text: string;
  values: unknown[];
}

/** A database that records each statement and answers with the rows a test queued for it (by a text match). */
export class RecordingDb {
  readonly queries: RecordedQuery[] = [];
  private readonly answers: { match: RegExp; rows: unknown[] }[] = [];
  answer(match: RegExp, rows: unknown[]): this {
    this.answers.push({ match, rows });
    return this;
  }
  readonly query = async (text: string | { text: string; values?: unknown[] }, values: unknown[] = []) => {
    const q = typeof text === 'string' ? { text, values } : { text: text.text, values: text.values ?? [] };
    this.queries.push(q);
    const rows = this.answers.find((a) => a.match.test(q.text))?.rows ?? [];
    return { rows, rowCount: rows.length, command: '', oid: 0, fields: [] };
  };
  /** pool.connect() for withTransaction: the same recorder, as a checked-out client. */
  readonly connect = async () => ({
    query: this.query,
    on: () => undefined,
    off: () => undefined,
    removeListener: () => undefined,
    release: () => undefined,
  });
  /** The statements sent, as their first line (BEGIN, SELECT …, COMMIT). */
  statements(): string[] {
    return this.queries.map((q) => q.text.trim().split('\n')[0]);
  }
}

export interface FakeDeps extends ServiceDeps {
  fakeTemporal: FakeTemporal;
  fakeClock: FakeClock;
  fakeDb: RecordingDb;
  warnings: unknown[];
}

export function fakeServiceDeps(env: Record<string, string> = {}): FakeDeps {
  const fakeTemporal = new FakeTemporal();
  const fakeClock = new FakeClock();
  const fakeDb = new RecordingDb();
  const warnings: unknown[] = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => void warnings.push(JSON.parse(line)) });
  return {
    config: loadConfig({ NODE_ENV: 'test', TEMPORAL_TASK_QUEUE: 'unit-test-queue', ...env }),
    db: fakeDb as unknown as Pool,
    logger,
    temporal: fakeTemporal.connect,
    clock: fakeClock,
    fakeTemporal,
    fakeClock,
    fakeDb,
    warnings,
  };
}
