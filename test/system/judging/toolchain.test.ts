/**
 * esbuild in a process that may die (issue 27, item 3): the bounds scan before parsing; a crash
 * retried once in a fresh process, a second one judged as the input's; other jobs untouched; the
 * caller's event loop never waits for a parse.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SandboxUnavailableError } from '../../../src/judging/errors';
import { prepareSubmission } from '../../../src/judging/sandbox/prepare-submission';
import {
  TOOLCHAIN_LIMITS,
  type ToolchainFile,
  stopToolchainSpare,
  transformInChild,
} from '../../../src/judging/toolchain/run-esbuild';
import { SOURCE_BOUNDS, sourceBoundsProblem } from '../../../src/judging/toolchain/source-bounds';

jest.setTimeout(120_000);
afterAll(() => stopToolchainSpare());

const ts = (source: string, path = 'main.ts'): ToolchainFile => ({
  path,
  source,
  options: { loader: 'ts', format: 'cjs', target: 'node20', sourcefile: path },
});
/** 200k unary operators: no bracket nesting, yet esbuild's parser recursion grows until its process dies. */
const UNARY_CRASH = `export const x = ${'!'.repeat(200_000)}1;\n`;
/** 400k `[` and `]`: the red team's 0.8 MB file. */
const BRACKETS = `x=${'['.repeat(400_000)}${']'.repeat(400_000)};\n`;

/** This thread's time spent runnable but waiting for a core so far, ms (Linux: /proc schedstat). */
function waitedForCoreMs(): number {
  try {
    return Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[1]) / 1e6;
  } catch {
    return 0;
  }
}

/**
 * Largest gap between ticks of a 10 ms interval while `work` runs, less the time this thread
 * waited for a core within it, and how long the work took: work done on (or a synchronous call
 * blocking) this event loop would show as a gap about as long as the parse, however busy the
 * machine, so the tests compare the two instead of bounding either. The wait for a core is taken
 * out because beside busy loops the process itself sat runnable for over a second (CI b2, session
 * 26: a 1,165 ms gap in a 2,135 ms transform), which is the machine's, not a blocked loop.
 */
async function largestTickGap<T>(
  work: () => Promise<T>,
): Promise<{ result: T; gapMs: number; durationMs: number }> {
  const started = performance.now();
  let last = started;
  let lastWaited = waitedForCoreMs();
  let gapMs = 0;
  const tick = () => {
    const now = performance.now();
    const waited = waitedForCoreMs();
    gapMs = Math.max(gapMs, now - last - (waited - lastWaited));
    last = now;
    lastWaited = waited;
  };
  const timer = setInterval(tick, 10);
  try {
    const result = await work();
    const ended = performance.now();
    tick();
    return { result, gapMs, durationMs: ended - started };
  } finally {
    clearInterval(timer);
  }
}

describe('the bounds scan before parsing', () => {
  it('refuses brackets nested past the limit, with where, and nothing else', () => {
    expect(sourceBoundsProblem(BRACKETS)).toEqual({
      text: `brackets nested deeper than ${SOURCE_BOUNDS.maxNesting} levels, the toolchain's limit (nothing was parsed)`,
      line: 1,
      column: 2 + SOURCE_BOUNDS.maxNesting,
    });
    const deep = (n: number) => `const a = 1;\nf(${'{a:['.repeat(n)}1${']}'.repeat(n)});\n`;
    expect(sourceBoundsProblem(deep(499))).toBeNull();
    expect(sourceBoundsProblem(deep(500))).toMatchObject({ line: 2, column: 2 + 499 * 4 + 3 });
  });

  it('does not count brackets in strings, comments and template text; counts template expressions', () => {
    const many = '('.repeat(5_000);
    const source = [
      `const a = '${many}';`,
      `const b = "${many}\\"${many}";`,
      `// ${many}`,
      `/* ${many} */`,
      `const c = \`${many}\${ [1, 2].map((x) => \`\${x}${many}\`) }${many}\`;`,
      'function f(x: number): number { return x * 2; }',
    ].join('\n');
    expect(sourceBoundsProblem(source)).toBeNull();
    const nestedTemplates = `x = ${'`${'.repeat(1_001)}1${'}`'.repeat(1_001)};`;
    expect(sourceBoundsProblem(nestedTemplates)?.text).toMatch(/nested deeper than 1000/);
  });

  it('refuses a file over the size limit', () => {
    expect(sourceBoundsProblem('x'.repeat(SOURCE_BOUNDS.maxChars + 1))?.text).toBe(
      `the file has ${SOURCE_BOUNDS.maxChars + 1} characters, more than the toolchain's limit of ${SOURCE_BOUNDS.maxChars}`,
    );
  });

  it('scans in linear time: 2 MB costs about forty times 50 KB, not 1,600 times', () => {
    const line = 'function f(a: number) { return [a, { b: (a + 1) }]; }\n';
    const large = line.repeat(36_000).slice(0, 1_999_000);
    const small = large.slice(0, 49_975);
    // This process's CPU time, not the wall: beside six busy loops (CI of 29 Nov 2026) the 2 MB
    // scan was preempted many times while the 50 KB one fit in a time slice, and the wall ratio
    // of a linear scan reached 436.
    const best = (source: string) => {
      let fastest = Infinity;
      for (let round = 0; round < 5; round++) {
        const started = process.cpuUsage();
        expect(sourceBoundsProblem(source)).toBeNull();
        const spent = process.cpuUsage(started);
        fastest = Math.min(fastest, (spent.user + spent.system) / 1000);
      }
      return fastest;
    };
    best(small); // warm-up
    best(large);
    // Best of five each, after a warm-up of both. A linear scan costs about `sizes` times as much,
    // a quadratic one sizes² (1,600): a quarter of that leaves a busy machine's noise (GC, JIT)
    // room on both sides (linear measured 40–68 here).
    const sizes = large.length / small.length;
    const ratio = best(large) / Math.max(best(small), 0.05);
    expect(ratio).toBeLessThan(sizes ** 2 / 4);
  });
});

describe('transformInChild', () => {
  it('transforms, and reports a syntax error with its place, in one attempt', async () => {
    const outcome = await transformInChild([
      ts('const n: number = 1;\nexport { n };\n'),
      ts('const x: number = ;\n', 'src/broken.ts'),
    ]);
    expect(outcome).toMatchObject({ kind: 'transformed', attempts: 1 });
    if (outcome.kind !== 'transformed') return;
    expect(outcome.files[0]).toMatchObject({ ok: true, code: expect.stringContaining('const n = 1') });
    expect(outcome.files[1]).toEqual({
      ok: false,
      errors: [{ text: 'Unexpected ";"', file: 'src/broken.ts', line: 1, column: 18 }],
    });
  });

  it("a bracket nest is that file's error before any process parses it", async () => {
    let attempts = 0;
    const outcome = await transformInChild([ts(BRACKETS)], { onAttempt: () => (attempts += 1) });
    expect(attempts).toBe(0);
    expect(outcome).toMatchObject({
      kind: 'transformed',
      files: [
        { ok: false, errors: [{ file: 'main.ts', text: expect.stringMatching(/nested deeper than 1000/) }] },
      ],
    });
  });

  it('an input that kills esbuild is retried once in a fresh process, then judged crashed; the next input works', async () => {
    const pids: number[] = [];
    const {
      result: crashed,
      gapMs,
      durationMs,
    } = await largestTickGap(() =>
      transformInChild([ts(UNARY_CRASH)], { onAttempt: (_, child) => pids.push(child.pid!) }),
    );
    expect(crashed).toMatchObject({ kind: 'crashed', attempts: 2 });
    if (crashed.kind !== 'crashed') return;
    expect(crashed.reason).toMatch(
      /^the JavaScript\/TypeScript toolchain \(esbuild\) crashed twice on this input, each time in a fresh process: The service was stopped \(on main\.ts\): .*fatal error: (stack overflow|out of memory)$/,
    );
    expect(new Set(pids).size).toBe(2);
    // Two esbuild parses of seconds each happened meanwhile; this process kept ticking (a parse
    // on this loop would leave a gap of about half the whole).
    expect(gapMs).toBeLessThan(durationMs / 4);

    const after = await transformInChild([ts('export const ok: string = "yes";\n')]);
    expect(after).toMatchObject({ kind: 'transformed', attempts: 1, files: [{ ok: true }] });
  });

  it('a statement nest that makes esbuild grow without end dies at its address-space limit, well before the deadline', async () => {
    // 75 KB of `if(1)`: esbuild's memory grew past 2.6 GB within 4 s without a limit.
    const started = Date.now();
    const outcome = await transformInChild([ts(`${'if(1)'.repeat(15_000)};\n`)]);
    expect(outcome).toMatchObject({
      kind: 'crashed',
      reason: expect.stringMatching(/crashed twice.*fatal error: out of memory$/),
    });
    expect(Date.now() - started).toBeLessThan(2 * TOOLCHAIN_LIMITS.wallMs);
  });

  it('a process that dies once (killed from outside) is replaced and the job still succeeds', async () => {
    const outcome = await transformInChild([ts('export const a: number = 2;\n')], {
      onAttempt: (attempt, child) => {
        if (attempt === 1) child.kill('SIGKILL');
      },
    });
    expect(outcome).toMatchObject({ kind: 'transformed', attempts: 2, files: [{ ok: true }] });
  });

  it("an attempt past its deadline is a crash (killed), twice is the input's", async () => {
    // A toolchain that never answers this input (and answers the trivial canary at once). A real
    // parse that merely outlasts the deadline is a race with this process's own timer: in the busy
    // CI of 29 Nov 2026 (load 15) the timer fired late and a 20,000-line parse had answered first.
    const script = path.join(mkdtempSync(path.join(os.tmpdir(), 'toolchain-test-')), 'silent-child.cjs');
    writeFileSync(
      script,
      `process.on('message', (request) => {
         if (request.files.some((file) => file.source.length > 100)) return; // never answers
         process.send({ results: request.files.map(() => ({ ok: true, code: '', warnings: [] })) });
       });\n`,
    );
    const large = 'export const v = 1;\n'.repeat(10);
    const outcome = await transformInChild([ts(large)], { wallMs: 20, childScript: script });
    expect(outcome).toEqual({
      kind: 'crashed',
      attempts: TOOLCHAIN_LIMITS.attempts,
      reason: expect.stringMatching(/crashed twice .*: no answer within 0\.02 s, killed$/),
    });
  });

  it('other jobs are judged normally while one crashes', async () => {
    const [crash, ...others] = await Promise.all([
      transformInChild([ts(UNARY_CRASH)]),
      ...Array.from({ length: 3 }, (_, index) =>
        transformInChild([ts(`export const v${index} = ${index};\n`)]),
      ),
    ]);
    expect(crash.kind).toBe('crashed');
    for (const other of others)
      expect(other).toMatchObject({ kind: 'transformed', attempts: 1, files: [{ ok: true }] });
  });

  it('a large valid file is parsed without blocking this event loop', async () => {
    const source = Array.from(
      { length: 20_000 },
      (_, index) => `export function f${index}(a: number): number[] { return [a, a + 1, (a * 2) | 0]; }\n`,
    ).join('');
    const { result, gapMs, durationMs } = await largestTickGap(() => transformInChild([ts(source)]));
    expect(result).toMatchObject({ kind: 'transformed', files: [{ ok: true }] });
    // A parse on this loop would leave a gap about as long as the whole transform.
    expect(gapMs).toBeLessThan(durationMs / 2);
  });

  it("a toolchain that cannot transform even a trivial file is the worker's failure, not the input's compile error", async () => {
    const script = path.join(mkdtempSync(path.join(os.tmpdir(), 'toolchain-test-')), 'broken-child.cjs');
    writeFileSync(script, "process.stderr.write('cannot load esbuild\\n'); process.exit(3);\n");
    let attempts = 0;
    const pending = transformInChild([ts('export const a = 1;\n')], {
      childScript: script,
      onAttempt: () => (attempts += 1),
    });
    await expect(pending).rejects.toThrow(SandboxUnavailableError);
    await expect(pending).rejects.toThrow(
      'the JavaScript/TypeScript toolchain (esbuild) does not work on this worker: exited with code 3: cannot load esbuild',
    );
    expect(attempts).toBe(2);
  });

  it('an abort kills the attempt and rejects with the reason', async () => {
    const controller = new AbortController();
    const pending = transformInChild([ts(UNARY_CRASH)], {
      signal: controller.signal,
      onAttempt: () => setTimeout(() => controller.abort(new Error('cancelled')), 50),
    });
    await expect(pending).rejects.toThrow('cancelled');
  });
});

describe("the tests judge's preparation", () => {
  it("turns a toolchain that died twice into the submission's compile error", async () => {
    const prepared = await prepareSubmission({
      content: '',
      files: [
        { path: 'main.ts', content: UNARY_CRASH },
        { path: 'data.json', content: '{"a": 1}' },
      ],
    });
    expect(prepared).toEqual({
      kind: 'compile_error',
      entry: 'main.ts',
      message: expect.stringMatching(
        /esbuild\) crashed twice on this input.*fatal error: (stack overflow|out of memory)/,
      ),
    });
    const fine = await prepareSubmission({
      content: '',
      files: [
        { path: 'main.ts', content: "import data from './data.json';\nexport const a: number = data.a;\n" },
        { path: 'data.json', content: '{"a": 1}' },
      ],
    });
    expect(fine).toMatchObject({
      kind: 'ready',
      entry: 'main.ts',
      modules: [
        { path: 'main.ts', kind: 'js' },
        { path: 'data.json', kind: 'json', source: '{"a": 1}' },
      ],
    });
  });
});
