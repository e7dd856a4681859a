/**
 * The CLI against a test server, two ways: in this process (`runCli` with the real commands, over
 * HTTP: fast) or as the process people start (the compiled CLI when `npm run build` made dist,
 * else through tsx). Both start with no credential from the environment; pass one in `env`.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { runCli } from '../../src/cli/framework';
import { loadCommands } from '../../src/cli/index';
import type { TestServer } from './server';

export interface CliRun {
  code: number;
  out: string;
  err: string;
}

const noCredentials = (server: TestServer) => ({ API_BASE_URL: server.baseUrl, API_JWT: '', CCS_TOKEN: '' });

/** The CLI's commands run in this process; `out`/`err` are what it printed, a line each. */
export function cliInProcess(server: TestServer) {
  return async (argv: string[], env: NodeJS.ProcessEnv = {}): Promise<CliRun> => {
    const run: CliRun = { code: -1, out: '', err: '' };
    run.code = await runCli(argv, await loadCommands(), {
      env: { ...process.env, ...noCredentials(server), ...env },
      out: (t) => (run.out += `${t}\n`),
      err: (t) => (run.err += `${t}\n`),
    });
    return run;
  };
}

const ROOT = path.resolve(__dirname, '../..');
const COMPILED = path.join(ROOT, 'dist/src/cli/index.js');
const ENTRY = existsSync(COMPILED) ? [COMPILED] : ['--import', 'tsx', path.join(ROOT, 'src/cli/index.ts')];

/** The CLI as a child process (cwd: the checkout, where tsx resolves from when there is no dist). */
export function cliProcess(server: TestServer) {
  return (args: string[], env: Record<string, string> = {}): Promise<CliRun> =>
    new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [...ENTRY, ...args], {
        cwd: ROOT,
        env: { ...process.env, ...noCredentials(server), ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const run: CliRun = { code: -1, out: '', err: '' };
      child.stdout.on('data', (c: Buffer) => (run.out += c.toString()));
      child.stderr.on('data', (c: Buffer) => (run.err += c.toString()));
      child.once('error', reject);
      child.once('exit', (code) => resolve({ ...run, code: code ?? -1 }));
    });
}
