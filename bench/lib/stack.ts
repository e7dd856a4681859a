/**
 * A whole service stack of our own for a benchmark or a fault run: a database recreated and
 * migrated, a Temporal dev server on our own port (started here unless one already answers), the
 * worker and the API as real processes.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { migrate } from '../../src/db/migrate';
import { ApiClient } from './http';
import {
  apiProcess,
  freePort,
  ManagedProcess,
  portOpen,
  ROOT,
  temporalProcess,
  workerProcess,
} from './processes';
import { prebuiltWorkflowBundle } from './workflow-bundle';

const PG_SOCKET_DIR = '/var/run/postgresql';

/**
 * Connection URL of a database on the local server: over its Unix socket when there is one (on
 * this VM a loopback TCP round trip cost about three times a socket's when measured), over
 * 127.0.0.1:5432 with `tcp` or BENCH_PG_TCP=1; BENCH_PG_BASE (`postgres://user@host:port`) overrides.
 */
export function pgUrl(database: string, tcp = process.env.BENCH_PG_TCP === '1'): string {
  if (process.env.BENCH_PG_BASE) return `${process.env.BENCH_PG_BASE}/${database}`;
  if (!tcp && existsSync(`${PG_SOCKET_DIR}/.s.PGSQL.5432`))
    return `postgres://postgres@localhost/${database}?host=${encodeURIComponent(PG_SOCKET_DIR)}`;
  return `postgres://postgres@127.0.0.1:5432/${database}`;
}

export async function recreateDatabase(name: string, tcp?: boolean): Promise<string> {
  if (!/^[a-z0-9_]+$/.test(name)) throw new Error(`bad database name ${name}`);
  const admin = new Client({ connectionString: pgUrl('postgres', tcp) });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  } finally {
    await admin.end();
  }
  const url = pgUrl(name, tcp);
  await migrate(url);
  return url;
}

export interface StackOptions {
  /** Label for logs: logs go to .data/<label>/logs/. */
  label: string;
  database: string;
  temporalPort: number;
  /** File-backed Temporal (state survives a restart); in memory when absent. */
  temporalDbFile?: string;
  apiPort?: number;
  /** Extra environment for the API and the worker. */
  env?: Record<string, string>;
  /** Restart API/worker by themselves when they die unasked. */
  supervise?: boolean;
  /** Connect to PostgreSQL over TCP (127.0.0.1:5432) rather than its Unix socket. */
  pgTcp?: boolean;
  /** Extra node flags for the API process (e.g. --cpu-prof). */
  apiNodeArgs?: string[];
  workerNodeArgs?: string[];
}

export interface Stack {
  env: Record<string, string>;
  databaseUrl: string;
  apiUrl: string;
  api: ManagedProcess;
  worker: ManagedProcess;
  temporal: ManagedProcess | null;
  client: ApiClient;
  logDir: string;
  stop(): Promise<void>;
}

export async function startStack(options: StackOptions): Promise<Stack> {
  const logDir = path.join(ROOT, '.data', options.label, 'logs');
  // The workflow bundle is built (or found) while the database is recreated: every worker start reuses it.
  const [databaseUrl, workflowBundle] = await Promise.all([
    recreateDatabase(options.database, options.pgTcp),
    prebuiltWorkflowBundle(),
  ]);
  let temporal: ManagedProcess | null = null;
  if (!(await portOpen('127.0.0.1', options.temporalPort))) {
    temporal = temporalProcess({ port: options.temporalPort, dbFile: options.temporalDbFile, logDir });
    await temporal.start();
  }
  const apiPort = options.apiPort ?? (await freePort());
  const env: Record<string, string> = {
    NODE_ENV: 'development',
    LOG_LEVEL: 'warn',
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: `127.0.0.1:${options.temporalPort}`,
    TEMPORAL_TASK_QUEUE: `${options.label}-${Date.now()}`,
    HOST: '127.0.0.1',
    PORT: String(apiPort),
    WEBHOOK_ALLOW_PRIVATE: '1',
    // Fixtures mint `role: admin` operator JWTs (newUser('admin')); development only.
    AUTH_TRUST_ROLE_CLAIM: '1',
    TEMPORAL_WORKFLOW_BUNDLE: workflowBundle,
    ...(options.env ?? {}),
  };
  const childEnv = { ...process.env, ...env };
  const worker = workerProcess({
    env: childEnv,
    logDir,
    supervise: options.supervise,
    nodeArgs: options.workerNodeArgs,
  });
  const api = apiProcess({
    env: childEnv,
    logDir,
    supervise: options.supervise,
    nodeArgs: options.apiNodeArgs,
  });
  await Promise.all([worker.start(), api.start()]);
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  return {
    env,
    databaseUrl,
    apiUrl,
    api,
    worker,
    temporal,
    client: new ApiClient(apiUrl),
    logDir,
    async stop() {
      await Promise.all([api.stop(), worker.stop()]);
      if (temporal) await temporal.stop();
    },
  };
}
