/**
 * Real processes for benchmarks and fault runs: the API, the worker and a Temporal dev server,
 * each spawned in its own process group (so a SIGKILL takes the whole tree), with its output in a
 * log file, readiness detection and kill / restart helpers. An optional supervisor restarts a
 * process that died without being asked to (what systemd or Kubernetes would do in production).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { API_NODE_FLAGS } from '../../src/api/node-flags';
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import net from 'node:net';
import path from 'node:path';

export const ROOT = path.resolve(__dirname, '../..');

export function portOpen(host: string, port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
    socket.setTimeout(timeoutMs, () => (socket.destroy(), resolve(false)));
  });
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export async function waitFor(
  what: string,
  check: () => Promise<boolean> | boolean,
  timeoutMs: number,
  intervalMs = 100,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await sleep(intervalMs);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

function tryPort(port: number): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', (err: NodeJS.ErrnoException) =>
      port !== 0 && err.code === 'EADDRINUSE' ? resolve(null) : reject(err),
    );
    server.listen(port, '127.0.0.1', () => {
      const { port: bound } = server.address() as net.AddressInfo;
      server.close(() => resolve(bound));
    });
  });
}

/** Ports this process handed out (a port is only bound later, by the process it is for). */
const handedOut = new Set<number>();

/**
 * A free loopback port (bound then released). On a shared machine BENCH_PORT_MIN/BENCH_PORT_MAX
 * keep every server of a benchmark inside the range its user was given.
 */
export async function freePort(): Promise<number> {
  const min = Number(process.env.BENCH_PORT_MIN ?? 0);
  const max = Number(process.env.BENCH_PORT_MAX ?? 0);
  if (!min || !max) return (await tryPort(0))!;
  for (let port = min; port <= max; port++) {
    if (handedOut.has(port)) continue;
    const free = await tryPort(port);
    if (free !== null) {
      handedOut.add(port);
      return free;
    }
  }
  throw new Error(`no free port in BENCH_PORT_MIN..BENCH_PORT_MAX (${min}..${max})`);
}

export type Readiness =
  | { kind: 'stdout'; text: string }
  | { kind: 'port'; host?: string; port: number }
  | { kind: 'http'; url: string };

export interface ManagedProcessOptions {
  name: string;
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  logFile: string;
  ready: Readiness;
  readyTimeoutMs?: number;
  /** Restart by itself when it exits without being asked to (after restartDelayMs). */
  supervise?: boolean;
  restartDelayMs?: number;
  /** Called on every line of output (stdout and stderr). */
  onLine?: (line: string) => void;
}

export interface ProcessEvent {
  at: number;
  process: string;
  what: 'started' | 'ready' | 'killed' | 'stopped' | 'exited' | 'restarted';
  detail?: string;
}

/** A node script of this repository run through tsx in one process (`node --import tsx`). */
export function tsxCommand(script: string, nodeArgs: string[] = []): { command: string; args: string[] } {
  return { command: process.execPath, args: [...nodeArgs, '--import', 'tsx', script] };
}

/** Live process groups started here: killed when this process exits, however it exits (bar SIGKILL). */
const liveGroups = new Set<number>();
let exitHookInstalled = false;
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const pid of liveGroups) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
  });
}

/** How many output lines a crash report quotes. */
const RECENT_LINES = 8;

export class ManagedProcess {
  child: ChildProcess | null = null;
  /** Exits nobody asked for (crashes). */
  unexpectedExits = 0;
  /** For each unexpected exit, its exit status and the output lines just before it (why it died). */
  readonly crashReports: string[] = [];
  /** The latest output lines, kept so that a crash report can quote them. */
  private readonly recentLines: string[] = [];
  readonly events: ProcessEvent[] = [];
  private expectingExit = false;
  private log: WriteStream;
  private exitWaiters: (() => void)[] = [];
  private stopped = false;
  private starting: Promise<void> | null = null;

  constructor(readonly options: ManagedProcessOptions) {
    mkdirSync(path.dirname(options.logFile), { recursive: true });
    this.log = createWriteStream(options.logFile, { flags: 'a' });
  }

  get name(): string {
    return this.options.name;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get running(): boolean {
    return this.child !== null && this.child.exitCode === null && this.child.signalCode === null;
  }

  private note(what: ProcessEvent['what'], detail?: string): void {
    const event = { at: Date.now(), process: this.name, what, detail };
    this.events.push(event);
    this.log.write(
      `\n### [harness ${new Date(event.at).toISOString()}] ${this.name} ${what}${detail ? ` (${detail})` : ''}\n`,
    );
  }

  /** Spawns the process and resolves once it is ready. */
  start(): Promise<void> {
    this.stopped = false;
    this.starting ??= this.startLoop().finally(() => {
      this.starting = null;
    });
    return this.starting;
  }

  /** Supervised processes retry a failed start (e.g. Temporal still down) until the ready timeout. */
  private async startLoop(): Promise<void> {
    const deadline = Date.now() + (this.options.readyTimeoutMs ?? 120_000);
    for (;;) {
      try {
        await this.spawnAndWait(Math.max(1000, deadline - Date.now()));
        return;
      } catch (err) {
        if (!this.options.supervise || this.stopped || Date.now() > deadline) throw err;
        if (this.running) await this.kill('SIGKILL');
        await sleep(this.options.restartDelayMs ?? 1000);
      }
    }
  }

  private async spawnAndWait(timeoutMs: number): Promise<void> {
    const { command, args, env, ready } = this.options;
    const child = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    this.child = child;
    installExitHook();
    if (child.pid) liveGroups.add(child.pid);
    this.expectingExit = false;
    this.note('started', `pid ${child.pid}`);
    let sawReadyText = false;
    const onData = (chunk: Buffer) => {
      this.log.write(chunk);
      const text = chunk.toString();
      if (ready.kind === 'stdout' && text.includes(ready.text)) sawReadyText = true;
      for (const line of text.split('\n')) if (line.trim()) this.recentLines.push(line.slice(0, 400));
      this.recentLines.splice(0, this.recentLines.length - RECENT_LINES);
      if (this.options.onLine) for (const line of text.split('\n')) if (line) this.options.onLine(line);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code, signal) => {
      if (child.pid) liveGroups.delete(child.pid);
      const expected = this.expectingExit;
      this.note('exited', `code ${code} signal ${signal}${expected ? '' : ', unexpected'}`);
      if (this.child === child) this.child = null;
      for (const w of this.exitWaiters.splice(0)) w();
      if (!expected) {
        this.unexpectedExits += 1;
        this.crashReports.push(
          [`code ${code} signal ${signal}; its last output:`, ...this.recentLines.splice(0)].join('\n  '),
        );
        // A failed start is retried by startLoop; a crash after readiness by this timer.
        if (this.options.supervise && !this.stopped && !this.starting) {
          setTimeout(() => {
            if (this.stopped || this.running) return;
            this.note('restarted', 'by the supervisor');
            this.start().catch((err) => this.log.write(`supervisor restart failed: ${String(err)}\n`));
          }, this.options.restartDelayMs ?? 1000);
        }
      }
    });

    await waitFor(
      `${this.name} to become ready (log: ${this.options.logFile})`,
      async () => {
        if (this.child !== child)
          throw new Error(`${this.name} exited during start (log: ${this.options.logFile})`);
        switch (ready.kind) {
          case 'stdout':
            return sawReadyText;
          case 'port':
            return portOpen(ready.host ?? '127.0.0.1', ready.port);
          case 'http':
            try {
              const res = await fetch(ready.url, { signal: AbortSignal.timeout(1000) });
              return res.status < 500;
            } catch {
              return false;
            }
        }
      },
      timeoutMs,
      100,
    );
    this.note('ready');
  }

  private waitExit(): Promise<void> {
    if (!this.running) return Promise.resolve();
    return new Promise((resolve) => this.exitWaiters.push(resolve));
  }

  private signalGroup(signal: NodeJS.Signals): void {
    const pid = this.child?.pid;
    if (!pid) return;
    try {
      process.kill(-pid, signal); // the whole process group (detached: true)
    } catch {
      try {
        process.kill(pid, signal);
      } catch {
        /* already gone */
      }
    }
  }

  /** Sends a signal (default SIGKILL) to the whole process group and waits for the exit. */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    if (!this.running) return;
    this.expectingExit = true;
    this.note('killed', signal);
    const exited = this.waitExit();
    this.signalGroup(signal);
    await exited;
  }

  /** SIGTERM, then SIGKILL after graceMs; no supervisor restart afterwards. */
  async stop(graceMs = 10_000): Promise<void> {
    this.stopped = true;
    if (this.running) {
      this.expectingExit = true;
      this.note('stopped');
      const exited = this.waitExit();
      this.signalGroup('SIGTERM');
      const timer = setTimeout(() => this.signalGroup('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    }
    await new Promise<void>((resolve) => this.log.end(resolve));
  }

  /** Kill (SIGKILL unless told) then start again; resolves when ready. */
  async restart(signal: NodeJS.Signals = 'SIGKILL', pauseMs = 0): Promise<void> {
    await this.kill(signal);
    if (pauseMs) await sleep(pauseMs);
    await this.start();
  }
}

export interface ServiceProcessOptions {
  env: NodeJS.ProcessEnv;
  logDir: string;
  supervise?: boolean;
  nodeArgs?: string[];
  name?: string;
  onLine?: (line: string) => void;
}

/** The API (`src/api/server.ts`) on env.PORT; ready when /healthz answers. */
export function apiProcess(options: ServiceProcessOptions): ManagedProcess {
  const port = Number(options.env.PORT);
  if (!port) throw new Error('apiProcess needs env.PORT');
  const name = options.name ?? 'api';
  return new ManagedProcess({
    name,
    ...tsxCommand('src/api/server.ts', [...API_NODE_FLAGS, ...(options.nodeArgs ?? [])]),
    env: options.env,
    logFile: path.join(options.logDir, `${name}.log`),
    ready: { kind: 'http', url: `http://127.0.0.1:${port}/healthz` },
    supervise: options.supervise,
    onLine: options.onLine,
  });
}

/** The worker (`src/worker.ts`); ready when it prints WORKER_READY. */
export function workerProcess(options: ServiceProcessOptions): ManagedProcess {
  const name = options.name ?? 'worker';
  return new ManagedProcess({
    name,
    ...tsxCommand('src/worker.ts', options.nodeArgs),
    env: options.env,
    logFile: path.join(options.logDir, `${name}.log`),
    ready: { kind: 'stdout', text: 'WORKER_READY' },
    supervise: options.supervise,
    restartDelayMs: 2000,
    onLine: options.onLine,
  });
}

/**
 * A Temporal CLI dev server of our own on `port` (headless), file-backed when `dbFile` is given
 * (state survives a restart) and in memory otherwise.
 */
export function temporalProcess(options: {
  port: number;
  dbFile?: string;
  logDir: string;
  /** The log's file name in logDir (default temporal.log). */
  logName?: string;
  env?: NodeJS.ProcessEnv;
}): ManagedProcess {
  const args = [String(options.port), 'headless'];
  if (options.dbFile) args.push(path.resolve(ROOT, options.dbFile));
  return new ManagedProcess({
    name: 'temporal',
    command: path.join(ROOT, 'temporal/dev-server.sh'),
    args,
    env: options.env ?? process.env,
    logFile: path.join(options.logDir, options.logName ?? 'temporal.log'),
    ready: { kind: 'port', port: options.port },
    readyTimeoutMs: 180_000,
  });
}
