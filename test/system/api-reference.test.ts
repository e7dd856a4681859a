/**
 * The API reference: a document clients can generate from (named schemas, examples, declared
 * headers, every 4xx), clean under `@redocly/cli lint` (recommended rules), a typed client from
 * openapi-typescript that a small strict program compiles against, and Swagger UI served from
 * node_modules rendering it in Chromium with nothing fetched from another host.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { allRoutes } from '../../src/api/routes';
import { launchChromium } from '../helpers/browser';
import { startTestServer, type TestServer } from '../helpers/server';

const ROOT = path.resolve(__dirname, '../..');
const ARTIFACTS = path.join(ROOT, 'test-artifacts');

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
let server: TestServer;
let doc: Json;
let dir: string;
let docFile: string;

beforeAll(async () => {
  server = await startTestServer({ RATE_LIMIT_DISABLED: '1' });
  doc = (await server.request('GET', '/api/v1/openapi.json')).body;
  dir = mkdtempSync(path.join(tmpdir(), 'api-reference-'));
  docFile = path.join(dir, 'openapi.json');
  writeFileSync(docFile, JSON.stringify(doc));
});
afterAll(() => server.close());

const operations = () =>
  Object.entries(doc.paths as Json).flatMap(([p, ops]) =>
    Object.entries(ops as Json).map(([method, op]) => ({ path: p, method, op: op as Json })),
  );
const documented = () => allRoutes().filter((r) => !r.internal);

test('every operation: named request/response schemas, examples, rate-limit headers, its 4xx with the error envelope', () => {
  expect(operations()).toHaveLength(documented().length);
  const problems: string[] = [];
  for (const { path: p, method, op } of operations()) {
    const label = `${method.toUpperCase()} ${p}`;
    const json = op.requestBody?.content?.['application/json'];
    if (json && !json.schema?.$ref?.startsWith('#/components/schemas/'))
      problems.push(`${label}: request body schema is not named`);
    if (json && json.example === undefined) problems.push(`${label}: request body has no example`);
    const statuses = Object.keys(op.responses);
    if (!statuses.some((s) => /^4\d\d$/.test(s))) problems.push(`${label}: no 4xx`);
    for (const [status, response] of Object.entries(op.responses as Json)) {
      if (!response.headers?.['X-RateLimit-Limit'])
        problems.push(`${label} ${status}: no X-RateLimit-Limit header`);
      const media = response.content?.['application/json'];
      if (!media) continue;
      if (!media.schema?.$ref?.startsWith('#/components/schemas/'))
        problems.push(`${label} ${status}: schema is not named`);
      if (media.example === undefined) problems.push(`${label} ${status}: no example`);
      if (/^[45]/.test(status) && !/#\/components\/schemas\/(Error|ConnectorError)$/.test(media.schema.$ref))
        problems.push(`${label} ${status}: not the error envelope`);
    }
    for (const status of ['500', '503'])
      if (!statuses.includes(status)) problems.push(`${label}: no ${status}`);
    if (statuses.includes('429') && !op.responses['429'].headers['Retry-After'])
      problems.push(`${label}: 429 without Retry-After`);
  }
  expect(problems).toEqual([]);
  expect(Object.keys(doc.components.schemas).length).toBeGreaterThan(50);
});

test('Idempotency-Key is declared on exactly the routes that take it', () => {
  const idempotent = new Set(
    documented()
      .filter((r) => r.idempotent)
      .map((r) => r.operationId),
  );
  expect(idempotent.size).toBeGreaterThan(0);
  for (const { op } of operations()) {
    const declared = (op.parameters ?? []).some(
      (prm: Json) => prm.in === 'header' && prm.name === 'Idempotency-Key',
    );
    expect([op.operationId, declared]).toEqual([op.operationId, idempotent.has(op.operationId)]);
  }
});

test('@redocly/cli lint with the recommended rules: no error, and only the justified warning', () => {
  const run = spawnSync(
    process.execPath,
    [
      require.resolve('@redocly/cli/bin/cli.js'),
      'lint',
      docFile,
      '--extends',
      'recommended',
      '--format',
      'json',
    ],
    {
      cwd: dir,
      encoding: 'utf8',
      timeout: 120_000,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    },
  );
  const report = JSON.parse(run.stdout.slice(run.stdout.indexOf('{')));
  const problems = (report.problems as Json[]).map(
    (p) => `${p.severity} ${p.ruleId}: ${p.location?.[0]?.pointer}`,
  );
  // The retired POST /api/v1/submissions answers only 410 (docs/decisions/web.md).
  expect(problems).toEqual(['warn operation-2xx-response: #/paths/~1api~1v1~1submissions/post/responses']);
}, 150_000);

test('openapi-typescript generates a client that a strict program compiles against', () => {
  const typesFile = path.join(dir, 'api.d.ts');
  const gen = spawnSync(
    process.execPath,
    [path.join(ROOT, 'node_modules/openapi-typescript/bin/cli.js'), docFile, '-o', typesFile],
    {
      cwd: dir,
      encoding: 'utf8',
      timeout: 60_000,
    },
  );
  expect(gen.status).toBe(0);
  writeFileSync(
    path.join(dir, 'program.ts'),
    `import type { components, paths } from './api';
type History = paths['/api/v1/submissions']['get']['responses'][200]['content']['application/json'];
type Challenge = components['schemas']['GetChallengeResponse']['data'];
type SubmitBody = components['schemas']['CreateSubmissionRequest'];
type ApiError = components['schemas']['Error'];
export function scores(page: History): Array<number | null> {
  return page.data.map((s) => (s.result ? s.result.final_score : null));
}
export const title = (c: Challenge): string => c.title;
export const body: SubmitBody = { content: 'The answer is 42', files: [{ path: 'a.md', content: '# 42' }] };
export const code = (e: ApiError): string => e.error.code;
// @ts-expect-error: the generated types know the field is a string
export const wrong: SubmitBody = { content: 42 };
`,
  );
  const tsc = spawnSync(
    process.execPath,
    [
      require.resolve('typescript/bin/tsc'),
      '--strict',
      '--noEmit',
      '--skipLibCheck',
      '--target',
      'es2022',
      '--module',
      'commonjs',
      path.join(dir, 'program.ts'),
    ],
    { cwd: dir, encoding: 'utf8', timeout: 120_000 },
  );
  expect(tsc.stdout + tsc.stderr).toBe('');
  expect(tsc.status).toBe(0);
}, 180_000);

test('/api/v1/docs renders the document with Swagger UI served from node_modules, offline', async () => {
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    page.on('console', (m) => m.type() === 'error' && problems.push(`console: ${m.text()}`));
    page.on(
      'request',
      (r) =>
        !r.url().startsWith(server.baseUrl) &&
        !r.url().startsWith('data:') &&
        problems.push(`external: ${r.url()}`),
    );
    const res = await page.goto(`${server.baseUrl}/api/v1/docs`);
    expect(res?.headers()['content-security-policy']).toMatch(/script-src 'self'(;|$)/);
    await page.waitForFunction(
      (n) =>
        (
          globalThis as unknown as { document: { querySelectorAll(s: string): { length: number } } }
        ).document.querySelectorAll('.opblock').length >= n,
      operations().length,
      // A safety net only: Swagger UI renders ~50 operations slowly on a machine far busier than its cores.
      { timeout: 90_000 },
    );
    expect(
      await page.locator('.opblock-summary-path', { hasText: '/api/v1/submissions' }).count(),
    ).toBeGreaterThan(0);
    // The webhook event catalog renders as its own section, one entry per event type.
    const webhooks = page.locator('.webhooks');
    expect(await webhooks.locator('h2').innerText()).toBe('Webhooks');
    expect(await webhooks.locator('.opblock').count()).toBe(14);
    await webhooks.locator('.opblock-summary', { hasText: 'submission.completed' }).first().click();
    await page.waitForSelector('.webhooks .opblock.is-open .parameters');
    const opened = await webhooks.locator('.opblock.is-open').innerText();
    expect(opened).toContain('X-Svc-Signature');
    expect(opened).toContain('webhook-signature');
    expect(opened).toMatch(/REST API names the same state\s+complete/);
    mkdirSync(ARTIFACTS, { recursive: true });
    await webhooks.screenshot({ path: path.join(ARTIFACTS, 'api-reference-webhooks.png') });
    await page.screenshot({ path: path.join(ARTIFACTS, 'api-reference.png') });
    expect(problems).toEqual([]);
    expect((await server.request('GET', '/api/v1/docs/assets/nope.js')).status).toBe(404);
  } finally {
    await browser.close();
  }
}, 150_000);
