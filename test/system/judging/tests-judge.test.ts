import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import {
  type JudgeConfigInput,
  type JudgeOutcome,
  type SubmissionForJudging,
  type TestRunDetail,
  type TestsJudgeConfig,
  breakdownView,
  judgeConfigSchema,
  runJudge,
} from '../../../src/judging';
import {
  callWallLimitMs,
  resolveSandboxRunnerPath,
  runCallsInSandbox,
  runInSandbox,
  sandboxNodeFlags,
} from '../../../src/judging/sandbox/run-in-sandbox';
import { sandboxRuntime } from '../../../src/judging/sandbox/sandbox-runtime';
import { batchesOf } from '../../../src/judging/tests-judge';

type TestCaseInput = Extract<JudgeConfigInput, { kind: 'tests' }>['tests'][number];

function testsConfig(
  tests: TestCaseInput[],
  extra: Partial<Extract<JudgeConfigInput, { kind: 'tests' }>> = {},
) {
  return { kind: 'tests' as const, timeout_ms_per_test: 1000, memory_mb: 64, tests, ...extra };
}

function criterion(outcome: JudgeOutcome, name: string) {
  const found = outcome.criteria.find((c) => c.name === name);
  if (!found) throw new Error(`no criterion ${name}`);
  return found;
}

function testDetails(outcome: JudgeOutcome): TestRunDetail[] {
  return (outcome.details as { tests: TestRunDetail[] }).tests;
}

describe('tests judge: a passing TypeScript submission', () => {
  const submission: SubmissionForJudging = {
    content: 'see files',
    files: [
      {
        path: 'src/index.ts',
        language: 'typescript',
        content: `
          import { add, Shape, area } from './geometry';
          import defaults from './defaults.json';
          export default function sum(values: number[]): number {
            return values.reduce((total, value) => add(total, value), 0);
          }
          export async function slowDouble(value: number): Promise<number> {
            await Promise.resolve();
            return value * 2;
          }
          export function describeShape(kind: keyof typeof Shape): { kind: string; area: number } {
            console.log('describing', kind);
            return { area: area(Shape[kind]), kind };
          }
          export const greeting = (name?: string): string => \`hello \${name ?? defaults.name}\`;
          export const nothing = (): undefined => undefined;
        `,
      },
      {
        path: 'src/geometry.ts',
        content: `
          export enum Shape { Unit = 1, Double = 2 }
          export const add = <T extends number>(a: T, b: T): number => a + b;
          export function area(side: Shape): number { return side * side; }
        `,
      },
      { path: 'src/defaults.json', content: '{"name": "world"}' },
      { path: 'README.md', content: '# not code' },
    ],
  };

  let outcome: JudgeOutcome;
  beforeAll(async () => {
    outcome = await runJudge(
      testsConfig([
        { name: 'sum', export: 'default', args: [[1, 2, 3.5]], expected: 6.5 },
        { name: 'async double', export: 'slowDouble', args: [21], expected: 42 },
        {
          name: 'object result',
          export: 'describeShape',
          args: ['Double'],
          expected: { kind: 'Double', area: 4 },
        },
        { name: 'json import', export: 'greeting', args: [], expected: 'hello world', hidden: true },
        { name: 'wrong answer', export: 'greeting', args: ['x'], expected: 'hello y', weight: 2 },
        { name: 'undefined is not null', export: 'nothing', args: [], expected: null },
        { name: 'missing export', export: 'notThere', args: [], expected: 1 },
      ]),
      submission,
    );
  });

  it('scores the weighted share of passing tests', () => {
    // 4 passing tests of weight 1; total weight 1*6 + 2 = 8 → 50.
    expect(outcome.resultState).toBe('scored');
    expect(outcome.score).toBe(50);
    expect(outcome.summary).toBe('Passed 4 of 7 tests (score 50)');
    expect(outcome.criteria.map((c) => [c.name, c.passed])).toEqual([
      ['sum', true],
      ['async double', true],
      ['object result', true],
      ['json import', true],
      ['wrong answer', false],
      ['undefined is not null', false],
      ['missing export', false],
    ]);
  });

  it('explains failures', () => {
    expect(criterion(outcome, 'wrong answer').feedback).toBe('expected "hello y", got "hello x"');
    expect(criterion(outcome, 'undefined is not null').feedback).toBe('expected null, got undefined');
    expect(criterion(outcome, 'missing export').feedback).toMatch(
      /does not export a function named "notThere"/,
    );
    expect(criterion(outcome, 'json import').hidden).toBe(true);
  });

  it('records per-test details with captured console output', () => {
    const details = outcome.details as { entry: string; tests: TestRunDetail[] };
    expect(details.entry).toBe('src/index.ts');
    const described = details.tests.find((t) => t.name === 'object result')!;
    expect(described.logs).toBe('describing Double\n');
    expect(described.duration_ms).toBeGreaterThanOrEqual(0);
  });

  it('hides hidden tests from the competitor view', () => {
    const view = breakdownView(outcome, 'competitor');
    expect(view.criteria.map((c) => c.name)).not.toContain('json import');
    expect(view.hidden_summary).toEqual({ hidden_passed: 1, hidden_total: 1 });
    const tests = (view.details as { tests: TestRunDetail[] }).tests;
    expect(tests.map((t) => t.name)).toEqual([
      'sum',
      'async double',
      'object result',
      'wrong answer',
      'undefined is not null',
      'missing export',
    ]);
  });
});

describe('tests judge: submissions that cannot run normally', () => {
  it('fails every test with the compile error when the code does not compile', async () => {
    const outcome = await runJudge(
      testsConfig([
        { name: 'a', export: 'f', args: [], expected: 1 },
        { name: 'b', export: 'f', args: [], expected: 2, hidden: true },
      ]),
      { content: '', files: [{ path: 'broken.ts', content: 'export const f = (: number => 1;' }] },
    );
    expect(outcome.resultState).toBe('scored');
    expect(outcome.score).toBe(0);
    expect(outcome.summary).toMatch(/^Compilation failed: broken\.ts:1:\d+: /);
    for (const c of outcome.criteria) {
      expect(c.passed).toBe(false);
      expect(c.feedback).toMatch(/^compile error: broken\.ts:1:\d+: /);
    }
    expect(outcome.details).toMatchObject({
      entry: 'broken.ts',
      compile_error: expect.stringContaining('broken.ts'),
    });
  });

  it('a missing entry file is a judged 0 (the submission’s fault, not ours) whose breakdown says why', async () => {
    const outcome = await runJudge(
      testsConfig([{ name: 'a', export: 'f', args: [], expected: 1 }], { entry: 'main.js' }),
      {
        content: '',
        files: [{ path: 'other.js', content: 'exports.f = () => 1' }],
      },
    );
    expect(outcome.resultState).toBe('scored');
    expect(outcome.score).toBe(0);
    expect(outcome.summary).toBe('Not judged, score 0: the entry file "main.js" is not in the submission');
    expect(outcome.details).toMatchObject({
      not_judged: 'the entry file "main.js" is not in the submission',
    });
    expect(outcome.criteria[0].feedback).toBe('not run: the entry file "main.js" is not in the submission');
  });

  it('a submission without code in a language the judge runs is a judged 0 whose breakdown says why', async () => {
    const outcome = await runJudge(testsConfig([{ name: 'a', export: 'f', args: [], expected: 1 }]), {
      content: '',
      files: [{ path: 'solution.py', content: 'def f():\n    return 1\n' }],
    });
    expect(outcome).toMatchObject({
      resultState: 'scored',
      score: 0,
      details: { not_judged: 'the submission contains no JavaScript or TypeScript code' },
    });
  });

  it('runs the code in `content` when there are no code files (first fenced block)', async () => {
    const outcome = await runJudge(
      testsConfig([{ name: 'square', export: 'square', args: [7], expected: 49 }]),
      {
        content: 'Here is my answer:\n```ts\nexport const square = (n: number) => n * n;\n```\nThanks.',
        files: [],
      },
    );
    expect(outcome.criteria[0]).toMatchObject({ passed: true });
    expect(outcome.score).toBe(100);
  });

  it('fails each test cleanly when module top-level code is hostile', async () => {
    const outcome = await runJudge(
      testsConfig([{ name: 'a', export: 'f', args: [], expected: 1 }], { timeout_ms_per_test: 400 }),
      {
        content: '',
        files: [{ path: 'index.js', content: "const fs = require('fs');\nexports.f = () => 1;" }],
      },
    );
    expect(outcome.criteria[0].passed).toBe(false);
    expect(outcome.criteria[0].feedback).toMatch(/^error: Error: Cannot find module 'fs'/);
  });
});

describe('tests judge: hostile submissions', () => {
  const hostileSource = String.raw`
    exports.add = (a, b) => a + b;

    // time
    exports.infiniteLoop = () => { while (true) {} };
    exports.asyncInfiniteLoop = async () => { await null; while (true) {} };
    exports.neverSettles = () => new Promise(() => {});

    // memory
    exports.arrayBomb = () => { const all = []; while (true) all.push(new Array(1e5).fill(1.5)); };
    exports.stringBomb = () => { const all = []; let i = 0; while (true) all.push('x'.repeat(1e5) + i++); };
    exports.doublingString = () => { let s = 'x'; while (true) s += s; };
    exports.bufferBomb = () => { const all = []; while (true) { const b = new Uint8Array(1e7); b.fill(1); all.push(b); } };
    exports.deepRecursion = () => { const f = (n) => f(n + 1) + 1; return f(0); };

    // files
    exports.requireFs = () => require('fs').readFileSync('/etc/passwd', 'utf8');
    exports.requireNodeFs = () => require('node:fs').readFileSync('/etc/passwd', 'utf8');
    exports.writeFile = (target) => { require('fs').writeFileSync(target, 'owned'); return true; };
    exports.requireAbsolute = () => require('/etc/passwd');
    exports.requireTraversal = () => require('../../../../../../../etc/passwd');
    exports.dynamicImport = async () => (await import('fs')).readFileSync('/etc/passwd', 'utf8');
    exports.processBinding = () => process.binding('fs');
    exports.moduleConstructor = () => module.constructor._load('fs');
    exports.constructorEscape = function () {
      const sloppyGlobal = (function () { return this; })();
      return sloppyGlobal.constructor.constructor('return process')().mainModule.require('fs').readFileSync('/etc/passwd', 'utf8');
    };
    exports.stackTraceEscape = () => {
      Error.prepareStackTrace = (_, frames) => frames;
      const frames = new Error('probe').stack;
      Error.prepareStackTrace = undefined;
      const leaked = frames.map((f) => f.getFunction()).find((fn) => typeof fn === 'function');
      if (leaked) return leaked.constructor('return process')().pid;
      return frames[frames.length - 1].constructor.constructor('return process')().pid;
    };
    exports.evalEscape = () => eval('process');

    // network
    exports.requireNet = (port) => require('net').connect(port, '127.0.0.1');
    exports.requireHttp = (url) => require('http').get(url);
    exports.useFetch = async (url) => (await fetch(url)).status;

    // process
    exports.processExit = () => { process.exit(0); };
    exports.processKill = () => { process.kill(process.ppid, 'SIGKILL'); };
    exports.globalProcess = () => globalThis.process.exit(0);
    exports.timers = () => new Promise((resolve) => setTimeout(resolve, 1));

    // odd throws
    exports.throwNumber = () => { throw 42; };
    exports.throwNull = () => { throw null; };
    exports.throwHostileObject = () => {
      throw { get message() { throw new Error('gotcha'); }, toJSON() { throw new Error('nope'); }, toString() { throw new Error('nope'); } };
    };
    exports.throwProxy = () => {
      throw new Proxy({}, { get() { throw new Error('trap'); }, getPrototypeOf() { throw new Error('trap'); } });
    };
    exports.rejectString = async () => { throw 'plain string'; };
    exports.lateUnhandledRejection = async () => { Promise.reject(new Error('ignored')); return 1; };

    // output
    exports.hugeString = () => 'x'.repeat(5e6);
    exports.hugeArray = () => new Array(1e6).fill(0);
    exports.sparseArray = () => { const a = []; a.length = 4294967295; return a; };
    exports.deepObject = () => { let o = {}; for (let i = 0; i < 1000; i++) o = { o }; return o; };
    exports.circular = () => { const o = {}; o.self = o; return o; };
    exports.logSpam = () => { for (let i = 0; i < 100000; i++) console.log('spam', i); return 'done'; };

    // prototype pollution
    exports.pollute = () => {
      const parse = JSON.parse;
      Object.prototype.polluted = 'yes';
      Array.prototype.push = () => { throw new Error('hijacked'); };
      Object.keys = () => ['forged'];
      JSON.stringify = () => 'forged';
      const parsed = parse('{"__proto__": {"polluted": "yes"}, "constructor": {"prototype": {"polluted": "yes"}}}');
      return { ok: true, sawOwnProto: Object.getOwnPropertyNames(parsed).includes('__proto__') };
    };
  `;

  const writeTarget = path.join(os.tmpdir(), `judge-hostile-${process.pid}-${Date.now()}.txt`);
  let networkHits = 0;
  let server: http.Server;
  let serverUrl: string;
  let serverPort: number;
  let outcome: JudgeOutcome;
  let memoryOutcome: JudgeOutcome;

  const cases: TestCaseInput[] = [
    { name: 'add', export: 'add', args: [2, 3], expected: 5 },
    { name: 'infiniteLoop', export: 'infiniteLoop', args: [], expected: 1 },
    { name: 'asyncInfiniteLoop', export: 'asyncInfiniteLoop', args: [], expected: 1 },
    { name: 'neverSettles', export: 'neverSettles', args: [], expected: 1 },
    { name: 'doublingString', export: 'doublingString', args: [], expected: 1 },
    { name: 'deepRecursion', export: 'deepRecursion', args: [], expected: 1 },
    { name: 'requireFs', export: 'requireFs', args: [], expected: 'root' },
    { name: 'requireNodeFs', export: 'requireNodeFs', args: [], expected: 'root' },
    { name: 'writeFile', export: 'writeFile', args: [writeTarget], expected: true },
    { name: 'requireAbsolute', export: 'requireAbsolute', args: [], expected: 'root' },
    { name: 'requireTraversal', export: 'requireTraversal', args: [], expected: 'root' },
    { name: 'dynamicImport', export: 'dynamicImport', args: [], expected: 'root' },
    { name: 'processBinding', export: 'processBinding', args: [], expected: 'root' },
    { name: 'moduleConstructor', export: 'moduleConstructor', args: [], expected: 'root' },
    { name: 'constructorEscape', export: 'constructorEscape', args: [], expected: 'root' },
    { name: 'stackTraceEscape', export: 'stackTraceEscape', args: [], expected: 1 },
    { name: 'evalEscape', export: 'evalEscape', args: [], expected: 1 },
    { name: 'requireNet', export: 'requireNet', args: [0], expected: 1 },
    { name: 'requireHttp', export: 'requireHttp', args: [''], expected: 1 },
    { name: 'useFetch', export: 'useFetch', args: [''], expected: 200 },
    { name: 'processExit', export: 'processExit', args: [], expected: 1 },
    { name: 'processKill', export: 'processKill', args: [], expected: 1 },
    { name: 'globalProcess', export: 'globalProcess', args: [], expected: 1 },
    { name: 'timers', export: 'timers', args: [], expected: 1 },
    { name: 'throwNumber', export: 'throwNumber', args: [], expected: 1 },
    { name: 'throwNull', export: 'throwNull', args: [], expected: 1 },
    { name: 'throwHostileObject', export: 'throwHostileObject', args: [], expected: 1 },
    { name: 'throwProxy', export: 'throwProxy', args: [], expected: 1 },
    { name: 'rejectString', export: 'rejectString', args: [], expected: 1 },
    { name: 'lateUnhandledRejection', export: 'lateUnhandledRejection', args: [], expected: 1 },
    { name: 'hugeString', export: 'hugeString', args: [], expected: 'x' },
    { name: 'hugeArray', export: 'hugeArray', args: [], expected: [] },
    { name: 'sparseArray', export: 'sparseArray', args: [], expected: [] },
    { name: 'deepObject', export: 'deepObject', args: [], expected: {} },
    { name: 'circular', export: 'circular', args: [], expected: {} },
    { name: 'logSpam', export: 'logSpam', args: [], expected: 'done' },
    { name: 'pollute', export: 'pollute', args: [], expected: { ok: true, sawOwnProto: true } },
  ];

  beforeAll(async () => {
    server = http.createServer((request, response) => {
      networkHits += 1;
      response.end('reached');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    serverPort = (server.address() as AddressInfo).port;
    serverUrl = `http://127.0.0.1:${serverPort}/`;
    for (const testCase of cases) {
      if (testCase.name === 'requireNet') testCase.args = [serverPort];
      if (testCase.name === 'requireHttp' || testCase.name === 'useFetch') testCase.args = [serverUrl];
    }
    const files = [{ path: 'hostile.js', content: hostileSource }];
    outcome = await runJudge(testsConfig(cases, { timeout_ms_per_test: 500, memory_mb: 64 }), {
      content: '',
      files,
    });
    // A generous time limit so that the memory limit, not the clock, is what stops the bombs
    // (V8 spends a while collecting garbage before it gives up).
    memoryOutcome = await runJudge(
      testsConfig(
        ['arrayBomb', 'stringBomb', 'bufferBomb'].map((name) => ({
          name,
          export: name,
          args: [],
          expected: 1,
        })),
        { timeout_ms_per_test: 8000, memory_mb: 64 },
      ),
      { content: '', files },
    );
    // 39 sandboxed processes one after another, three of them allowed 8 s: the suite's 60 s
    // default is too tight for a loaded machine, and nothing here depends on speed.
  }, 180_000);

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const feedbackOf = (name: string) => criterion(outcome, name);

  it('still scores the honest test and fails every hostile one', () => {
    expect(outcome.resultState).toBe('scored');
    const passing = outcome.criteria.filter((c) => c.passed).map((c) => c.name);
    expect(passing.sort()).toEqual(['add', 'lateUnhandledRejection', 'logSpam', 'pollute'].sort());
    expect(outcome.score).toBe(Math.round((4 / cases.length) * 10000) / 100);
  });

  it.each(['infiniteLoop', 'asyncInfiniteLoop', 'neverSettles'])('%s hits the time limit', (name) => {
    expect(feedbackOf(name)).toMatchObject({ passed: false, feedback: 'exceeded the time limit of 500 ms' });
  });

  it.each(['arrayBomb', 'stringBomb', 'bufferBomb'])('%s hits the memory limit', (name) => {
    expect(criterion(memoryOutcome, name)).toMatchObject({
      passed: false,
      feedback: 'exceeded the memory limit of 64 MB',
    });
  });

  it('reports string and stack exhaustion as errors', () => {
    expect(feedbackOf('doublingString').feedback).toBe('error: RangeError: Invalid string length');
    expect(feedbackOf('deepRecursion').feedback).toBe('error: RangeError: Maximum call stack size exceeded');
  });

  it.each([
    'requireFs',
    'requireNodeFs',
    'writeFile',
    'requireAbsolute',
    'requireTraversal',
    'dynamicImport',
  ])('%s cannot reach the file system', (name) => {
    expect(feedbackOf(name).passed).toBe(false);
    expect(feedbackOf(name).feedback).toMatch(/Cannot find module '[^']+': /);
    expect(feedbackOf(name).feedback).not.toMatch(/root:/);
  });

  it('did not write the file', () => {
    expect(existsSync(writeTarget)).toBe(false);
  });

  it('offers no route to the host process', () => {
    expect(feedbackOf('processBinding').feedback).toBe('error: ReferenceError: process is not defined');
    expect(feedbackOf('moduleConstructor').feedback).toMatch(/^error: TypeError: .*_load is not a function/);
    expect(feedbackOf('constructorEscape').feedback).toBe(
      'error: EvalError: Code generation from strings disallowed for this context',
    );
    // The submission's realm records no stack traces at all: no frames, host or not, to read.
    expect(feedbackOf('stackTraceEscape').feedback).toBe(
      "error: TypeError: Cannot read properties of undefined (reading 'map')",
    );
    expect(feedbackOf('evalEscape').feedback).toBe(
      'error: EvalError: Code generation from strings disallowed for this context',
    );
  });

  it('offers no network primitives', () => {
    expect(feedbackOf('requireNet').feedback).toMatch(/^error: Error: Cannot find module 'net'/);
    expect(feedbackOf('requireHttp').feedback).toMatch(/^error: Error: Cannot find module 'http'/);
    expect(feedbackOf('useFetch').feedback).toBe(
      'error: the returned promise rejected: ReferenceError: fetch is not defined',
    );
    expect(networkHits).toBe(0);
  });

  it('offers no process control and no timers', () => {
    for (const name of ['processExit', 'processKill']) {
      expect(feedbackOf(name).feedback).toBe('error: ReferenceError: process is not defined');
    }
    expect(feedbackOf('globalProcess').feedback).toMatch(
      /^error: TypeError: Cannot read properties of undefined/,
    );
    expect(feedbackOf('timers').feedback).toBe(
      'error: the returned promise rejected: ReferenceError: setTimeout is not defined',
    );
  });

  it('describes thrown non-Error values', () => {
    expect(feedbackOf('throwNumber').feedback).toBe('error: a non-Error value was thrown: 42');
    expect(feedbackOf('throwNull').feedback).toBe('error: a non-Error value was thrown: null');
    expect(feedbackOf('throwHostileObject').feedback).toBe(
      'error: a non-Error value was thrown: [object Object]',
    );
    expect(feedbackOf('throwProxy').feedback).toBe('error: an unprintable value was thrown');
    expect(feedbackOf('rejectString').feedback).toBe(
      'error: the returned promise rejected: a non-Error value was thrown: plain string',
    );
    expect(feedbackOf('lateUnhandledRejection').passed).toBe(true);
  });

  it('caps returned values and logs', () => {
    expect(feedbackOf('hugeString').feedback).toBe(
      'the returned value is too large to compare (limit 100000 characters)',
    );
    expect(feedbackOf('hugeArray').feedback).toBe(
      'the returned value is too large to compare (limit 100000 characters)',
    );
    expect(feedbackOf('sparseArray').feedback).toBe(
      'the returned value is too large to compare (limit 100000 characters)',
    );
    expect(feedbackOf('deepObject').feedback).toBe('the returned value is nested more than 64 levels deep');
    expect(feedbackOf('circular').feedback).toBe('the returned value contains a circular reference');
    const spam = testDetails(outcome).find((t) => t.name === 'logSpam')!;
    expect(spam.passed).toBe(true);
    expect(spam.logs_truncated).toBe(true);
    expect(spam.logs.length).toBeLessThanOrEqual(8000);
    expect(spam.logs.startsWith('spam 0\nspam 1\n')).toBe(true);
  });

  it('keeps prototype tampering inside the sandbox', () => {
    expect(feedbackOf('pollute').passed).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.keys({ a: 1 })).toEqual(['a']);
    expect(JSON.stringify({ a: 1 })).toBe('{"a":1}');
    const list: number[] = [];
    list.push(1);
    expect(list).toEqual([1]);
  });

  it('leaves the calling process untouched', () => {
    expect(process.exitCode).toBeUndefined();
  });
});

describe('sandbox process flags (defence in depth if code ever left the vm context)', () => {
  it('forbid file reads, file writes, child processes, workers and eval', async () => {
    const runner = await resolveSandboxRunnerPath();
    const target = path.join(os.tmpdir(), `judge-flags-${process.pid}-${Date.now()}.txt`);
    const probe = `
      const out = {};
      const attempt = (name, fn) => { try { fn(); out[name] = 'allowed'; } catch (e) { out[name] = e.code || e.name; } };
      attempt('read', () => require('fs').readFileSync('/etc/hostname'));
      attempt('write', () => require('fs').writeFileSync(${JSON.stringify(target)}, 'x'));
      attempt('spawn', () => require('child_process').spawnSync('true'));
      attempt('worker', () => new (require('worker_threads').Worker)('0', { eval: true }));
      attempt('eval', () => eval('1'));
      console.log(JSON.stringify(out));
    `;
    const result = spawnSync(process.execPath, [...sandboxNodeFlags(runner, 64), '-e', probe], {
      env: {},
      encoding: 'utf8',
      timeout: 10_000,
    });
    expect(JSON.parse(result.stdout)).toEqual({
      read: 'ERR_ACCESS_DENIED',
      write: 'ERR_ACCESS_DENIED',
      spawn: 'ERR_ACCESS_DENIED',
      worker: 'ERR_ACCESS_DENIED',
      eval: 'EvalError',
    });
    expect(existsSync(target)).toBe(false);
  });
});

describe('tests judge: cancellation', () => {
  it('kills running sandboxes and rejects with the abort reason', async () => {
    const controller = new AbortController();
    const reason = new Error('activity cancelled');
    const judging = runJudge(
      testsConfig([{ name: 'loop', export: 'loop', args: [], expected: 1 }], { timeout_ms_per_test: 10_000 }),
      {
        content: '',
        files: [{ path: 'a.js', content: 'exports.loop = async () => { await null; while (true) {} }' }],
      },
      { signal: controller.signal },
    );
    setTimeout(() => controller.abort(reason), 300);
    // Rejected with the abort's reason: the test's own time limit would have resolved a result.
    await expect(judging).rejects.toBe(reason);
  });
});

describe('tests judge: concurrency and progress', () => {
  it('runs tests in parallel sandboxes, keeps results in config order and reports progress', async () => {
    const progress: number[] = [];
    const outcome = await runJudge(
      testsConfig(
        Array.from({ length: 6 }, (_, i) => ({
          name: `square ${i}`,
          export: 'square',
          args: [i],
          expected: i * i,
        })),
      ),
      { content: '', files: [{ path: 'a.js', content: 'exports.square = (n) => n * n;' }] },
      { testConcurrency: 3, onProgress: ({ completed, total }) => progress.push(completed / total) },
    );
    expect(outcome.score).toBe(100);
    expect(outcome.criteria.map((c) => c.name)).toEqual(Array.from({ length: 6 }, (_, i) => `square ${i}`));
    expect(progress).toHaveLength(6);
    expect(progress[5]).toBe(1);
  });
});

describe('tests judge: one judging is one sandbox slot (fair-share caps count slots)', () => {
  it('never holds more than one judging slot at once by default, hidden and visible batches included', async () => {
    const { slots } = await sandboxRuntime();
    let mostInUse = 0;
    const outcome = await runJudge(
      testsConfig(
        Array.from({ length: 6 }, (_, i) => ({
          name: `square ${i}`,
          export: 'square',
          args: [i],
          expected: i * i,
          hidden: i % 2 === 0,
        })),
      ),
      { content: '', files: [{ path: 'a.js', content: 'exports.square = (n) => n * n;' }] },
      // Called while the run that produced the result still holds its slot.
      { onProgress: () => (mostInUse = Math.max(mostInUse, slots.inUse)) },
    );
    expect(outcome.score).toBe(100);
    expect(slots.size).toBeGreaterThan(1);
    expect(mostInUse).toBe(1);
  });
});

describe('tests judge: the time limit counts CPU time, so a busy machine does not change verdicts', () => {
  const callOf = (source: string, timeoutMs: number) =>
    runInSandbox({
      modules: [{ path: 'a.js', kind: 'js', source }],
      entry: 'a.js',
      exportName: 'f',
      args: [],
      timeoutMs,
      memoryMb: 64,
    });
  /** Blocks without computing (Atomics.wait is a real sleep: no CPU time). */
  const sleeping = (ms: number) =>
    `exports.f = () => { Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ${ms}); return 'woke'; };`;
  /** About 0.3 s of CPU on this kind of machine, however long it takes to get it. */
  const computing =
    'exports.f = () => { let x = 0; for (let i = 0; i < 4e7; i++) x = (x * 31 + i) % 1000003; return x; };';
  let countsCpuTime: boolean;
  beforeAll(async () => {
    countsCpuTime = (await sandboxRuntime()).launcher.report.cgroup !== 'none';
  });

  it('a call that waits past its limit without computing returns; one that waits past the cap is a timeout', async () => {
    const limit = 1000;
    const waited = await callOf(sleeping(1500), limit);
    const capped = await callOf(sleeping(callWallLimitMs(limit, true) + 2000), limit);
    expect(capped.status).toBe('timeout');
    // Without a cgroup (development's unsafe-process) the limit is wall clock, and says so.
    expect(waited).toMatchObject(
      countsCpuTime ? { status: 'returned', value: ['s', 'woke'] } : { status: 'timeout' },
    );
  });

  it('a spin is judged a timeout by its CPU time', async () => {
    expect((await callOf('exports.f = () => { for (;;) {} };', 500)).status).toBe('timeout');
  });

  it('beside a CPU hog of six host processes, a call that computes within its limit still returns its value', async () => {
    const expected = (() => {
      let x = 0;
      for (let i = 0; i < 4e7; i++) x = (x * 31 + i) % 1000003;
      return x;
    })();
    const hog = Array.from({ length: 6 }, () =>
      spawn('sh', ['-c', 'while :; do :; done'], { stdio: 'ignore' }),
    );
    try {
      // ~0.3 s of CPU against a 2 s limit. Its wall clock grows with the hog (0.26 s alone, up to
      // 0.69 s beside it on 2 cores); the CPU time it is judged by does not.
      const result = await callOf(computing, 2000);
      expect(result).toMatchObject({ status: 'returned', value: ['n', expected] });
    } finally {
      for (const child of hog) child.kill('SIGKILL');
    }
  });
});

describe('runInSandbox', () => {
  it('reports source the vm cannot compile as a failed call', async () => {
    const result = await runInSandbox({
      modules: [{ path: 'a.js', kind: 'js', source: 'exports.f = () => {' }],
      entry: 'a.js',
      exportName: 'f',
      args: [],
      timeoutMs: 1000,
      memoryMb: 64,
    });
    expect(result).toMatchObject({
      status: 'threw',
      message: expect.stringMatching(/^SyntaxError in a\.js: /),
    });
  });
});

describe('tests judge: batches of test cases in one sandboxed process', () => {
  it('never mixes hidden and visible tests, and splits each kind by the concurrency', () => {
    const config = testsConfig([
      { name: 'v1', export: 'f', args: [], expected: 1 },
      { name: 'h1', export: 'f', args: [], expected: 1, hidden: true },
      { name: 'v2', export: 'f', args: [], expected: 1 },
      { name: 'v3', export: 'f', args: [], expected: 1 },
      { name: 'h2', export: 'f', args: [], expected: 1, hidden: true },
    ]);
    const parsed = judgeConfigSchema.parse(config) as TestsJudgeConfig;
    expect(batchesOf(parsed.tests, 1)).toEqual([
      [0, 2, 3],
      [1, 4],
    ]);
    expect(batchesOf(parsed.tests, 2)).toEqual([[0, 2], [3], [1], [4]]);
    expect(batchesOf(parsed.tests, 8)).toEqual([[0], [2], [3], [1], [4]]);
  });

  const realmModule = {
    path: 'a.js',
    kind: 'js' as const,
    source: `let loads = (globalThis.loads || 0) + 1; globalThis.loads = loads;
            exports.state = () => ({ loads, leaked: typeof globalThis.leaked });
            exports.leak = () => { globalThis.leaked = 'yes'; Object.prototype.polluted = 1; return 'set'; };
            exports.polluted = () => ({}).polluted === undefined;
            exports.bomb = () => { const all = []; for (;;) all.push(new Uint8Array(1e7).fill(1)); };
            exports.spin = () => { for (;;) {} };`,
  };
  const freshState = [
    'o',
    [
      ['loads', ['n', 1]],
      ['leaked', ['s', 'undefined']],
    ],
  ];

  it('gives every call a fresh realm and fresh modules, and carries on after a call that ends the process', async () => {
    // The limit is wall clock and sandboxes weigh little on a busy machine: the bomb must reach
    // the memory limit (a few hundred ms of CPU) long before the time limit, however starved.
    const results = await runCallsInSandbox({
      modules: [realmModule],
      entry: 'a.js',
      calls: [
        { exportName: 'leak', args: [] },
        { exportName: 'state', args: [] },
        { exportName: 'polluted', args: [] },
        { exportName: 'bomb', args: [] },
        { exportName: 'state', args: [] },
      ],
      timeoutMs: 60_000,
      memoryMb: 64,
    });
    expect(results.map((result) => result.status)).toEqual([
      'returned',
      'returned',
      'returned',
      'memory_limit',
      'returned',
    ]);
    expect(results[1]).toMatchObject({ value: freshState });
    expect(results[2]).toMatchObject({ value: ['b', true] });
    expect(results[4]).toMatchObject({ value: freshState });
  });

  it('carries on in a fresh realm after a call that runs out of time', async () => {
    const results = await runCallsInSandbox({
      modules: [realmModule],
      entry: 'a.js',
      calls: [
        { exportName: 'leak', args: [] },
        { exportName: 'spin', args: [] },
        { exportName: 'state', args: [] },
      ],
      timeoutMs: 1500,
      memoryMb: 64,
    });
    expect(results.map((result) => result.status)).toEqual(['returned', 'timeout', 'returned']);
    expect(results[2]).toMatchObject({ value: freshState });
  });
});
