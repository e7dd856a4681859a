/**
 * The sequencer's list of the longest files (test/setup/sequencer.js) starts them first on a fresh
 * clone, where jest has no timing cache. A renamed or removed file would drop out of the list
 * silently and start wherever its size puts it: every entry names a test file that exists.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const Sequencer = require('../../setup/sequencer.js') as {
  new (options: object): { sort(tests: { path: string }[]): { path: string }[] };
  LONGEST_FIRST: string[];
};

test('every file the sequencer starts first exists', () => {
  const missing = Sequencer.LONGEST_FIRST.filter((p) => !existsSync(path.join(ROOT, p)));
  expect(missing).toEqual([]);
});

test('the listed files come first, in the list order, the others after them in jest order', () => {
  const [first, second] = Sequencer.LONGEST_FIRST.slice(1, 3);
  const tests = ['test/system/a-small.test.ts', second, 'test/system/b-small.test.ts', first].map((p) => ({
    path: path.join(ROOT, p),
    duration: undefined,
    context: { config: { rootDir: ROOT, cache: false }, hasteFS: { getSize: () => 1 } },
  }));
  const sorted = new Sequencer({ contexts: [] }).sort(tests as never).map((t) => path.relative(ROOT, t.path));
  expect(sorted.slice(0, 2)).toEqual([first, second]);
  expect(sorted.slice(2).sort()).toEqual(['test/system/a-small.test.ts', 'test/system/b-small.test.ts']);
});
