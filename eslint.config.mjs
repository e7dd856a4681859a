import tseslint from 'typescript-eslint';

/*
 * The layers (docs/architecture.md): arrows point down only.
 *
 *   src/api  ─┐                     activities ──┐        workflows
 *   src/cli   ├─> src/domain ─> src/db/queries    ├─> src/domain      └─> src/domain/<feature>/contract.ts
 *   src/web  ─┘      │               │           ─┘                       (+ types of anything)
 *   src/runtime ─────┘       src/lib, src/errors.ts, src/wire (leaves every layer may use)
 *
 * The rules below fail `npm run lint` (and CI) when an arrow points up or SQL leaves src/db.
 */

const restricted = (patterns) => ['error', { patterns }];

/** Below the API: nothing here may know about HTTP, Temporal workers/workflows, or the runtime loops. */
const notUpward = [
  {
    group: ['**/api/**', '**/api'],
    message: 'the API sits above this layer: move what you need down (src/lib, src/errors.ts, src/wire).',
  },
  {
    group: ['**/activities/**', '**/activities'],
    message: 'activities are adapters above the domain: call the domain from them, not the reverse.',
  },
  {
    group: ['**/workflows/**', '**/workflows'],
    allowTypeImports: true,
    message: "import a workflow's contract (src/domain/<feature>/contract.ts), not the workflow.",
  },
  {
    group: ['**/runtime/**'],
    message: 'runtime loops are started by src/worker.ts / src/api/server.ts, never imported from below.',
  },
  { group: ['**/web/**', '**/cli/**'], message: 'pages and the CLI sit above the domain.' },
  { group: ['koa', '@koa/*', 'koa-*'], allowTypeImports: false, message: 'HTTP belongs to src/api.' },
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
      'src/webhooks/**/*.ts',
      'src/auth/**/*.ts',
      'src/wire/**/*.ts',
      'src/temporal/**/*.ts',
      'src/errors.ts',
      'src/service-deps.ts',
      'src/config.ts',
    ],
    rules: { '@typescript-eslint/no-restricted-imports': restricted(notUpward) },
  },
  {
    files: ['src/db/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': restricted([
        ...notUpward,
        {
          group: ['**/domain/**', '**/domain'],
          message: 'src/db sits below the domain: queries know tables, not rules.',
        },
      ]),
    },
  },
  {
    // Workflow code is bundled into Temporal's deterministic sandbox: values only from the SDK and
    // the features' contract files; anything else by type only.
    files: ['workflows/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': restricted([
        {
          regex: '^\\.\\./src/(?!domain/[^/]+/contract$)',
          allowTypeImports: true,
          message:
            'a workflow imports values only from @temporalio/* and src/domain/<feature>/contract.ts (types from anywhere).',
        },
        {
          group: ['../activities/**', '../activities'],
          allowTypeImports: true,
          message: 'workflows reach activities through proxyActivities<typeof ...> types only.',
        },
        {
          group: ['pg', 'koa', 'node:*', 'fs', 'http', 'https', 'crypto'],
          message: 'no I/O in workflow code.',
        },
      ]),
    },
  },
  {
    files: ['src/domain/*/contract.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': restricted([
        {
          regex: '^(?!@temporalio/common$)',
          allowTypeImports: true,
          message:
            'a workflow contract imports nothing (values) but @temporalio/common: the workflow bundle loads it.',
        },
      ]),
    },
  },
  {
    // The connector SDK can be lifted into its own package: it knows only the wire types.
    files: ['src/connector-client/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': restricted([
        {
          regex: '^\\.\\./(?!wire/connector$|lib/suggest$)',
          message:
            'the connector SDK imports only src/wire/connector.ts (and the pure src/lib/suggest.ts) from the server tree.',
        },
      ]),
    },
  },
  {
    files: ['src/**/*.ts', 'activities/**/*.ts', 'workflows/**/*.ts'],
    ignores: ['src/db/**'],
    rules: { 'no-restricted-syntax': sqlOutsideDb },
  },
);
