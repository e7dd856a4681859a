/**
 * ServiceDeps for unit tests: the Temporal client and the clock are in-memory fakes, the database
 * none (every statement refused: a feature's unit test hands it its in-memory store through
 * `stores`, test/fakes/stores/), the logger silent. No PostgreSQL, no Temporal server, no worker:
 * the service and system tiers prove those.
 */
import pino from 'pino';
import type { Pool } from 'pg';
import { loadConfig } from '../../src/config';
import type { ServiceDeps } from '../../src/service-deps';
import { FakeClock } from './clock';
import { FakeTemporal } from './temporal';

/**
 * The unit tier's database: there is none. Every statement is refused, so a domain operation that
 * still reaches the pool instead of its feature's store (test/fakes/stores/) fails loudly.
 */
export const noDatabase = {
  query: async (text: string | { text: string }) => {
    const sql = typeof text === 'string' ? text : text.text;
    throw new Error(`no database in the unit tier (give the feature a store): ${sql.trim().split('\n')[0]}`);
  },
  connect: async () => {
    throw new Error('no database in the unit tier (give the feature a store)');
  },
} as unknown as Pool;

export interface FakeDeps extends ServiceDeps {
  fakeTemporal: FakeTemporal;
  fakeClock: FakeClock;
  warnings: unknown[];
}

export function fakeServiceDeps(env: Record<string, string> = {}): FakeDeps {
  const fakeTemporal = new FakeTemporal();
  const fakeClock = new FakeClock();
  const warnings: unknown[] = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => void warnings.push(JSON.parse(line)) });
  return {
    config: loadConfig({ NODE_ENV: 'test', TEMPORAL_TASK_QUEUE: 'unit-test-queue', ...env }),
    db: noDatabase,
    logger,
    temporal: fakeTemporal.connect,
    clock: fakeClock,
    fakeTemporal,
    fakeClock,
    warnings,
  };
}
