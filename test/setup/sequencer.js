/**
 * Jest's own order (slowest or largest first), with the bad-input properties first: it is the
 * longest file of the service tier and, on a database of its own with a change journal (no
 * fingerprint of other suites' rows any more), nothing it does depends on what runs beside it, so
 * starting it first lets the tier's other files fill the remaining workers instead of leaving it
 * alone at the end.
 */
const Sequencer = require('@jest/test-sequencer').default;

const FIRST = /[\\/]properties[\\/]bad-input\.test\.ts$/;

class BadInputFirst extends Sequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    const ordered = Array.isArray(sorted) ? sorted : [];
    return [...ordered.filter((t) => FIRST.test(t.path)), ...ordered.filter((t) => !FIRST.test(t.path))];
  }
}

module.exports = BadInputFirst;
