/**
 * Runs hostile programs inside the OS sandbox exactly as the judge starts its processes (same
 * launcher, same limits), but with plain Node instead of the harness: no vm context, no permission
 * flags. Whatever they achieve is what a submission that broke every inner layer would achieve.
 */
import { execFile } from 'node:child_process';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import {
  type FinishedProcess,
  type LaunchSpec,
  type LaunchedProcess,
  type SandboxLauncher,
  createBwrapLauncher,
  defaultLimits,
} from '../../../src/judging/sandbox/os-sandbox';

let launcher: Promise<SandboxLauncher> | undefined;

export function osSandbox(): Promise<SandboxLauncher> {
  launcher ??= createBwrapLauncher();
  return launcher;
}

export interface HostileRun extends FinishedProcess {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
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
  /** Runs this native binary (from compileC) instead of node and the program. */
  native?: string;
  /** SIGKILLs bwrap after this long, as the judge's wall-clock limit does. */
  killAfterMs?: number;
}

/** Where compiled attack programs appear inside the sandbox. */
const NATIVE_PATH = '/sandbox/attack';

/** Compiles a C attack program (static, so nothing but the binary needs binding inside). */
export async function compileC(source: string): Promise<string> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'wall-attack-'));
  chmodSync(dir, 0o755); // bwrap runs as the sandbox's own uid
  writeFileSync(path.join(dir, 'attack.c'), source);
  await promisify(execFile)(
    'gcc',
    ['-O1', '-static', '-o', path.join(dir, 'attack'), path.join(dir, 'attack.c')],
    {
      timeout: 120_000,
    },
  );
  return path.join(dir, 'attack');
}

export async function runHostile(program: string, options: HostileOptions = {}): Promise<HostileRun> {
  const sandbox = await osSandbox();
  const spec: LaunchSpec = {
    scriptSource: program,
    hostScriptPath: '',
    nodeFlags: () => [],
    limits: defaultLimits(options.memoryMb ?? 64, options.timeoutMs ?? 2_000),
    slot: options.slot ?? 0,
    ...(options.native === undefined
      ? {}
      : {
          command: {
            argv: [NATIVE_PATH],
            readOnlyPaths: [],
            readOnlyBinds: [{ source: options.native, target: NATIVE_PATH }],
          },
        }),
  };
  const launched: LaunchedProcess = await sandbox.launch(spec);
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
  const killer =
    options.killAfterMs === undefined
      ? undefined
      : setTimeout(() => child.kill('SIGKILL'), options.killAfterMs);
  // As the judge does: the cgroup is emptied once bwrap is gone, not when the pipes close.
  const finishing = new Promise<FinishedProcess>((resolve) =>
    child.once('exit', () => resolve(launched.finish())),
  );
  const [exitCode, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    child.on('close', (code, sig) => resolve([code, sig])),
  );
  clearTimeout(killer);
  const finished = await finishing;
  const lines = stdout.trim().split('\n');
  let report: unknown;
  try {
    report = JSON.parse(lines[lines.length - 1]);
  } catch {
    report = undefined;
  }
  return { exitCode, signal, ...finished, stdout, stderr, report };
}

/** Helpers compiled into every hostile program: `attempt(fn)` → the error code, or 'allowed'. */
export const PRELUDE = `
const fs = require('fs'), net = require('net'), dgram = require('dgram'), dns = require('dns');
const attempt = (fn) => { try { const v = fn(); return v === undefined ? 'allowed' : v; } catch (e) { return e.code || e.name || String(e); } };
const attemptAsync = async (fn) => { try { const v = await fn(); return v === undefined ? 'allowed' : v; } catch (e) { return e.code || e.name || String(e); } };
const report = (value) => process.stdout.write(JSON.stringify(value) + '\\n');
`;

/** C helpers of every native attack: `try_call(name, result)` records the errno of a failed call. */
export const C_PRELUDE = `
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sched.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
static int first_entry = 1;
static void entry(const char *name, const char *value) {
  printf("%s\\"%s\\": \\"%s\\"", first_entry ? "{" : ", ", name, value);
  first_entry = 0;
}
/* The errno name of a failed call, or "allowed". */
static void try_call(const char *name, long result) {
  entry(name, result >= 0 ? "allowed" : strerrorname_np(errno));
}
static void done(void) { printf("%s}\\n", first_entry ? "{" : ""); fflush(stdout); }
`;

/** Bubblewrap exits with 128 + n when the sandboxed process dies of signal n. */
export const EXIT_BY_SIGNAL = {
  SIGKILL: 128 + 9,
  SIGTRAP: 128 + 5,
  SIGSEGV: 128 + 11,
  SIGSYS: 128 + 31,
  SIGXCPU: 128 + 24,
} as const;
