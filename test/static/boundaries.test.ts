/**
 * The layering (docs/architecture.md) and the formatting are kept by the build, not by review:
 * these run eslint and prettier as part of the one test command, so CI fails on an upward import,
 * SQL outside src/db, or an unformatted file.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const BIN = path.join(ROOT, 'node_modules/.bin');

interface LintResult {
  filePath: string;
  messages: { severity: number; line: number; ruleId: string | null; message: string }[];
}

/** eslint in its own process (its flat config is an ES module, which jest's sandbox does not load). */
function eslint(args: string[], stdin?: string): LintResult[] {
  const run = spawnSync(path.join(BIN, 'eslint'), ['--format', 'json', ...args], {
    cwd: ROOT,
    input: stdin,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (!run.stdout) throw new Error(`eslint did not run: ${run.stderr}`);
  return JSON.parse(run.stdout) as LintResult[];
}

const errorsOf = (results: LintResult[]) =>
  results.flatMap((r) =>
    r.messages
      .filter((m) => m.severity === 2)
      .map((m) => `${path.relative(ROOT, r.filePath)}:${m.line} ${m.ruleId}: ${m.message}`),
  );

/**
 * Type-aware rules build the TypeScript program for every file (~10 s a run): a snippet is linted
 * without them unless it proves one of them (`typed`).
 */
const UNTYPED = [
  '--parser-options',
  'projectService:false',
  '--rule',
  '@typescript-eslint/no-floating-promises: off',
  '--rule',
  '@typescript-eslint/no-misused-promises: off',
];

async function lintAs(filePath: string, code: string, typed = false): Promise<string[]> {
  const args = ['--stdin', '--stdin-filename', path.join(ROOT, filePath), ...(typed ? [] : UNTYPED)];
  return errorsOf(eslint(args, code));
}

describe('layer boundaries (eslint.config.mjs)', () => {
  test('the tree has no lint errors', async () => {
    expect(errorsOf(eslint(['.']))).toEqual([]);
  }, 120_000);

  // Each rule is shown to bite on a file that breaks it (so an empty error list above means something).
  test.each([
    [
      'the domain importing the API',
      'src/domain/challenges/x.ts',
      "import { ApiError } from '../../api/errors';\nexport const e = ApiError;\n",
    ],
    [
      'the db importing the domain',
      'src/db/queries/x.ts',
      "import { enterability } from '../../domain/challenges/rules';\nexport const e = enterability;\n",
    ],
    [
      'the domain importing a workflow by value',
      'src/domain/submissions/x.ts',
      "import { submissionWorkflow } from './workflows/submission';\nexport const w = submissionWorkflow;\n",
    ],
    [
      'the domain importing the API through import()',
      'src/domain/challenges/x.ts',
      "export const load = () => import('../../api/errors');\n",
    ],
    ['the domain importing Koa', 'src/domain/x.ts', "import Koa from 'koa';\nexport const k = Koa;\n"],
    [
      'a workflow importing the domain by value',
      'src/domain/submissions/workflows/x.ts',
      "import { judgeRun } from '../judging';\nexport const j = judgeRun;\n",
    ],
    [
      'a workflow importing a file outside src',
      'src/domain/challenges/workflows/x.ts',
      "import { FLAGS } from '../../../../temporal/flags';\nexport const f = FLAGS;\n",
    ],
    [
      'a workflow loading the domain through import()',
      'src/domain/webhooks/workflows/x.ts',
      "export const load = () => import('../delivery');\n",
    ],
    [
      'a workflow importing pg',
      'src/domain/submissions/workflows/x.ts',
      "import { Pool } from 'pg';\nexport const p = Pool;\n",
    ],
    [
      'a workflows folder outside src importing the domain',
      'workflows/x.ts',
      "import { judgeRun } from '../src/domain/submissions/judging';\nexport const j = judgeRun;\n",
    ],
    [
      'the workflow registry re-exporting the domain',
      'workflows/index.ts',
      "export * from '../src/domain/submissions/judging';\n",
    ],
    [
      'the workflow registry re-exporting a contract (nothing but workflows there)',
      'workflows/index.ts',
      "export * from '../src/domain/submissions/contract';\n",
    ],
    [
      'the domain importing the workflow registry',
      'src/domain/submissions/x.ts',
      "import { submissionWorkflow } from '../../../workflows';\nexport const w = submissionWorkflow;\n",
    ],
    [
      'the activity registry importing the config (only step factories there)',
      'activities/index.ts',
      "import { getConfig } from '../src/config';\nexport const c = getConfig;\n",
    ],
    [
      'the API importing the activity registry (only the worker may)',
      'src/api/x.ts',
      "import { createActivities } from '../../activities';\nexport const a = createActivities;\n",
    ],
    [
      'a test loading the activity registry through import() (only the worker may)',
      'test/x.test.ts',
      "export const load = () => import('../activities/index');\n",
    ],
    [
      'a contract importing a value',
      'src/domain/webhooks/contract.ts',
      "import { iso } from '../../lib/time';\nexport const i = iso;\n",
    ],
    [
      'the connector SDK importing the server',
      'src/connector-client/x.ts',
      "import { getConfig } from '../config';\nexport const c = getConfig;\n",
    ],
    [
      'SQL in the domain',
      'src/domain/x.ts',
      "import type { Pool } from 'pg';\nexport const f = (db: Pool) => db.query('SELECT 1 FROM users');\n",
    ],
    [
      'SQL text in an activity',
      'src/domain/submissions/activities.ts',
      'export const q = `UPDATE users SET name = $1`;\n',
    ],
    [
      'markup in a plain template in a page',
      'src/web/x.ts',
      'export const p = (name: string) => `<p>${name}</p>`;\n',
    ],
    ['markup in a plain string in a page', 'src/web/x.ts', "export const p = '<p>hello</p>';\n"],
    [
      'src/lib importing the config, even by type',
      'src/lib/x.ts',
      "import type { Config } from '../config';\nexport type C = Config;\n",
    ],
    [
      'src/lib importing a service',
      'src/lib/x.ts',
      "import { constantTimeEqual } from '../auth/secrets';\nexport const c = constantTimeEqual;\n",
    ],
    [
      'src/lib loading a service through import()',
      'src/lib/x.ts',
      "export const load = () => import('../auth/secrets');\n",
    ],
    [
      'a page calling a query',
      'src/web/x.ts',
      "import { findAgentById } from '../db/queries/agents';\nexport const f = findAgentById;\n",
    ],
    [
      'a page calling a domain operation',
      'src/web/x.ts',
      "import { requireLeaderboardChallenge } from '../domain/leaderboard';\nexport const r = requireLeaderboardChallenge;\n",
    ],
    [
      'a page importing the API',
      'src/web/x.ts',
      "import { htmlPage } from '../api/html-page';\nexport const h = htmlPage;\n",
    ],
    [
      'a page importing the Temporal client',
      'src/web/x.ts',
      "import { lazyTemporalClient } from '../temporal-client/client';\nexport const t = lazyTemporalClient;\n",
    ],
    [
      'a floating promise in src',
      'src/domain/x.ts',
      'export async function f(): Promise<void> {}\nexport function g(): void {\n  f();\n}\n',
    ],
    [
      'a promise-returning callback where a void one is expected, in src',
      'src/api/x.ts',
      "import { EventEmitter } from 'node:events';\nexport const e = new EventEmitter();\ne.on('x', async () => {});\n",
    ],
  ])('fails on %s', async (what, filePath, code) => {
    const rule = what.startsWith('a floating promise')
      ? '@typescript-eslint/no-floating-promises'
      : what.startsWith('a promise-returning callback')
        ? '@typescript-eslint/no-misused-promises'
        : what.startsWith('SQL')
          ? 'no-restricted-syntax'
          : what.startsWith('markup')
            ? 'local/markup-only-in-html'
            : what.includes('only the worker may')
              ? 'local/no-import-of-folder'
              : what.includes('import()')
                ? 'local/no-restricted-dynamic-imports'
                : '@typescript-eslint/no-restricted-imports';
    const errors = await lintAs(filePath, code, rule.endsWith('-promises'));
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.every((e) => e.includes(` ${rule}: `))).toBe(true);
  });

  test.each([
    [
      'a workflow importing its contract by value',
      'src/domain/submissions/workflows/x.ts',
      "import { SUBMISSION_WORKFLOW } from '../contract';\nexport const n = SUBMISSION_WORKFLOW;\n",
    ],
    [
      'a workflow importing its activity types',
      'src/domain/submissions/workflows/x.ts',
      "import type { SubmissionActivities } from '../activities';\nexport type A = SubmissionActivities;\n",
    ],
    [
      'a workflow importing the search attribute keys',
      'src/domain/challenges/workflows/x.ts',
      "import { ChallengeIdKey } from '../../../temporal-client/search-attributes';\nexport const k = ChallengeIdKey;\n",
    ],
    [
      "the workflow registry re-exporting a feature's workflow",
      'workflows/index.ts',
      "export * from '../src/domain/submissions/workflows/submission';\n",
    ],
    [
      "the activity registry building a feature's step factory",
      'activities/index.ts',
      "import type { ServiceDeps } from '../src/service-deps';\nimport { createRelaySteps } from '../src/domain/connector/release';\nexport const a = (deps: ServiceDeps) => createRelaySteps(deps);\n",
    ],
    [
      'the worker importing the activity registry',
      'src/worker.ts',
      "import { createActivities } from '../activities';\nexport const a = createActivities;\n",
    ],
    [
      "a feature importing its own activities.ts (not the registry, though spelt '../activities' elsewhere)",
      'src/domain/submissions/x.ts',
      "import { createSubmissionActivities } from './activities';\nexport const a = createSubmissionActivities;\n",
    ],
    [
      'SQL in a queries file',
      'src/db/queries/x.ts',
      "import type { Pool } from 'pg';\nexport const f = (db: Pool) => db.query('SELECT 1 FROM users');\n",
    ],
    [
      'markup written with html`…` in a page, and our own CSS through raw()',
      'src/web/x.ts',
      "import { html, raw } from './html';\nexport const p = (name: string) => html`<p>${name}</p>`;\nexport const s = raw(`<style>p { color: red }</style>`);\n",
    ],
    [
      'the API importing the domain',
      'src/api/routes/x.ts',
      "import { enterability } from '../../domain/challenges/rules';\nexport const e = enterability;\n",
    ],
    [
      'src/lib importing its own files and packages',
      'src/lib/x.ts',
      "import { iso } from './time';\nimport pino from 'pino';\nexport const i = iso;\nexport const p = pino;\n",
    ],
    [
      "a page importing lib, the judge's public view, a contract, and db and domain types",
      'src/web/x.ts',
      [
        "import type { AgentRow } from '../db/queries/agents';",
        "import type { LeaderboardEntry } from '../domain/leaderboard';",
        "import { SPECTATOR_RELAY_WORKFLOW } from '../domain/connector/contract';",
        "import { judgePublicView } from '../judging';",
        "import { formatScore } from '../lib/score';",
        "import { html } from './html';",
        'export type T = AgentRow | LeaderboardEntry;',
        'export const v = [SPECTATOR_RELAY_WORKFLOW, judgePublicView, formatScore, html];',
        '',
      ].join('\n'),
    ],
  ])('allows %s', async (_what, filePath, code) => {
    expect(await lintAs(filePath, code)).toEqual([]);
  });
});

describe('formatting (prettier --check)', () => {
  test('every source file is formatted', () => {
    const run = spawnSync(path.join(BIN, 'prettier'), ['--check', '--log-level', 'warn', '.'], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    // prettier lists each unformatted file on stderr as "[warn] <file>".
    const unformatted = `${run.stdout}${run.stderr}`
      .split('\n')
      .filter((line) => line.startsWith('[warn] ') && !line.includes('Code style issues'))
      .map((line) => line.slice('[warn] '.length));
    expect({ status: run.status, unformatted }).toEqual({ status: 0, unformatted: [] });
  }, 120_000);
});
