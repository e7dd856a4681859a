/**
 * Runs hostile programs inside the OS sandbox exactly as the judge starts its processes (same
 * launcher, same limits), but with plain Node instead of the harness: no vm context, no permission
 * flags. Whatever they achieve is what a submission that broke every inner layer would achieve.
 */
import {
  type LaunchedProcess,
  type SandboxLauncher,
  createBwrapLauncher,
  defaultLimits,
} from '../../src/judging/sandbox/os-sandbox';

let launcher: Promise<SandboxLauncher> | undefined;

export function osSandbox(): Promise<SandboxLauncher> {
  launcher ??= createBwrapLauncher();
  return launcher;
}

export interface HostileRun {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  oomKilled: boolean;
  stdout: string;
  stderr: string;
  /** The last JSON line the program printed (its own account of what it tried). */
  report: any;
}

export interface HostileOptions {
  memoryMb?: number;
  timeoutMs?: number;
  slot?: number;
  /** Called with each stdout line as it arrives (to coordinate concurrent runs). */
  onLine?: (line: string) => void;
  /** Stdin stays open until this settles (a program can wait for its end). */
  holdStdinUntil?: Promise<unknown>;
}

export async function runHostile(program: string, options: HostileOptions = {}): Promise<HostileRun> {
  const sandbox = await osSandbox();
  const launched: LaunchedProcess = await sandbox.launch({
    scriptSource: program,
    hostScriptPath: '',
    nodeFlags: () => [],
    limits: defaultLimits(options.memoryMb ?? 64, options.timeoutMs ?? 2_000),
    slot: options.slot ?? 0,
  });
  const { child } = launched;
  let stdout = '';
  let stderr = '';
  let pending = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout = (stdout + chunk).slice(-64 * 1024);
    pending += chunk;
    let newline = pending.indexOf('\n');
    while (newline >= 0) {
      options.onLine?.(pending.slice(0, newline));
      pending = pending.slice(newline + 1);
      newline = pending.indexOf('\n');
    }
  });
  child.stderr
    .setEncoding('utf8')
    .on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-8 * 1024)));
  child.stdin.on('error', () => {});
  if (options.holdStdinUntil) void options.holdStdinUntil.finally(() => child.stdin.end());
  else child.stdin.end();
  const [exitCode, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    child.on('close', (code, sig) => resolve([code, sig])),
  );
  const { oomKilled } = await launched.finish();
  const lines = stdout.trim().split('\n');
  let report: unknown;
  try {
    report = JSON.parse(lines[lines.length - 1]);
  } catch {
    report = undefined;
  }
  return { exitCode, signal, oomKilled, stdout, stderr, report };
}

/** Helpers compiled into every hostile program: `attempt(fn)` → the error code, or 'allowed'. */
export const PRELUDE = `
const fs = require('fs'), net = require('net'), dgram = require('dgram'), dns = require('dns');
const attempt = (fn) => { try { const v = fn(); return v === undefined ? 'allowed' : v; } catch (e) { return e.code || e.name || String(e); } };
const attemptAsync = async (fn) => { try { const v = await fn(); return v === undefined ? 'allowed' : v; } catch (e) { return e.code || e.name || String(e); } };
const report = (value) => process.stdout.write(JSON.stringify(value) + '\\n');
`;

/** Bubblewrap exits with 128 + n when the sandboxed process dies of signal n. */
export const EXIT_BY_SIGNAL = { SIGKILL: 128 + 9, SIGTRAP: 128 + 5, SIGXCPU: 128 + 24 } as const;
