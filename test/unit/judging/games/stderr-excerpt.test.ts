/**
 * Issue 37: the validation breakdown's stderr excerpt keeps the end of a long log. The marker
 * went after it, so a log ending with REPLACED_NOTE no longer ended saying bytes were replaced
 * (found by test/system/properties/program-output.test.ts, seed 251446788), and the cut could leave half
 * a surrogate pair at its start.
 */
import { stderrExcerpt } from '../../../../src/judging/game-judge';
import { REPLACED_NOTE } from '../../../../src/lib/storable-text';

describe('stderrExcerpt', () => {
  it('a long log that says bytes were replaced still ends saying so', () => {
    const log = `${'x'.repeat(5_000)}\n${REPLACED_NOTE}`;
    const shown = stderrExcerpt(log);
    expect(shown.endsWith(REPLACED_NOTE)).toBe(true);
    expect(shown.startsWith('(last 2000 characters) …')).toBe(true);
  });

  it('never starts with half a surrogate pair; a short log is kept whole', () => {
    const log = `${'😀'.repeat(1_500)}`; // 3,000 code units: the cut falls inside a pair
    expect(stderrExcerpt(log)).not.toMatch(/\p{Surrogate}/u);
    expect(stderrExcerpt('short')).toBe('short');
  });
});
