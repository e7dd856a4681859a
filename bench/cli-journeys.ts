/**
 * The competitor's journeys through the built CLI, timed (issue 29: "the same journeys through
 * the CLI (built form), timed in the bench"; part `clijourneys` of `npm run bench`; alone:
 * `BENCH_TEMPORAL_PORT=7266 npx tsx bench/cli-journeys.ts [--runs 5]`). A stack of its own
 * (database BENCH_DATABASE_NAME, default challenges_bench_cli_journeys; API and worker processes),
 * a program challenge (python, two tests, one hidden) and an agent with an API token, then, in one
 * run and alternated so both see the same machine:
 *
 *  1. `submit <id> --file main.py --language python --wait` of a correct program, whole process
 *     (spawn → exit, the result printed), beside the anchor: the same requests made with fetch from
 *     this (warm) process (challenge, session, submission, the same polling schedule as the CLI,
 *     breakdown);
 *  2. `results get <submissionId>`, beside the same four GETs with fetch;
 *  3. `submit --wait` of a wrong answer (the first failing visible test printed) and
 *  4. of C++ that does not compile (g++'s message printed), each beside the same requests;
 *  5. an operator's `rejudges start <challengeId> --wait` of a challenge's two submissions (old →
 *     new scores printed), beside the same POST and progress polling with fetch.
 *
 * The difference is what the CLI itself costs (Node's start, loading the CLI, printing the
 * verdict table); `node -e ''` and `cli help` are timed too, for what Node alone and the CLI's
 * start-up cost here. Each run's output is
 * checked (score 100.00, the verdict table), so a broken journey cannot be timed as a fast one.
 * Prints one line `CLI_JOURNEYS_RESULT {...}`.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { commandFor } from './cli-startup';
import { newActiveChallenge, newAgent, newUser } from './lib/fixtures';
import { sleep } from './lib/processes';
import { startStack } from './lib/stack';
import { median } from './lib/startup-row';

const TEMPORAL_PORT = Number(process.env.BENCH_TEMPORAL_PORT ?? 7266);
const DATABASE = process.env.BENCH_DATABASE_NAME ?? 'challenges_bench_cli_journeys';
const runsFlag = process.argv.indexOf('--runs');
const RUNS = runsFlag > 0 ? Number(process.argv[runsFlag + 1]) : 5;

const SUM_JUDGE = {
  kind: 'program',
  languages: ['python', 'cpp'],
  tests: [
    { name: 'small', stdin: '1 2\n', expected_stdout: '3\n' },
    { name: 'large', hidden: true, stdin: '1000000000 1000000000\n', expected_stdout: '2000000000\n' },
  ],
};
const SUM_PY = 'a, b = map(int, input().split())\nprint(a + b)\n';
/** Wrong on the visible test, right on the hidden one: 50, and the visible test is printed as the first failing one. */
const WRONG_PY = 'a, b = map(int, input().split())\nprint(a + b if a > 10 else 0)\n';
const BROKEN_CPP = '#include <iostream>\nint main() { std::cout << undefined_name; }\n';

/** A journey's program and what its printed result must show. */
interface Program {
  file: string;
  language: string;
  source: string;
  score: number;
  check: RegExp;
}
const RIGHT: Program = {
  file: 'main.py',
  language: 'python',
  source: SUM_PY,
  score: 100,
  check: /score 100\.00/,
};
const WRONG: Program = {
  file: 'wrong.py',
  language: 'python',
  source: WRONG_PY,
  score: 50,
  check: /score 50\.00/,
};
const BROKEN: Program = {
  file: 'main.cpp',
  language: 'cpp',
  source: BROKEN_CPP,
  score: 0,
  check: /undefined_name/,
};

/** The fields of the API's answers this journey reads. */
interface ApiData {
  id: string;
  session_id: string;
  submission_status: string;
  failure_reason: string | null;
  challenge_id: string;
  final_score: number;
}

interface Timed {
  ms: number;
  stdout: string;
}

/** A whole CLI process: spawn → exit, its output kept for the check. */
function runCli(args: string[], cwd: string, env: Record<string, string>): Promise<Timed> {
  const { args: entry } = commandFor('cli/index.ts');
  // BENCH_CLI_PROF=<dir>: each CLI process writes a V8 CPU profile there (where its time goes).
  const prof = process.env.BENCH_CLI_PROF;
  const nodeArgs = prof ? ['--cpu-prof', '--cpu-prof-dir', prof, ...entry] : entry;
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeArgs, ...args], {
      cwd,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.once('error', reject);
    child.once('exit', (code) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (code !== 0) reject(new Error(`cli ${args.join(' ')} exited ${code}: ${stderr}${stdout}`));
      else resolve({ ms, stdout });
    });
  });
}

function nodeAlone(): Promise<number> {
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
    child.once('error', reject);
    child.once('exit', () => resolve(Number(process.hrtime.bigint() - started) / 1e6));
  });
}

/** The CLI's result must be the judge's: the submission judged and what the program's result shows. */
function checkResult(stdout: string, what: string, program: Program = RIGHT): string {
  const id = /submission ([0-9a-f-]{36}) complete/.exec(stdout)?.[1];
  if (!id || !program.check.test(stdout))
    throw new Error(`${what} did not print the judged result:\n${stdout}`);
  if (program === RIGHT && !/TEST\s+VERDICT/.test(stdout))
    throw new Error(`${what} printed no verdict table`);
  return id;
}

async function main(): Promise<void> {
  const stack = await startStack({
    label: 'bench-cli-journeys',
    database: DATABASE,
    temporalPort: TEMPORAL_PORT,
    // Ten submissions a minute from one token would meet the per-agent limit; it is not what is timed.
    env: { RATE_LIMIT_DISABLED: '1' },
  });
  const project = mkdtempSync(path.join(tmpdir(), 'cli-journeys-'));
  try {
    const api = stack.client;
    const admin = await newUser('admin');
    const challengeId = await newActiveChallenge(api, admin, { judge: SUM_JUDGE });
    const agent = await newAgent(api, await newUser());
    const token = agent.tokens[0];
    for (const program of [RIGHT, WRONG, BROKEN])
      writeFileSync(path.join(project, program.file), program.source);
    const cliEnv = { CCS_BASE_URL: stack.apiUrl, CCS_TOKEN: token };
    const operatorEnv = { CCS_BASE_URL: stack.apiUrl, CCS_TOKEN: '', API_JWT: admin.jwt };
    const submitArgs = (program: Program) => [
      'submit',
      challengeId,
      '--file',
      program.file,
      '--language',
      program.language,
      '--wait',
    ];

    const call = async (
      method: string,
      apiPath: string,
      body?: unknown,
      headers: Record<string, string> = {},
      auth = token,
    ) => {
      const res = await fetch(`${stack.apiUrl}${apiPath}`, {
        method,
        headers: {
          authorization: `Bearer ${auth}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...headers,
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const json = (await res.json()) as { data: ApiData };
      if (res.status >= 400) throw new Error(`${method} ${apiPath} → ${res.status}: ${JSON.stringify(json)}`);
      return json.data;
    };
    /** The submit journey as a plain HTTP client makes it (the CLI's requests and polling). */
    const submitByFetch = async (program: Program = RIGHT): Promise<{ ms: number; id: string }> => {
      const started = process.hrtime.bigint();
      await call('GET', `/api/v1/challenges/${challengeId}`);
      const session = await call('POST', `/api/v1/challenges/${challengeId}/sessions`);
      const submission = await call(
        'POST',
        `/api/v1/sessions/${session.session_id}/submissions`,
        { content: '', files: [{ path: program.file, content: program.source }], language: program.language },
        { 'idempotency-key': randomBytes(32).toString('hex') },
      );
      for (let delay = 250; ; delay = Math.min(delay * 2, 2000)) {
        const now = await call('GET', `/api/v1/submissions/${submission.id}`);
        if (now.submission_status === 'complete') break;
        if (now.submission_status === 'failed') throw new Error(`submission failed: ${now.failure_reason}`);
        await sleep(delay);
      }
      const breakdown = await call('GET', `/api/v1/submissions/${submission.id}/breakdown`);
      if (breakdown.final_score !== program.score)
        throw new Error(`fetch journey scored ${breakdown.final_score}, not ${program.score}`);
      return { ms: Number(process.hrtime.bigint() - started) / 1e6, id: submission.id };
    };
    const resultsByFetch = async (id: string): Promise<number> => {
      const started = process.hrtime.bigint();
      const submission = await call('GET', `/api/v1/submissions/${id}`);
      await Promise.all([
        call('GET', `/api/v1/results/${id}`),
        call('GET', `/api/v1/submissions/${id}/breakdown`),
        call('GET', `/api/v1/challenges/${submission.challenge_id}`),
      ]);
      return Number(process.hrtime.bigint() - started) / 1e6;
    };

    /** The operators' bulk rejudge as a plain HTTP client makes it: POST, then the CLI's polling. */
    const rejudgeByFetch = async (id: string): Promise<number> => {
      const started = process.hrtime.bigint();
      const run = (await call(
        'POST',
        `/api/v1/admin/challenges/${id}/rejudge`,
        {},
        {},
        admin.jwt,
      )) as unknown as {
        rejudge_id: string;
      };
      for (;;) {
        const progress = (await call(
          'GET',
          `/api/v1/admin/rejudges/${run.rejudge_id}`,
          undefined,
          {},
          admin.jwt,
        )) as unknown as {
          status: string;
        };
        if (progress.status === 'done') break;
        await sleep(500);
      }
      return Number(process.hrtime.bigint() - started) / 1e6;
    };
    /** A challenge of its own for the rejudges: two judged submissions, the same each run. */
    const rejudgedId = await newActiveChallenge(api, admin, { judge: SUM_JUDGE });
    {
      const session = await call('POST', `/api/v1/challenges/${rejudgedId}/sessions`);
      for (const program of [RIGHT, WRONG]) {
        const submission = await call(
          'POST',
          `/api/v1/sessions/${session.session_id}/submissions`,
          {
            content: '',
            files: [{ path: program.file, content: program.source }],
            language: program.language,
          },
          { 'idempotency-key': randomBytes(32).toString('hex') },
        );
        while ((await call('GET', `/api/v1/submissions/${submission.id}`)).submission_status !== 'complete')
          await sleep(250);
      }
    }
    const checkRejudge = (stdout: string) => {
      if (!/done, 2 of 2 judged/.test(stdout) || !/OLD\s+NEW/.test(stdout))
        throw new Error(`rejudges start --wait did not print the old → new scores:\n${stdout}`);
    };

    // Once each, unmeasured: the worker's first programs (its toolchain probes) and the file cache.
    const warm = checkResult(
      (await runCli(submitArgs(RIGHT), project, cliEnv)).stdout,
      'submit --wait (warm-up)',
    );
    await submitByFetch();
    await runCli(['results', 'get', warm], project, cliEnv);
    checkResult(
      (await runCli(submitArgs(BROKEN), project, cliEnv)).stdout,
      'compile error (warm-up)',
      BROKEN,
    );
    await submitByFetch(BROKEN);
    checkRejudge((await runCli(['rejudges', 'start', rejudgedId, '--wait'], project, operatorEnv)).stdout);
    await rejudgeByFetch(rejudgedId);

    const cliSubmit: number[] = [];
    const fetchSubmit: number[] = [];
    const cliResults: number[] = [];
    const fetchResults: number[] = [];
    const node: number[] = [];
    const help: number[] = [];
    const cliWrong: number[] = [];
    const fetchWrong: number[] = [];
    const cliBroken: number[] = [];
    const fetchBroken: number[] = [];
    const cliRejudge: number[] = [];
    const fetchRejudge: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      node.push(await nodeAlone());
      help.push((await runCli(['help'], project, cliEnv)).ms);
      const cli = await runCli(submitArgs(RIGHT), project, cliEnv);
      cliSubmit.push(cli.ms);
      const id = checkResult(cli.stdout, 'submit --wait');
      fetchSubmit.push((await submitByFetch()).ms);
      const got = await runCli(['results', 'get', id], project, cliEnv);
      checkResult(got.stdout, 'results get');
      cliResults.push(got.ms);
      fetchResults.push(await resultsByFetch(id));

      const wrong = await runCli(submitArgs(WRONG), project, cliEnv);
      checkResult(wrong.stdout, 'wrong answer', WRONG);
      if (!/first failing test/.test(wrong.stdout))
        throw new Error(`no first failing test:\n${wrong.stdout}`);
      cliWrong.push(wrong.ms);
      fetchWrong.push((await submitByFetch(WRONG)).ms);
      const broken = await runCli(submitArgs(BROKEN), project, cliEnv);
      checkResult(broken.stdout, 'compile error', BROKEN);
      cliBroken.push(broken.ms);
      fetchBroken.push((await submitByFetch(BROKEN)).ms);
      const rejudge = await runCli(['rejudges', 'start', rejudgedId, '--wait'], project, operatorEnv);
      checkRejudge(rejudge.stdout);
      cliRejudge.push(rejudge.ms);
      fetchRejudge.push(await rejudgeByFetch(rejudgedId));
    }
    const result = {
      runs: RUNS,
      how: commandFor('cli/index.ts').how,
      submitCliMs: median(cliSubmit),
      submitCliMaxMs: Math.max(...cliSubmit),
      submitFetchMs: median(fetchSubmit),
      resultsCliMs: median(cliResults),
      resultsCliMaxMs: Math.max(...cliResults),
      resultsFetchMs: median(fetchResults),
      nodeAloneMs: median(node),
      cliHelpMs: median(help),
      wrongCliMs: median(cliWrong),
      wrongCliMaxMs: Math.max(...cliWrong),
      wrongFetchMs: median(fetchWrong),
      compileErrorCliMs: median(cliBroken),
      compileErrorCliMaxMs: Math.max(...cliBroken),
      compileErrorFetchMs: median(fetchBroken),
      rejudgeCliMs: median(cliRejudge),
      rejudgeCliMaxMs: Math.max(...cliRejudge),
      rejudgeFetchMs: median(fetchRejudge),
      samples: {
        cliSubmit,
        fetchSubmit,
        cliResults,
        fetchResults,
        node,
        help,
        cliWrong,
        fetchWrong,
        cliBroken,
        fetchBroken,
        cliRejudge,
        fetchRejudge,
      },
    };
    process.stdout.write(`CLI_JOURNEYS_RESULT ${JSON.stringify(result)}\n`);
  } finally {
    rmSync(project, { recursive: true, force: true });
    await stack.stop();
  }
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
