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
 *  2. `results get <submissionId>`, beside the same four GETs with fetch.
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
  languages: ['python'],
  tests: [
    { name: 'small', stdin: '1 2\n', expected_stdout: '3\n' },
    { name: 'large', hidden: true, stdin: '1000000000 1000000000\n', expected_stdout: '2000000000\n' },
  ],
};
const SUM_PY = 'a, b = map(int, input().split())\nprint(a + b)\n';

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

/** The CLI's result must be the judge's: the score and the verdict table. */
function checkResult(stdout: string, what: string): string {
  const id = /submission ([0-9a-f-]{36}) complete/.exec(stdout)?.[1];
  if (!id || !stdout.includes('score 100.00') || !/TEST\s+VERDICT/.test(stdout))
    throw new Error(`${what} did not print the judged result:\n${stdout}`);
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
    writeFileSync(path.join(project, 'main.py'), SUM_PY);
    const cliEnv = { CCS_BASE_URL: stack.apiUrl, CCS_TOKEN: token };

    const call = async (
      method: string,
      apiPath: string,
      body?: unknown,
      headers: Record<string, string> = {},
    ) => {
      const res = await fetch(`${stack.apiUrl}${apiPath}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
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
    const submitByFetch = async (): Promise<{ ms: number; id: string }> => {
      const started = process.hrtime.bigint();
      await call('GET', `/api/v1/challenges/${challengeId}`);
      const session = await call('POST', `/api/v1/challenges/${challengeId}/sessions`);
      const submission = await call(
        'POST',
        `/api/v1/sessions/${session.session_id}/submissions`,
        { content: '', files: [{ path: 'main.py', content: SUM_PY }], language: 'python' },
        { 'idempotency-key': randomBytes(32).toString('hex') },
      );
      for (let delay = 250; ; delay = Math.min(delay * 2, 2000)) {
        const now = await call('GET', `/api/v1/submissions/${submission.id}`);
        if (now.submission_status === 'complete') break;
        if (now.submission_status === 'failed') throw new Error(`submission failed: ${now.failure_reason}`);
        await sleep(delay);
      }
      const breakdown = await call('GET', `/api/v1/submissions/${submission.id}/breakdown`);
      if (breakdown.final_score !== 100) throw new Error(`fetch journey scored ${breakdown.final_score}`);
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

    // Once each, unmeasured: the worker's first program (its toolchain probe) and the file cache.
    const warm = checkResult(
      (
        await runCli(
          ['submit', challengeId, '--file', 'main.py', '--language', 'python', '--wait'],
          project,
          cliEnv,
        )
      ).stdout,
      'submit --wait (warm-up)',
    );
    await submitByFetch();
    await runCli(['results', 'get', warm], project, cliEnv);

    const cliSubmit: number[] = [];
    const fetchSubmit: number[] = [];
    const cliResults: number[] = [];
    const fetchResults: number[] = [];
    const node: number[] = [];
    const help: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      node.push(await nodeAlone());
      help.push((await runCli(['help'], project, cliEnv)).ms);
      const cli = await runCli(
        ['submit', challengeId, '--file', 'main.py', '--language', 'python', '--wait'],
        project,
        cliEnv,
      );
      cliSubmit.push(cli.ms);
      const id = checkResult(cli.stdout, 'submit --wait');
      fetchSubmit.push((await submitByFetch()).ms);
      const got = await runCli(['results', 'get', id], project, cliEnv);
      checkResult(got.stdout, 'results get');
      cliResults.push(got.ms);
      fetchResults.push(await resultsByFetch(id));
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
      samples: { cliSubmit, fetchSubmit, cliResults, fetchResults, node, help },
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
