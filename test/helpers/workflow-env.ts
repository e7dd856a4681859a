/**
 * Workflows under test in a Temporal test environment (issue 39): the real workflows (the registry,
 * workflows/index.ts) over scripted activities, on a throwaway Temporal dev server per test file.
 *
 * - The server: `TestWorkflowEnvironment.createLocal` on the project's own Temporal CLI
 *   (temporal/ensure-cli.sh, `TEMPORAL_CLI`), never a download. The time-skipping test server is
 *   fetched from the network at run time, which this project's machines cannot do
 *   (docs/decisions/platform.md), so durations come from the workflows' inputs and the scripted
 *   activities instead: tests run them in milliseconds.
 * - The bundle: built once per content of src/ and workflows/ and kept on disk
 *   (test-artifacts/workflow-bundle/<hash>.js), so every file of a run, and the next run, loads
 *   the same code without bundling again.
 * - Ports: random free ones unless TEST_WORKFLOW_ENV_PORT gives a base (three ports per jest
 *   worker: gRPC, HTTP API, metrics), for machines where tests must keep to a range.
 */
import { execFileSync } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { judgingTaskQueue } from '../../src/domain/submissions/contract';
import {
  AgentIdKey,
  AgentIdsKey,
  ChallengeIdKey,
  MatchIdKey,
  MatchStatusKey,
  SubmissionStatusKey,
} from '../../src/temporal-client/search-attributes';

const ROOT = path.resolve(__dirname, '../..');
const BUNDLE_DIR = path.join(ROOT, 'test-artifacts', 'workflow-bundle');
// Scripted activities fail on purpose; the worker would log each failure at WARN.
const quiet = new DefaultLogger('ERROR');

function sourcesHash(): string {
  const hash = createHash('sha256');
  hash.update(JSON.parse(readFileSync(require.resolve('@temporalio/workflow/package.json'), 'utf8')).version);
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
      a.name.localeCompare(b.name),
    )) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.ts')) hash.update(path.relative(ROOT, full)).update(readFileSync(full));
    }
  };
  walk(path.join(ROOT, 'src'));
  walk(path.join(ROOT, 'workflows'));
  return hash.digest('hex').slice(0, 16);
}

/** The workflow bundle of the current sources, built at most once per content (on disk). */
export async function workflowBundlePath(): Promise<string> {
  const file = path.join(BUNDLE_DIR, `${sourcesHash()}.js`);
  if (existsSync(file)) return file;
  const { code } = await bundleWorkflowCode({
    workflowsPath: require.resolve('../../workflows'),
    logger: quiet,
  });
  mkdirSync(BUNDLE_DIR, { recursive: true });
  // Two jest workers may build at once: each writes its own file, the rename is atomic.
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, code);
  renameSync(tmp, file);
  return file;
}

function temporalCli(): string {
  if (process.env.TEMPORAL_CLI) return process.env.TEMPORAL_CLI;
  return execFileSync(path.join(ROOT, 'temporal/ensure-cli.sh'), { encoding: 'utf8' }).trim();
}

function installQuietRuntime(): void {
  try {
    // Core's own log lines (a task completed after its test ended...) go to stderr unless filtered too.
    Runtime.install({
      logger: quiet,
      telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' } } },
    });
  } catch {
    // already installed in this jest worker
  }
}

/** A dev server of the project's CLI with the service's search attributes, for this test file. */
export async function createWorkflowEnv(): Promise<TestWorkflowEnvironment> {
  installQuietRuntime();
  const base = Number(process.env.TEST_WORKFLOW_ENV_PORT ?? 0);
  const slot = Number(process.env.JEST_WORKER_ID ?? 1) - 1;
  const ports =
    base > 0 ? { grpc: base + 3 * slot, http: base + 3 * slot + 1, metrics: base + 3 * slot + 2 } : null;
  const options: Parameters<typeof TestWorkflowEnvironment.createLocal>[0] = {
    server: {
      executable: { type: 'existing-path', path: temporalCli() },
      ip: '127.0.0.1',
      ...(ports
        ? {
            port: ports.grpc,
            extraArgs: ['--http-port', `${ports.http}`, '--metrics-port', `${ports.metrics}`],
          }
        : {}),
      searchAttributes: [
        ChallengeIdKey,
        AgentIdKey,
        SubmissionStatusKey,
        MatchIdKey,
        MatchStatusKey,
        AgentIdsKey,
      ],
    },
  };
  // Core waits 5 s for the server to answer; on a loaded machine it can take longer (a busy CI,
  // 30 Nov: "ephemeral server … did not start within 5s"): the start is retried, the tests are not.
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await TestWorkflowEnvironment.createLocal(options);
    } catch (err) {
      if (attempt >= 3 || !/did not start within/.test(String(err))) throw err;
    }
  }
}

export interface WorkflowKit {
  env: TestWorkflowEnvironment;
  client: Client;
  /** The workflows' task queue; `<taskQueue>-judging` runs the same activities (the judging queue). */
  taskQueue: string;
  /** A fresh workflow id with this prefix. */
  id(prefix: string): string;
  close(): Promise<void>;
}

/**
 * A test environment, its bundle and two workers (the workflows' task queue and the judging one,
 * src/worker.ts) running `activities`: start in beforeAll, close in afterAll.
 */
export async function startWorkflowKit(activities: object): Promise<WorkflowKit> {
  // Heartbeats reach the server at once, so a cancellation reaches a heartbeating step within
  // ~0.1 s instead of after the default throttle (80 % of the heartbeat timeout: 24 s).
  const heartbeats = { maxHeartbeatThrottleInterval: 100, defaultHeartbeatThrottleInterval: 100 };
  // Both settle before anything throws: a bundle still being built when the file ends would run
  // on in this jest worker and fail the next file with webpack's errors (busy CI, 30 Nov).
  const [envOutcome, bundleOutcome] = await Promise.allSettled([createWorkflowEnv(), workflowBundlePath()]);
  if (envOutcome.status === 'rejected') throw envOutcome.reason;
  const env = envOutcome.value;
  if (bundleOutcome.status === 'rejected') {
    await env.teardown();
    throw bundleOutcome.reason;
  }
  const codePath = bundleOutcome.value;
  const taskQueue = `wf-${randomUUID()}`;
  try {
    const workers = await Promise.all([
      Worker.create({
        connection: env.nativeConnection,
        taskQueue,
        workflowBundle: { codePath },
        activities,
        ...heartbeats,
      }),
      Worker.create({
        connection: env.nativeConnection,
        taskQueue: judgingTaskQueue(taskQueue),
        activities,
        ...heartbeats,
      }),
    ]);
    const running = Promise.all(workers.map((w) => w.run()));
    return {
      env,
      client: env.client,
      taskQueue,
      id: (prefix) => `${prefix}-${randomUUID()}`,
      async close() {
        workers.forEach((w) => w.shutdown());
        await running;
        await env.teardown();
      },
    };
  } catch (err) {
    await env.teardown();
    throw err;
  }
}

/** Polls `check` until it returns a value other than undefined/false (the state a test needs). */
export async function until<T>(
  check: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value as T;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`condition not met within ${timeoutMs} ms${last ? `: ${String(last)}` : ''}`);
}
