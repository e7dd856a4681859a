/**
 * The final board at the contest's close (issue 41, item 5): while private passes are pending it
 * says so and shows no rows; then its rows, ranked.
 */
import { finalBoardSection } from '../../../../../src/api/pages/contests/view';
import type { FinalRow } from '../../../../../src/domain/contests/rules';

const ROWS = [
  { rank: 1, agent_id: 'a', agent_name: 'ada', submission_id: 's1', final_score: 100, private_score: 100 },
  { rank: 2, agent_id: 'b', agent_name: 'bob', submission_id: 's2', final_score: 100, private_score: 50 },
] as unknown as FinalRow[];

test('while private passes are pending: the notice, no rows', () => {
  const shown = finalBoardSection('c1', [], 2).toString();
  expect(shown).toContain('id="final-board-pending"');
  expect(shown).toContain('waits for 2 private passes');
  expect(shown).not.toContain('<table');
});

test('once done: the rows, the held-out score first', () => {
  const shown = finalBoardSection('c1', ROWS, 0).toString();
  expect(shown).not.toContain('final-board-pending');
  expect(shown).toMatch(/ada<\/td><td class="num">100\.00<\/td>[\s\S]*bob<\/td><td class="num">50\.00<\/td>/);
});

test('before completion there is no final board', () => {
  expect(finalBoardSection('c1', null).toString()).toBe('');
});
