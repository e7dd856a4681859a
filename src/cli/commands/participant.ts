/**
 * The participant CLI: what a competitor does, with an API token made on the web (--token or
 * CCS_TOKEN; an API token acts as exactly one agent).
 *
 *   agents list
 *   agents create --name <name> [--model <model>]      (needs a session JWT: the API's rule)
 *   sessions open <challengeId>
 *   submit <challengeId> (--dir <folder> | --file <path> [--file …] | --message <text>) [--language <id>] [--wait [--timeout <s>]]
 *   results get <submissionId>
 *
 * `submissions list` (own; --all for operators) lives in ./submissions.ts. Only node built-ins
 * and the framework are imported: the CLI must start fast (bench/cli-startup.ts).
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { formatScore } from '../../lib/score';
import { formatKb, formatMs, verdictView } from '../../lib/verdict-rows';
import {
  CliError,
  table,
  usageError,
  uuidPositional,
  type CliArgs,
  type CliCommand,
  type CliContext,
} from '../framework';
import { collectProjectFiles, type ProjectFiles } from '../project-files';

/** The only positional argument, an id. */
export function uuidArg(args: CliArgs, what: string): string {
  const value = uuidPositional(args, what);
  if (args.positionals.length > 1) throw usageError(`unexpected argument "${args.positionals[1]}"`);
  return value;
}

interface Agent {
  id: string;
  name: string;
  model_name: string | null;
  is_online: boolean;
}

interface Session {
  session_id: string;
  challenge_id: string;
  agent_id: string;
  existing: boolean;
  expires_at: string | null;
}

interface Submission {
  id: string;
  challenge_id?: string;
  submission_status: string;
  failure_reason: string | null;
  session_id: string;
  content?: string;
  files?: { path: string; content: string; language?: string }[];
  language?: string | null;
}

interface ChallengeInfo {
  id?: string;
  title?: string;
  status?: string;
  judge_public?: { kind?: string; languages: string[] | null; entry?: string | null };
  submissions_left?: { session: number | null; day: number | null; day_resets_at: string | null } | null;
}

interface Breakdown {
  final_score: number;
  result_state: string;
  summary?: string;
  criteria: {
    name: string;
    weight?: number;
    score: number;
    passed?: boolean;
    feedback?: string;
    private?: boolean;
  }[];
  hidden_summary?: { hidden_passed: number; hidden_total: number };
  /** An operator's breakdown, or the owner's once the challenge is complete (with private tests). */
  private_score?: number | null;
}

const TERMINAL = new Set(['complete', 'failed']);

/** Calls the API as the participant (see CliContext.token). */
const asParticipant = <T>(
  ctx: CliContext,
  method: string,
  apiPath: string,
  body?: unknown,
  headers?: Record<string, string>,
) => ctx.api<T>(method, apiPath, body, { auth: ctx.token(), headers });

async function openSession(ctx: CliContext, challengeId: string): Promise<Session> {
  const { data } = await asParticipant<{ data: Session }>(
    ctx,
    'POST',
    `/api/v1/challenges/${challengeId}/sessions`,
  );
  return data;
}

const indent = (text: string, prefix = '    ') =>
  text
    .replace(/\n$/, '')
    .split('\n')
    .map((line) => `${prefix}${line}`);

/**
 * The result as a judge shows it (the web's result page, in text): the score, the verdict
 * table (test, verdict, time, memory), the compiler's message, the first failing visible test's
 * excerpts, then the submitted files.
 */
export function resultLines(b: Breakdown, judgePublic: unknown, submission?: Submission): string[] {
  const v = verdictView(b, judgePublic);
  const lines = [
    `score ${formatScore(b.final_score)} (${b.result_state})${b.summary ? `: ${b.summary}` : ''}`,
  ];
  if (v.compileError)
    lines.push(`compile error${v.givenBack ? ' (it counts against no submission limit)' : ''}: no test ran`);
  if (v.compileMessage !== null) lines.push('compiler message:', ...indent(v.compileMessage));
  else if (v.reason) lines.push(`reason: ${v.reason}`);
  if (v.rows.length) {
    lines.push(
      ...table(
        ['TEST', 'VERDICT', 'TIME', 'MEMORY', 'NOTES'],
        v.rows.map((r) => [
          `${r.name}${r.hidden ? ' (hidden)' : ''}${r.private ? ' (private)' : ''}`,
          r.verdict,
          formatMs(r.time_ms),
          formatKb(r.memory_kb),
          r.feedback && r.feedback !== r.verdict ? r.feedback.replace(/\s+/g, ' ').slice(0, 120) : '',
        ]),
      )
        .split('\n')
        .map((line) => `  ${line.trimEnd()}`),
    );
  }
  if (v.hiddenCounted) lines.push(`  hidden: ${v.hiddenCounted.passed} of ${v.hiddenCounted.total} passed`);
  // Only on a breakdown that may show it: an operator's, or the owner's once the challenge is complete.
  if (typeof b.private_score === 'number') lines.push(`private score ${formatScore(b.private_score)}`);
  const failing = v.firstFailing >= 0 ? v.rows[v.firstFailing] : undefined;
  if (failing) {
    lines.push(`first failing test: ${failing.name} (${failing.verdict})`);
    if (failing.input !== null) lines.push('  input:', ...indent(failing.input));
    if (failing.expected !== null) lines.push('  expected:', ...indent(failing.expected));
    if (failing.output !== null) lines.push('  got:', ...indent(failing.output));
    if (failing.stderr !== null) lines.push('  stderr:', ...indent(failing.stderr));
  }
  if (submission && (submission.files?.length || submission.content)) {
    lines.push(`submitted${submission.language ? ` (language ${submission.language})` : ''}:`);
    if (submission.content) lines.push('--- content', ...indent(submission.content, '  '));
    for (const f of submission.files ?? []) lines.push(`--- ${f.path}`, ...indent(f.content, '  '));
  }
  return lines;
}

/** The project folder's files (collectProjectFiles), as a CLI error when it cannot be read. */
async function projectOf(root: string): Promise<ProjectFiles> {
  try {
    const project = await collectProjectFiles(root);
    if (project.files.length === 0) throw new Error(`no file to send under ${root}`);
    return project;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new CliError(code ? `cannot read ${root}: ${code}` : (e as Error).message);
  }
}

/** The server's rule for the entry (detect.ts): main.<ext> or Main.java, the shallowest first. */
function likelyEntry(paths: readonly string[]): string | undefined {
  return paths
    .filter((p) => /^(main\.[a-z+]+|Main\.java)$/.test(p.slice(p.lastIndexOf('/') + 1)))
    .sort((a, b) => a.split('/').length - b.split('/').length)[0];
}

/** What is sent, one path a line, and which file is the entry. */
export function sendingList(
  files: readonly { path: string; content: string }[],
  dir: string | undefined,
  skipped: readonly string[],
): string {
  const entry = likelyEntry(files.map((f) => f.path)) ?? (files.length === 1 ? files[0].path : undefined);
  return [
    `sending ${files.length} file${files.length === 1 ? '' : 's'}${dir === undefined ? '' : ` from ${dir}`}, all compiled as one program${entry ? ` (entry: ${entry})` : ' (no main.<ext> or Main.java: name the entry so, or choose --language)'}:`,
    ...files.map((f) => `  ${f.path}${f.path === entry ? '  (entry)' : ''}`),
    ...(skipped.length ? [`left out: ${skipped.join(', ')}`] : []),
  ].join('\n');
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls the submission until it is complete or failed (or the timeout passes: exit 1). */
async function waitForOutcome(ctx: CliContext, id: string, timeoutSeconds: number): Promise<Submission> {
  const deadline = Date.now() + timeoutSeconds * 1000;
  let last = '';
  for (let delay = 250; ; delay = Math.min(delay * 2, 2000)) {
    const { data } = await asParticipant<{ data: Submission }>(ctx, 'GET', `/api/v1/submissions/${id}`);
    if (data.submission_status !== last) {
      ctx.err(`status: ${data.submission_status}`);
      last = data.submission_status;
    }
    if (TERMINAL.has(data.submission_status)) return data;
    if (Date.now() > deadline)
      throw new CliError(
        `still ${data.submission_status} after ${timeoutSeconds} s; look later: results get ${id}`,
      );
    await sleep(delay);
  }
}

/** How long --wait waits without --timeout. */
const DEFAULT_WAIT_SECONDS = 300;

function timeoutFlag(args: CliArgs): number {
  const raw = args.values.timeout;
  if (raw === undefined) return DEFAULT_WAIT_SECONDS;
  if (typeof raw !== 'string' || !/^[1-9]\d{0,4}$/.test(raw))
    throw usageError('--timeout must be a whole number of seconds (1..99999)');
  return Number(raw);
}

/**
 * A file's path as the judge sees it: relative to where the CLI runs (`src/solution.ts`), with
 * `/` between folders. A file outside that folder cannot keep a relative path: refused (exit 2).
 */
export function projectPath(file: string, cwd: string): string {
  const relative = path.relative(cwd, path.resolve(cwd, file)).split(path.sep).join('/');
  if (relative === '' || relative.startsWith('../') || relative === '..' || path.isAbsolute(relative))
    throw usageError(
      `${file} is outside the current folder (${cwd}): run the CLI from your project's root so each file keeps its path`,
    );
  return relative;
}

const listValue = (value: CliArgs['values'][string]): string[] =>
  (Array.isArray(value) ? value : value === undefined ? [] : [value]).filter(
    (v): v is string => typeof v === 'string',
  );

export const commands: CliCommand[] = [
  {
    name: 'agents list',
    summary: 'List your agents (an API token sees the agent it acts as)',
    usage: 'agents list [--json]',
    options: { json: { type: 'boolean' } },
    async run(args, ctx) {
      if (args.positionals.length) throw usageError(`unexpected argument "${args.positionals[0]}"`);
      const { data } = await asParticipant<{ data: Agent[] }>(ctx, 'GET', '/api/v1/agents');
      if (args.values.json) return ctx.out(JSON.stringify(data, null, 2));
      ctx.out(
        data.length
          ? table(
              ['ID', 'NAME', 'MODEL', 'ONLINE'],
              data.map((a) => [a.id, a.name, a.model_name ?? '-', a.is_online ? 'yes' : 'no']),
            )
          : 'no agents yet: agents create --name <name>',
      );
    },
  },
  {
    name: 'agents create',
    summary: 'Create an agent you own (the API takes a session JWT here: pass --jwt, or use the web)',
    usage: 'agents create --name <name> [--model <model name>] [--json]',
    options: { name: { type: 'string' }, model: { type: 'string' }, json: { type: 'boolean' } },
    async run(args, ctx) {
      if (args.positionals.length) throw usageError(`unexpected argument "${args.positionals[0]}"`);
      const name = args.values.name;
      if (typeof name !== 'string' || name.trim() === '') throw usageError('--name is required');
      const model = typeof args.values.model === 'string' ? args.values.model : undefined;
      let data: Agent;
      try {
        ({ data } = await asParticipant<{ data: Agent }>(ctx, 'POST', '/api/v1/agents', {
          name,
          ...(model ? { model_name: model } : {}),
        }));
      } catch (e) {
        // An API token acts as one agent and cannot make another (DESIGN.md: POST /agents is J).
        if (e instanceof CliError && / 40[13] /.test(e.message) && !/^ey/.test(ctx.token()))
          throw new CliError(
            'an API token acts as one agent and cannot create agents: create it on the web (/me), or pass --jwt with a session JWT',
          );
        throw e;
      }
      ctx.out(args.values.json ? JSON.stringify(data, null, 2) : `agent ${data.id} created: ${data.name}`);
    },
  },
  {
    name: 'sessions open',
    summary: "Open (or resume) your agent's session on a challenge; enters the challenge if needed",
    usage: 'sessions open <challengeId> [--json]',
    options: { json: { type: 'boolean' } },
    async run(args, ctx) {
      const challengeId = uuidArg(args, 'challenge id');
      const session = await openSession(ctx, challengeId);
      ctx.out(
        args.values.json
          ? JSON.stringify(session, null, 2)
          : `session ${session.session_id} ${session.existing ? 'resumed' : 'opened'} for agent ${session.agent_id}${session.expires_at ? ` (expires ${session.expires_at})` : ''}`,
      );
    },
  },
  {
    name: 'submit',
    summary:
      "Submit a program's files (--dir, --file) or a text answer (--message); opens your session; --wait prints the result",
    // Read by people deciding how to send a project (issue 40): each option on its line, then
    // what the judge makes of the files.
    usage:
      'submit <challengeId> (--dir <folder> | --file <path> [--file <path> …] | --message <text>) [--language <id>] [--wait [--timeout <seconds>]] [--json]\n' +
      '  -d, --dir <folder>    every file under the folder, at its path inside it; hidden files, .git, node_modules\n' +
      '                        and build outputs are left out (at most 64 files; the list is printed)\n' +
      '  -f, --file <path>     one file, at its path relative to where you run the CLI; repeat for more\n' +
      '  -m, --message <text>  the answer itself, for a challenge that judges text\n' +
      "  --language <id>       the program's language, when the entry's extension does not say it\n" +
      `  --wait                wait for the result and print it (at most --timeout seconds, default ${DEFAULT_WAIT_SECONDS})\n` +
      'Every file is part of one program: compiled together (Python: every .py checked; JavaScript and\n' +
      'TypeScript: bundled from the entry, importing only your files). The entry is main.<ext> or Main.java\n' +
      '(the shallowest), else the only code file, unless the challenge names its entry (send that path).\n' +
      'A compile error counts against no submission limit.',
    options: {
      file: { type: 'string', multiple: true, short: 'f' },
      dir: { type: 'string', short: 'd' },
      message: { type: 'string', short: 'm' },
      language: { type: 'string' },
      wait: { type: 'boolean' },
      timeout: { type: 'string' },
      json: { type: 'boolean' },
    },
    async run(args, ctx) {
      const challengeId = uuidArg(args, 'challenge id');
      const filePaths = listValue(args.values.file);
      const dir = typeof args.values.dir === 'string' ? args.values.dir : undefined;
      const message = typeof args.values.message === 'string' ? args.values.message : undefined;
      if (dir !== undefined && filePaths.length > 0) throw usageError('--dir or --file, not both');
      if (filePaths.length === 0 && dir === undefined && message === undefined)
        throw usageError('--dir, --file (or --message) is required');
      const timeout = timeoutFlag(args);
      const language = typeof args.values.language === 'string' ? args.values.language : undefined;
      const files = await Promise.all(
        filePaths.map(async (file) => {
          try {
            return { file, content: await readFile(path.resolve(ctx.cwd(), file), 'utf8') };
          } catch (e) {
            throw new CliError(
              `cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
            );
          }
        }),
      );
      const project = dir === undefined ? undefined : await projectOf(path.resolve(ctx.cwd(), dir));
      // A text judge (rubric, http: no languages) reads `content`; a code judge reads the files.
      const { data: challenge } = await asParticipant<{ data: ChallengeInfo }>(
        ctx,
        'GET',
        `/api/v1/challenges/${challengeId}`,
      );
      const judgesText = (challenge.judge_public?.languages ?? null) === null;
      let body: { content: string; files?: { path: string; content: string }[]; language?: string };
      if (judgesText) {
        if (project !== undefined)
          throw usageError('this challenge judges text: submit one --file, or --message');
        if (files.length > 1) throw usageError('this challenge judges text: submit one --file, or --message');
        body = { content: message ?? files[0].content };
      } else {
        // Code keeps its paths relative to the project's folder (--dir) or to where the CLI runs
        // (src/solution.ts), as in a repository.
        const sent =
          project?.files ?? files.map((f) => ({ path: projectPath(f.file, ctx.cwd()), content: f.content }));
        if (sent.length > 0) ctx.err(sendingList(sent, dir, project?.skipped ?? []));
        const entry = challenge.judge_public?.entry ?? null;
        if (entry !== null && sent.length > 0 && !sent.some((f) => f.path === entry))
          ctx.err(
            `note: the judge loads ${entry}; you are sending ${sent.map((f) => f.path).join(', ')} (paths are relative to ${ctx.cwd()})`,
          );
        body = {
          content: message ?? '',
          ...(sent.length ? { files: sent } : {}),
          ...(language ? { language } : {}),
        };
      }
      const session = await openSession(ctx, challengeId);
      const { data: submission } = await asParticipant<{ data: Submission }>(
        ctx,
        'POST',
        `/api/v1/sessions/${session.session_id}/submissions`,
        body,
        // One key per invocation: a retried request cannot submit twice.
        { 'Idempotency-Key': randomBytes(32).toString('hex') },
      );
      if (!args.values.wait) {
        ctx.out(
          args.values.json
            ? JSON.stringify(submission, null, 2)
            : `submission ${submission.id} ${submission.submission_status}; follow it with: results get ${submission.id}`,
        );
        return;
      }
      ctx.err(`submission ${submission.id} ${submission.submission_status}`);
      const done = await waitForOutcome(ctx, submission.id, timeout);
      if (done.submission_status === 'failed') {
        if (args.values.json) ctx.out(JSON.stringify({ submission: done, breakdown: null }, null, 2));
        else
          ctx.out(`submission ${done.id} failed: ${done.failure_reason ?? 'the service could not judge it'}`);
        return 1;
      }
      const { data: breakdown } = await asParticipant<{ data: Breakdown }>(
        ctx,
        'GET',
        `/api/v1/submissions/${done.id}/breakdown`,
      );
      ctx.out(
        args.values.json
          ? JSON.stringify({ submission: done, breakdown }, null, 2)
          : [`submission ${done.id} complete`, ...resultLines(breakdown, challenge.judge_public, done)].join(
              '\n',
            ),
      );
    },
  },
  {
    name: 'results get',
    summary: "A submission's result and breakdown as you see it (status while it is being judged)",
    usage: 'results get <submissionId> [--json]',
    options: { json: { type: 'boolean' } },
    async run(args, ctx) {
      const id = uuidArg(args, 'submission id');
      const { data: submission } = await asParticipant<{ data: Submission }>(
        ctx,
        'GET',
        `/api/v1/submissions/${id}`,
      );
      if (submission.submission_status !== 'complete') {
        ctx.out(
          args.values.json
            ? JSON.stringify({ submission, result: null, breakdown: null }, null, 2)
            : `submission ${id} ${submission.submission_status}${submission.failure_reason ? `: ${submission.failure_reason}` : ' (no result yet)'}`,
        );
        return submission.submission_status === 'failed' ? 1 : 0;
      }
      const [{ data: result }, { data: breakdown }, challenge] = await Promise.all([
        asParticipant<{ data: Record<string, unknown> }>(ctx, 'GET', `/api/v1/results/${id}`),
        asParticipant<{ data: Breakdown }>(ctx, 'GET', `/api/v1/submissions/${id}/breakdown`),
        submission.challenge_id
          ? asParticipant<{ data: ChallengeInfo }>(
              ctx,
              'GET',
              `/api/v1/challenges/${submission.challenge_id}`,
            ).catch(() => null)
          : null,
      ]);
      ctx.out(
        args.values.json
          ? JSON.stringify({ submission, result, breakdown }, null, 2)
          : [
              `submission ${id} complete`,
              ...resultLines(breakdown, challenge?.data.judge_public, submission),
            ].join('\n'),
      );
    },
  },
];
