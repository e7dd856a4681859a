// Merges jest's coverage (coverage/jest*) with the child processes' raw V8 coverage
// (coverage/raw, through c8) and prints one line: `statements: X%` of src/**/*.ts; before it, one
// line per source (each jest run alone, the children alone) and writes the merged map to
// coverage/merged/coverage-final.json. Both sides go through v8-to-istanbul, whose "statements"
// are the source's lines: a file's statement map is the same from either side, so merging adds
// the counts line by line (a file's total never grows by merging; checked below).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
const parts = [];
// One report per jest run: coverage/jest-<tier> (scripts/test.sh), coverage/jest (a single run).
const jestJsons = readdirSync('coverage')
  .filter((d) => d.startsWith('jest'))
  .map((d) => path.join('coverage', d, 'coverage-final.json'))
  .filter((f) => existsSync(f));
if (jestJsons.length === 0) console.error('no jest coverage report under coverage/');
for (const f of jestJsons) parts.push([path.basename(path.dirname(f)), JSON.parse(readFileSync(f, 'utf8'))]);
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
      // The same file set as jest's --collectCoverageFrom (the .cjs/.mjs helpers are not counted).
      '--include',
      'src/**/*.ts',
      '--exclude-node-modules',
    ],
    { stdio: 'inherit' },
  );
  const children = 'coverage/children/coverage-final.json';
  if (existsSync(children)) parts.push(['children', JSON.parse(readFileSync(children, 'utf8'))]);
}
const line = (map) => {
  const s = map.getCoverageSummary().statements;
  return `${s.pct}% (${s.covered}/${s.total}, ${map.files().length} files)`;
};
const map = libCoverage.createCoverageMap({});
for (const [name, data] of parts) {
  const part = libCoverage.createCoverageMap(data);
  console.log(`  ${name} alone: ${line(part)}`);
  map.merge(part);
}
// Honesty check: a file's statement count after the merge is the largest count any part gave it
// (the same lines from both sides); a larger one would mean two maps of one file were unioned.
for (const file of map.files()) {
  const merged = Object.keys(map.fileCoverageFor(file).statementMap).length;
  const most = Math.max(
    ...parts.map(([, data]) => (data[file] ? Object.keys(data[file].statementMap).length : 0)),
  );
  if (merged !== most)
    console.error(`statement maps differ for ${file}: ${most} lines, ${merged} after merge`);
}
mkdirSync('coverage/merged', { recursive: true });
writeFileSync('coverage/merged/coverage-final.json', JSON.stringify(map.toJSON()));
console.log(`statements: ${line(map)}`);
