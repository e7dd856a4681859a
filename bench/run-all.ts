/**
 * `npm run bench`: every benchmark, one table. Each figure stands beside its target, the anchor
 * measured in the same run where the target is relative to one (bare Koa + pg running the
 * service's own statements for the reads, the plain process sandbox for the OS wall), the ratio to
 * it, and the 1-minute load average when it was taken (figures taken under load are noisy).
 *
 * Own resources: database challenges_bench (recreated by each part), a Temporal dev server of its
 * own on BENCH_TEMPORAL_PORT (default 7266, in memory; started afresh for each part that uses one,
 * none beside the parts that do not), API and worker processes on free ports.
 * Load generators run in their own processes; everything is loopback and bounded in time.
 *
 * Parts: bench/baseline-koa.ts and bench/reads.ts (here, in-process orchestration of separate
 * server processes), then bench/leaderboard.ts (detail) and the feature benchmarks
 * bench/submissions.ts, bench/webhooks.ts, bench/stream.ts, bench/judging-queue.ts,
 * bench/judging-queue-matches.ts, bench/arena.ts, bench/games.ts
 * and bench/cli-journeys.ts, each run as its own process and its figures read from its output.
 * Results: .data/bench/results.json and .data/bench/table.md.
 *
 *   npm run bench                       # everything (about 8 minutes on 2 cores)
 *   BENCH_ONLY=reads,stream npm run bench   (parts: reads, limiter, leaderboard, submissions, webhooks, spectators, stream, queue, queuegames, privatepass, arena, sandbox, programs, games, cli, clijourneys, startup)
 */
import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { measureBaselineKoa } from './baseline-koa';
import { loadAverage, machineInfo, foreignJestProcesses } from './lib/machine';
import { ROOT, temporalProcess, portOpen, tsxCommand, type ManagedProcess } from './lib/processes';
import { fmt, renderTable, type BenchRow } from './lib/report';
import { startStack } from './lib/stack';
import { benchReads } from './reads';
import { benchCliStartup } from './cli-startup';
import { benchProcessStartup } from './process-startup';

const TEMPORAL_PORT = Number(process.env.BENCH_TEMPORAL_PORT ?? 7266);
const DATABASE = process.env.BENCH_DATABASE_NAME ?? 'challenges_bench';
const OUT_DIR = path.join(ROOT, '.data/bench');
const ONLY = process.env.BENCH_ONLY ? new Set(process.env.BENCH_ONLY.split(',').map((s) => s.trim())) : null;
const wanted = (part: string) => !ONLY || ONLY.has(part);

/** Judged submissions/s of this run's submissions part (the played-matches target is relative to it). */
let judgedPerSecThisRun = NaN;

/** Parts that failed (a non-zero exit, a crash): any makes the whole run exit non-zero. */
const partFailures: string[] = [];

const log = (msg: string) =>
  process.stdout.write(
    `[bench ${new Date().toISOString().slice(11, 19)} load ${loadAverage().toFixed(2)}] ${msg}\n`,
  );

/** Runs one feature benchmark file as its own process; returns its output (also logged to a file). */
async function runBenchFile(
  file: string,
  args: string[],
  env: Record<string, string>,
  timeoutMs: number,
): Promise<{ code: number | null; output: string; loadBefore: number; loadAfter: number }> {
  const loadBefore = loadAverage();
  const { command, args: nodeArgs } = tsxCommand(file);
  const logFile = path.join(OUT_DIR, 'logs', `${path.basename(file, '.ts')}.log`);
  mkdirSync(path.dirname(logFile), { recursive: true });
  const sink = createWriteStream(logFile);
  const child = spawn(command, [...nodeArgs, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const onData = (c: Buffer) => {
    output += c.toString();
    sink.write(c);
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  clearTimeout(timer);
  sink.end();
  if (code !== 0) partFailures.push(`${file} exited ${code} (see ${path.relative(ROOT, logFile)})`);
  return { code, output, loadBefore, loadAfter: loadAverage() };
}

const num = (re: RegExp, text: string): number => {
  const m = re.exec(text);
  return m ? Number(m[1]) : NaN;
};

/** The last top-level JSON object printed (pretty-printed from "{" to "}" at column 0, or one line). */
function lastJson(text: string): any {
  const lines = text.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    if (!lines[i].startsWith('{')) continue;
    for (let j = i; j < lines.length; j++) {
      if (!lines[j].startsWith('}') && j !== i) continue;
      try {
        return JSON.parse(lines.slice(i, j + 1).join('\n'));
      } catch {
        /* not this one */
      }
    }
  }
  return null;
}

function failedRow(figure: string, target: string, why: string, load: number | null): BenchRow {
  return { figure, value: 'not measured', target, ok: false, load, note: why };
}

/**
 * Runs one part; a part that throws becomes a row saying why (and fails the run) instead of
 * ending the run with the other parts unmeasured.
 */
async function part(
  name: string,
  what: string,
  run: () => Promise<BenchRow[]> | BenchRow[],
  server: 'temporal' | 'none' = 'temporal',
): Promise<BenchRow[]> {
  if (!wanted(name)) return [];
  log(what);
  try {
    if (server === 'temporal') await temporalServers.fresh(name);
    else await temporalServers.stop();
    return await run();
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    partFailures.push(`${name}: ${why}`);
    return [failedRow(`part ${name}: ${what}`, '(the part runs)', why.slice(0, 300), loadAverage())];
  }
}

/**
 * The built tree the dist parts measure (`npm run build` → dist/): built here, from this tree,
 * before they run, so they never measure a stale or missing dist. null when built, else why not.
 */
function buildDist(): string | null {
  const logFile = path.join(OUT_DIR, 'logs', 'build.log');
  mkdirSync(path.dirname(logFile), { recursive: true });
  const started = Date.now();
  const build = spawnSync(process.execPath, [path.join(ROOT, 'scripts/build.mjs')], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  writeFileSync(logFile, `${build.stdout ?? ''}${build.stderr ?? ''}`);
  if (build.status !== 0)
    return `npm run build failed (exit ${build.status}; see ${path.relative(ROOT, logFile)}): ${(build.stderr || build.stdout || '').slice(-300)}`;
  log(`built dist/ in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return null;
}

async function submissionsPart(env: Record<string, string>): Promise<BenchRow[]> {
  const file = 'bench/submissions.ts';
  if (!existsSync(path.join(ROOT, file)))
    return [failedRow('Submission pipeline', '≥ 40 judged/s; p50 ≤ 300 ms', `${file} missing`, null)];
  const run = await runBenchFile(file, [], { ...env, BENCH_DATABASE_NAME: DATABASE }, 10 * 60_000);
  const text = run.output;
  const latencySection = text.slice(text.indexOf('[latency]'));
  const p50 = num(/POST → result stored:\s+n=\d+ p50=([\d.]+) ms/, latencySection);
  const p99 = num(
    /POST → result stored:\s+n=\d+ p50=[\d.]+ ms p90=[\d.]+ ms p99=([\d.]+) ms/,
    latencySection,
  );
  const sustained = num(/([\d.]+) judged\/s sustained/, text);
  judgedPerSecThisRun = sustained;
  const inWindow = num(/judged within the \d+ s window: \d+ \(([\d.]+)\/s\)/, text);
  const offered = num(/offered ([\d.]+)\/s/, text);
  const lost = num(/lost \(not complete\): (\d+)/, text);
  const cpu = /CPU per judged submission: (.*)/.exec(text)?.[1];
  const history = /history per submission workflow: (\d+) events/.exec(text)?.[1];
  const why = run.code !== 0 ? `exit ${run.code}; see .data/bench/logs/submissions.log` : undefined;
  return [
    {
      figure: 'Submission pipeline throughput (rubric judge, offered above capacity)',
      value: Number.isFinite(sustained)
        ? `${fmt(sustained, 1)} judged/s sustained (${fmt(inWindow, 1)}/s within the window; offered ${fmt(offered)}/s; lost ${lost})`
        : 'not parsed',
      target: '≥ 40 judged/s, none lost',
      ok: Number.isFinite(sustained) ? sustained >= 40 && lost === 0 : false,
      load: run.loadAfter,
      note:
        why ??
        `sustained = all accepted / (first POST → last result); API with RATE_LIMIT_DISABLED=1 (one agent would be 30/min); 50 agents; ` +
          `CPU per judged submission: ${cpu ?? 'not parsed'}; ${history ?? '?'} history events per workflow (one workflow task)`,
    },
    {
      figure: 'Submission POST → result stored (at 5/s)',
      value: Number.isFinite(p50) ? `p50 ${fmt(p50)} ms, p99 ${fmt(p99)} ms` : 'not parsed',
      target: 'p50 ≤ 300 ms',
      ok: Number.isFinite(p50) ? p50 <= 300 : false,
      load: run.loadBefore,
      note: why ?? 'result.finalized commit observed via LISTEN',
    },
  ];
}

async function webhooksPart(env: Record<string, string>): Promise<BenchRow[]> {
  const file = 'bench/webhooks.ts';
  const target = 'p50/p99 ≤ 150 ms; ≥ 100 deliveries/s';
  if (!existsSync(path.join(ROOT, file)))
    return [failedRow('Webhook event → receiver', target, `${file} missing`, null)];
  const run = await runBenchFile(file, [], { ...env, BENCH_DATABASE_NAME: DATABASE }, 10 * 60_000);
  const why = run.code !== 0 ? `exit ${run.code}; see .data/bench/logs/webhooks.log` : undefined;
  const latencyLine = run.output.split('\n').find((l) => l.startsWith('latency (')) ?? '';
  const p50 = num(/p50 ([\d.]+) ms/, latencyLine);
  const p99 = num(/p99 ([\d.]+) ms/, latencyLine);
  const rate = num(/: ([\d.]+) deliveries\/s/, run.output);
  const retryLine = run.output.split('\n').find((l) => l.startsWith('retry lateness (')) ?? '';
  const retryP99 = num(/p99 ([\d.]+) ms/, retryLine);
  const retryEarly = num(/early (\d+)/, retryLine);
  return [
    {
      figure: 'Webhook event → receiver latency',
      value: Number.isFinite(p50) ? `p50 ${fmt(p50)} ms, p99 ${fmt(p99)} ms` : 'not parsed',
      target: 'p50 and p99 ≤ 150 ms',
      ok: Number.isFinite(p99) ? p50 <= 150 && p99 <= 150 : false,
      load: run.loadBefore,
      note: why ?? 'outbox commit → dispatcher → delivery workflow → loopback receiver, 20 events/s',
    },
    {
      figure: 'Webhook deliveries/s',
      value: Number.isFinite(rate) ? `${fmt(rate)} deliveries/s` : 'not parsed',
      target: '≥ 100 deliveries/s',
      ok: Number.isFinite(rate) ? rate >= 100 : false,
      load: run.loadAfter,
      note:
        why ??
        `a burst of ${fmt(Number(process.env.BENCH_BURST_EVENTS ?? 1000))} events, first commit → last receipt`,
    },
    {
      figure: 'Webhook retry lateness (real schedule 1 s, 5 s, 30 s; receiver answering 503)',
      value: Number.isFinite(retryP99)
        ? `p50 ${fmt(num(/p50 ([\d.]+) ms/, retryLine))} ms, p99 ${fmt(retryP99)} ms, max ${fmt(num(/max ([\d.]+) ms/, retryLine))} ms; early ${retryEarly}`
        : 'not parsed',
      target: 'never early; p99 ≤ 250 ms late',
      ok: Number.isFinite(retryP99) ? retryEarly === 0 && retryP99 <= 250 : false,
      load: run.loadAfter,
      note:
        why ??
        'each retry: (its recorded send − the previous attempt’s) − the delay; the tests assert only "never early" and order',
    },
  ];
}

async function streamPart(env: Record<string, string>): Promise<BenchRow[]> {
  const file = 'bench/stream.ts';
  if (!existsSync(path.join(ROOT, file)))
    return [failedRow('Stream ingest', '≥ 300 events/s', `${file} missing`, null)];
  const args = ['--agents', '50', '--temporal', env.TEMPORAL_ADDRESS, '--database', DATABASE];
  // Shorter runs for trying the harness out (the defaults are the benchmark's own: 40 events, 30 s).
  if (process.env.BENCH_STREAM_EVENTS) args.push('--events', process.env.BENCH_STREAM_EVENTS);
  if (process.env.BENCH_STREAM_DELAY_MS) args.push('--delay-ms', process.env.BENCH_STREAM_DELAY_MS);
  const run = await runBenchFile(file, args, env, 10 * 60_000);
  const json = lastJson(run.output);
  const why = run.code !== 0 ? `exit ${run.code}; see .data/bench/logs/stream.log` : undefined;
  const eps = Number(json?.ingest?.events_per_second);
  const lag = json?.relay?.release_lag_ms;
  const delay = Number(json?.relay?.delay_ms ?? 30_000);
  const dev99 = lag ? Math.max(Math.abs(lag.p99 - delay), Math.abs(lag.min - delay)) : NaN;
  return [
    {
      figure: `Stream ingest across ${json?.agents ?? 50} agents`,
      value: Number.isFinite(eps)
        ? `${fmt(eps)} events/s (request p50 ${json.ingest.latency_ms.p50} ms, p99 ${json.ingest.latency_ms.p99} ms)`
        : 'not parsed',
      target: '≥ 300 events/s',
      ok: Number.isFinite(eps) ? eps >= 300 : false,
      load: run.loadBefore,
      note: why ?? 'API with RATE_LIMIT_DISABLED=1 (30 events/min per key otherwise)',
    },
    {
      figure: `Relay release delay (${fmt(delay / 1000)} s)`,
      value: lag
        ? `p50 ${fmt(lag.p50)} ms, p99 ${fmt(lag.p99)} ms (min ${fmt(lag.min)}, max ${fmt(lag.max)}; early ${json.relay.early})`
        : 'not parsed',
      target: `${fmt(delay)} ms, p99 deviation ≤ 500 ms`,
      ok: lag ? dev99 <= 500 && json.relay.early === 0 : false,
      load: run.loadAfter,
      note: why ?? `p99 deviation ${fmt(dev99)} ms`,
    },
  ];
}

async function spectatorsPart(env: Record<string, string>): Promise<BenchRow[]> {
  const file = 'bench/spectators.ts';
  const run = await runBenchFile(file, [], { ...env, BENCH_DATABASE_NAME: DATABASE }, 15 * 60_000);
  const line = run.output.split('\n').find((l) => l.startsWith('SPECTATORS_ROWS '));
  if (!line || run.code !== 0)
    return [
      failedRow(
        '5,000 SSE spectators',
        'every event in order; p99 ≤ 250 ms',
        `exit ${run.code}; see .data/bench/logs/spectators.log`,
        run.loadAfter,
      ),
    ];
  return JSON.parse(line.slice('SPECTATORS_ROWS '.length)) as BenchRow[];
}

async function limiterPart(env: Record<string, string>): Promise<BenchRow[]> {
  const run = await runBenchFile(
    'bench/limiter.ts',
    [],
    { ...env, BENCH_DATABASE_NAME: DATABASE },
    5 * 60_000,
  );
  const rate = (name: string) =>
    num(new RegExp(`LIMITER ${name}: ([\\d,]+) consumes/s`), run.output.replace(/(\d),(\d)/g, '$1$2'));
  const library = rate('library');
  const ours = rate('ours');
  const oursRedis = /LIMITER ours-redis:/.test(run.output) ? rate('ours-redis') : null;
  return [
    {
      figure:
        'Rate limiter alone: consumes/s, library RateLimiterPostgres → ours (local allocations taken in batches)',
      value: `${fmt(library)} → ${fmt(ours)} consumes/s (${fmt(100 * (ours / library - 1))} %)`,
      target: '(reduced, PostgreSQL kept)',
      ok: null,
      load: run.loadAfter,
      note:
        run.code !== 0
          ? `exit ${run.code}; see .data/bench/logs/limiter.log`
          : 'bench/limiter.ts: 16 callers, 150 requests per subject, alternated rounds, medians',
    },
    {
      figure: '… ours with the counters in Redis (REDIS_URL)',
      value: oursRedis === null ? 'not measured: no Redis answered' : `${fmt(oursRedis)} consumes/s`,
      target: '(both stores measured)',
      ok: null,
      load: run.loadAfter,
      note: 'same callers and subjects as the row above',
    },
  ];
}

/** The OS wall around submitted code (bench/sandbox.ts): needs no stack, only bwrap. */
/** Per language: hello-world in the wall against the same binary run directly, judged/s, compile time. */
async function programsPart(): Promise<BenchRow[]> {
  const run = await runBenchFile(
    'bench/program-judge.ts',
    ['--runs', '10', '--rounds', '3', '--submissions', '4'],
    {},
    20 * 60_000,
  );
  const json = run.code === 0 ? lastJson(run.output) : null;
  if (run.code !== 0 || !json) {
    return [
      failedRow(
        'program judge: per language',
        'informational',
        `exit ${run.code}; see .data/bench/logs/program-judge.log`,
        run.loadAfter,
      ),
    ];
  }
  type LanguageFigures = {
    id: string;
    missing?: boolean;
    compileP50Ms: number;
    wallP50Ms: number;
    directP50Ms: number;
    addedP50Ms: number;
    backToBackP50Ms: number;
    firstTestP50Ms: number;
    judgedPerSec: number;
  };
  return (json.languages as LanguageFigures[]).flatMap((language) =>
    language.missing
      ? [failedRow(`program judge (${language.id})`, 'informational', 'runtime not installed', run.loadAfter)]
      : [
          {
            figure: `program judge (${language.id}): hello-world test in a warm sandbox, p50`,
            value: `${fmt(language.wallP50Ms, 1)} ms; added ${fmt(language.addedP50Ms, 1)} ms`,
            target: 'added ≤ 10 ms p50',
            baseline: `same binary run directly ${fmt(language.directP50Ms, 1)} ms`,
            ratio: `${fmt(language.wallP50Ms / language.directP50Ms, 2)} ×`,
            ok: language.addedP50Ms <= 10,
            load: run.loadAfter,
            note: `a fresh sandbox per test, launched ahead (paced on the pool, ${json.rounds} × ${json.runs}); a program's tests back to back ${fmt(language.backToBackP50Ms, 1)} ms; its first test (launched cold) ${fmt(language.firstTestP50Ms, 1)} ms`,
          },
          {
            figure: `program judge (${language.id}): submissions of 10 tests judged/s; compile p50`,
            value: `${fmt(language.judgedPerSec, 2)}/s; compile ${fmt(language.compileP50Ms, 0)} ms`,
            target: 'informational',
            ok: null,
            load: run.loadAfter,
            note: `${json.submissions} submissions, ${json.slots} slots, compile included`,
          },
        ],
  );
}

/**
 * Games (bench/games.ts): per built-in game, turns per second with both players in the wall
 * beside the same two programs as plain processes in the same run; the wall's added time per turn.
 */
async function gamesPart(): Promise<BenchRow[]> {
  const run = await runBenchFile('bench/games.ts', ['--games', '6'], {}, 15 * 60_000);
  const line = run.output.split('\n').find((l) => l.startsWith('GAMES_RESULT '));
  if (run.code !== 0 || !line)
    return [
      failedRow(
        'Games',
        '≥ 0.6 × plain processes',
        `exit ${run.code}; see .data/bench/logs/games.log`,
        run.loadAfter,
      ),
    ];
  type GameFigures = {
    id: string;
    simultaneous: boolean;
    wallTurns: number;
    wallTurnsPerSec: number;
    plainTurnsPerSec: number;
    addedMsPerTurn: number;
    addedLaterMsPerTurn: number;
    wallFirstTurnP50Ms: number;
    plainFirstTurnP50Ms: number;
  };
  const r = JSON.parse(line.slice('GAMES_RESULT '.length)) as { gamesEach: number; games: GameFigures[] };
  return r.games.map((game) => ({
    figure: `Games (${game.id}${game.simultaneous ? ', simultaneous' : ''}): turns/s, two baseline bots in the wall`,
    value: `${fmt(game.wallTurnsPerSec, 1)}/s; added ${fmt(game.addedMsPerTurn, 2)} ms per turn`,
    target: '≥ 0.6 × plain processes',
    baseline: `the same two programs as plain processes ${fmt(game.plainTurnsPerSec, 1)}/s`,
    ratio: `${fmt(game.wallTurnsPerSec / game.plainTurnsPerSec, 2)} ×`,
    ok: game.wallTurnsPerSec >= 0.6 * game.plainTurnsPerSec,
    load: run.loadAfter,
    note: `${r.gamesEach} games each way (${game.wallTurns} turns in the wall), alternating, same seeds; first turn (players' start) p50 ${fmt(game.wallFirstTurnP50Ms, 1)} ms in the wall, ${fmt(game.plainFirstTurnP50Ms, 1)} ms plain; after it, added ${fmt(game.addedLaterMsPerTurn, 2)} ms per turn`,
  }));
}

async function sandboxPart(): Promise<BenchRow[]> {
  const run = await runBenchFile(
    'bench/sandbox.ts',
    ['--cases', '60', '--submissions', '100'],
    {},
    10 * 60_000,
  );
  const json = run.code === 0 ? lastJson(run.output) : null;
  const why = run.code !== 0 || !json ? `exit ${run.code}; see .data/bench/logs/sandbox.log` : undefined;
  if (why || !json) {
    return [
      failedRow('OS sandbox: added p50 per sandboxed process', '≤ 10 ms', why ?? 'no result', run.loadAfter),
      failedRow(
        'tests judge: submissions judged/s (4 cases each)',
        '≥ 10/s',
        why ?? 'no result',
        run.loadAfter,
      ),
    ];
  }
  return [
    {
      figure: 'OS sandbox (bwrap, warm pool): one test case, start to verdict, p50 / p99',
      value: `${fmt(json.bwrapP50Ms, 1)} / ${fmt(json.bwrapP99Ms, 1)} ms; added p50 ${fmt(json.addedP50Ms, 1)} ms`,
      target: 'added ≤ 10 ms p50',
      baseline: `plain process sandbox ${fmt(json.processP50Ms, 1)} / ${fmt(json.processP99Ms, 1)} ms`,
      ratio: `${fmt(json.bwrapP50Ms / json.processP50Ms, 2)} × (p50)`,
      ok: json.addedP50Ms <= 10,
      load: run.loadAfter,
      note: `${json.cases} cases each, alternating blocks of 10; each sample waits for the pool's refill (a worker below saturation); launched cold ${fmt(json.coldP50Ms, 1)} / ${fmt(json.coldP99Ms, 1)} ms`,
    },
    {
      figure: `tests judge: submissions judged/s, ${json.testsPerSubmission} cases each (runJudge, ${json.slots} slots)`,
      value: `${fmt(json.judgedPerSec, 1)}/s`,
      target: '≥ 10/s',
      ok: json.judgedPerSec >= 10,
      load: run.loadAfter,
      note: `${json.submissions} submissions; one sandboxed process per batch of cases; judge process CPU ${fmt(json.judgeProcessCpuMsPerSubmission, 1)} ms/submission`,
    },
  ];
}

/**
 * The judging queue's fairness (bench/judging-queue.ts): the victim's wait behind a flood of 8
 * sleepers from 2 owners, beside the same submission judged alone and one flood judging alone,
 * all measured in that run.
 */
async function queuePart(env: Record<string, string>): Promise<BenchRow[]> {
  const figure = "Judging queue: a victim's quick submission behind 8 sleepers of 2 owners (POST → result)";
  const target = '≤ 2 × alone + one flood judging';
  const run = await runBenchFile('bench/judging-queue.ts', [], env, 10 * 60_000);
  const line = run.output.split('\n').find((l) => l.startsWith('QUEUE_RESULT '));
  if (run.code !== 0 || !line)
    return [
      failedRow(figure, target, `exit ${run.code}; see .data/bench/logs/judging-queue.log`, run.loadAfter),
    ];
  const r = JSON.parse(line.slice('QUEUE_RESULT '.length));
  return [
    {
      figure,
      value: `${fmt(r.victimWaitMs)} ms`,
      target: `${target} = ${fmt(r.targetMs)} ms`,
      baseline: `alone ${fmt(r.aloneMs)} ms (median of 3); one flood judging alone ${fmt(r.floodJudgingMs)} ms`,
      ratio: `${fmt(r.victimWaitMs / r.aloneMs, 1)} × alone`,
      ok: r.ok,
      load: run.loadAfter,
      note: `${r.slots} queue slots; sleepers hold theirs ${fmt(r.sleepMs)} ms each; ${r.floodDoneAtVictim - r.floodDoneBefore} sleepers finished while the victim waited; the whole flood took ${fmt(r.floodTotalMs)} ms`,
    },
  ];
}

/**
 * The judging queue between game matches and solo submissions (bench/judging-queue-matches.ts):
 * the victim's wait behind 3 queued matchmaker game matches of other owners, beside the same
 * submission judged alone and one match played alone, all measured in that run (issue 37).
 */
async function queueGamesPart(env: Record<string, string>): Promise<BenchRow[]> {
  const figure =
    "Judging queue: a victim's quick submission behind 3 queued game matches of 3 other owners (POST → result)";
  const target = '≤ 2 × alone + one match';
  const run = await runBenchFile('bench/judging-queue-matches.ts', [], env, 15 * 60_000);
  const line = run.output.split('\n').find((l) => l.startsWith('QUEUE_GAMES_RESULT '));
  if (run.code !== 0 || !line)
    return [
      failedRow(
        figure,
        target,
        `exit ${run.code}; see .data/bench/logs/judging-queue-matches.log`,
        run.loadAfter,
      ),
    ];
  const r = JSON.parse(line.slice('QUEUE_GAMES_RESULT '.length));
  return [
    {
      figure,
      value: `${fmt(r.victimWaitMs)} ms`,
      target: `${target} = ${fmt(r.targetMs)} ms`,
      baseline: `alone ${fmt(r.aloneMs)} ms (median of 3); one match alone ${fmt(r.matchMs)} ms (median of 3)`,
      ratio: `${fmt(r.victimWaitMs / r.aloneMs, 1)} × alone`,
      ok: r.ok,
      load: run.loadAfter,
      note: `${r.slots} queue slots (one match at a time); at the victim's POST ${r.matchesRunningAtVictim} match running, ${r.matchesWaitingAtVictim} waiting; ${r.matchesDoneAtVictim} ended before its result; connect-four, 2 games per match, ${r.moveMs} ms per move`,
    },
  ];
}

/**
 * Private tests cannot be timed (bench/private-pass.ts; issue 38): a private test that sleeps
 * 1.5 s moves the median of every competitor-visible timestamp difference of its submission by
 * less than 100 ms against the same program without the sleep (10 each, alternating, one run).
 */
async function privatePassPart(env: Record<string, string>): Promise<BenchRow[]> {
  const figure = 'Private pass: a private test sleeping 1.5 s, worst move of a competitor-visible median';
  const target = '< 100 ms';
  const run = await runBenchFile('bench/private-pass.ts', [], env, 10 * 60_000);
  const line = run.output.split('\n').find((l) => l.startsWith('PRIVATE_PASS_RESULT '));
  if (run.code !== 0 || !line)
    return [
      failedRow(figure, target, `exit ${run.code}; see .data/bench/logs/private-pass.log`, run.loadAfter),
    ];
  const r = JSON.parse(line.slice('PRIVATE_PASS_RESULT '.length)) as {
    each: number;
    figures: { key: string; plainMs: number; sleepyMs: number; diffMs: number }[];
    worstDiffMs: number;
    ok: boolean;
    privatePassesAtEnd: { pending: number; done: number };
  };
  return [
    {
      figure,
      value: `${fmt(r.worstDiffMs)} ms`,
      target,
      baseline: `the same program without the sleep (${r.each} each, alternating)`,
      ratio: '—',
      ok: r.ok,
      load: run.loadAfter,
      note: r.figures.map((f) => `${f.key} ${fmt(f.plainMs)} → ${fmt(f.sleepyMs)} ms`).join('; '),
    },
  ];
}

/**
 * The arena (bench/arena.ts): played matches scheduled and completed per second beside the same
 * workflow with nothing to do, rating updates per second beside openskill alone, the matchmaker's
 * round at 1,000 eligible agents beside as many empty workflow starts (and the grouping alone);
 * all measured in that run. Informational (issue
 * 30 names the figures, not targets).
 */
async function arenaPart(env: Record<string, string>): Promise<BenchRow[]> {
  const run = await runBenchFile('bench/arena.ts', [], env, 20 * 60_000);
  const line = run.output.split('\n').find((l) => l.startsWith('ARENA_RESULT '));
  if (run.code !== 0 || !line)
    return [
      failedRow('Arena', 'informational', `exit ${run.code}; see .data/bench/logs/arena.log`, run.loadAfter),
    ];
  const r = JSON.parse(line.slice('ARENA_RESULT '.length));
  return [
    {
      figure: `Arena: matches scheduled and completed, played (${r.matches} at once on 2 slots: both submit, judged, sessions closed)`,
      value: `${fmt(r.matchesPerSec, 2)}/s`,
      // Each played match is two judged submissions: half the pipeline's judged/s is its ceiling.
      target: Number.isFinite(judgedPerSecThisRun)
        ? `≥ 0.5 × (${fmt(judgedPerSecThisRun, 1)} judged/s ÷ 2 players) = ${fmt(judgedPerSecThisRun / 4, 2)}/s`
        : '≥ 0.5 × (judged submissions/s of the run ÷ 2 players): needs part submissions in the same run',
      baseline: `the match workflow with nothing to do ${fmt(r.emptyPerSec, 2)}/s`,
      ratio: `${fmt(r.matchesPerSec / r.emptyPerSec, 2)} ×`,
      ok: Number.isFinite(judgedPerSecThisRun) ? r.matchesPerSec >= judgedPerSecThisRun / 4 : null,
      load: run.loadAfter,
      note: `batch ${fmt(r.batchMs)} ms, ${r.matchesComplete} of ${r.matches} complete; empty ${fmt(r.emptyMs)} ms for ${r.emptyMatches}; each match's phases (participants look every ${r.playerPollMs} ms): ${r.phases}; CPU per played match: ${r.cpuPerMatch}; history per played match: ${r.matchHistory}`,
    },
    {
      figure: `Arena: rating updates (${r.rated} rated matches, one class, the single writer)`,
      value: `${fmt(r.ratingUpdatesPerSec)}/s`,
      target: '≥ 0.1 × openskill alone',
      baseline: `openskill update alone ${fmt(r.openskillPerSec)}/s`,
      ratio: `${fmt(r.ratingUpdatesPerSec / r.openskillPerSec, 3)} ×`,
      ok: r.ratingUpdatesPerSec >= 0.1 * r.openskillPerSec,
      load: run.loadAfter,
      note: `${r.applied} applied in ${fmt(r.applyMs)} ms`,
    },
    {
      figure: `Arena: matchmaker round at ${fmt(r.eligible)} eligible agents (${r.roundMatches} matches scheduled and started)`,
      value: `${fmt(r.roundMs)} ms`,
      target: 'informational',
      baseline: `as many empty workflows started the same way ${fmt(r.startsMs)} ms`,
      ratio: `${fmt(r.roundMs / r.startsMs, 2)} ×`,
      ok: null,
      load: run.loadAfter,
      note: `set-based writes, ${r.startConcurrency} starts at once; the grouping alone (planRound) ${fmt(r.planMs, 1)} ms`,
    },
  ];
}

/**
 * The competitor's journeys through the built CLI (bench/cli-journeys.ts): `submit --wait` of a
 * correct program and `results get`, each beside the same requests made with fetch in that run.
 * Target: the CLI adds at most its start-up target (1 s) to what the requests themselves take.
 */
async function cliJourneysPart(env: Record<string, string>): Promise<BenchRow[]> {
  const figures = [
    'CLI journey: `submit --wait` of a correct program',
    'CLI journey: `results get`',
    'CLI journey: `submit --wait` of a wrong answer',
    'CLI journey: `submit --wait` of a compile error',
    "CLI journey: an operator's `rejudges start --wait` (2 submissions, old → new printed)",
  ];
  const target = '≤ anchor + 1,000 ms';
  const run = await runBenchFile('bench/cli-journeys.ts', [], env, 10 * 60_000);
  const line = run.output.split('\n').find((l) => l.startsWith('CLI_JOURNEYS_RESULT '));
  if (run.code !== 0 || !line)
    return figures.map((f) =>
      failedRow(f, target, `exit ${run.code}; see .data/bench/logs/cli-journeys.log`, run.loadAfter),
    );
  const r = JSON.parse(line.slice('CLI_JOURNEYS_RESULT '.length));
  const row = (figure: string, cli: number, max: number, anchor: number, what: string): BenchRow => ({
    figure,
    value: `median ${fmt(cli)} ms (max ${fmt(max)} ms)`,
    target,
    baseline: `${what} with fetch, median ${fmt(anchor)} ms`,
    ratio: `${fmt(cli / anchor, 2)} ×; +${fmt(cli - anchor)} ms`,
    ok: cli - anchor <= 1000,
    load: run.loadAfter,
    note: `${r.runs} runs each, alternated; whole CLI process (spawn → exit, output checked), ${r.how}; node -e '' median ${fmt(r.nodeAloneMs)} ms, \`cli help\` median ${fmt(r.cliHelpMs)} ms`,
  });
  return [
    row(
      `${figures[0]} (python, 2 tests; POST → judged → verdict table printed)`,
      r.submitCliMs,
      r.submitCliMaxMs,
      r.submitFetchMs,
      'the same requests and polling',
    ),
    row(figures[1], r.resultsCliMs, r.resultsCliMaxMs, r.resultsFetchMs, 'the same four GETs'),
    row(
      `${figures[2]} (python, wrong on the visible test; first failing test printed)`,
      r.wrongCliMs,
      r.wrongCliMaxMs,
      r.wrongFetchMs,
      'the same requests and polling',
    ),
    row(
      `${figures[3]} (C++; g++'s message printed)`,
      r.compileErrorCliMs,
      r.compileErrorCliMaxMs,
      r.compileErrorFetchMs,
      'the same requests and polling',
    ),
    row(
      figures[4],
      r.rejudgeCliMs,
      r.rejudgeCliMaxMs,
      r.rejudgeFetchMs,
      'the same POST and progress polling',
    ),
  ];
}

async function leaderboardDetailPart(env: Record<string, string>): Promise<BenchRow[]> {
  const file = 'bench/leaderboard.ts';
  if (!existsSync(path.join(ROOT, file))) return [];
  const run = await runBenchFile(file, [], { ...env, BENCH_DATABASE_NAME: DATABASE }, 10 * 60_000);
  const text = run.output;
  const all = /all requests:\s+n=(\d+) p50=([\d.]+) ms p90=[\d.]+ ms p99=([\d.]+) ms/.exec(text);
  const csv = /CSV export: (\d+) rows, (\d+) KiB in (\d+) ms/.exec(text);
  const why = run.code !== 0 ? `exit ${run.code}; see .data/bench/logs/leaderboard.log` : undefined;
  return [
    {
      figure: 'Leaderboard, one client at a time (bench/leaderboard.ts, 10,000 agents)',
      value: all
        ? `p50 ${all[2]} ms, p99 ${all[3]} ms over ${all[1]} pages (first and deep, 50/100 rows)`
        : 'not parsed',
      target: '(detail)',
      ok: null,
      load: run.loadBefore,
      note: why ?? (csv ? `CSV export of all ${csv[1]} rows (${csv[2]} KiB): ${csv[3]} ms` : undefined),
    },
  ];
}

/**
 * The Temporal dev server the parts use: each part that needs one gets one started afresh, as it
 * gets its database afresh, and the parts without a stack run with none beside them. One server
 * for the whole run carried every earlier part's workflows (in memory) into the later parts: the
 * arena, eleven parts in, cost Temporal 105 ms of CPU per played match against 75 ms on a server
 * of its own, and the games, last, ran at load 3 (session 26). A server the caller already runs on
 * the port is used as it is, for every part.
 */
class TemporalPerPart {
  private current: ManagedProcess | null = null;

  private callers = false;

  /** Whether a server (the caller's) already listens on the port. */
  async init(): Promise<void> {
    this.callers = await portOpen('127.0.0.1', TEMPORAL_PORT);
  }

  /** A fresh server for `part` (its log: logs/temporal-<part>.log). */
  async fresh(part: string): Promise<void> {
    if (this.callers) return;
    await this.stop();
    this.current = temporalProcess({
      port: TEMPORAL_PORT,
      logDir: path.join(OUT_DIR, 'logs'),
      logName: `temporal-${part}.log`,
    });
    await this.current.start();
  }

  async stop(): Promise<void> {
    const current = this.current;
    this.current = null;
    await current?.stop();
  }
}

const temporalServers = new TemporalPerPart();

async function main(): Promise<void> {
  mkdirSync(OUT_DIR, { recursive: true });
  const startedAt = Date.now();
  const machine = machineInfo();
  const others = foreignJestProcesses();
  log(
    `machine: ${machine.nproc} cores (${machine.cpuModel}), memory ${machine.memory}, node ${machine.node}, PostgreSQL ${machine.postgres}`,
  );
  if (others.length) log(`WARNING: ${others.length} other jest process(es) running: figures will be noisy`);

  await temporalServers.init();
  const featureEnv = {
    TEMPORAL_ADDRESS: `127.0.0.1:${TEMPORAL_PORT}`,
    BENCH_TEMPORAL_PORT: String(TEMPORAL_PORT),
    DATABASE_URL: `postgres://postgres@127.0.0.1:5432/${DATABASE}`,
  };
  const rows: BenchRow[] = [];
  let baselineRps = NaN;
  try {
    if (wanted('reads')) {
      log('bare Koa baseline');
      const baseline = await measureBaselineKoa();
      baselineRps = baseline.report.rps;
      rows.push({
        figure: 'Baseline: bare Koa hello-world (same load generator)',
        value: `${fmt(baselineRps)} req/s (p50 ${baseline.report.latency.p50.toFixed(2)} ms, p99 ${baseline.report.latency.p99.toFixed(2)} ms)`,
        target: '(baseline)',
        ok: null,
        load: baseline.load,
        note: `CPU/request: Koa ${baseline.report.cpuPerRequestMs.server.toFixed(3)} ms, load generator ${baseline.report.cpuPerRequestMs.loadgen.toFixed(3)} ms`,
      });
      log(`bare Koa: ${fmt(baselineRps)} req/s`);
      // BENCH_CPU_PROF=1: the API writes a V8 CPU profile to .data/bench/profiles/ when it stops.
      const apiNodeArgs =
        process.env.BENCH_CPU_PROF === '1'
          ? ['--cpu-prof', '--cpu-prof-dir', path.join(OUT_DIR, 'profiles')]
          : [];
      await temporalServers.fresh('reads');
      const stack = await startStack({
        label: 'bench',
        database: DATABASE,
        temporalPort: TEMPORAL_PORT,
        apiNodeArgs,
      });
      try {
        rows.push(...(await benchReads({ stack, baselineRps, log })));
      } finally {
        await stack.stop();
      }
    }
    if (wanted('limiter')) {
      log('rate limiter A/B (bench/limiter.ts)');
      await temporalServers.fresh('limiter');
      rows.push(...(await limiterPart(featureEnv)));
    }
    if (wanted('leaderboard')) {
      log('leaderboard detail (bench/leaderboard.ts)');
      await temporalServers.fresh('leaderboard');
      rows.push(...(await leaderboardDetailPart(featureEnv)));
    }
    rows.push(
      ...(await part('submissions', 'submission pipeline (bench/submissions.ts)', () =>
        submissionsPart(featureEnv),
      )),
    );
    rows.push(...(await part('webhooks', 'webhooks (bench/webhooks.ts)', () => webhooksPart(featureEnv))));
    rows.push(
      ...(await part('spectators', 'live spectators (bench/spectators.ts)', () =>
        spectatorsPart(featureEnv),
      )),
    );
    rows.push(
      ...(await part('stream', 'stream ingest and relay (bench/stream.ts)', () => streamPart(featureEnv))),
    );
    // The dist parts measure the built tree: built here from this tree, or their rows say why not.
    const distParts = ['cli', 'clijourneys', 'startup'].filter(wanted);
    const buildFailure = distParts.length > 0 ? buildDist() : null;
    if (buildFailure) partFailures.push(buildFailure);
    const dist = (run: () => Promise<BenchRow[]> | BenchRow[]) => () => {
      if (buildFailure) throw new Error(buildFailure);
      return run();
    };
    rows.push(
      ...(await part(
        'cli',
        'CLI start-up (bench/cli-startup.ts)',
        dist(() => benchCliStartup()),
        'none',
      )),
    );
    rows.push(
      ...(await part(
        'clijourneys',
        'competitor journeys through the built CLI (bench/cli-journeys.ts)',
        dist(() => cliJourneysPart(featureEnv)),
      )),
    );
    rows.push(
      ...(await part(
        'startup',
        'API and worker start-up from dist (bench/process-startup.ts)',
        dist(() => benchProcessStartup(featureEnv)),
      )),
    );
    rows.push(
      ...(await part('queue', 'judging queue fairness (bench/judging-queue.ts)', () =>
        queuePart(featureEnv),
      )),
    );
    rows.push(
      ...(await part(
        'queuegames',
        'judging queue: game matches and solo submissions (bench/judging-queue-matches.ts)',
        () => queueGamesPart(featureEnv),
      )),
    );
    rows.push(
      ...(await part('privatepass', 'private tests in a pass of their own (bench/private-pass.ts)', () =>
        privatePassPart(featureEnv),
      )),
    );
    rows.push(
      ...(await part('arena', 'the arena: matches, rating updates, the matchmaker (bench/arena.ts)', () =>
        arenaPart(featureEnv),
      )),
    );
    rows.push(
      ...(await part('sandbox', 'OS sandbox around submitted code (bench/sandbox.ts)', sandboxPart, 'none')),
    );
    rows.push(
      ...(await part(
        'programs',
        'program judge per language (bench/program-judge.ts)',
        programsPart,
        'none',
      )),
    );
    rows.push(
      ...(await part(
        'games',
        'games: turns per second in the wall and as plain processes (bench/games.ts)',
        gamesPart,
        'none',
      )),
    );
  } finally {
    await temporalServers.stop();
  }

  const table = renderTable(rows);
  const header =
    `Benchmarks ${new Date(startedAt).toISOString()} — ${machine.nproc} cores ${machine.cpuModel}, ${machine.memory}, node ${machine.node}, ` +
    `PostgreSQL ${machine.postgres}; took ${((Date.now() - startedAt) / 60_000).toFixed(1)} min` +
    (others.length ? `; ${others.length} other test processes were running at the start (noisy)` : '');
  writeFileSync(
    path.join(OUT_DIR, 'results.json'),
    JSON.stringify({ startedAt: new Date(startedAt).toISOString(), machine, rows }, null, 2),
  );
  writeFileSync(path.join(OUT_DIR, 'table.md'), `${header}\n\n${table}\n`);
  process.stdout.write(`\n${header}\n\n${table}\n\n`);
  const missed = rows.filter((r) => r.ok === false).length;
  process.stdout.write(
    `${rows.filter((r) => r.ok === true).length} targets met, ${missed} missed (details: .data/bench/)\n`,
  );
  // A part that failed, or a figure it could not give, fails the run (a missed target does not:
  // it is in the table).
  const unmeasured = rows.filter((r) => /not (measured|parsed)/.test(r.value));
  if (partFailures.length > 0 || unmeasured.length > 0) {
    process.stdout.write(
      `FAILED: ${partFailures.length} part(s) failed, ${unmeasured.length} figure(s) not measured\n` +
        [...partFailures, ...unmeasured.map((r) => `${r.figure}: ${r.note ?? r.value}`)]
          .map((f) => `  - ${f}\n`)
          .join(''),
    );
    process.exitCode = 1;
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
