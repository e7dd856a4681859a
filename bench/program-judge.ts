/**
 * The program judge per language (issue 22), all in one run:
 *  1. compile time of a hello-world inside the wall (p50 of --compiles);
 *  2. a hello-world program's tests inside the wall (runProgram: a fresh sandbox per test, the
 *     supervisor) against the same binary or script run directly as a plain child process (the
 *     anchor), alternating for --rounds rounds of --runs each:
 *     - warm: each test on a sandbox the pool launched ahead and had time to finish launching
 *       (paced on `launcher.warmed()` plus 50 ms, since a launch resolves when bwrap is spawned,
 *       before its mounts are done: a worker below saturation);
 *     - back to back, as one submission's tests run: the first launched cold, each next one on
 *       the sandbox launched while the previous test ran (a 3 ms program leaves it no time);
 *  3. submissions of 10 tests judged per second through runJudge (compile included), as many at
 *     once as the machine has judging slots.
 * Prints one JSON object last (read by bench/run-all.ts): { languages: [{ id, version?, ... }], slots }.
 *
 *   npx tsx bench/program-judge.ts [--runs 10] [--rounds 3] [--compiles 3] [--submissions 4] [--only python,c]
 */
import { spawn } from 'node:child_process';
import os from 'node:os';
import { runJudge } from '../src/judging';
import { buildProgram, newBuildFolder, runProgram } from '../src/judging/program/build';
import { BUILD_DIR, LANGUAGES, LANGUAGE_IDS, type LanguageId } from '../src/judging/program/languages';
import { PROBE_PROGRAMS } from '../src/judging/program/probe';
import {
  configureSandboxRuntime,
  defaultJudgeSlots,
  sandboxRuntime,
} from '../src/judging/sandbox/sandbox-runtime';
import { benchArg } from './lib/args';

const arg = benchArg;
const RUNS = Number(arg('runs', '10'));
const ROUNDS = Number(arg('rounds', '3'));
const COMPILES = Number(arg('compiles', '3'));
const SUBMISSIONS = Number(arg('submissions', '4'));
const ONLY = arg('only', LANGUAGE_IDS.join(',')).split(',') as LanguageId[];

const p50 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)];
const ms = (started: bigint) => Number(process.hrtime.bigint() - started) / 1e6;
const ENTRY: Record<LanguageId, string> = {
  python: 'main.py',
  c: 'main.c',
  cpp: 'main.cpp',
  go: 'main.go',
  rust: 'main.rs',
  java: 'Main.java',
  javascript: 'main.js',
  typescript: 'main.ts',
};

/** The same command as inside the wall, on the host: the anchor. */
function runDirectly(
  argv: string[],
  env: Record<string, string> | undefined,
  stdin: string,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0], argv.slice(1), { env: { PATH: '/usr/bin:/bin', ...env }, stdio: 'pipe' });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('error', reject);
    child.on('close', () => resolve(out));
    child.stdin.end(stdin);
  });
}

async function main(): Promise<void> {
  const slots = defaultJudgeSlots();
  await configureSandboxRuntime({ mode: 'bwrap', slots });
  const results: Record<string, unknown>[] = [];
  for (const id of ONLY) {
    const spec = LANGUAGES[id];
    if (spec.runtimeBinary() === undefined) {
      results.push({ id, missing: true });
      continue;
    }
    const compileMs: number[] = [];
    for (let i = 0; i < COMPILES; i++) {
      const folder = await newBuildFolder();
      const started = process.hrtime.bigint();
      const built = await buildProgram(spec, PROBE_PROGRAMS[id], folder);
      compileMs.push(ms(started));
      await folder.remove();
      if (built.kind !== 'built') throw new Error(`${id} did not compile: ${built.compileOutput}`);
    }
    const folder = await newBuildFolder();
    await buildProgram(spec, PROBE_PROGRAMS[id], folder);
    const limits = { timeLimitMs: 5_000, memoryMb: 256, outputBytes: 4096, stderrBytes: 4096 };
    const command = spec.runCommand({ memoryMb: 256, entry: spec.entryFile });
    const direct = command.argv.map((part) => part.split(BUILD_DIR).join(folder.dir));
    const { launcher } = await sandboxRuntime();
    const warm: number[] = [];
    const backToBack: number[] = [];
    const cold: number[] = [];
    const plain: number[] = [];
    await runProgram(spec, folder, limits, '21\n', { followed: false }); // warm-up (page cache)
    await runDirectly(direct, command.env, '21\n');
    const inTheWall = async (followed: boolean) => {
      const started = process.hrtime.bigint();
      const run = await runProgram(spec, folder, limits, '21\n', { followed });
      if (run.stdout.trim() !== '42') throw new Error(`${id} in the wall printed ${run.stdout}`);
      return ms(started);
    };
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < RUNS; i++) (i === 0 ? cold : backToBack).push(await inTheWall(i < RUNS - 1));
      await inTheWall(true); // launches the warm series's first sandbox ahead
      for (let i = 0; i < RUNS; i++) {
        await launcher.warmed();
        await new Promise((resolve) => setTimeout(resolve, 50));
        warm.push(await inTheWall(i < RUNS - 1));
      }
      for (let i = 0; i < RUNS; i++) {
        const started = process.hrtime.bigint();
        const out = await runDirectly(direct, command.env, '21\n');
        plain.push(ms(started));
        if (out.trim() !== '42') throw new Error(`${id} run directly printed ${out}`);
      }
    }
    await folder.remove();

    const judge = {
      kind: 'program' as const,
      tests: Array.from({ length: 10 }, (_, i) => ({
        name: `t${i}`,
        stdin: `${i}\n`,
        expected_stdout: `${2 * i}\n`,
      })),
    };
    const submission = { content: '', files: [{ path: ENTRY[id], content: PROBE_PROGRAMS[id] }] };
    let next = 0;
    const started = Date.now();
    await Promise.all(
      Array.from({ length: slots }, async () => {
        while (next < SUBMISSIONS) {
          next += 1;
          const outcome = await runJudge(judge, submission);
          if (outcome.score !== 100) throw new Error(`${id}: ${outcome.summary}`);
        }
      }),
    );
    results.push({
      id,
      compileP50Ms: p50(compileMs),
      wallP50Ms: p50(warm),
      directP50Ms: p50(plain),
      addedP50Ms: p50(warm) - p50(plain),
      backToBackP50Ms: p50(backToBack),
      firstTestP50Ms: p50(cold),
      judgedPerSec: SUBMISSIONS / ((Date.now() - started) / 1000),
    });
    console.error(JSON.stringify(results[results.length - 1]));
  }
  console.log(
    JSON.stringify({
      languages: results,
      runs: RUNS,
      rounds: ROUNDS,
      compiles: COMPILES,
      submissions: SUBMISSIONS,
      slots,
      cores: os.availableParallelism(),
    }),
  );
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
