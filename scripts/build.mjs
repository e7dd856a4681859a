/**
 * The production build (`npm run build`), the same steps the Dockerfile runs:
 *   1. tsc -p tsconfig.build.json: src/**.ts → <out>/src/**.js, and the two top-level registries beside
 *      it, workflows/index.ts → <out>/workflows/index.js and activities/index.ts →
 *      <out>/activities/index.js (the layout of docs/decisions/platform.md);
 *   2. every non-TypeScript file under src that the code reads beside itself at run time (migrations,
 *      the sandbox runner, the seccomp policy and its compiler, the native supervisor's C source) is
 *      copied to the same place under <out>/src, so `__dirname` finds it from dist as from src;
 *   3. the workflow code (the registry, <out>/workflows/index.js) is bundled once, here, into
 *      <out>/workflow-bundle.js, which the worker loads instead of bundling at start (src/worker.ts).
 *
 *   node scripts/build.mjs [--out-dir dist]
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const outFlag = process.argv.indexOf('--out-dir');
const OUT = path.resolve(ROOT, outFlag >= 0 ? process.argv[outFlag + 1] : 'dist');

rmSync(OUT, { recursive: true, force: true });
execFileSync(
  process.execPath,
  [require.resolve('typescript/bin/tsc'), '-p', path.join(ROOT, 'tsconfig.build.json'), '--outDir', OUT],
  { cwd: ROOT, stdio: 'inherit' },
);

/** Run-time assets: everything under src that is neither TypeScript nor documentation. */
function copyAssets(dir) {
  for (const entry of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const relative = path.join(dir, entry.name);
    if (entry.isDirectory()) copyAssets(relative);
    else if (!/\.(ts|md)$/.test(entry.name)) {
      mkdirSync(path.join(OUT, dir), { recursive: true });
      cpSync(path.join(ROOT, relative), path.join(OUT, relative));
    }
  }
}
copyAssets('src');

const { bundleWorkflowCode } = require('@temporalio/worker');
const { code } = await bundleWorkflowCode({
  workflowsPath: path.join(OUT, 'workflows/index.js'),
  logger: { trace() {}, debug() {}, info() {}, warn: console.warn, error: console.error, log() {} },
});
writeFileSync(path.join(OUT, 'workflow-bundle.js'), code);
console.log(`built ${path.relative(ROOT, OUT) || '.'}`);
