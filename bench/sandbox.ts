/**
 * Cost of the OS wall around submitted code (issue: untrusted code behind an operating-system wall).
 *
 *  1. One test case, start to verdict, inside bubblewrap (warm pool: the sandbox launched ahead,
 *     as the worker runs it), in the plain process sandbox (`unsafe-process`, the anchor) and in
 *     bubblewrap launched cold, alternating in blocks in the same run: p50/p99 of each, and the
 *     difference to the anchor. Each sample waits for the pool's refill (below saturation).
 *  2. `tests`-judge submissions judged per second with 4 test cases each, through runJudge with as
 *     many submissions at once as the machine has judging slots (the judging worker's concurrency).
 *
 * Prints one JSON object last (read by bench/run-all.ts):
 *   { bwrapP50Ms, bwrapP99Ms, processP50Ms, processP99Ms, addedP50Ms, coldP50Ms, judgedPerSec, slots, ... }
 *
 *   npx tsx bench/sandbox.ts [--cases 60] [--submissions 60]
 */
import os from 'node:os';
import { runJudge } from '../src/judging';
import { runInSandbox } from '../src/judging/sandbox/run-in-sandbox';
import {
  configureSandboxRuntime,
  defaultJudgeSlots,
  sandboxRuntime,
} from '../src/judging/sandbox/sandbox-runtime';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const CASES = arg('cases', 60);
const SUBMISSIONS = arg('submissions', 60);
const BLOCK = 10;

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};

const oneCase = {
  modules: [{ path: 'index.js', kind: 'js' as const, source: 'exports.add = (a, b) => a + b;' }],
  entry: 'index.js',
  exportName: 'add',
  args: [2, 3],
  timeoutMs: 2000,
  memoryMb: 64,
};

async function timeOneCase(): Promise<number> {
  // At a rate the warm pool keeps up with (the next sandbox launched before the run arrives), as a
  // worker below saturation sees it; the throughput part below does not wait.
  await (await sandboxRuntime()).launcher.warmed();
  const started = process.hrtime.bigint();
  const result = await runInSandbox(oneCase);
  if (result.status !== 'returned') throw new Error(`unexpected result: ${JSON.stringify(result)}`);
  return Number(process.hrtime.bigint() - started) / 1e6;
}

async function main(): Promise<void> {
  const slots = defaultJudgeSlots();
  // bwrap with its warm pool (the worker's setting), the plain process anchor, and bwrap with
  // every sandbox launched on the critical path (no pool) for reference.
  const modes = {
    bwrap: { mode: 'bwrap', slots: 1 },
    'unsafe-process': { mode: 'unsafe-process', slots: 1 },
    cold: { mode: 'bwrap', slots: 1, warmSandboxes: 0 },
  } as const;
  const samples: Record<keyof typeof modes, number[]> = { bwrap: [], 'unsafe-process': [], cold: [] };
  // Warm-up of each (first spawn pays for page cache and ldd).
  for (const settings of Object.values(modes)) {
    await configureSandboxRuntime(settings);
    await timeOneCase();
  }
  for (let done = 0; done < CASES; done += BLOCK) {
    for (const [name, settings] of Object.entries(modes) as [
      keyof typeof modes,
      (typeof modes)[keyof typeof modes],
    ][]) {
      await configureSandboxRuntime(settings);
      for (let i = 0; i < BLOCK; i++) samples[name].push(await timeOneCase());
    }
  }

  await configureSandboxRuntime({ mode: 'bwrap', slots });
  const judge = {
    kind: 'tests' as const,
    tests: [
      { name: 'small', export: 'add', args: [1, 2], expected: 3 },
      { name: 'negative', export: 'add', args: [-1, -2], expected: -3 },
      { name: 'zero', export: 'add', args: [0, 0], expected: 0 },
      { name: 'wrong on purpose', export: 'add', args: [1, 1], expected: 3 },
    ],
  };
  const submission = {
    content: '',
    files: [{ path: 'index.ts', content: 'export const add = (a: number, b: number) => a + b;' }],
  };
  let next = 0;
  let scored = 0;
  const started = Date.now();
  const cpuBefore = process.cpuUsage();
  await Promise.all(
    Array.from({ length: slots }, async () => {
      while (next < SUBMISSIONS) {
        next += 1;
        const outcome = await runJudge(judge, submission);
        if (outcome.score === 75 && outcome.details?.sandbox === 'bwrap') scored += 1;
      }
    }),
  );
  const seconds = (Date.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  if (scored !== SUBMISSIONS) throw new Error(`only ${scored} of ${SUBMISSIONS} judged as expected`);

  const result = {
    cases: CASES,
    bwrapP50Ms: percentile(samples.bwrap, 50),
    bwrapP99Ms: percentile(samples.bwrap, 99),
    processP50Ms: percentile(samples['unsafe-process'], 50),
    processP99Ms: percentile(samples['unsafe-process'], 99),
    addedP50Ms: percentile(samples.bwrap, 50) - percentile(samples['unsafe-process'], 50),
    coldP50Ms: percentile(samples.cold, 50),
    coldP99Ms: percentile(samples.cold, 99),
    submissions: SUBMISSIONS,
    testsPerSubmission: judge.tests.length,
    slots,
    judgedPerSec: SUBMISSIONS / seconds,
    judgeProcessCpuMsPerSubmission: (cpu.user + cpu.system) / 1000 / SUBMISSIONS,
    cores: os.availableParallelism(),
    load1: os.loadavg()[0],
  };
  console.log(JSON.stringify(result, null, 2));
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
