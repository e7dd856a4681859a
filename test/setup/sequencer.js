/**
 * Jest's own order (slowest or largest first), except that the bad-input properties run last.
 * Its database fingerprint skips every row written before it started (DbWatch `since`), so
 * starting last it hashes only its own rows; started first (its size puts it there on a fresh
 * clone) it re-hashed everything the other suites wrote meanwhile, thousands of times (about
 * 50 minutes of a loaded CI run).
 */
const Sequencer = require('@jest/test-sequencer').default;

const LAST = /[\\/]properties[\\/]bad-input\.test\.ts$/;

class BadInputLast extends Sequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    const ordered = Array.isArray(sorted) ? sorted : [];
    return [...ordered.filter((t) => !LAST.test(t.path)), ...ordered.filter((t) => LAST.test(t.path))];
  }
}

module.exports = BadInputLast;
