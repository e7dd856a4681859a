/**
 * The program judge end to end through the API and the real worker (its OS wall): every language
 * accepted, wrong answer, compile error, time limit and memory limit; what the owner sees of
 * hidden tests; the language gate at submission; GET /api/v1/languages from the workers' probes.
 */
import type { LanguageId } from '../../src/judging/program/languages';
import { eventually, newAdmin, newAgent } from '../helpers/factories';
import { forgerSource } from './sandbox/forgery';
import {
  getWithinLimits,
  newChallenge,
  sessionFor,
  submit,
  waitForSubmission,
} from '../helpers/submission-factories';
import { expectError, startTestServer, type TestServer } from '../helpers/server';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

jest.setTimeout(900_000);

type Case =
  | 'accepted'
  | 'wrong_answer'
  | 'compile_error'
  | 'time_limit_exceeded'
  | 'memory_limit_exceeded'
  | 'forged_report';

/** Per language: the entry file and a program for each expected verdict (a + b of one line). */
const PROGRAMS: Record<string, { entry: string; programs: Record<Exclude<Case, 'forged_report'>, string> }> =
  {
    python: {
      entry: 'main.py',
      programs: {
        accepted: 'a, b = map(int, input().split())\nprint(a + b)\n',
        wrong_answer: 'a, b = map(int, input().split())\nprint(a + b + 1)\n',
        compile_error: 'def broken(:\n  pass\n',
        time_limit_exceeded: 'while True:\n    pass\n',
        memory_limit_exceeded: 'x = [7] * (200 * 1000 * 1000)\nprint(len(x))\n',
      },
    },
    c: {
      entry: 'main.c',
      programs: {
        accepted:
          '#include <stdio.h>\nint main(void){long a,b;scanf("%ld %ld",&a,&b);printf("%ld\\n",a+b);return 0;}\n',
        wrong_answer:
          '#include <stdio.h>\nint main(void){long a,b;scanf("%ld %ld",&a,&b);printf("%ld\\n",a-b);return 0;}\n',
        compile_error: 'int main(void) { return undefined_name; }\n',
        time_limit_exceeded: 'int main(void){volatile unsigned long i=0;for(;;)i++;}\n',
        // volatile: the optimizer must not fold the allocation away.
        memory_limit_exceeded:
          '#include <stdlib.h>\n#include <stdio.h>\nint main(void){size_t n=512u<<20;volatile char*p=malloc(n);if(!p)return 3;long s=0;for(size_t i=0;i<n;i+=4096)p[i]=1;for(size_t i=0;i<n;i+=4096)s+=p[i];printf("%ld\\n",s);return 0;}\n',
      },
    },
    cpp: {
      entry: 'main.cpp',
      programs: {
        accepted: '#include <iostream>\nint main(){long a,b;std::cin>>a>>b;std::cout<<a+b<<"\\n";}\n',
        wrong_answer: '#include <iostream>\nint main(){long a,b;std::cin>>a>>b;std::cout<<a*b<<"\\n";}\n',
        compile_error: '#include <iostream>\nint main(){ std::cout << missing; }\n',
        time_limit_exceeded: 'int main(){volatile unsigned long i=0;for(;;)i++;}\n',
        memory_limit_exceeded:
          '#include <vector>\n#include <iostream>\nint main(){std::vector<char> v(512u<<20, 1);std::cout<<(int)v.back()<<"\\n";}\n',
      },
    },
    go: {
      entry: 'main.go',
      programs: {
        accepted:
          'package main\n\nimport "fmt"\n\nfunc main() {\n\tvar a, b int64\n\tfmt.Scan(&a, &b)\n\tfmt.Println(a + b)\n}\n',
        wrong_answer:
          'package main\n\nimport "fmt"\n\nfunc main() {\n\tvar a, b int64\n\tfmt.Scan(&a, &b)\n\tfmt.Println(a - b)\n}\n',
        compile_error: 'package main\n\nfunc main() {\n\tundefinedCall()\n}\n',
        time_limit_exceeded: 'package main\n\nfunc main() {\n\tfor {\n\t}\n}\n',
        memory_limit_exceeded:
          'package main\n\nimport "fmt"\n\nfunc main() {\n\tb := make([]byte, 512<<20)\n\tfor i := range b {\n\t\tb[i] = 1\n\t}\n\tfmt.Println(len(b))\n}\n',
      },
    },
    rust: {
      entry: 'main.rs',
      programs: {
        accepted:
          'use std::io::Read;\nfn main(){let mut s=String::new();std::io::stdin().read_to_string(&mut s).unwrap();let v:Vec<i64>=s.split_whitespace().map(|x|x.parse().unwrap()).collect();println!("{}",v[0]+v[1]);}\n',
        wrong_answer:
          'use std::io::Read;\nfn main(){let mut s=String::new();std::io::stdin().read_to_string(&mut s).unwrap();let v:Vec<i64>=s.split_whitespace().map(|x|x.parse().unwrap()).collect();println!("{}",v[0]);}\n',
        compile_error: 'fn main() { let x: i32 = "text"; }\n',
        time_limit_exceeded:
          'fn main() { let mut i: u64 = 0; loop { i = unsafe { std::ptr::read_volatile(&i) }.wrapping_add(1); } }\n',
        memory_limit_exceeded:
          'fn main() { let v = vec![1u8; 512 << 20]; println!("{}", v[v.len() - 1]); }\n',
      },
    },
    java: {
      entry: 'Main.java',
      programs: {
        accepted:
          'import java.util.Scanner;\npublic class Main { public static void main(String[] x) { Scanner in = new Scanner(System.in); long a = in.nextLong(), b = in.nextLong(); System.out.println(a + b); } }\n',
        wrong_answer:
          'import java.util.Scanner;\npublic class Main { public static void main(String[] x) { Scanner in = new Scanner(System.in); long a = in.nextLong(), b = in.nextLong(); System.out.println(b); } }\n',
        compile_error: 'public class Main { public static void main(String[] x) { int y = "no"; } }\n',
        time_limit_exceeded:
          'public class Main { public static void main(String[] x) { long i = 0; while (true) { i++; } } }\n',
        memory_limit_exceeded:
          'public class Main { public static void main(String[] x) { long[] a = new long[64 * 1024 * 1024]; System.out.println(a.length); } }\n',
      },
    },
    javascript: {
      entry: 'main.js',
      programs: {
        accepted:
          "const [a, b] = require('fs').readFileSync(0, 'utf8').trim().split(/\\s+/).map(Number);\nconsole.log(a + b);\n",
        wrong_answer:
          "const [a, b] = require('fs').readFileSync(0, 'utf8').trim().split(/\\s+/).map(Number);\nconsole.log(a + b + 1);\n",
        compile_error: 'function (( {\n',
        time_limit_exceeded: 'for (;;) {}\n',
        memory_limit_exceeded: 'const b = Buffer.alloc(512 * 1024 * 1024, 1);\nconsole.log(b.length);\n',
      },
    },
    typescript: {
      entry: 'main.ts',
      programs: {
        accepted:
          "import { readFileSync } from 'fs';\nconst [a, b]: number[] = readFileSync(0, 'utf8').trim().split(/\\s+/).map(Number);\nconsole.log(a + b);\n",
        wrong_answer:
          "import { readFileSync } from 'fs';\nconst [a, b]: number[] = readFileSync(0, 'utf8').trim().split(/\\s+/).map(Number);\nconsole.log(String(a) + String(b));\n",
        compile_error: 'const x: number = ;\n',
        time_limit_exceeded: 'let i: number = 0;\nfor (;;) { i++; }\n',
        memory_limit_exceeded:
          'const b: Buffer = Buffer.alloc(512 * 1024 * 1024, 1);\nconsole.log(b.length);\n',
      },
    },
  };

const CASES: Case[] = [
  'accepted',
  'wrong_answer',
  'compile_error',
  'time_limit_exceeded',
  'memory_limit_exceeded',
  'forged_report',
];
/**
 * The verdict each case gets on every test. `forged_report`: the red team's program (forgery.ts)
 * prints nothing, injects a report `exited 0, cpu_ms 1` and the visible answer into PID 1, then
 * burns CPU until killed; before the verdicts came from the host it scored the visible test.
 */
const EXPECTED: Record<Case, string> = {
  accepted: 'accepted',
  wrong_answer: 'wrong_answer',
  compile_error: 'compile_error',
  time_limit_exceeded: 'time_limit_exceeded',
  memory_limit_exceeded: 'memory_limit_exceeded',
  forged_report: 'time_limit_exceeded',
};
/** The entry file and source of one case. */
function program(language: string, verdictCase: Case): { path: string; content: string } {
  if (verdictCase === 'forged_report') return forgerSource(language as LanguageId, '3\n');
  return { path: PROGRAMS[language].entry, content: PROGRAMS[language].programs[verdictCase] };
}
/** A hidden test whose input and answer must never reach the competitor. */
const HIDDEN_A = 91827364;
const HIDDEN_B = 55443322;
const JUDGE = {
  kind: 'program',
  time_limit_ms: 1000,
  memory_mb: 64,
  tests: [
    { name: 'visible small', stdin: '1 2\n', expected_stdout: '3\n' },
    {
      name: 'hidden big',
      hidden: true,
      weight: 3,
      stdin: `${HIDDEN_A} ${HIDDEN_B}\n`,
      expected_stdout: `${HIDDEN_A + HIDDEN_B}\n`,
    },
  ],
} as const;

describe('every language, every verdict, through the API and the worker', () => {
  const judged: Record<string, Record<Case, { detail: any; competitor: any; admin: any }>> = {};

  beforeAll(async () => {
    const challengeId = await newChallenge(server, {
      judge: JUDGE as never,
      max_submissions_per_session: 20,
    });
    const pending: Promise<void>[] = [];
    const operator = await newAdmin(server);
    for (const language of Object.keys(PROGRAMS)) {
      const agent = await newAgent(server);
      const sessionId = await sessionFor(server, agent, challengeId);
      judged[language] = {} as never;
      for (const verdictCase of CASES) {
        const res = await submit(server, agent.token, sessionId, {
          content: `${language} ${verdictCase}`,
          files: [program(language, verdictCase)],
        });
        expect(res.status).toBe(201);
        pending.push(
          (async () => {
            const detail = await waitForSubmission(
              server,
              agent.token,
              res.body.data.id,
              ['complete', 'failed'],
              800_000,
            );
            const competitor = await getWithinLimits(
              server,
              `/api/v1/submissions/${res.body.data.id}/breakdown`,
              agent.token,
            );
            expect(competitor.status).toBe(200);
            const admin = await getWithinLimits(
              server,
              `/api/v1/submissions/${res.body.data.id}/breakdown`,
              operator.jwt,
            );
            expect(admin.status).toBe(200);
            judged[language][verdictCase] = {
              detail,
              competitor: competitor.body.data,
              admin: admin.body.data,
            };
          })(),
        );
      }
    }
    await Promise.all(pending);
  });

  test.each(Object.keys(PROGRAMS))('%s: each program gets its verdict on every test', (language) => {
    for (const verdictCase of CASES) {
      const { detail, competitor } = judged[language][verdictCase];
      expect({ verdictCase, status: detail.submission_status, state: detail.result?.result_state }).toEqual({
        verdictCase,
        status: 'complete',
        state: 'scored',
      });
      expect({ verdictCase, score: detail.result.final_score }).toEqual({
        verdictCase,
        score: verdictCase === 'accepted' ? 100 : 0,
      });
      expect(competitor.details.language).toBe(language);
      expect({ verdictCase, verdicts: competitor.details.tests.map((t: any) => t.verdict) }).toEqual({
        verdictCase,
        verdicts: [EXPECTED[verdictCase], EXPECTED[verdictCase]],
      });
    }
  });

  test('the owner sees compile output, visible excerpts, and hidden tests by name and verdict only', () => {
    for (const language of Object.keys(PROGRAMS)) {
      const accepted = judged[language].accepted.competitor;
      const [visible, hidden] = accepted.details.tests;
      expect(visible).toMatchObject({
        name: 'visible small',
        hidden: false,
        verdict: 'accepted',
        stdout_excerpt: '3\n',
      });
      expect(visible.time_ms).toEqual(expect.any(Number));
      expect(visible.memory_kb).toBeGreaterThan(0);
      // No figures either: a program can encode its hidden input in its own time or memory.
      expect(Object.keys(hidden).sort()).toEqual(['hidden', 'name', 'verdict']);
      expect(hidden).toMatchObject({ name: 'hidden big', hidden: true, verdict: 'accepted' });
      // Nothing of the hidden test's stdin, expected or actual output, in any verdict.
      for (const verdictCase of CASES) {
        const text = JSON.stringify(judged[language][verdictCase].competitor);
        for (const secret of [HIDDEN_A, HIDDEN_B, HIDDEN_A + HIDDEN_B])
          expect(text).not.toContain(String(secret));
      }
      const compileError = judged[language].compile_error.competitor;
      expect(compileError.details.compile_output.length).toBeGreaterThan(0);
      expect(Buffer.byteLength(compileError.details.compile_output)).toBeLessThanOrEqual(8 * 1024 + 64);
    }
    // The operator sees why a hidden test failed: its figures and excerpts.
    for (const language of Object.keys(PROGRAMS)) {
      const hidden = judged[language].wrong_answer.admin.details.tests[1];
      expect(hidden).toMatchObject({ name: 'hidden big', hidden: true, verdict: 'wrong_answer' });
      expect(hidden.time_ms).toEqual(expect.any(Number));
      expect(hidden.stdout_excerpt.length).toBeGreaterThan(0);
    }
    // The forged report counts for nothing.
    for (const language of Object.keys(PROGRAMS)) {
      const visible = judged[language].forged_report.admin.details.tests[0];
      expect({ language, verdict: visible.verdict }).toEqual({ language, verdict: 'time_limit_exceeded' });
      // The host's CPU time (past the limit, or cut by the wall cap on a busy machine), never the
      // forged report's cpu_ms 1.
      expect({ language, forgedTime: visible.time_ms === 1 }).toEqual({ language, forgedTime: false });
    }
    // The weighted share: the hidden test weighs 3.
    expect(judged.python.accepted.competitor.hidden_summary).toEqual({ hidden_passed: 1, hidden_total: 1 });
  });
});

describe('the language of a submission', () => {
  test('a language the challenge does not allow is refused at submission, naming the allowed ones; nothing is stored', async () => {
    const challengeId = await newChallenge(server, {
      judge: { ...JUDGE, languages: ['python', 'cpp'] } as never,
    });
    const agent = await newAgent(server);
    const sessionId = await sessionFor(server, agent, challengeId);
    const res = await submit(server, agent.token, sessionId, {
      content: 'mine',
      files: [{ path: 'main.rs', content: PROGRAMS.rust.programs.accepted }],
    });
    expectError(res, 400, 'VALIDATION_ERROR', /rust is not allowed.*allowed: python, cpp/);
    const fenced = await submit(server, agent.token, sessionId, {
      content: '```golang\npackage main\nfunc main() {}\n```',
    });
    expectError(fenced, 400, 'VALIDATION_ERROR', /go is not allowed.*allowed: python, cpp/);
    const stored = await server.deps.db.query('SELECT 1 FROM submissions WHERE session_id = $1', [sessionId]);
    expect(stored.rowCount).toBe(0);
  });

  test('a fenced block names the language; an undetectable one is refused at submission (DESIGN, fourth round)', async () => {
    const challengeId = await newChallenge(server, { judge: JUDGE as never });
    const agent = await newAgent(server);
    const sessionId = await sessionFor(server, agent, challengeId);
    const fenced = await submit(server, agent.token, sessionId, {
      content: `Here it is:\n\`\`\`py\n${PROGRAMS.python.programs.accepted}\`\`\`\n`,
    });
    expect(fenced.status).toBe(201);
    // What can be known at submission is refused there, counting against nothing (amends "Outcomes").
    const unknown = await submit(server, agent.token, sessionId, { content: 'no code here at all' });
    expectError(unknown, 400, 'VALIDATION_ERROR');
    const fencedDone = await waitForSubmission(
      server,
      agent.token,
      fenced.body.data.id,
      ['complete', 'failed'],
      300_000,
    );
    expect(fencedDone.result).toMatchObject({ final_score: 100, result_state: 'scored' });
    const stored = await server.deps.db.query(
      'SELECT count(*)::int AS n FROM submissions WHERE session_id = $1',
      [sessionId],
    );
    expect(stored.rows[0].n).toBe(1);
  });
});

test('GET /api/v1/languages lists every language whose probe passed on a live worker, with its version', async () => {
  const languages = await eventually(
    async () => {
      const res = await server.request('GET', '/api/v1/languages');
      expect(res.status).toBe(200);
      return res.body.data.length === 8 ? res.body : undefined;
    },
    600_000,
    1_000,
  );
  expect(languages.request_id).toEqual(expect.any(String));
  expect(languages.data.map((l: any) => l.id)).toEqual([
    'python',
    'c',
    'cpp',
    'go',
    'rust',
    'java',
    'javascript',
    'typescript',
  ]);
  for (const language of languages.data) {
    expect(language).toEqual({
      id: expect.any(String),
      name: expect.any(String),
      version: expect.stringMatching(/^\d+(\.\d+)+/),
      extensions: expect.arrayContaining([expect.stringMatching(/^\./)]),
      compiled: expect.any(Boolean),
    });
  }
  expect(languages.data.find((l: any) => l.id === 'python')).toMatchObject({
    extensions: ['.py'],
    compiled: false,
  });
  expect(languages.data.find((l: any) => l.id === 'typescript')).toMatchObject({ compiled: true });
});
