/**
 * Production start-up: the compiled API (`node dist/src/api/server.js`, spawn → first 200 on
 * /healthz) and the compiled worker (`node dist/src/worker.js`, spawn → its WORKER_READY line,
 * workflow code from dist/workflow-bundle.js), several runs each, alternated with the anchor
 * `node -e ''` measured in the same run. Target (issue 19): ≤ 2 s from a built tree. Needs
 * `npm run build` first, PostgreSQL with the database migrated and a Temporal server (run-all.ts
 * passes both); without dist the rows say so instead of measuring tsx.
 *
 *   DATABASE_URL=… TEMPORAL_ADDRESS=… npx tsx bench/process-startup.ts [--runs 5]
 *   (also part `startup` of npm run bench)
 */
import { spawn, spawnSync } from 'node:child_process';
import { API_NODE_FLAGS } from '../src/api/node-flags';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { loadAverage } from './lib/machine';
import { freePort, ROOT } from './lib/processes';
import { fmt, type BenchRow } from './lib/report';
import { startupRow } from './lib/startup-row';

const TARGET_MS = 2000;
/** Far beyond the target: a start that takes this long is reported, not waited for. */
const GIVE_UP_MS = 60_000;

function anchorMs(): number {
  const started = process.hrtime.bigint();
  spawnSync(process.execPath, ['-e', ''], { stdio: 'ignore' });
  return Number(process.hrtime.bigint() - started) / 1e6;
}

/**
 * Spawns `node <entry>`, resolves with the milliseconds until `ready` holds, then stops the process
 * (SIGTERM, waited for) so that runs do not overlap.
 */
async function startMs(
  entry: string,
  env: NodeJS.ProcessEnv,
  ready: (output: string) => Promise<boolean> | boolean,
  nodeArgs: readonly string[] = [],
): Promise<number> {
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, [...nodeArgs, entry], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    for (;;) {
      if (await ready(output)) return Number(process.hrtime.bigint() - started) / 1e6;
      if (child.exitCode !== null)
        throw new Error(`${entry} exited ${child.exitCode}: ${output.slice(-500)}`);
      if (Number(process.hrtime.bigint() - started) / 1e6 > GIVE_UP_MS)
        throw new Error(`${entry} not ready after ${GIVE_UP_MS / 1000} s`);
      await new Promise((r) => setTimeout(r, 10));
    }
  } finally {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
  }
}

async function answers200(port: number): Promise<boolean> {
  try {
    return (await fetch(`http://127.0.0.1:${port}/healthz`)).status === 200;
  } catch {
    return false; // not listening yet
  }
}

export async function benchProcessStartup(env: Record<string, string>, runs = 5): Promise<BenchRow[]> {
  const api = path.join(ROOT, 'dist/src/api/server.js');
  const worker = path.join(ROOT, 'dist/src/worker.js');
  const subjects = [
    { figure: 'API start-up from dist (spawn → first 200 on /healthz)', entry: api },
    { figure: 'Worker start-up from dist (spawn → WORKER_READY)', entry: worker },
  ];
  if (!existsSync(api) || !existsSync(path.join(ROOT, 'dist/workflow-bundle.js')))
    return subjects.map(({ figure }) => ({
      figure,
      value: 'not measured',
      target: `≤ ${fmt(TARGET_MS)} ms`,
      ok: false,
      load: loadAverage(),
      note: 'no built tree: run `npm run build` first',
    }));
  const base: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'development',
    LOG_LEVEL: 'warn',
    TEMPORAL_TASK_QUEUE: `startup-${process.pid}`,
    ...env,
  };
  // The database as the processes expect it (created if missing, migrated), unmeasured.
  const migrate = spawnSync(process.execPath, [path.join(ROOT, 'dist/src/db/migrate-cli.js')], {
    cwd: ROOT,
    env: base,
    encoding: 'utf8',
  });
  if (migrate.status !== 0) throw new Error(`migrations failed: ${migrate.stderr}`);
  const rows: BenchRow[] = [];
  for (const subject of subjects) {
    const times: number[] = [];
    const anchor: number[] = [];
    try {
      for (let i = 0; i < runs; i++) {
        // Alternated, so both see the same machine.
        anchor.push(anchorMs());
        if (subject.entry === api) {
          const port = await freePort();
          times.push(
            await startMs(
              api,
              { ...base, HOST: '127.0.0.1', PORT: String(port) },
              () => answers200(port),
              API_NODE_FLAGS,
            ),
          );
        } else times.push(await startMs(worker, base, (output) => output.includes('WORKER_READY')));
      }
    } catch (err) {
      rows.push({
        figure: subject.figure,
        value: 'not measured',
        target: `≤ ${fmt(TARGET_MS)} ms`,
        ok: false,
        load: loadAverage(),
        note: err instanceof Error ? err.message : String(err),
      });
      continue;
    }
    rows.push(
      startupRow(
        subject.figure,
        times,
        anchor,
        TARGET_MS,
        `${runs} runs each, whole process, compiled (dist/), node alone`,
      ),
    );
  }
  return rows;
}

if (require.main === module) {
  const i = process.argv.indexOf('--runs');
  const runs = i > 0 ? Number(process.argv[i + 1]) : 5;
  const env: Record<string, string> = {};
  for (const name of ['DATABASE_URL', 'TEMPORAL_ADDRESS'])
    if (process.env[name]) env[name] = process.env[name]!;
  void benchProcessStartup(env, runs).then((rows) =>
    process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`),
  );
}
