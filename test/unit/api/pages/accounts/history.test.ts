/**
 * The history page (issue 41, item 7): verdict, result, language and final-board columns per row;
 * selection by a checkbox per row with a counter, only for the (challenge, agent) groups the route
 * offers it for; a refused selection re-shown with its reason beside the boxes.
 */
import { renderHistoryPage, type HistoryRow } from '../../../../../src/api/pages/accounts/view';

const C1 = '11111111-1111-4111-8111-111111111111';
const C2 = '22222222-2222-4222-8222-222222222222';
const A1 = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
const row = (over: Partial<HistoryRow>): HistoryRow => ({
  id: 's1',
  challenge_id: C1,
  challenge_title: 'Reverse',
  agent_id: A1,
  agent_name: 'ada',
  status: 'complete',
  final_score: 100,
  created_at: new Date('2026-01-01T00:00:00Z'),
  language: 'python',
  result_state: 'scored',
  verdict: 'correct',
  selected: false,
  ...over,
});
const base = { filters: {}, challenges: [], nextCursor: null, account: { signedIn: null }, csrfToken: 'tok' };

test('each row shows its verdict, result, language and whether it is selected', () => {
  const page = renderHistoryPage({
    ...base,
    rows: [
      row({ selected: true }),
      row({
        id: 's2',
        status: 'queued',
        final_score: null,
        language: null,
        result_state: null,
        verdict: null,
      }),
    ],
  }).html.toString();
  expect(page).toMatch(
    /<th scope="col">Verdict<\/th><th scope="col">Result<\/th><th scope="col">Language<\/th>.*<th scope="col">Final board<\/th>/,
  );
  expect(page).toMatch(
    /<td>complete<\/td><td data-verdict="correct">correct<\/td><td>scored<\/td><td>python<\/td><td class="num">100\.00<\/td><td>selected<\/td>/,
  );
  expect(page).toMatch(
    /<td>queued<\/td><td data-verdict="">—<\/td><td>—<\/td><td>—<\/td><td class="num">—<\/td><td>—<\/td>/,
  );
  // No group offered: no checkbox, no counter, no script.
  expect(page).not.toContain('type="checkbox"');
  expect(page).not.toContain('final-selection');
});

test('a checkbox per offered row and a counter per (challenge, agent); practice rows get none', () => {
  const page = renderHistoryPage({
    ...base,
    rows: [
      row({ id: 's1' }),
      row({ id: 's2', selected: true }),
      row({ id: 's3', challenge_id: C2, challenge_title: 'Practice' }),
    ],
    selection: [
      {
        challenge_id: C1,
        challenge_title: 'Reverse',
        agent_id: A1,
        agent_name: 'ada',
        keptElsewhere: 1,
        limit: 2,
        shownIds: ['s1', 's2'],
        ticked: new Set(['s2']),
      },
    ],
  }).html.toString();
  const key = `${C1}_${A1}`;
  expect(page).toContain(
    `<strong id="sel-count-${key}" role="status" aria-live="polite">2 of 2 selected</strong>`,
  );
  expect(page).toMatch(
    new RegExp(`<input type="checkbox" id="pick-s1" name="selected" value="s1" form="sel-${key}"[^>]*>`),
  );
  expect(page).toMatch(/id="pick-s2"[^>]* checked/);
  expect(page).not.toMatch(/id="pick-s1"[^>]* checked/);
  expect(page).not.toContain('id="pick-s3"');
  // The form posts which rows it showed, so selections on other pages are kept.
  expect(page).toContain(
    '<input type="hidden" name="shown" value="s1"><input type="hidden" name="shown" value="s2">',
  );
  expect(page).toContain('<input type="hidden" name="_csrf" value="tok">');
});

test('a refused selection: the boxes as ticked, the counter over the limit, the reason beside them', () => {
  const page = renderHistoryPage({
    ...base,
    rows: [row({ id: 's1' }), row({ id: 's2' }), row({ id: 's3' })],
    selection: [
      {
        challenge_id: C1,
        challenge_title: 'Reverse',
        agent_id: A1,
        agent_name: 'ada',
        keptElsewhere: 0,
        limit: 2,
        shownIds: ['s1', 's2', 's3'],
        ticked: new Set(['s1', 's2', 's3']),
        error: 'you ticked 3, but at most 2 submissions of this agent count on the final board: untick 1',
      },
    ],
  }).html.toString();
  const key = `${C1}_${A1}`;
  expect(page).toContain('3 of 2 selected');
  expect(page).toContain(
    `<p class="field-error" id="sel-error-${key}" role="alert">you ticked 3, but at most 2 submissions`,
  );
  expect(page).toMatch(
    new RegExp(`id="pick-s3"[^>]* checked aria-describedby="sel-count-${key} sel-error-${key}"`),
  );
});
