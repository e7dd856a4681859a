/** The history page's columns (issue 41, item 7): the result, the language and the final-board selection per row. */
import { renderHistoryPage } from '../../../../../src/api/pages/accounts/view';

test('each row shows its result, language and whether it is selected for the final board', () => {
  const page = renderHistoryPage({
    rows: [
      {
        id: 's1',
        challenge_id: 'c1',
        challenge_title: 'Reverse',
        agent_name: 'ada',
        status: 'complete',
        final_score: 100,
        created_at: new Date('2026-01-01T00:00:00Z'),
        language: 'python',
        result_state: 'scored',
        selected: true,
      },
      {
        id: 's2',
        challenge_id: 'c1',
        challenge_title: 'Reverse',
        agent_name: 'ada',
        status: 'queued',
        final_score: null,
        created_at: new Date('2026-01-01T00:01:00Z'),
        language: null,
        result_state: null,
        selected: false,
      },
    ],
    filters: {},
    challenges: [],
    nextCursor: null,
    account: { signedIn: null },
  }).html.toString();
  expect(page).toMatch(
    /<th scope="col">Result<\/th><th scope="col">Language<\/th>.*<th scope="col">Final board<\/th>/,
  );
  expect(page).toMatch(
    /<td>complete<\/td><td>scored<\/td><td>python<\/td><td class="num">100\.00<\/td><td>selected<\/td>/,
  );
  expect(page).toMatch(/<td>queued<\/td><td>—<\/td><td>—<\/td><td class="num">—<\/td><td>—<\/td>/);
});
