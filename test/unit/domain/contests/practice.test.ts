/**
 * Which challenges are practice (issue 41.7; docs/decisions/contests.md, "Practice challenges"):
 * no final selection is offered where no selection could change the final board.
 */
import { isPractice, offersFinalSelection } from '../../../../src/domain/contests/rules';

const withPrivate = {
  kind: 'tests',
  tests: [
    { name: 'a', export: 'f', args: [], expected: 1 },
    { name: 'b', export: 'f', args: [], expected: 2, private: true },
  ],
};
const open = { kind: 'tests', tests: [{ name: 'a', export: 'f', args: [], expected: 1 }] };
const rubric = (priv: boolean) => ({ kind: 'rubric', criteria: [{ name: 'c', weight: 1, private: priv }] });

test('a solo challenge with a private test or criterion has a final board to select for', () => {
  expect(isPractice({ format: 'solo', judge: withPrivate })).toBe(false);
  expect(isPractice({ format: 'code', judge: rubric(true) })).toBe(false);
});

test('no private test, or a match format, is practice', () => {
  expect(isPractice({ format: 'solo', judge: open })).toBe(true);
  expect(isPractice({ format: 'text', judge: rubric(false) })).toBe(true);
  expect(isPractice({ format: 'head_to_head', judge: withPrivate })).toBe(true);
  expect(isPractice({ format: 'solo', judge: null })).toBe(true);
});

test('offered while active, for live submissions only', () => {
  const contest = { format: 'solo', judge: withPrivate, status: 'active' };
  expect(offersFinalSelection(contest, { sandbox: false })).toBe(true);
  expect(offersFinalSelection(contest, { sandbox: true })).toBe(false);
  expect(offersFinalSelection({ ...contest, status: 'complete' }, { sandbox: false })).toBe(false);
  expect(offersFinalSelection({ ...contest, judge: open }, { sandbox: false })).toBe(false);
});
