import {
  everyoneLeftBout,
  MATCH_SETTINGS_DEFAULTS,
  placeBout,
  planRound,
  rateMatch,
  ratingRank,
  ratingView,
  resolveMatchSettings,
  type MatchCandidate,
} from '../../../../src/domain/matches/rules';

const settings = {
  players: 2,
  rematch_after_minutes: 60,
  max_per_pair_per_day: 6,
  max_per_agent_per_hour: 6,
};
const now = Date.parse('2026-11-26T12:00:00Z');
const candidate = (
  agentId: string,
  ordinal: number,
  extra: Partial<MatchCandidate> = {},
): MatchCandidate => ({
  agentId,
  ordinal,
  provisional: false,
  matchesLastHour: 0,
  ownerUserId: `owner-${agentId}`,
  ...extra,
});

describe('match settings', () => {
  test('match formats need settings (defaults fill them); solo formats refuse them', () => {
    expect(resolveMatchSettings({ format: 'head_to_head', match: {} })).toEqual(MATCH_SETTINGS_DEFAULTS);
    expect(resolveMatchSettings({ format: 'head_to_head', match: { players: 3 } })).toMatchObject({
      players: 3,
    });
    expect(() => resolveMatchSettings({ format: 'head_to_head', match: null })).toThrow(/required/);
    expect(() => resolveMatchSettings({ format: 'solo', match: { players: 2 } })).toThrow(
      /only head_to_head/,
    );
    expect(resolveMatchSettings({ format: 'solo', match: null })).toBeNull();
  });

  test('an edit merges into the stored settings; format is fixed once published', () => {
    const stored = {
      format: 'head_to_head',
      match: { ...MATCH_SETTINGS_DEFAULTS, every_minutes: 5 },
      published: true,
    };
    expect(resolveMatchSettings({ format: 'head_to_head', match: { rated: false }, stored })).toMatchObject({
      every_minutes: 5,
      rated: false,
    });
    expect(() => resolveMatchSettings({ format: 'solo', match: undefined, stored })).toThrow(/cannot change/);
    expect(() =>
      resolveMatchSettings({ format: 'solo', match: undefined, stored: { ...stored, published: false } }),
    ).not.toThrow();
  });
});

describe('a bout over by its participants', () => {
  const came = { opened: true, open_now: false };
  const here = { opened: true, open_now: true };
  const never = { opened: false, open_now: false };
  test('once everyone opened a session and none is open', () => {
    expect(everyoneLeftBout([came, came])).toBe(true);
    expect(everyoneLeftBout([came, came, came])).toBe(true);
  });
  test('not while someone is still in a session, has not come yet, or nobody is known', () => {
    expect(everyoneLeftBout([came, here])).toBe(false);
    expect(everyoneLeftBout([came, never])).toBe(false);
    expect(everyoneLeftBout([never, never])).toBe(false);
    expect(everyoneLeftBout([])).toBe(false);
  });
});

describe('placement', () => {
  test('higher score first; a forfeit is last', () => {
    const placed = placeBout([
      { agentId: 'a', best: { score: 40, submissionId: 's1' } },
      { agentId: 'b', best: { score: 90, submissionId: 's2' } },
      { agentId: 'c', best: null },
    ]);
    expect(placed.status).toBe('complete');
    expect(placed.placements.map((p) => [p.agentId, p.rank, p.outcome])).toEqual([
      ['a', 2, 'loss'],
      ['b', 1, 'win'],
      ['c', 3, 'forfeit'],
    ]);
  });

  test('equal scores share a rank and draw', () => {
    const placed = placeBout([
      { agentId: 'a', best: { score: 70, submissionId: 's1' } },
      { agentId: 'b', best: { score: 70, submissionId: 's2' } },
    ]);
    expect(placed.placements.map((p) => [p.rank, p.outcome])).toEqual([
      [1, 'draw'],
      [1, 'draw'],
    ]);
  });

  test('everyone forfeiting is void', () => {
    const placed = placeBout([
      { agentId: 'a', best: null },
      { agentId: 'b', best: null },
    ]);
    expect(placed.status).toBe('void');
    expect(placed.placements.every((p) => p.outcome === 'forfeit' && p.rank === null)).toBe(true);
  });
});

describe('rating update', () => {
  const fresh = { mu: 25, sigma: 25 / 3 };
  test('the winner gains, the loser loses, both grow more certain', () => {
    const [winner, loser] = rateMatch([
      { skill: fresh, rank: 1 },
      { skill: fresh, rank: 2 },
    ]);
    expect(winner.mu).toBeGreaterThan(25);
    expect(loser.mu).toBeLessThan(25);
    expect(winner.sigma).toBeLessThan(25 / 3);
    expect(winner.ordinal).toBeCloseTo(winner.mu - 3 * winner.sigma, 9);
  });

  test("a rating's ordinal is openskill's own (computed without loading it)", () => {
    const { ordinal, rating } = jest.requireActual<typeof import('openskill')>('openskill');
    for (const skill of [
      fresh,
      { mu: 31.7, sigma: 2.25 },
      { mu: -4.5, sigma: 7.125 },
      { mu: 25.000001, sigma: 0.1 },
    ])
      expect(ratingView(skill).ordinal).toBe(ordinal(rating(skill)));
  });

  test('a draw between equals moves no mean', () => {
    const [a, b] = rateMatch([
      { skill: fresh, rank: 1 },
      { skill: fresh, rank: 1 },
    ]);
    expect(a.mu).toBeCloseTo(25, 9);
    expect(b.mu).toBeCloseTo(25, 9);
  });

  test('a forfeit counts as last place', () => {
    expect(ratingRank({ rank: 2, outcome: 'forfeit' }, 3)).toBe(3);
    expect(ratingRank({ rank: 1, outcome: 'win' }, 3)).toBe(1);
  });
});

describe('matchmaking rounds', () => {
  test('nearest ordinals meet (jitter is small)', () => {
    const plan = planRound({
      candidates: [candidate('a', 0), candidate('b', 30), candidate('c', 1), candidate('d', 31)],
      pairs: [],
      settings,
      nowMs: now,
      seed: 's1',
    });
    expect(plan.groups.map((g) => [...g].sort())).toEqual(
      expect.arrayContaining([
        ['a', 'c'],
        ['b', 'd'],
      ]),
    );
    expect(plan.waiting).toEqual([]);
  });

  test('provisional agents are grouped first when someone must wait', () => {
    const plan = planRound({
      candidates: [
        candidate('old1', 10),
        candidate('old2', 10.5),
        candidate('new', 0, { provisional: true }),
      ],
      pairs: [],
      settings,
      nowMs: now,
      seed: 's2',
    });
    expect(plan.groups).toHaveLength(1);
    expect(plan.groups[0]).toContain('new');
    expect(plan.waiting).toHaveLength(1);
  });

  test('a recent pair meets only when no other grouping exists', () => {
    const recent = { a: 'a', b: 'b', countLastDay: 1, lastMetAtMs: now - 5 * 60_000 };
    const withOthers = planRound({
      candidates: [candidate('a', 0), candidate('b', 0.1), candidate('c', 5), candidate('d', 5.1)],
      pairs: [recent],
      settings,
      nowMs: now,
      seed: 's3',
    });
    expect(withOthers.groups.some((g) => g.includes('a') && g.includes('b'))).toBe(false);
    const alone = planRound({
      candidates: [candidate('a', 0), candidate('b', 0.1)],
      pairs: [recent],
      settings,
      nowMs: now,
      seed: 's3',
    });
    expect(alone.groups.map((g) => [...g].sort())).toEqual([['a', 'b']]);
  });

  test('a pair at its daily cap never meets; an agent at its hourly cap waits', () => {
    const capped = planRound({
      candidates: [candidate('a', 0), candidate('b', 0.1)],
      pairs: [{ a: 'a', b: 'b', countLastDay: 6, lastMetAtMs: now - 10 * 3_600_000 }],
      settings,
      nowMs: now,
      seed: 's4',
    });
    expect(capped.groups).toEqual([]);
    expect(capped.waiting.map((w) => w.reason)).toEqual(['no_opponent', 'no_opponent']);
    const hourly = planRound({
      candidates: [candidate('a', 0, { matchesLastHour: 6 }), candidate('b', 0.1), candidate('c', 0.2)],
      pairs: [],
      settings,
      nowMs: now,
      seed: 's4',
    });
    expect(hourly.waiting).toEqual([{ agent_id: 'a', reason: 'hourly_cap' }]);
    expect(hourly.groups.map((g) => [...g].sort())).toEqual([['b', 'c']]);
  });

  // Issue 38, finding 2: one user kept only their two agents online and farmed a rated win.
  test("agents of one owner are never grouped, even as each other's only opponent", () => {
    const twins = planRound({
      candidates: [
        candidate('a1', 0, { ownerUserId: 'alice' }),
        candidate('a2', 0.1, { ownerUserId: 'alice' }),
        candidate('b', 5, { ownerUserId: 'bob' }),
        candidate('c', 5.1, { ownerUserId: 'carol' }),
      ],
      pairs: [],
      settings,
      nowMs: now,
      seed: 's5',
    });
    expect(twins.groups).toHaveLength(2);
    for (const group of twins.groups) expect(group.includes('a1') && group.includes('a2')).toBe(false);
    const alone = planRound({
      candidates: [
        candidate('a1', 0, { ownerUserId: 'alice' }),
        candidate('a2', 0.1, { ownerUserId: 'alice' }),
      ],
      pairs: [],
      settings,
      nowMs: now,
      seed: 's5',
    });
    expect(alone.groups).toEqual([]);
    expect(alone.waiting).toEqual([
      { agent_id: 'a1', reason: 'no_opponent' },
      { agent_id: 'a2', reason: 'no_opponent' },
    ]);
    const three = planRound({
      candidates: [
        candidate('a1', 0, { ownerUserId: 'alice' }),
        candidate('b', 0.1, { ownerUserId: 'bob' }),
        candidate('a2', 0.2, { ownerUserId: 'alice' }),
        candidate('c', 0.3, { ownerUserId: 'carol' }),
      ],
      pairs: [],
      settings: { ...settings, players: 3 },
      nowMs: now,
      seed: 's6',
    });
    expect(three.groups).toHaveLength(1);
    expect(three.groups[0].filter((id) => id.startsWith('a'))).toHaveLength(1);
  });

  // Issue 42: the greedy pass paired a1-b1 and a2-b2, left c1 and c2 (one owner) waiting, and the
  // bench's round of three owners with two agents each scheduled 2 matches instead of 3.
  test('pairable agents of distinct owners are not left waiting by the greedy pass', () => {
    const owners = [
      candidate('a1', 0, { ownerUserId: 'alice' }),
      candidate('b1', 0.5, { ownerUserId: 'bob' }),
      candidate('a2', 10, { ownerUserId: 'alice' }),
      candidate('b2', 10.5, { ownerUserId: 'bob' }),
      candidate('c1', 20, { ownerUserId: 'carol' }),
      candidate('c2', 20.5, { ownerUserId: 'carol' }),
    ];
    const plan = planRound({ candidates: owners, pairs: [], settings, nowMs: now, seed: 's7' });
    expect(plan.waiting).toEqual([]);
    expect(plan.groups).toHaveLength(3);
    const ownerOf = new Map(owners.map((c) => [c.agentId, c.ownerUserId]));
    for (const group of plan.groups) expect(new Set(group.map((id) => ownerOf.get(id))).size).toBe(2);
    expect(plan.groups.flat().sort()).toEqual(['a1', 'a2', 'b1', 'b2', 'c1', 'c2']);
    // Groups of three: a1, c1, d1 group first; a2, b1, b2 hold two of bob's; b1 takes d1's seat
    // and d1 groups with a2 and b2.
    const trios = planRound({
      candidates: [
        candidate('a1', 0, { ownerUserId: 'alice' }),
        candidate('c1', 0.5, { ownerUserId: 'carol' }),
        candidate('d1', 1, { ownerUserId: 'dave' }),
        candidate('a2', 20, { ownerUserId: 'alice' }),
        candidate('b1', 20.5, { ownerUserId: 'bob' }),
        candidate('b2', 21, { ownerUserId: 'bob' }),
      ],
      pairs: [],
      settings: { ...settings, players: 3 },
      nowMs: now,
      seed: 's8',
    });
    expect(trios.groups).toHaveLength(2);
    expect(trios.waiting).toEqual([]);
  });

  // A repair never makes a rematch: the rematch window keeps its meaning for the swapped members.
  test('the repair does not pair a recent pair', () => {
    const recent = (a: string, b: string) => ({ a, b, countLastDay: 1, lastMetAtMs: now - 5 * 60_000 });
    const plan = planRound({
      candidates: [
        candidate('a1', 0, { ownerUserId: 'alice' }),
        candidate('b1', 0.5, { ownerUserId: 'bob' }),
        candidate('c1', 20, { ownerUserId: 'carol' }),
        candidate('c2', 20.5, { ownerUserId: 'carol' }),
      ],
      pairs: [recent('a1', 'c1'), recent('a1', 'c2'), recent('b1', 'c1'), recent('b1', 'c2')],
      settings,
      nowMs: now,
      seed: 's9',
    });
    expect(plan.groups.map((g) => [...g].sort())).toEqual([['a1', 'b1']]);
  });

  test('groups of more players, and the same seed gives the same round', () => {
    const input = {
      candidates: ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((id, i) => candidate(id, i)),
      pairs: [],
      settings: { ...settings, players: 3 },
      nowMs: now,
      seed: 'same',
    };
    const plan = planRound(input);
    expect(plan.groups).toHaveLength(2);
    expect(plan.groups.every((g) => g.length === 3)).toBe(true);
    expect(plan.waiting).toHaveLength(1);
    expect(planRound(input)).toEqual(plan);
  });
});
