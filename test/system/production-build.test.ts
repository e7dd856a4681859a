/**
 * The production build, the steps the Dockerfile runs without Docker: `npm run build`
 * (scripts/build.mjs) into a folder of its own, then the compiled entry points with plain `node`
 * and no tsx: the migrations apply from the built tree, the API answers /healthz, the worker
 * (workflow code from the prebundled dist/workflow-bundle.js, sandbox assets from the built tree)
 * reaches its ready line against the test Temporal, and the CLI answers `help`.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { ARTIFACTS_DIR, testEnvironment } from '../setup/test-env';

const ROOT = path.resolve(__dirname, '../..');
const OUT = path.join(ROOT, ARTIFACTS_DIR, `build-${process.pid}`);
const children: ChildProcess[] = [];

/** The compiled API's port: loopback, in this run's own range (override with TEST_BUILD_API_PORT). */
const API_PORT = Number(process.env.TEST_BUILD_API_PORT ?? 18871);

/** Starts `node <entry>` from the built tree; resolves with the child and its output so far. */
function startCompiled(entry: string, env: NodeJS.ProcessEnv): { child: ChildProcess; output: () => string } {
  const child = spawn(process.execPath, [path.join(OUT, entry)], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return { child, output: () => output };
}

/** Waits until `condition` holds, or fails with what the process printed if it exits first. */
async function waitUntil(
  what: string,
  process: { child: ChildProcess; output: () => string },
  condition: () => Promise<boolean> | boolean,
): Promise<void> {
  for (;;) {
    if (await condition()) return;
    if (process.child.exitCode !== null)
      throw new Error(`${what}: exited ${process.child.exitCode} first:\n${process.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function healthz(port: number): Promise<number | null> {
  try {
    return (await fetch(`http://127.0.0.1:${port}/healthz`)).status;
  } catch {
    return null; // not listening yet
  }
}

describe('compiled production build', () => {
  const env = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
    ...process.env,
    ...testEnvironment(),
    ...extra,
  });

  beforeAll(() => {
    const build = spawnSync(process.execPath, ['scripts/build.mjs', '--out-dir', OUT], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    expect({ status: build.status, output: build.status === 0 ? '' : build.stdout + build.stderr }).toEqual({
      status: 0,
      output: '',
    });
  }, 600_000);

  afterAll(async () => {
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            child.once('exit', () => resolve());
            child.kill('SIGTERM');
          }),
      ),
    );
    rmSync(OUT, { recursive: true, force: true });
  }, 60_000);

  it('lays out one tree: compiled entry points, their run-time assets, the registries and the workflow bundle, no tests', () => {
    for (const file of [
      'src/api/server.js',
      'src/worker.js',
      'src/db/migrate-cli.js',
      'src/cli/index.js',
      'src/connector-client/cli.js',
      'src/db/migrations/1000_platform_core.sql',
      'src/judging/sandbox/sandbox-runner.cjs',
      'src/judging/toolchain/esbuild-child.cjs',
      'src/judging/sandbox/native-supervisor.c',
      'src/judging/sandbox/seccomp/policy.json',
      'src/judging/sandbox/seccomp/compile-policy.py',
      'workflows/index.js',
      'activities/index.js',
      'workflow-bundle.js',
    ])
      expect([file, existsSync(path.join(OUT, file))]).toEqual([file, true]);
    expect(existsSync(path.join(OUT, 'test'))).toBe(false);
    expect(existsSync(path.join(OUT, 'bench'))).toBe(false);
    // The bundle holds the registry's workflows (one of them by name).
    expect(readFileSync(path.join(OUT, 'workflow-bundle.js'), 'utf8')).toContain('submissionWorkflow');
  });

  it('transforms TypeScript in the built toolchain child, with node alone', () => {
    const script = `require(${JSON.stringify(path.join(OUT, 'src/judging/toolchain/run-esbuild.js'))})
      .transformInChild([{ path: 'main.ts', source: 'export const n: number = 1;', options: { loader: 'ts', format: 'cjs' } }])
      .then((outcome) => { console.log(JSON.stringify(outcome)); process.exit(0); });`;
    const run = spawnSync(process.execPath, ['-e', script], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toMatchObject({
      kind: 'transformed',
      attempts: 1,
      files: [{ ok: true, code: expect.stringContaining('n = 1') }],
    });
  });

  it('the image and compose start only entry points the build produces, with node, never tsx', () => {
    const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
    const compose = readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8');
    const entries = [...`${dockerfile}\n${compose}`.matchAll(/\bdist\/(src\/[\w/.-]+\.js)\b/g)].map(
      (m) => m[1],
    );
    expect(new Set(entries)).toEqual(
      new Set([
        'src/api/server.js',
        'src/worker.js',
        'src/db/migrate-cli.js',
        'src/dev/seed.js',
        'src/cli/index.js',
        'src/connector-client/cli.js',
      ]),
    );
    for (const entry of entries) expect([entry, existsSync(path.join(OUT, entry))]).toEqual([entry, true]);
    // Node's own flags may come first (the API's, src/api/node-flags.ts); then one built entry point.
    expect(dockerfile).toMatch(
      /^CMD \["node", (?:"--[\w-]+(?:=[\w.-]+)?", )*"dist\/src\/api\/server\.js"\]$/m,
    );
    const commands = [...compose.matchAll(/^\s+command: (.*)$/gm)].map((m) => m[1]);
    expect(commands.length).toBe(4);
    for (const command of commands)
      expect(command).toMatch(/^\['node', (?:'--[\w-]+(?:=[\w.-]+)?', )*'dist\/src\/[\w/.-]+\.js'\]$/);
    expect(`${dockerfile}\n${compose}`).not.toMatch(/tsx|npm run (api|worker|migrate)/);
  });

  it('applies the migrations from the built tree', () => {
    const migrate = spawnSync(process.execPath, [path.join(OUT, 'src/db/migrate-cli.js')], {
      cwd: ROOT,
      env: env(),
      encoding: 'utf8',
    });
    expect({ status: migrate.status, stderr: migrate.stderr }).toEqual({ status: 0, stderr: '' });
    expect(migrate.stdout).toContain('migrations applied');
  }, 120_000);

  it('starts the API with node alone and answers /healthz', async () => {
    const port = API_PORT;
    const api = startCompiled('src/api/server.js', env({ PORT: String(port), HOST: '127.0.0.1' }));
    await waitUntil('compiled API', api, async () => (await healthz(port)) !== null);
    expect(await healthz(port)).toBe(200);
  }, 120_000);

  it('starts the worker with node alone, from the prebundled workflows, to its ready line', async () => {
    // LOG_LEVEL info: the `worker ready` log line names where the workflow code came from.
    const worker = startCompiled('src/worker.js', env({ LOG_LEVEL: 'info' }));
    // The log line and WORKER_READY reach the pipe in either order: the logger writes its lines in
    // batches (src/lib/logger.ts), console.log at once.
    await waitUntil(
      'compiled worker',
      worker,
      () => worker.output().includes('WORKER_READY') && worker.output().includes('"worker ready"'),
    );
    const ready = worker
      .output()
      .split('\n')
      .find((line) => line.includes('"worker ready"'));
    expect(JSON.parse(ready ?? '{}').workflows).toEqual({
      workflowBundle: { codePath: path.join(OUT, 'workflow-bundle.js') },
    });
  }, 180_000);

  it('runs the CLIs with node alone', () => {
    for (const entry of ['src/cli/index.js', 'src/connector-client/cli.js']) {
      const run = spawnSync(process.execPath, [path.join(OUT, entry), 'help'], {
        cwd: ROOT,
        env: env(),
        encoding: 'utf8',
      });
      expect([entry, run.status]).toEqual([entry, 0]);
      expect(run.stdout.length).toBeGreaterThan(0);
    }
  }, 60_000);
});
