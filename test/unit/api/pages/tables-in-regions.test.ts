/**
 * Issue 41.9: a table's width follows its data (a 100-character agent name, long figures), so every
 * table of the public arena and board pages sits in its own named region a keyboard can focus and
 * scroll (`.table-wrap`), as the console's tables do; the page itself never scrolls sideways. The
 * pages' scripts build the same wrapper when they re-render (test/system/pages-axe-sweep.test.ts
 * checks the pages in Chromium at 390 px).
 */
import { leaderboardTable, ratingBoardTable } from '../../../../src/api/pages/challenges/view';
import { renderLadderPage, renderMatchPage } from '../../../../src/api/pages/matches/view';
import type { MatchView } from '../../../../src/domain/matches/views';

const LONG_NAME = `Agent${'x'.repeat(95)}`;
const ADA = '00000000-0000-4000-8000-00000000000a';
const BOB = '00000000-0000-4000-8000-00000000000b';

const REGION = /<div class="table-wrap" tabindex="0" role="region" aria-(label|labelledby)="([^"]+)">$/;

/** Each table of the markup: whether it opens right inside a named focusable region, and its name. */
function tablesIn(markup: string): { inRegion: boolean; name: string | null }[] {
  const parts = markup.split('<table');
  return parts.slice(1).map((_, i) => {
    const m = REGION.exec(parts[i]);
    if (!m) return { inRegion: false, name: null };
    if (m[1] === 'label') return { inRegion: true, name: m[2] };
    // aria-labelledby names an element of the same markup (the table's caption).
    const target = new RegExp(`id="${m[2]}"[^>]*>([^<]+)<`).exec(markup);
    return { inRegion: target !== null, name: target?.[1] ?? null };
  });
}

test('the leaderboard and the rating board scroll in named regions', () => {
  const board = String(
    leaderboardTable([
      {
        rank: 1,
        agent_id: ADA,
        agent_name: LONG_NAME,
        best_score: 100,
        best_submission_id: ADA,
        submission_count: 3,
        last_submitted_at: '2026-01-01T00:00:00.000Z',
      },
    ]),
  );
  expect(tablesIn(board)).toEqual([{ inRegion: true, name: 'Leaderboard table' }]);
  const rating = String(
    ratingBoardTable([
      {
        rank: 1,
        agent_id: ADA,
        agent_name: LONG_NAME,
        best_score: null,
        best_submission_id: null,
        submission_count: 0,
        last_submitted_at: null,
        rating: { mu: 27.25, sigma: 8.1, ordinal: 2.25 },
        matches: 2,
        wins: 1,
        draws: 0,
        losses: 1,
        provisional: true,
      },
    ]),
  );
  expect(tablesIn(rating)).toEqual([{ inRegion: true, name: 'Leaderboard by rating table' }]);
  // No rows: a sentence, no region to focus.
  expect(String(leaderboardTable([]))).not.toContain('table-wrap');
});

test('the ladder scrolls in a region named by its caption', () => {
  const page = String(
    renderLadderPage({
      weightClassId: 'wc-open',
      rows: [
        {
          rank: 1,
          agent_id: ADA,
          agent_name: LONG_NAME,
          mu: 27.25,
          sigma: 8.1,
          ordinal: 2.25,
          matches: 2,
          wins: 1,
          draws: 0,
          losses: 1,
          provisional: true,
          last_match_at: null,
        },
      ],
    }).html,
  );
  expect(tablesIn(page)).toEqual([{ inRegion: true, name: 'Ratings in weight class wc-open, best first' }]);
});

test("a match's result table scrolls in a region named apart from its section", () => {
  const match: MatchView = {
    id: '00000000-0000-4000-8000-000000000001',
    challenge_id: '00000000-0000-4000-8000-0000000000c1',
    weight_class_id: 'open',
    kind: 'bout',
    status: 'complete',
    rated: true,
    reason: null,
    participants: [ADA, BOB].map((agent_id, i) => ({
      agent_id,
      agent_name: i === 0 ? LONG_NAME : 'bob',
      seat: i + 1,
      submission_id: null,
      score: i === 0 ? 100 : 0,
      rank: i + 1,
      outcome: i === 0 ? 'win' : 'loss',
      rating_before: { mu: 25, sigma: 8, ordinal: 0 },
      rating_after: { mu: 26, sigma: 7, ordinal: i === 0 ? 1.5 : -1.5 },
    })),
    scheduled_at: '2026-01-01T00:00:00.000Z',
    started_at: '2026-01-01T00:00:01.000Z',
    ends_at: '2026-01-01T00:10:01.000Z',
    completed_at: '2026-01-01T00:04:00.000Z',
    result_id: '00000000-0000-4000-8000-0000000000r1',
  };
  const now = new Date('2026-01-02T00:00:00.000Z');
  const page = String(
    renderMatchPage({
      match,
      hold: { viewer: { atOnce: false }, now, delayMs: 1500 },
      challengeTitle: 'Arena',
      delayMs: 1500,
      now,
    }).html,
  );
  expect(tablesIn(page)).toEqual([{ inRegion: true, name: 'Result table' }]);
});
