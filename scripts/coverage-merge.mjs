// Merges jest's coverage (coverage/jest*) with the child processes' raw V8 coverage
// (coverage/raw, through c8) and prints one line: `statements: X%` of src/.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import libCoverage from 'istanbul-lib-coverage';

const raw = 'coverage/raw';
// Jest's own processes also wrote raw files; their src/ entries are swc output measured against
// the .ts on disk (wrong offsets), and jest already reported them: drop those files.
for (const name of existsSync(raw) ? readdirSync(raw) : []) {
  const file = path.join(raw, name);
  const text = readFileSync(file, 'utf8');
  if (/jest-worker[\\/]build|jest-cli[\\/]build|@jest[\\/]core[\\/]build/.test(text)) rmSync(file);
}
const map = libCoverage.createCoverageMap({});
// One report per jest run: coverage/jest-<tier> (scripts/test.sh), coverage/jest (a single run).
const jestJsons = readdirSync('coverage')
  .filter((d) => d.startsWith('jest'))
  .map((d) => path.join('coverage', d, 'coverage-final.json'))
  .filter((f) => existsSync(f));
if (jestJsons.length === 0) console.error('no jest coverage report under coverage/');
for (const f of jestJsons) map.merge(JSON.parse(readFileSync(f, 'utf8')));
if (existsSync(raw) && readdirSync(raw).length > 0) {
  execFileSync(
    'npx',
    [
      'c8',
      'report',
      '--temp-directory',
      raw,
      '--report-dir',
      'coverage/children',
      '--reporter=json',
      '--include',
      'src/**',
      '--exclude-node-modules',
    ],
    { stdio: 'inherit' },
  );
  const children = 'coverage/children/coverage-final.json';
  if (existsSync(children)) map.merge(JSON.parse(readFileSync(children, 'utf8')));
}
const summary = map.getCoverageSummary();
console.log(
  `statements: ${summary.statements.pct}% (${summary.statements.covered}/${summary.statements.total}, ${map.files().length} files)`,
);
