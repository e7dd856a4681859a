// `node scripts/coverage-compare.mjs <before checkout> <after checkout>`: compares the merged maps
// that scripts/coverage-merge.mjs wrote in each (coverage/merged/coverage-final.json): each whole
// figure, the figure over the files both have, the files only one has, and the files whose covered
// fraction dropped (most lines lost first).
import { readFileSync } from 'node:fs';
import path from 'node:path';
const [b, a] = process.argv.slice(2);
const load = (root) => {
  const m = JSON.parse(readFileSync(path.join(root, 'coverage/merged/coverage-final.json'), 'utf8'));
  const out = {};
  for (const [f, c] of Object.entries(m)) {
    const s = Object.values(c.s);
    out[path.relative(root, f)] = { total: s.length, covered: s.filter((x) => x > 0).length };
  }
  return out;
};
const B = load(b),
  A = load(a);
const sum = (o, keys) =>
  keys.reduce((acc, k) => ({ total: acc.total + o[k].total, covered: acc.covered + o[k].covered }), {
    total: 0,
    covered: 0,
  });
const pct = (x) => ((100 * x.covered) / x.total).toFixed(2) + `% (${x.covered}/${x.total})`;
const onlyB = Object.keys(B).filter((k) => !A[k]),
  onlyA = Object.keys(A).filter((k) => !B[k]);
const common = Object.keys(B).filter((k) => A[k]);
console.log('before all', pct(sum(B, Object.keys(B))), Object.keys(B).length, 'files');
console.log('after all ', pct(sum(A, Object.keys(A))), Object.keys(A).length, 'files');
console.log('common files', common.length, 'before', pct(sum(B, common)), 'after', pct(sum(A, common)));
console.log('only before', onlyB.length, pct(sum(B, onlyB)), onlyB.join(' '));
console.log('only after', onlyA.length, pct(sum(A, onlyA)), onlyA.join(' '));
const sameSize = common.filter((k) => A[k].total === B[k].total);
console.log(
  'common files unchanged in length',
  sameSize.length,
  'before',
  pct(sum(B, sameSize)),
  'after',
  pct(sum(A, sameSize)),
);
const lost = common
  .map((k) => ({
    k,
    b: B[k],
    a: A[k],
    dFrac: A[k].covered / A[k].total - B[k].covered / B[k].total,
    dCov: A[k].covered - B[k].covered,
  }))
  .filter((x) => x.dFrac < -0.001)
  .sort((x, y) => x.dCov - y.dCov);
console.log('files with a lower fraction after:', lost.length);
for (const x of lost.slice(0, 60))
  console.log(`  ${x.k}: ${x.b.covered}/${x.b.total} -> ${x.a.covered}/${x.a.total}`);
const gained = common.filter((k) => A[k].covered / A[k].total > B[k].covered / B[k].total + 0.001).length;
console.log('files with a higher fraction after:', gained);
