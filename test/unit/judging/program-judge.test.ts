import { judgeConfigSchema } from '../../../src/judging';
import { breakdownView } from '../../../src/judging/breakdown';
import { detectProgram, firstFencedBlock, unwrapSingleFence } from '../../../src/judging/program/detect';
import { languageByExtension, languageByName } from '../../../src/judging/program/languages';
import { limitVerdict, outputMatches } from '../../../src/judging/program/rules';
import type { NativeRunResult } from '../../../src/judging/sandbox/native-run';
import { submissionRefusal } from '../../../src/domain/submissions/rules';

describe('compare modes', () => {
  test.each([
    ['lines', '3  \n\n\n', '3\n', true],
    ['lines', '3\r\n4\n', '3\n4', true],
    ['lines', ' 3\n', '3\n', false],
    ['lines', '3\n\n4\n', '3\n4\n', false],
    ['exact', '3\n', '3\n', true],
    ['exact', '3', '3\n', false],
    ['tokens', '1   2\n\n3', '1 2 3\n', true],
    ['tokens', '1 2', '1 2 3', false],
    ['float', '0.3333333', '0.333333333', true],
    ['float', '1000000.5', '1000000', true],
    ['float', '0.34', '0.333', false],
    ['float', 'yes 1.0', 'yes 1', true],
    ['float', 'no 1.0', 'yes 1', false],
    ['float', 'nan', 'nan', true],
  ] as const)('%s: %j against %j → %s', (mode, actual, expected, matches) => {
    expect(outputMatches(actual, expected, mode, 1e-6)).toBe(matches);
  });

  test('float tolerance is relative above 1: |got − want| ≤ tol · max(1, |want|)', () => {
    expect(outputMatches('100.5', '100', 'float', 0.005)).toBe(true);
    expect(outputMatches('100.6', '100', 'float', 0.005)).toBe(false);
    expect(outputMatches('0.004', '0', 'float', 0.005)).toBe(true);
  });

  test('bytes are compared before any decoding: 0xff is not the U+FFFD it would decode to', () => {
    for (const mode of ['lines', 'exact', 'tokens', 'float'] as const) {
      expect(outputMatches(Buffer.from([0xff, 0x0a]), '\uFFFD\n', mode, 1e-6)).toBe(false);
      expect(outputMatches(Buffer.from([0x33, 0x20, 0xc0, 0x80]), '3', mode, 1e-6)).toBe(false);
      // The real U+FFFD, and valid UTF-8 under the mode's whitespace rules, still match.
      expect(outputMatches(Buffer.from('\uFFFD\n', 'utf8'), '\uFFFD\n', mode, 1e-6)).toBe(true);
      expect(outputMatches(Buffer.from('é 3\n', 'utf8'), 'é 3\n', mode, 1e-6)).toBe(true);
    }
    expect(outputMatches(Buffer.from('3  \r\n\n', 'utf8'), '3\n', 'lines', 0)).toBe(true);
    expect(outputMatches(Buffer.from('a\u0000b', 'utf8'), 'ab', 'tokens', 0)).toBe(false);
  });
});

describe('language detection', () => {
  test('aliases and extensions', () => {
    expect(['py', 'Python3', 'c++', 'cxx', 'golang', 'js', 'node', 'ts'].map(languageByName)).toEqual([
      'python',
      'python',
      'cpp',
      'cpp',
      'go',
      'javascript',
      'javascript',
      'typescript',
    ]);
    expect(languageByName('cobol')).toBeUndefined();
    expect(
      ['a.py', 'x/Main.java', 'm.cc', 'm.rs', 'm.mjs', 'm.ts', 'm.txt'].map(languageByExtension),
    ).toEqual(['python', 'java', 'cpp', 'rust', 'javascript', 'typescript', undefined]);
  });

  test("the entry file's language wins over its extension; main.<ext> wins over other files", () => {
    expect(
      detectProgram({
        content: '',
        files: [
          { path: 'util.py', content: 'x' },
          { path: 'src/main.txt', content: 'y', language: 'c++' },
          { path: 'main.go', content: 'package main' },
        ],
      }),
    ).toEqual({
      kind: 'detected',
      language: 'go',
      entry: 'main.go',
      source: 'package main',
      // Every file is part of the program (issue 40): the compiler picks its own.
      program: {
        entry: 'main.go',
        files: [
          { path: 'util.py', content: 'x' },
          { path: 'src/main.txt', content: 'y' },
          { path: 'main.go', content: 'package main' },
        ],
      },
    });
    expect(
      detectProgram({ content: '', files: [{ path: 'main.py', content: 'z', language: 'golang' }] }),
    ).toMatchObject({ language: 'go' });
    expect(detectProgram({ content: '', files: [{ path: 'Main.java', content: 'j' }] })).toMatchObject({
      language: 'java',
      entry: 'Main.java',
    });
  });

  test('else the only code file, else the only file; several code files without main is undetectable', () => {
    expect(
      detectProgram({
        content: '',
        files: [
          { path: 'notes.md', content: '' },
          { path: 'solve.rs', content: 'r' },
        ],
      }),
    ).toMatchObject({ language: 'rust', entry: 'solve.rs' });
    expect(
      detectProgram({ content: '', files: [{ path: 'solution', content: 's', language: 'py' }] }),
    ).toMatchObject({
      language: 'python',
    });
    expect(
      detectProgram({
        content: '',
        files: [
          { path: 'a.py', content: '' },
          { path: 'b.py', content: '' },
        ],
      }),
    ).toMatchObject({ kind: 'undetectable', reason: expect.stringMatching(/main\.<ext>/) });
    expect(detectProgram({ content: '', files: [{ path: 'README', content: '' }] })).toMatchObject({
      kind: 'undetectable',
    });
  });

  test('without files: the first fenced block and its info string', () => {
    expect(detectProgram({ content: 'text\n```cpp\nint main(){}\n```\n```py\nx\n```', files: [] })).toEqual({
      kind: 'detected',
      language: 'cpp',
      entry: 'content',
      source: 'int main(){}\n',
      program: { entry: 'main.cpp', files: [{ path: 'main.cpp', content: 'int main(){}\n' }] },
    });
    expect(detectProgram({ content: '```\nprint(1)\n```', files: [] })).toMatchObject({
      kind: 'undetectable',
    });
    expect(detectProgram({ content: '```brainfuck\n+\n```', files: [] })).toMatchObject({
      kind: 'undetectable',
      reason: expect.stringMatching(/unknown language "brainfuck"/),
    });
    expect(firstFencedBlock('```js')).toBeUndefined();
  });

  test("precedence: the file's language, then the body's, then the extension, then a fence in content", () => {
    const files = [{ path: 'src/main.cpp', content: 'x' }];
    expect(detectProgram({ content: '', files, language: 'python' })).toMatchObject({ language: 'python' });
    expect(
      detectProgram({ content: '', files: [{ ...files[0], language: 'c' }], language: 'python' }),
    ).toMatchObject({ language: 'c' });
    expect(detectProgram({ content: '', files })).toMatchObject({ language: 'cpp', entry: 'src/main.cpp' });
    expect(
      detectProgram({ content: '```go\n```', files: [{ path: 'solution', content: 'package main' }] }),
    ).toMatchObject({ language: 'go', entry: 'solution' });
    // main.<ext> at any depth, the shallowest first.
    expect(
      detectProgram({
        content: '',
        files: [
          { path: 'a/b/main.py', content: 'deep' },
          { path: 'a/main.py', content: 'shallow' },
          { path: 'helper.py', content: '' },
        ],
      }),
    ).toMatchObject({ entry: 'a/main.py', source: 'shallow' });
  });

  test("without files, content is the program in the body's language (one fenced block unwrapped)", () => {
    expect(detectProgram({ content: 'print(input()[::-1])', files: [], language: 'python' })).toEqual({
      kind: 'detected',
      language: 'python',
      entry: 'content',
      source: 'print(input()[::-1])',
      program: { entry: 'main.py', files: [{ path: 'main.py', content: 'print(input()[::-1])' }] },
    });
    expect(
      detectProgram({ content: '\n```python\nprint(1)\n```\n', files: [], language: 'py' }),
    ).toMatchObject({ language: 'python', source: 'print(1)\n' });
    expect(detectProgram({ content: 'x', files: [], language: 'cobol' })).toMatchObject({
      kind: 'undetectable',
      reason: expect.stringMatching(/unknown language "cobol"/),
    });
    expect(unwrapSingleFence('before\n```py\nx\n```')).toBe('before\n```py\nx\n```');
  });

  test('the door: empty, undetectable, not allowed and a missing tests entry are refused; text judges take any text', () => {
    const rust = { content: '', files: [{ path: 'main.rs', content: 'fn main(){}' }] };
    expect(submissionRefusal({ kind: 'program', languages: ['python', 'cpp'] }, rust)).toBe(
      'language rust is not allowed in this challenge (allowed: python, cpp)',
    );
    expect(submissionRefusal({ kind: 'program', languages: null }, rust)).toBeNull();
    expect(submissionRefusal({ kind: 'rubric', languages: null }, rust)).toBeNull();
    expect(
      submissionRefusal({ kind: 'program', languages: ['python'] }, { content: 'prose', files: [] }),
    ).toMatch(/no language.*allowed: python/);
    expect(submissionRefusal({ kind: 'rubric', languages: null }, { content: ' ', files: [] })).toMatch(
      /nothing to judge/,
    );
    expect(
      submissionRefusal(
        { kind: 'program', languages: ['python'] },
        { content: 'print(1)', files: [], language: 'python' },
      ),
    ).toBeNull();
    const tests = { kind: 'tests', languages: null, entry: 'src/solution.ts' };
    expect(submissionRefusal(tests, { content: '', files: [{ path: 'solution.ts', content: 'x' }] })).toMatch(
      /entry file src\/solution\.ts is missing/,
    );
    expect(
      submissionRefusal(tests, { content: '', files: [{ path: 'src/solution.ts', content: 'x' }] }),
    ).toBeNull();
    expect(
      submissionRefusal(
        { kind: 'tests', languages: null },
        { content: '', files: [{ path: 'a.py', content: 'x' }], language: 'python' },
      ),
    ).toMatch(/python is not allowed.*allowed: javascript, typescript/);
  });
});

describe('verdict mapping', () => {
  const run = (overrides: Partial<NativeRunResult>): NativeRunResult => ({
    exit: { kind: 'exited', code: 0 },
    limit: 'none',
    cpuMs: 10,
    wallMs: 20,
    memoryKb: 1000,
    oomKilled: false,
    stdout: '',
    stderr: '',
    stdoutBytes: Buffer.alloc(0),
    stderrBytes: Buffer.alloc(0),
    ...overrides,
  });
  const verdict = (overrides: Partial<NativeRunResult>) =>
    limitVerdict({ run: run(overrides), memoryMb: 64, outOfMemory: /MemoryError/ });

  test('limits first, then memory, then the program’s own failure; a clean exit leaves it to the output', () => {
    expect(verdict({})).toBeUndefined();
    expect(verdict({ limit: 'cpu', exit: { kind: 'signaled', signal: 9 } })).toBe('time_limit_exceeded');
    expect(verdict({ limit: 'wall', exit: { kind: 'signaled', signal: 9 } })).toBe('time_limit_exceeded');
    expect(verdict({ limit: 'output', exit: { kind: 'signaled', signal: 9 } })).toBe('output_limit_exceeded');
    expect(verdict({ oomKilled: true, exit: { kind: 'signaled', signal: 9 } })).toBe('memory_limit_exceeded');
    expect(verdict({ memoryKb: 70 * 1024 })).toBe('memory_limit_exceeded');
    expect(verdict({ exit: { kind: 'exited', code: 1 }, stderr: 'MemoryError' })).toBe(
      'memory_limit_exceeded',
    );
    expect(verdict({ exit: { kind: 'exited', code: 1 }, stderr: 'ValueError' })).toBe('runtime_error');
    expect(verdict({ exit: { kind: 'signaled', signal: 11 } })).toBe('runtime_error');
  });
});

describe('config and breakdown', () => {
  const base = { kind: 'program', tests: [{ name: 't', stdin: '', expected_stdout: '1' }] };

  test('defaults and bounds', () => {
    expect(judgeConfigSchema.parse(base)).toMatchObject({
      time_limit_ms: 2000,
      memory_mb: 256,
      compare: 'lines',
      float_tolerance: 1e-6,
      tests: [{ hidden: false, weight: 1, stdin: '' }],
    });
    for (const bad of [
      { time_limit_ms: 49 },
      { time_limit_ms: 10_001 },
      { memory_mb: 31 },
      { memory_mb: 1025 },
      { compare: 'regex' },
      { languages: ['cobol'] },
      { languages: ['c', 'c'] },
      { languages: [] },
      { tests: Array.from({ length: 201 }, (_, i) => ({ name: `t${i}`, expected_stdout: '' })) },
      { tests: [{ name: 'big', expected_stdout: 'x'.repeat(1024 * 1024 + 1) }] },
    ]) {
      expect(judgeConfigSchema.safeParse({ ...base, ...bad }).success).toBe(false);
    }
  });

  test('a config over 8 MB is refused even when every test is within its own bound', () => {
    const tests = Array.from({ length: 9 }, (_, i) => ({
      name: `t${i}`,
      stdin: 'x'.repeat(1024 * 1024 - 10),
      expected_stdout: '',
    }));
    const parsed = judgeConfigSchema.safeParse({ ...base, tests });
    expect(parsed.success).toBe(false);
    expect(JSON.stringify(parsed.error?.issues)).toMatch(/8388608 characters/);
  });

  test('the competitor view keeps hidden program tests to name and verdict; a spectator sees no details', () => {
    const outcome = {
      score: 50,
      resultState: 'scored' as const,
      summary: 's',
      criteria: [],
      details: {
        language: 'python',
        compile_output: '',
        tests: [
          { name: 'v', hidden: false, verdict: 'accepted', time_ms: 1, memory_kb: 2, stdout_excerpt: '3\n' },
          {
            name: 'h',
            hidden: true,
            verdict: 'wrong_answer',
            time_ms: 1,
            memory_kb: 2,
            stdout_excerpt: 'SECRET',
          },
        ],
      },
    };
    const competitor = breakdownView(outcome, 'competitor');
    expect(competitor.details).toEqual({
      language: 'python',
      compile_output: '',
      tests: [
        outcome.details.tests[0],
        // No figures: a program can encode its hidden input in its own time or memory.
        { name: 'h', hidden: true, verdict: 'wrong_answer' },
      ],
    });
    expect(JSON.stringify(breakdownView(outcome, 'spectator'))).not.toContain('SECRET');
    // Operators see why a hidden test failed.
    expect(breakdownView(outcome, 'admin').details).toEqual(outcome.details);
  });
});
