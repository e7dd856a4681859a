/**
 * The load generator's process (never the API's event loop). Reads a LoadSpec as JSON from argv[2],
 * runs it with keep-alive connections, and prints one line `LOADGEN_RESULT <json>` on stdout.
 *
 * Closed loop (`rate` absent): `connections` loops, each sending its next request when the previous
 * answered: measures peak throughput. Open loop (`rate` set): requests are issued on a fixed
 * schedule whatever the answers, and latency is measured from the *scheduled* send time, so a stall
 * shows up in the percentiles (no coordinated omission). Bounded by `durationMs` and `maxRequests`.
 */
import http from 'node:http';
import type { LoadResult, LoadSpec } from './loadgen';

const spec: LoadSpec = JSON.parse(process.argv[2] ?? '{}');
const target = new URL(spec.url);
const agent = new http.Agent({
  keepAlive: true,
  maxSockets: spec.connections,
  maxFreeSockets: spec.connections,
});
const headerSets = spec.headerSets && spec.headerSets.length > 0 ? spec.headerSets : [{}];
const body =
  spec.body === undefined
    ? undefined
    : Buffer.from(typeof spec.body === 'string' ? spec.body : JSON.stringify(spec.body));

const latencies: number[] = [];
/** Open loop: how late each request left against its schedule (the generator's own lag, included in its latency). */
const sendLags: number[] = [];
const statuses: Record<string, number> = {};
let errors = 0;
let sent = 0;
let firstError: string | undefined;
let warmupOk = 0;

function once(i: number, startedAt: number): Promise<void> {
  return new Promise((resolve) => {
    const headers: Record<string, string> = { ...headerSets[i % headerSets.length] };
    if (body) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(body.length);
    }
    const path =
      spec.paths && spec.paths.length > 0
        ? spec.paths[i % spec.paths.length]
        : target.pathname + target.search;
    const req = http.request(
      {
        host: target.hostname,
        port: target.port,
        method: spec.method ?? 'GET',
        path,
        headers,
        agent,
        timeout: spec.timeoutMs ?? 10_000,
      },
      (res) => {
        res.on('data', () => undefined);
        res.on('end', () => {
          const key = String(res.statusCode);
          statuses[key] = (statuses[key] ?? 0) + 1;
          const code = res.statusCode ?? 0;
          if ((code >= 200 && code < 300) || spec.okStatuses?.includes(code))
            latencies.push(performance.now() - startedAt);
          else errors += 1;
          resolve();
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (err) => {
      errors += 1;
      firstError ??= err.message;
      statuses.error = (statuses.error ?? 0) + 1;
      resolve();
    });
    if (body) req.write(body);
    req.end();
  });
}

async function closedLoop(deadline: number): Promise<void> {
  const loop = async () => {
    while (performance.now() < deadline && sent < spec.maxRequests) {
      const i = sent++;
      await once(i, performance.now());
    }
  };
  await Promise.all(Array.from({ length: spec.connections }, loop));
}

async function openLoop(deadline: number, rate: number): Promise<void> {
  const intervalMs = 1000 / rate;
  const start = performance.now();
  const inFlight = new Set<Promise<void>>();
  let n = 0;
  while (sent < spec.maxRequests) {
    const scheduled = start + n * intervalMs;
    if (scheduled >= deadline) break;
    const wait = scheduled - performance.now();
    // Sleep until the next send is due, at least a timer's millisecond: the requests due by then go
    // out together (each still timed from its own scheduled moment, so the lateness is in its
    // latency). Until session 27 a gap under 1 ms was waited with setImmediate, which spun: at
    // 4,400 req/s the generator took a whole core of the 2 it shares with the API and PostgreSQL
    // (0.23 ms of CPU per request against 0.08 closed loop), and every other process's burst of
    // CPU then stalled the API. Overdue: yield once, so answers are read, then catch up.
    if (wait > 0) await new Promise((r) => setTimeout(r, Math.max(1, wait)));
    else await new Promise((r) => setImmediate(r));
    // Issue every request whose time has come (catching up after a timer delay).
    while (
      start + n * intervalMs <= performance.now() &&
      sent < spec.maxRequests &&
      start + n * intervalMs < deadline
    ) {
      const i = sent++;
      sendLags.push(performance.now() - (start + n * intervalMs));
      const p = once(i, start + n * intervalMs).finally(() => inFlight.delete(p));
      inFlight.add(p);
      n += 1;
      if (inFlight.size >= (spec.maxInFlight ?? 2000)) await Promise.race(inFlight);
    }
  }
  await Promise.all(inFlight);
}

function lagSummary(values: number[]): { p50: number; p99: number; max: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number) =>
    sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? NaN;
  return { p50: at(0.5), p99: at(0.99), max: sorted[sorted.length - 1] ?? NaN };
}

async function main(): Promise<void> {
  if (spec.warmupMs) {
    const warmDeadline = performance.now() + spec.warmupMs;
    await closedLoop(warmDeadline);
    warmupOk = latencies.length;
    latencies.length = 0;
    for (const k of Object.keys(statuses)) delete statuses[k];
    errors = 0;
    sent = 0;
    firstError = undefined;
  }
  const startedAt = performance.now();
  const cpuBefore = process.cpuUsage();
  const deadline = startedAt + spec.durationMs;
  if (spec.rate) await openLoop(deadline, spec.rate);
  else await closedLoop(deadline);
  const elapsedMs = performance.now() - startedAt;
  const cpu = process.cpuUsage(cpuBefore);
  agent.destroy();
  const result: LoadResult = {
    requests: sent,
    ok: latencies.length,
    errors,
    statuses,
    elapsedMs,
    rps: latencies.length / (elapsedMs / 1000),
    latenciesMs: spec.returnLatencies === false ? [] : latencies,
    firstError,
    cpuMs: (cpu.user + cpu.system) / 1000,
    warmupOk,
    sendLagMs: spec.rate ? lagSummary(sendLags) : undefined,
  };
  process.stdout.write(`LOADGEN_RESULT ${JSON.stringify(result)}\n`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
