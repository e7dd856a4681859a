import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Client } from 'pg';
import { migrate } from '../../src/db/migrate';
import {
  ARTIFACTS_DIR,
  TEMPORAL_BACKEND,
  TEST_DATABASE_NAME,
  TEST_TEMPORAL_DB_PREFIX,
  testEnvironment,
} from './test-env';

const ROOT = path.resolve(__dirname, '../..');

declare global {
  var __TEST_CHILDREN__: ChildProcess[] | undefined;
}

function portOpen(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
    socket.setTimeout(1000, () => (socket.destroy(), resolve(false)));
  });
}

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function recreateDatabase(databaseUrl: string): Promise<void> {
  const admin = new Client({ connectionString: databaseUrl.replace(/\/[^/]+$/, '/postgres') });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${TEST_DATABASE_NAME}" WITH (FORCE)`);
  } finally {
    await admin.end();
  }
  await migrate(databaseUrl);
}

function startChild(name: string, command: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  const log = createWriteStream(path.join(ARTIFACTS_DIR, `${name}.log`));
  const child = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.pipe(log);
  child.stderr!.pipe(log);
  (globalThis.__TEST_CHILDREN__ ??= []).push(child);
  return child;
}

/** Resolves once the child prints `text` (its ready line); rejects if it exits first or times out. */
function readyLine(child: ChildProcess, text: string, name: string, timeoutMs: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const log = `test-artifacts/${name}.log`;
    const timer = setTimeout(
      () => reject(new Error(`${name} did not become ready in ${timeoutMs / 1000} s; see ${log}`)),
      timeoutMs,
    );
    child.stdout!.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes(text)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code} during start; see ${log}`));
    });
  });
}

/**
 * TEMPORAL_BACKEND=postgres: the real server on PostgreSQL (temporal/server-postgres.sh), on
 * databases of this run's own (dropped first, so every run starts as empty as the in-memory dev
 * server). Ready when the script has registered the search attributes and a query on them answers.
 */
async function startPostgresTemporal(port: number, databaseUrl: string): Promise<void> {
  const prefix = TEST_TEMPORAL_DB_PREFIX;
  const admin = new Client({ connectionString: databaseUrl.replace(/\/[^/]+$/, '/postgres') });
  await admin.connect();
  try {
    for (const name of [prefix, `${prefix}_visibility`])
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  } finally {
    await admin.end();
  }
  const server = startChild(
    'temporal',
    path.join(ROOT, 'temporal/server-postgres.sh'),
    [String(port), prefix],
    process.env,
  );
  await readyLine(server, 'TEMPORAL_POSTGRES_READY', 'temporal', 600_000);
}

declare global {
  var __TEST_STACK__: { worker: boolean } | undefined;
}

/**
 * The stack a tier needs, started once per jest run: the test database (recreated and migrated),
 * Temporal (the dev server, unless something already answers on its port) and, for the system
 * tier only, the worker process. Running service and system in one jest run starts each piece once.
 */
export async function startStack(options: { worker: boolean }): Promise<void> {
  const started = globalThis.__TEST_STACK__;
  if (!started) {
    const env = testEnvironment();
    Object.assign(process.env, env);
    await recreateDatabase(env.DATABASE_URL);

    const [host, portText] = env.TEMPORAL_ADDRESS.split(':');
    const port = Number(portText);
    if (!(await portOpen(host, port))) {
      if (TEMPORAL_BACKEND === 'postgres') await startPostgresTemporal(port, env.DATABASE_URL);
      else {
        // No server there: start a headless in-memory dev server for this run.
        startChild(
          'temporal',
          path.join(ROOT, 'temporal/dev-server.sh'),
          [String(port), 'headless'],
          process.env,
        );
        await waitFor(`Temporal dev server on ${env.TEMPORAL_ADDRESS}`, () => portOpen(host, port), 120_000);
      }
    }
    globalThis.__TEST_STACK__ = { worker: false };
  }
  if (options.worker && !globalThis.__TEST_STACK__!.worker) {
    const worker = startChild('worker', process.execPath, [require.resolve('tsx/cli'), 'src/worker.ts'], {
      ...process.env,
    });
    await readyLine(worker, 'WORKER_READY', 'worker', 120_000);
    globalThis.__TEST_STACK__!.worker = true;
  }
}

/** The system tier (test/system): database, Temporal and the worker. */
export default async function globalSetup(): Promise<void> {
  await startStack({ worker: true });
}
