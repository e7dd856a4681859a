/**
 * The read-throughput baseline: a bare Koa hello-world on this machine, in its own process, driven
 * by the same load generator (bench/lib/loadgen.ts) with the same connections and duration as the
 * API's read benchmarks. Run directly (`npx tsx bench/baseline-koa.ts`) for the figure alone;
 * `npx tsx bench/baseline-koa.ts --serve <port>` only serves.
 */
import Koa from 'koa';
import { runLoad, type LoadReport } from './lib/loadgen';
import { loadAverage } from './lib/machine';
import { freePort, ManagedProcess, ROOT, tsxCommand } from './lib/processes';
import path from 'node:path';

/** Load shape shared by every read benchmark, so the ratios compare like with like. */
export const READ_LOAD = {
  connections: Number(process.env.BENCH_CONNECTIONS ?? 16),
  durationMs: Number(process.env.BENCH_DURATION_MS ?? 10_000),
  warmupMs: Number(process.env.BENCH_WARMUP_MS ?? 2_000),
  maxRequests: 500_000,
};

export interface BaselineResult {
  report: LoadReport;
  load: number;
}

function serve(port: number): void {
  const app = new Koa();
  app.use((ctx) => {
    ctx.body = { hello: 'world' };
  });
  app.listen(port, '127.0.0.1', () => process.stdout.write(`BASELINE_READY ${port}\n`));
}

/** Starts the bare Koa server in its own process and measures peak req/s against it. */
export async function measureBaselineKoa(): Promise<BaselineResult> {
  const port = await freePort();
  const server = new ManagedProcess({
    name: 'baseline-koa',
    ...tsxCommand('bench/baseline-koa.ts'),
    env: { ...process.env, BASELINE_SERVE_PORT: String(port) },
    logFile: path.join(ROOT, '.data/bench/logs/baseline-koa.log'),
    ready: { kind: 'port', port },
  });
  await server.start();
  try {
    const report = await runLoad({ url: `http://127.0.0.1:${port}/`, ...READ_LOAD }, server.pid);
    return { report, load: loadAverage() };
  } finally {
    await server.stop();
  }
}

if (require.main === module) {
  if (process.env.BASELINE_SERVE_PORT) {
    serve(Number(process.env.BASELINE_SERVE_PORT));
  } else {
    measureBaselineKoa()
      .then(({ report, load }) => {
        console.log(
          `bare Koa hello-world: ${report.rps.toFixed(0)} req/s, p50 ${report.latency.p50.toFixed(2)} ms, p99 ${report.latency.p99.toFixed(2)} ms (load ${load})`,
        );
      })
      .catch((err) => {
        console.error(err);
        process.exit(1);
      });
  }
}
