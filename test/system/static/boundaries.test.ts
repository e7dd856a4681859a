/**
 * The layering (docs/architecture.md) is kept by the build, not by review: the lint step of the
 * one test command (scripts/test.sh: eslint and prettier --check over the tree, before jest) fails
 * CI on an upward import, SQL outside src/db, or an unformatted file. This file proves each
 * boundary rule bites: a snippet that breaks it, linted as if it stood where it names, is refused
 * (so an empty error list from the lint step means something), and the allowed shapes pass.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');

interface LintResult {
  filePath: string;
  messages: { severity: number; line: number; ruleId: string | null; message: string }[];
}

const errorsOf = (results: LintResult[]) =>
  results.flatMap((r) =>
    r.messages
      .filter((m) => m.severity === 2)
      .map((m) => `${path.relative(ROOT, r.filePath)}:${m.line} ${m.ruleId}: ${m.message}`),
  );

/** A snippet linted as if it stood at `filePath` (type-aware rules only when it proves one of them). */
interface Snippet {
  filePath: string;
  code: string;
  typed: boolean;
}

/**
 * Every snippet in one eslint process (test/system/static/lint-snippets.mjs): eslint and its config load
 * once, not once per case (56 processes took minutes on a busy machine).
 */
function lintSnippets(snippets: Snippet[]): string[][] {
  const run = spawnSync(process.execPath, [path.join(__dirname, 'lint-snippets.mjs'), ROOT], {
    cwd: ROOT,
    input: JSON.stringify(snippets.map((s) => ({ ...s, filePath: path.join(ROOT, s.filePath) }))),
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (run.status !== 0 || !run.stdout) throw new Error(`eslint did not run: ${run.stderr}`);
  return errorsPerSnippet(JSON.parse(run.stdout) as LintResult[]);
}

const errorsPerSnippet = (results: LintResult[]) => results.map((r) => errorsOf([r]));

describe('layer boundaries (eslint.config.mjs)', () => {
  // Each rule is shown to bite on a file that breaks it (so an empty error list above means something).
  const FAILS: [string, string, string][] = [
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
      "the game side reaching into a match's life (src/domain/matches owns it)",
      'src/domain/games/x.ts',
      "import { createBoutSteps } from '../matches/bout';\nexport const b = createBoutSteps;\n",
    ],
    [
      "the game side importing a match step's type (not even types from the match's life)",
      'src/domain/games/x.ts',
      "import type { GameMatchSteps } from '../matches/game';\nexport type G = GameMatchSteps;\n",
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
      'a cast to storable text in the domain (only the sanitizer mints it)',
      'src/domain/x.ts',
      "import type { StorableText } from '../lib/storable-text';\nexport const t = 'a\\u0000' as StorableText;\n",
    ],
    [
      'a cast to storable JSON in a queries file (only the sanitizer mints it)',
      'src/db/queries/x.ts',
      "import type { StorableJson } from '../../lib/storable-text';\nexport const j = '{}' as StorableJson;\n",
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
      "a page's view calling a query",
      'src/api/pages/x/x-view.ts',
      "import { findAgentById } from '../../../db/queries/agents';\nexport const f = findAgentById;\n",
    ],
    [
      "a page's view calling a domain operation",
      'src/api/pages/x/x-view.ts',
      "import { requireLeaderboardChallenge } from '../../../domain/leaderboard';\nexport const r = requireLeaderboardChallenge;\n",
    ],
    [
      "a page's view importing its route handler",
      'src/api/pages/x/x-view.ts',
      "import { pageRoutes } from './routes';\nexport const r = pageRoutes;\n",
    ],
    [
      "a page's view importing the API's machinery",
      'src/api/pages/x/x-view.ts',
      "import { htmlPage } from '../../html-page';\nexport const h = htmlPage;\n",
    ],
    [
      "a page's form module calling a domain operation",
      'src/api/pages/x/form.ts',
      "import { createChallenge } from '../../../domain/challenges/lifecycle';\nexport const c = createChallenge;\n",
    ],
    [
      'markup in a plain string in a page view',
      'src/api/pages/x/x-view.ts',
      "export const p = '<p>hello</p>';\n",
    ],
    [
      'a role/owner predicate in a route handler (only policies and the pipeline)',
      'src/api/routes/x.ts',
      "import { isAdmin } from '../../auth/principal';\nexport const a = isAdmin;\n",
    ],
    [
      'a role/owner predicate in a domain operation (only policies and the pipeline)',
      'src/domain/webhooks/x.ts',
      "import { ownsAgentResource } from '../../auth/principal';\nexport const o = ownsAgentResource;\n",
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
  ];
  const ruleOf = (what: string) =>
    what.startsWith('a floating promise')
      ? '@typescript-eslint/no-floating-promises'
      : what.startsWith('a promise-returning callback')
        ? '@typescript-eslint/no-misused-promises'
        : what.startsWith('SQL') || what.startsWith('a cast to storable')
          ? 'no-restricted-syntax'
          : what.startsWith('markup')
            ? 'local/markup-only-in-html'
            : what.includes('only policies and the pipeline')
              ? 'no-restricted-imports'
              : what.includes('only the worker may')
                ? 'local/no-import-of-folder'
                : what.includes('import()')
                  ? 'local/no-restricted-dynamic-imports'
                  : '@typescript-eslint/no-restricted-imports';
  const ALLOWS: [string, string, string][] = [
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
      'a policy importing the role and owner predicates',
      'src/domain/webhooks/policy.ts',
      "import { isAdmin, ownsAgentResource } from '../../auth/principal';\nexport const p = [isAdmin, ownsAgentResource];\n",
    ],
    [
      "a page asking a feature's policy",
      'src/web/x.ts',
      "import { isOperatorSession } from '../domain/accounts/policy';\nexport const o = isOperatorSession;\n",
    ],
    [
      "the game side asking the matches' policy and reading their contract",
      'src/domain/games/x.ts',
      "import { canSeeMatchesOf } from '../matches/policy';\nimport type { SettleOutcome } from '../matches/contract';\nexport type S = SettleOutcome;\nexport const c = canSeeMatchesOf;\n",
    ],
    [
      "the match's life calling the game judge",
      'src/domain/matches/x.ts',
      "import { playGameMatch } from '../games/judge';\nexport const p = playGameMatch;\n",
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
    [
      "a page's view importing src/web, another page's view, db types and a contract",
      'src/api/pages/x/x-view.ts',
      [
        "import type { AgentRow } from '../../../db/queries/agents';",
        "import type { AppDeps } from '../../deps';",
        "import { SPECTATOR_RELAY_WORKFLOW } from '../../../domain/connector/contract';",
        "import { html } from '../../../web/html';",
        "import { consolePage } from '../console/view';",
        'export type T = AgentRow | AppDeps;',
        'export const v = [SPECTATOR_RELAY_WORKFLOW, html, consolePage];',
        '',
      ].join('\n'),
    ],
    [
      "a page's form module reading the form with the API's schemas",
      'src/api/pages/x/form.ts',
      "import { createChallengeBody } from '../../schemas/challenges';\nimport type { ParsedForm } from '../../form-body';\nexport type F = ParsedForm;\nexport const b = createChallengeBody;\n",
    ],
    [
      'a page route handler calling the domain and its view',
      'src/api/pages/x/routes.ts',
      "import { createChallenge } from '../../../domain/challenges/lifecycle';\nimport { renderX } from './x-view';\nimport { htmlPage } from '../../html-page';\nexport const v = [createChallenge, renderX, htmlPage];\n",
    ],
  ];

  let failErrors: string[][] = [];
  let allowErrors: string[][] = [];
  beforeAll(() => {
    const errors = lintSnippets([
      ...FAILS.map(([what, filePath, code]) => ({
        filePath,
        code,
        typed: ruleOf(what).endsWith('-promises'),
      })),
      ...ALLOWS.map(([, filePath, code]) => ({ filePath, code, typed: false })),
    ]);
    failErrors = errors.slice(0, FAILS.length);
    allowErrors = errors.slice(FAILS.length);
  }, 300_000);

  test.each(FAILS.map((c, index) => [c[0], index] as const))('fails on %s', (what, index) => {
    const rule = ruleOf(what);
    expect(failErrors[index].length).toBeGreaterThan(0);
    expect(failErrors[index].every((e) => e.includes(` ${rule}: `))).toBe(true);
  });

  test.each(ALLOWS.map((c, index) => [c[0], index] as const))('allows %s', (_what, index) => {
    expect(allowErrors[index]).toEqual([]);
  });
});
