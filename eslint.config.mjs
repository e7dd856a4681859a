import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ignore from 'ignore';
import tseslint from 'typescript-eslint';

const ROOT = path.dirname(fileURLToPath(import.meta.url));

/*
 * The layers (docs/architecture.md): arrows point down only.
 *
 *   src/api  ─┐                                      workflows/index.ts (the bundle's registry)
 *   src/cli   ├─> src/domain ─> src/db/queries         └─> src/domain/<feature>/workflows/
 *   src/web  ─┘      │               │                       └─> src/domain/<feature>/contract.ts,
 *   src/runtime ─────┘       src/lib, src/errors.ts, src/wire    src/temporal-client/search-attributes.ts
 *                            (leaves every layer may use)        (+ types of anything)
 *
 *   src/worker.ts ─> activities/index.ts (the activity registry, imported by nothing else)
 *                      └─> the features' step factories, src/domain/<feature>/<file>
 *
 * The rules below fail `npm run lint` (and CI) when an arrow points up or SQL leaves src/db.
 * Each zone checks static imports and `import()` expressions alike.
 */

/**
 * no-restricted-imports does not look at `import()` expressions: this rule applies the same
 * patterns (gitignore-style `group`, or `regex`) to them, so a lazy import cannot cross a boundary.
 */
const dynamicImports = {
  rules: {
    'no-restricted-dynamic-imports': {
      meta: { type: 'problem', schema: false },
      create(context) {
        const patterns = context.options[0]?.patterns ?? [];
        const matchers = patterns.map((p) => ({
          matches: p.regex
            ? (source) => new RegExp(p.regex).test(source)
            : (source) => ignore({ allowRelativePaths: true }).add(p.group).ignores(source),
          message: p.message,
        }));
        const sourceOf = (node) =>
          node.type === 'Literal' && typeof node.value === 'string'
            ? node.value
            : node.type === 'TemplateLiteral' && node.expressions.length === 0
              ? node.quasis[0].value.cooked
              : null;
        return {
          ImportExpression(node) {
            const source = sourceOf(node.source);
            const hit = source !== null && matchers.find((m) => m.matches(source));
            if (hit) context.report({ node, message: `'${source}' import is restricted: ${hit.message}` });
          },
        };
      },
    },
  },
};

/**
 * A folder only named files may import: each relative import (static, `export … from`, `import()`,
 * `require()`, type or value) is resolved against the importing file, so a path cannot be told
 * apart by its spelling alone (`../activities` is a feature's activities.ts in one place and the
 * top-level activities/ in another). Options: { folder (from the root), message }; the files allowed
 * to import it are left out of the zone (`ignores`).
 */
const folderImports = {
  rules: {
    'no-import-of-folder': {
      meta: { type: 'problem', schema: false },
      create(context) {
        const { folder, message } = context.options[0] ?? {};
        const target = path.join(ROOT, folder);
        const check = (node, source) => {
          if (typeof source !== 'string' || !source.startsWith('.')) return;
          const resolved = path.resolve(path.dirname(context.filename), source);
          if (resolved === target || resolved.startsWith(target + path.sep))
            context.report({ node, message: `'${source}' import is restricted: ${message}` });
        };
        const literal = (node) => (node?.type === 'Literal' ? node.value : undefined);
        return {
          ImportDeclaration: (node) => check(node, node.source.value),
          ExportNamedDeclaration: (node) => node.source && check(node, node.source.value),
          ExportAllDeclaration: (node) => check(node, node.source.value),
          ImportExpression: (node) => check(node, literal(node.source)),
          TSImportEqualsDeclaration: (node) =>
            node.moduleReference.type === 'TSExternalModuleReference' &&
            check(node, literal(node.moduleReference.expression)),
          CallExpression: (node) =>
            node.callee.type === 'Identifier' &&
            node.callee.name === 'require' &&
            check(node, literal(node.arguments[0])),
        };
      },
    },
  },
};

/**
 * Pages write markup only with html`…` (src/web/html.ts), which escapes every value: a plain string
 * or untagged template holding a tag is reported, so a page cannot go back to escaping by hand.
 * The one exception is the argument of raw() (our own CSS and script constants; docs/decisions/web.md).
 */
const MARKUP = /<[a-zA-Z/!]/;
const markupRules = {
  rules: {
    'markup-only-in-html': {
      meta: { type: 'problem', schema: false },
      create(context) {
        const inRaw = (node) =>
          node.parent?.type === 'CallExpression' &&
          node.parent.callee.type === 'Identifier' &&
          node.parent.callee.name === 'raw';
        const message =
          'markup in a plain string: write it with html`…` (src/web/html.ts) so its values are escaped; raw() is for our own constants only.';
        return {
          TemplateLiteral(node) {
            if (node.parent?.type === 'TaggedTemplateExpression' || inRaw(node)) return;
            if (node.quasis.some((q) => MARKUP.test(q.value.cooked ?? q.value.raw)))
              context.report({ node, message });
          },
          Literal(node) {
            if (typeof node.value !== 'string' || !MARKUP.test(node.value) || inRaw(node)) return;
            if (node.parent?.type === 'ImportDeclaration' || node.parent?.type === 'ExportNamedDeclaration')
              return;
            context.report({ node, message });
          },
        };
      },
    },
  },
};

/** The same patterns for static imports and for `import()` expressions. */
const restricted = (patterns) => ({
  '@typescript-eslint/no-restricted-imports': ['error', { patterns }],
  'local/no-restricted-dynamic-imports': ['error', { patterns }],
});

/** Below the API: nothing here may know about HTTP, Temporal workers/workflows, or the runtime loops. */
const notUpward = [
  {
    group: ['**/api/**', '**/api'],
    message: 'the API sits above this layer: move what you need down (src/lib, src/errors.ts, src/wire).',
  },
  {
    group: ['**/workflows/**', '**/workflows'],
    allowTypeImports: true,
    message:
      "import a workflow's contract (src/domain/<feature>/contract.ts), not the workflow or the registry (workflows/).",
  },
  { group: ['**/worker'], message: 'the worker is a process entry point: nothing imports it.' },
  {
    group: ['**/runtime/**'],
    message: 'runtime loops are started by src/worker.ts / src/api/server.ts, never imported from below.',
  },
  { group: ['**/web/**', '**/cli/**'], message: 'pages and the CLI sit above the domain.' },
  { group: ['koa', '@koa/*', 'koa-*'], allowTypeImports: false, message: 'HTTP belongs to src/api.' },
];

/**
 * What a view may not import, wherever it lives (src/web, src/api/pages/<feature>/*view.ts and form.ts):
 * a page renders what its route hands it.
 */
const viewPatterns = [
  {
    group: ['**/db/**', '**/db'],
    allowTypeImports: true,
    message:
      'a page renders what its route hands it: row types from src/db/queries, never a query or the pool.',
  },
  {
    regex: '^(\\.\\./)+domain(/|$)(?![a-z-]+/(contract|policy)$)',
    allowTypeImports: true,
    message: "a page renders the domain's results (import their types); its route calls the domain.",
  },
  {
    group: [
      '**/temporal-client/**',
      '**/temporal-client',
      '@temporalio/*',
      '**/workflows/**',
      '**/workflows',
      '**/all-workflows',
      '**/runtime/**',
      '**/worker',
      '**/cli/**',
    ],
    message: 'a page renders: Temporal, the runtime loops, the worker and the CLI are not its business.',
  },
  { group: ['koa', '@koa/*', 'koa-*', 'pg'], message: 'HTTP belongs to src/api, the pool to src/db.' },
];

/** A page's view or form module (src/api/pages/<feature>/): a view's diet, and never a route handler. */
const pageViewPatterns = [
  {
    regex: '^\\.\\.?/(.*/)?([a-z-]+-)?routes$',
    allowTypeImports: true,
    message:
      'a view is called by its route handler, never the other way round: take what you need as an argument.',
  },
  ...viewPatterns,
];

/** SQL lives in src/db/queries/<table>.ts (plus the pool, migrations and the LISTEN connection in src/db). */
const sqlOutsideDb = [
  'error',
  {
    selector: "CallExpression[callee.property.name='query'][arguments.0.type=/^(Literal|TemplateLiteral)$/]",
    message: 'SQL belongs in src/db/queries/<table>.ts: add a query function there and call it.',
  },
  {
    selector: 'Literal[value=/^\\s*(SELECT|INSERT INTO|UPDATE \\w+ SET|DELETE FROM|WITH \\w+ AS)\\b/]',
    message: 'SQL belongs in src/db/queries/<table>.ts.',
  },
  {
    selector:
      'TemplateElement[value.raw=/^\\s*(SELECT|INSERT INTO|UPDATE \\w+ SET|DELETE FROM|WITH \\w+ AS)\\b/]',
    message: 'SQL belongs in src/db/queries/<table>.ts.',
  },
];

/**
 * Only src/lib/storable-text.ts mints storable text (DESIGN, "Whatever a program writes is data"):
 * a cast anywhere else would hand the query layer text that skipped the sanitizer.
 */
const storableCast = [
  {
    selector: 'TSAsExpression[typeAnnotation.typeName.name=/^Storable(Text|Json)$/]',
    message:
      'storable text comes from src/lib/storable-text.ts (storableText, storableJson, …), never from a cast.',
  },
  {
    selector: 'TSTypeAssertion[typeAnnotation.typeName.name=/^Storable(Text|Json)$/]',
    message:
      'storable text comes from src/lib/storable-text.ts (storableText, storableJson, …), never from a cast.',
  },
];

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      '.data/**',
      '.tools/**',
      'coverage/**',
      'test-artifacts/**',
      '**/*.js',
      '**/*.mjs',
    ],
  },
  ...tseslint.configs.recommended,
  {
    plugins: { local: { rules: { ...dynamicImports.rules, ...markupRules.rules, ...folderImports.rules } } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'warn',
    },
  },
  {
    files: [
      'src/domain/**/*.ts',
      'src/db/**/*.ts',
      'src/events/**/*.ts',
      'src/lib/**/*.ts',
      'src/judging/**/*.ts',
      'src/webhook-transport/**/*.ts',
      'src/auth/**/*.ts',
      'src/wire/**/*.ts',
      'src/temporal-client/**/*.ts',
      'src/errors.ts',
      'src/service-deps.ts',
      'src/config.ts',
    ],
    rules: restricted(notUpward),
  },
  {
    // One owner for a match's life (docs/architecture.md, "A match's life"): src/domain/matches
    // schedules, runs, bounds, settles and voids bouts and games alike, and calls the game judge
    // (src/domain/games/judge.ts) as one step. The game side never reaches back into that life,
    // not even for a type: from src/domain/matches it may import only policy.ts (who may see a
    // match, for the replay and logs reads) and contract.ts (names and payloads).
    files: ['src/domain/games/**/*.ts'],
    rules: restricted([
      ...notUpward,
      {
        regex: '^(\\.\\./)+(domain/)?matches(/(?!(policy|contract)$)|$)',
        allowTypeImports: false,
        message:
          "a match's life belongs to src/domain/matches, which calls the game judge; the game side imports only its policy.ts and contract.ts.",
      },
    ]),
  },
  {
    files: ['src/db/**/*.ts'],
    rules: restricted([
      ...notUpward,
      {
        group: ['**/domain/**', '**/domain'],
        message: 'src/db sits below the domain: queries know tables, not rules.',
      },
    ]),
  },
  {
    // src/lib is the leaf under every layer: its files import each other and packages, nothing from
    // the rest of src/ (not even a type: a lib file that needs the config or a secret belongs higher).
    files: ['src/lib/**/*.ts'],
    rules: restricted([
      {
        regex: '^\\.\\.(/|$)',
        message:
          'src/lib is a leaf: it imports only its own files and packages; move the code that needs this out of src/lib.',
      },
      notUpward.find((p) => p.group.includes('koa')),
    ]),
  },
  {
    // src/web is the pages' shared view infrastructure (html`…`, the layout, shared form pieces, the
    // error page): it may use src/lib, src/errors.ts, src/wire, src/judging (the public view of a
    // judge), its own files, the domain's contracts, and the domain's and the db's types; never a
    // query, the API (the pages live there), Temporal or a process.
    files: ['src/web/**/*.ts'],
    rules: restricted([
      {
        group: ['**/api/**', '**/api'],
        message: 'the API renders pages, not the other way round: take what you need as an argument.',
      },
      ...viewPatterns,
    ]),
  },
  {
    // A page's view (src/api/pages/<feature>/view.ts, *-view.ts) renders what its route hands it:
    // the same diet as src/web, plus src/web itself and the other pages' views; never its route
    // handler, the API's machinery (route, pipeline, deps: types only), a query or a domain operation.
    files: ['src/api/pages/**/*view.ts'],
    rules: restricted([
      {
        regex: '^\\.\\./\\.\\./(?!\\.\\./)',
        allowTypeImports: true,
        message:
          "a view renders what its route hands it: the API's machinery (route, pipeline, deps) is the route's business (types only).",
      },
      ...pageViewPatterns,
    ]),
  },
  {
    // A page's form module (src/api/pages/<feature>/form.ts): the form's fields, how typed boxes
    // become the API's request body (the API's schemas), and its rendering with inline field errors.
    // Like a view otherwise: no route handler, query or domain operation.
    files: ['src/api/pages/**/form.ts'],
    rules: restricted([
      {
        regex: '^\\.\\./\\.\\./(?!\\.\\./|schemas/|form-body$)',
        allowTypeImports: true,
        message:
          "a form module reads the form with the API's schemas; the rest of the API (route, pipeline, deps) is the route's business (types only).",
      },
      ...pageViewPatterns,
    ]),
  },
  {
    // Workflow code is bundled into Temporal's deterministic sandbox: values only from the SDK, the
    // features' contract files and the search attribute keys; anything else (the domain, I/O,
    // files outside src/) by type only. Any `workflows/` folder is held to this, wherever it is.
    files: ['**/workflows/**/*.ts'],
    ignores: ['test/**'],
    rules: restricted([
      {
        regex:
          '^(?!@temporalio/(workflow|common)$|\\.\\./contract$|\\.\\./\\.\\./[a-z-]+/contract$|\\.\\./\\.\\./\\.\\./temporal-client/search-attributes$)',
        allowTypeImports: true,
        message:
          'a workflow imports values only from @temporalio/{workflow,common}, src/domain/<feature>/contract.ts and src/temporal-client/search-attributes.ts (types from anywhere); no I/O, nothing outside src/.',
      },
    ]),
  },
  {
    // The bundle's registry (workflows/index.ts, the bundle's entry): the features' workflows
    // re-exported, nothing else, so the bundle holds workflow code and what it may import only.
    files: ['workflows/**/*.ts'],
    rules: restricted([
      {
        regex: '^(?!\\.\\./src/domain/[a-z-]+/workflows/[a-z-]+$)',
        allowTypeImports: true,
        message:
          "workflows/ is the bundle's registry: it re-exports src/domain/<feature>/workflows/<name> and imports nothing else.",
      },
    ]),
  },
  {
    // The worker's activity registry (activities/index.ts): built from the features' step
    // factories (src/domain/<feature>/<file>), nothing else (types from anywhere).
    files: ['activities/**/*.ts'],
    rules: restricted([
      {
        regex: '^(?!\\.\\./src/domain/[a-z-]+/[a-z-]+$)',
        allowTypeImports: true,
        message:
          "activities/ is the worker's activity registry: it imports the features' step factories (src/domain/<feature>/<file>) only.",
      },
    ]),
  },
  {
    // Only the worker registers activities: nothing else may import the registry, not even a test.
    files: ['**/*.ts'],
    ignores: ['src/worker.ts'],
    rules: {
      'local/no-import-of-folder': [
        'error',
        {
          folder: 'activities',
          message:
            "activities/ is the worker's activity registry: only src/worker.ts imports it; use the feature's step factory.",
        },
      ],
    },
  },
  {
    files: ['src/domain/*/contract.ts', 'src/temporal-client/search-attributes.ts'],
    rules: restricted([
      {
        regex: '^(?!@temporalio/common$)',
        allowTypeImports: true,
        message:
          'a workflow contract imports nothing (values) but @temporalio/common: the workflow bundle loads it.',
      },
    ]),
  },
  {
    // The connector SDK can be lifted into its own package: it knows only the wire types.
    files: ['src/connector-client/**/*.ts'],
    rules: restricted([
      {
        regex: '^\\.\\./(?!wire/connector$|lib/suggest$)',
        message:
          'the connector SDK imports only src/wire/connector.ts (and the pure src/lib/suggest.ts) from the server tree.',
      },
    ]),
  },
  {
    files: ['src/**/*.ts'],
    ignores: ['src/db/**', 'src/lib/storable-text.ts'],
    rules: { 'no-restricted-syntax': [...sqlOutsideDb, ...storableCast] },
  },
  {
    files: ['src/db/**/*.ts'],
    rules: { 'no-restricted-syntax': ['error', ...storableCast] },
  },
  {
    files: ['src/lib/storable-text.ts'],
    rules: { 'no-restricted-syntax': sqlOutsideDb },
  },
  {
    // Who may do what is decided in one module per resource (src/domain/<feature>/policy.ts, or
    // src/domain/<feature>-policy.ts beside a single-file feature) and by the pipeline's auth step:
    // only they may import the role and owner predicates. Everyone else asks a policy.
    // (ESLint's own no-restricted-imports, so the layer zones above keep their options.)
    files: ['src/**/*.ts'],
    ignores: ['src/domain/**/policy.ts', 'src/domain/*-policy.ts', 'src/api/pipeline.ts', 'src/auth/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/auth/principal'],
              importNames: ['isAdmin', 'ownsAgentResource', 'actsForUser'],
              message:
                "role and owner predicates belong to the policies (src/domain/<feature>/policy.ts) and the pipeline: ask the resource's policy.",
            },
          ],
        },
      ],
    },
  },
  {
    // Type-aware rules on the service's own code: a promise nobody awaits loses its error (an
    // unhandled rejection ends the process), and a promise handed to a callback that ignores what it
    // returns does the same. Fire-and-forget is written `void` with a comment saying why.
    files: ['src/**/*.ts'],
    languageOptions: {
      parserOptions: {
        projectService: {
          // The proof cases in test/system/static/boundaries.test.ts lint snippets from stdin as
          // src/…/x.ts, files that are not on disk (so not in tsconfig.json's program).
          allowDefaultProject: ['src/*/x.ts', 'src/*/*/x.ts', 'src/*/*/*/x.ts'],
        },
        tsconfigRootDir: path.dirname(fileURLToPath(import.meta.url)),
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
    },
  },
  {
    // Markup only through html`…`: src/web and the pages' views and form modules.
    files: ['src/web/**/*.ts', 'src/api/pages/**/*view.ts', 'src/api/pages/**/form.ts'],
    ignores: ['src/web/html.ts'],
    rules: { 'local/markup-only-in-html': 'error' },
  },
);
