/**
 * Pages hold match outcomes (DESIGN "Fifth-round extensions"; domain/matches/hold.ts): the one rule
 * deciding what a viewer may see of a match, and of the ratings it moved, at a time.
 */
import {
  byShownOrdinal,
  heldOutcomesByAgent,
  holdEndsAt,
  isHeld,
  ratingBeforeHeld,
  recordBeforeHeld,
  shownMatch,
  type RecentRatedOutcome,
} from '../../../../src/domain/matches/hold';
import { seesOutcomesAtOnce } from '../../../../src/domain/matches/policy';
import type { MatchView } from '../../../../src/domain/matches/views';

const DELAY = 30_000;
const COMPLETED = '2026-01-01T00:04:00.000Z';
const END = Date.parse(COMPLETED) + DELAY;
const spectator = { atOnce: false };
const operator = { atOnce: true };

const match: MatchView = {
  id: '00000000-0000-4000-8000-000000000001',
  challenge_id: '00000000-0000-4000-8000-000000000002',
  weight_class_id: 'open',
  kind: 'bout',
  status: 'complete',
  rated: true,
  reason: 'bout ended',
  participants: [
    {
      agent_id: 'a',
      agent_name: 'A',
      seat: 1,
      submission_id: 's',
      score: 90,
      rank: 1,
      outcome: 'win',
      rating_before: { mu: 25, sigma: 8, ordinal: 1 },
      rating_after: { mu: 27, sigma: 7, ordinal: 6 },
    },
  ],
  scheduled_at: '2026-01-01T00:00:00.000Z',
  started_at: '2026-01-01T00:00:00.000Z',
  ends_at: '2026-01-01T00:05:00.000Z',
  completed_at: COMPLETED,
  result_id: 'r',
};

describe('the hold of a match', () => {
  test('ends at completed_at + the delay; a match still going has no end', () => {
    expect(holdEndsAt(match, DELAY)?.toISOString()).toBe('2026-01-01T00:04:30.000Z');
    expect(holdEndsAt({ status: 'running', completed_at: null }, DELAY)).toBeNull();
    expect(holdEndsAt({ status: 'void', completed_at: COMPLETED }, 0)?.toISOString()).toBe(COMPLETED);
  });

  test('a spectator sees a just-finished match as running, with nothing that tells it ended', () => {
    const before = shownMatch(match, spectator, new Date(END - 1), DELAY);
    expect(before.held).toBe(true);
    expect(before.match).toMatchObject({
      status: 'running',
      reason: null,
      completed_at: null,
      result_id: null,
      ends_at: match.ends_at,
    });
    expect(before.match.participants[0]).toMatchObject({
      submission_id: null,
      score: null,
      rank: null,
      outcome: null,
      rating_after: null,
      rating_before: { mu: 25, sigma: 8, ordinal: 1 },
    });
    const text = JSON.stringify(before.match);
    for (const tell of ['"win"', '"complete"', COMPLETED, 'bout ended', '"r"'])
      expect(text).not.toContain(tell);
  });

  test('from the end of the hold on, the match as it is', () => {
    const after = shownMatch(match, spectator, new Date(END), DELAY);
    expect(after).toEqual({ held: false, match });
  });

  test('operators see the outcome at once', () => {
    expect(shownMatch(match, operator, new Date(Date.parse(COMPLETED)), DELAY)).toEqual({
      held: false,
      match,
    });
    expect(seesOutcomesAtOnce({ kind: 'user', userId: 'u', role: 'admin', name: null })).toBe(true);
    expect(seesOutcomesAtOnce({ kind: 'user', userId: 'u', role: 'user', name: null })).toBe(false);
    expect(seesOutcomesAtOnce({ kind: 'anonymous' })).toBe(false);
  });

  test('a void match is held too; one voided before it started reads as scheduled', () => {
    const voided = { ...match, status: 'void' as const, started_at: null };
    expect(isHeld(voided, spectator, new Date(END - 1), DELAY)).toBe(true);
    expect(shownMatch({ ...match, status: 'void' }, spectator, new Date(END - 1), DELAY).match.status).toBe(
      'running',
    );
    const scheduledVoid = { ...match, status: 'scheduled' as const };
    expect(shownMatch(scheduledVoid, spectator, new Date(END - 1), DELAY).held).toBe(false);
  });

  test('running and scheduled matches are shown as they are', () => {
    const running = { ...match, status: 'running' as const, completed_at: null };
    expect(shownMatch(running, spectator, new Date(END - 1), DELAY)).toEqual({ held: false, match: running });
  });
});

const outcome = (o: Partial<RecentRatedOutcome>): RecentRatedOutcome => ({
  match_id: 'm1',
  challenge_id: 'c1',
  agent_id: 'a',
  outcome: 'win',
  completed_at: new Date(COMPLETED),
  completed_seq: 1,
  rating_before: { mu: 25, sigma: 8, ordinal: 1 },
  ...o,
});

describe('ratings before the held matches', () => {
  const rating = { agent_id: 'a', mu: 30, sigma: 6, ordinal: 12, matches: 4, wins: 3, draws: 0, losses: 1 };

  test('only outcomes still held count, by agent, in completion order', () => {
    const recent = [
      outcome({ match_id: 'm2', completed_seq: 2, rating_before: { mu: 27, sigma: 7, ordinal: 6 } }),
      outcome({ match_id: 'm1', completed_seq: 1 }),
      outcome({ match_id: 'm0', completed_seq: 0, completed_at: new Date(Date.parse(COMPLETED) - DELAY) }),
      outcome({ agent_id: 'b', match_id: 'm1', outcome: 'loss' }),
    ];
    const held = heldOutcomesByAgent(recent, spectator, new Date(END - 1), DELAY);
    expect(held.get('a')?.map((o) => o.match_id)).toEqual(['m1', 'm2']);
    expect(held.get('b')?.map((o) => o.outcome)).toEqual(['loss']);
    expect(heldOutcomesByAgent(recent, operator, new Date(END - 1), DELAY).size).toBe(0);
    expect(heldOutcomesByAgent(recent, spectator, new Date(END), DELAY).size).toBe(0);
  });

  test('the rating before the first held match, the record without the held ones', () => {
    const held = [
      outcome({ match_id: 'm1', completed_seq: 1, outcome: 'win' }),
      outcome({
        match_id: 'm2',
        completed_seq: 2,
        outcome: 'forfeit',
        rating_before: { mu: 27, sigma: 7, ordinal: 6 },
      }),
    ];
    expect(ratingBeforeHeld(rating, held)).toEqual({
      agent_id: 'a',
      mu: 25,
      sigma: 8,
      ordinal: 1,
      matches: 2,
      wins: 2,
      draws: 0,
      losses: 0,
    });
  });

  test('a held match the rating step has not applied yet has not moved the stored rating', () => {
    expect(ratingBeforeHeld(rating, [outcome({ rating_before: null })])).toBe(rating);
    expect(ratingBeforeHeld(rating, undefined)).toBe(rating);
  });

  test('an agent rated only by held matches is not rated yet', () => {
    const first = { ...rating, matches: 1, wins: 1, losses: 0 };
    expect(ratingBeforeHeld(first, [outcome({})])).toBeNull();
  });

  test("a challenge's record without its own held matches", () => {
    const held = [outcome({ outcome: 'draw' }), outcome({ challenge_id: 'other', outcome: 'win' })];
    expect(recordBeforeHeld({ matches: 3, wins: 1, draws: 1, losses: 1 }, held, 'c1')).toEqual({
      matches: 2,
      wins: 1,
      draws: 0,
      losses: 1,
    });
  });

  test('ranked by the rating shown, agent id breaking ties', () => {
    const rows = [
      { agent_id: 'b', ordinal: 3 },
      { agent_id: 'c', ordinal: 9 },
      { agent_id: 'a', ordinal: 3 },
    ];
    expect(byShownOrdinal(rows).map((r) => r.agent_id)).toEqual(['c', 'a', 'b']);
  });
});
