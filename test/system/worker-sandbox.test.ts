/**
 * The worker refuses to start without the OS sandbox, with one line that says what is missing and
 * how to install it; production refuses the development fallback at configuration.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { loadConfig } from '../../src/config';

const ROOT = path.resolve(__dirname, '../..');

function startWorker(
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [require.resolve('tsx/cli'), 'src/worker.ts'], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: process.env.HOME ?? '/root',
        LOG_LEVEL: 'warn',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Settings a production worker needs besides the sandbox (secrets generated for the test). */
const PRODUCTION = {
  NODE_ENV: 'production',
  // The test run's shortened arena minute (test-env.ts) is refused in production.
  ARENA_MINUTE_MS: '60000',
  AUTH_JWT_SECRET: 'a-production-secret-for-this-test-only',
  WEBHOOK_SECRET_KEY: 'a-production-webhook-key-for-this-test',
  DATABASE_URL: 'postgres://postgres:unused-password@127.0.0.1:5432/challenges_worker_sandbox_test',
  METRICS_TOKEN: 'a-metrics-token-for-this-test',
  // Nothing answers here: the worker must stop before it ever connects.
  TEMPORAL_ADDRESS: '127.0.0.1:1',
};

jest.setTimeout(60_000);

test('a production worker without bwrap refuses to start with one line naming the fix', async () => {
  const run = await startWorker({ ...PRODUCTION, JUDGE_BWRAP_PATH: '/nonexistent/bwrap' });
  expect(run.code).toBe(1);
  expect(run.stdout).not.toContain('WORKER_READY');
  const lines = run.stderr.trim().split('\n');
  expect(lines).toEqual([
    'worker refused to start: the tests judge needs the bubblewrap OS sandbox: bwrap not found at /nonexistent/bwrap: ' +
      'install the Debian package bubblewrap (apt-get install bubblewrap) or set JUDGE_BWRAP_PATH',
  ]);
});

test('a development worker without bwrap refuses too, and names the explicit development fallback', async () => {
  const run = await startWorker({
    NODE_ENV: 'development',
    JUDGE_BWRAP_PATH: '/nonexistent/bwrap',
    TEMPORAL_ADDRESS: '127.0.0.1:1',
  });
  expect(run.code).toBe(1);
  expect(run.stderr.trim()).toMatch(
    /^worker refused to start: .*bwrap not found at \/nonexistent\/bwrap.*\(development only: JUDGE_SANDBOX=unsafe-process\)$/,
  );
});

test('production refuses JUDGE_SANDBOX=unsafe-process at configuration; development accepts it explicitly', () => {
  expect(() => loadConfig({ ...PRODUCTION, JUDGE_SANDBOX: 'unsafe-process' })).toThrow(
    'JUDGE_SANDBOX: unsafe-process is refused in production: submitted code would run without the OS sandbox',
  );
  expect(loadConfig({ NODE_ENV: 'development', JUDGE_SANDBOX: 'unsafe-process' }).JUDGE_SANDBOX).toBe(
    'unsafe-process',
  );
  expect(loadConfig({ NODE_ENV: 'development' }).JUDGE_SANDBOX).toBe('bwrap');
  expect(() => loadConfig({ JUDGE_SANDBOX: 'none' })).toThrow(/JUDGE_SANDBOX/);
});
