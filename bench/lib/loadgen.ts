/**
 * Bounded HTTP load, generated in a separate process (bench/lib/loadgen-child.ts) so that it never
 * shares the measured server's event loop. Loopback only.
 */
import { spawn } from 'node:child_process';
import { summarize, type LatencySummary } from './stats';
import { postgresCpuMs, processCpuMs } from './machine';
import { ROOT, tsxCommand } from './processes';

export interface LoadSpec {
  url: string;
  method?: string;
  /** Rotated per request (e.g. several tokens so each stays inside its rate limit). */
  paths?: string[];
  headerSets?: Record<string, string>[];
  body?: unknown;
  connections: number;
  durationMs: number;
  maxRequests: number;
  /** Open loop at this many requests per second; closed loop (peak) when absent. */
  rate?: number;
  maxInFlight?: number;
  warmupMs?: number;
  timeoutMs?: number;
  returnLatencies?: boolean;
  /** Statuses other than 2xx that count as answered (e.g. 304 for conditional requests). */
  okStatuses?: number[];
}

export interface LoadResult {
  requests: number;
  ok: number;
  errors: number;
  statuses: Record<string, number>;
  elapsedMs: number;
  /** Successful (2xx) responses per second. */
  rps: number;
  latenciesMs: number[];
  firstError?: string;
  /** CPU time the load generator itself used during the measured period. */
  cpuMs: number;
  /** 2xx answers during the warm-up (not in `ok`). */
  warmupOk: number;
  /** Open loop: how late requests left against their schedule (the generator's own lag). */
  sendLagMs?: { p50: number; p99: number; max: number };
}

export interface LoadReport extends Omit<LoadResult, 'latenciesMs'> {
  latency: LatencySummary;
  /** CPU ms per successful request: server process (when `serverPid` given), PostgreSQL (all its processes), load generator. */
  cpuPerRequestMs: { server: number; postgres: number; loadgen: number };
}

export async function runLoad(spec: LoadSpec, serverPid?: number): Promise<LoadReport> {
  const url = new URL(spec.url);
  if (!['127.0.0.1', 'localhost', '::1', '[::1]'].includes(url.hostname))
    throw new Error('load is generated against loopback only');
  if (!(spec.durationMs > 0 && spec.durationMs <= 5 * 60_000))
    throw new Error('durationMs must be within (0, 300000]');
  if (!(spec.maxRequests > 0 && spec.maxRequests <= 2_000_000))
    throw new Error('maxRequests must be within (0, 2000000]');
  const { command, args } = tsxCommand('bench/lib/loadgen-child.ts');
  const child = spawn(command, [...args, JSON.stringify(spec)], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // CPU counters over the whole run (warm-up included: the per-request figures divide by all requests).
  const serverCpu0 = processCpuMs(serverPid);
  const pgCpu0 = postgresCpuMs();
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  const hardLimit = setTimeout(() => child.kill('SIGKILL'), spec.durationMs + (spec.warmupMs ?? 0) + 60_000);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  clearTimeout(hardLimit);
  const serverCpu = processCpuMs(serverPid) - serverCpu0;
  const pgCpu = postgresCpuMs() - pgCpu0;
  const line = out.split('\n').find((l) => l.startsWith('LOADGEN_RESULT '));
  if (!line) throw new Error(`load generator exited with ${code} and no result`);
  const result: LoadResult = JSON.parse(line.slice('LOADGEN_RESULT '.length));
  const { latenciesMs, ...rest } = result;
  // Server and PostgreSQL counters span the warm-up too.
  const requestsIncludingWarmup = result.ok + result.warmupOk;
  return {
    ...rest,
    latency: summarize(latenciesMs),
    cpuPerRequestMs: {
      server: serverCpu / requestsIncludingWarmup,
      postgres: pgCpu / requestsIncludingWarmup,
      loadgen: result.cpuMs / result.ok,
    },
  };
}
