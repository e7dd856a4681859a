/**
 * Jest's own order (slowest first when it has a timing cache, else largest file first), with the
 * files known to take longest started first. A fresh clone (CI) has no timing cache, so jest
 * would order by size, and a long file that happens to be small would start last and make the
 * tier's tail alone on one worker while the others sit idle. The list is by measured time,
 * longest first (docs/testing.md, "The system tier's order"); a file not in it keeps jest's order
 * after them. Also the service tier's bad-input properties: its longest file, on a database of
 * its own, independent of what runs beside it.
 */
const path = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

/** Paths from the repository root, longest first. */
const LONGEST_FIRST = [
  'test/service/properties/bad-input.test.ts',
  'test/system/multi-file-browser.test.ts',
  'test/system/game-match-void.test.ts',
  'test/system/pages-axe-sweep.test.ts',
  'test/system/game-matches.test.ts',
  'test/system/toolchain-crash.test.ts',
  'test/system/program-judge.test.ts',
  'test/system/private-pass.test.ts',
  'test/system/production-build.test.ts',
  'test/system/match-page-journey.test.ts',
  'test/system/matches.test.ts',
  'test/system/web-support-journey.test.ts',
  'test/system/judging-fairness.test.ts',
  'test/system/web-submit-journey.test.ts',
  'test/system/web-operators-journey.test.ts',
  'test/system/web-admin-journey.test.ts',
  'test/system/sign-out-unsent-browser.test.ts',
  'test/system/spectator-feed.test.ts',
  'test/system/api-reference.test.ts',
  'test/system/match-outcome-hold-browser.test.ts',
  'test/system/console-match-buttons-browser.test.ts',
  'test/system/web-pages.test.ts',
  'test/system/static/boundaries.test.ts',
  'test/system/web-journey.test.ts',
  'test/system/judging-queue-order.test.ts',
];

const ROOT = path.resolve(__dirname, '../..');
const rank = (testPath) => {
  const i = LONGEST_FIRST.indexOf(path.relative(ROOT, testPath).split(path.sep).join('/'));
  return i === -1 ? LONGEST_FIRST.length : i;
};

class LongestFirst extends Sequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    const ordered = Array.isArray(sorted) ? sorted : [];
    // Array.prototype.sort is stable: files outside the list keep jest's order.
    return [...ordered].sort((a, b) => rank(a.path) - rank(b.path));
  }
}

module.exports = LongestFirst;
module.exports.LONGEST_FIRST = LONGEST_FIRST;
