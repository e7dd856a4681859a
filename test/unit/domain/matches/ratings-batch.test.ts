/**
 * The single writer's batch (ratings.ts foldRatings): applying a class's pending matches in one
 * fold gives exactly the figures of applying them one at a time in completion order, each from
 * the ratings the previous one stored (the writer before issue 42), counts and dates included.
 */
import {
  foldRatings,
  groupPendingRows,
  type PendingRatedMatch,
} from '../../../../src/domain/matches/ratings';
import {
  INITIAL_SKILL,
  rateMatch,
  ratingRank,
  ratingView,
  type Skill,
} from '../../../../src/domain/matches/rules';

type Outcome = 'win' | 'loss' | 'draw' | 'forfeit';

/** A deterministic spread of 2- to 4-player matches over 7 agents, some draws and forfeits. */
function matches(n: number): PendingRatedMatch[] {
  let seed = 42;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
  const out: PendingRatedMatch[] = [];
  for (let i = 0; i < n; i++) {
    const players = 2 + (next() % 3);
    const agents = [...new Set(Array.from({ length: players * 2 }, () => `agent-${next() % 7}`))].slice(
      0,
      players,
    );
    if (agents.length < 2) continue;
    const draw = next() % 5 === 0;
    out.push({
      matchId: `match-${i}`,
      completedSeq: String(i + 1),
      completedAt: i % 9 === 0 ? null : new Date(Date.UTC(2026, 10, 1, 0, i)),
      participants: agents.map((agentId, seat) => {
        const forfeit = !draw && seat > 0 && next() % 6 === 0;
        const outcome: Outcome = draw ? 'draw' : forfeit ? 'forfeit' : seat === 0 ? 'win' : 'loss';
        return { agentId, rank: forfeit ? null : draw ? 1 : seat + 1, outcome };
      }),
    });
  }
  return out;
}

/** The reference: one match at a time, as the writer did it (read, rate, store, next). */
function oneByOne(pending: PendingRatedMatch[], stored: Map<string, Skill>, now: Date) {
  const ratings = new Map(
    [...stored].map(([id, s]) => [
      id,
      { ...ratingView(s), matches: 3, wins: 1, draws: 1, losses: 1, at: null as Date | null },
    ]),
  );
  const changes: { matchId: string; agentId: string; before: unknown; after: unknown }[] = [];
  for (const match of pending) {
    const before = match.participants.map((p) => ratings.get(p.agentId) ?? INITIAL_SKILL);
    const after = rateMatch(
      match.participants.map((p, i) => ({
        skill: before[i],
        rank: ratingRank(p, match.participants.length),
      })),
    );
    match.participants.forEach((p, i) => {
      changes.push({
        matchId: match.matchId,
        agentId: p.agentId,
        before: ratingView(before[i]),
        after: after[i],
      });
      const old = ratings.get(p.agentId) ?? { matches: 0, wins: 0, draws: 0, losses: 0 };
      const outcome = p.outcome ?? 'forfeit';
      ratings.set(p.agentId, {
        ...after[i],
        matches: old.matches + 1,
        wins: old.wins + (outcome === 'win' ? 1 : 0),
        draws: old.draws + (outcome === 'draw' ? 1 : 0),
        losses: old.losses + (outcome === 'loss' || outcome === 'forfeit' ? 1 : 0),
        at: match.completedAt ?? now,
      });
    });
  }
  return { changes, ratings };
}

describe('foldRatings', () => {
  const now = new Date('2026-11-29T00:00:00Z');
  const stored = new Map<string, Skill>([
    ['agent-1', { mu: 27.5, sigma: 6.1 }],
    ['agent-4', { mu: 21.2, sigma: 7.9 }],
  ]);

  test('200 matches in one fold: every before/after and every final rating identical to one at a time', () => {
    const pending = matches(200);
    const batch = foldRatings(pending, stored, now);
    const reference = oneByOne(pending, stored, now);

    expect(batch.changes).toEqual(reference.changes);
    for (const [agentId, a] of batch.agents) {
      const r = reference.ratings.get(agentId)!;
      const base = stored.has(agentId)
        ? { matches: 3, wins: 1, draws: 1, losses: 1 }
        : { matches: 0, wins: 0, draws: 0, losses: 0 };
      // Exact equality: the same operations on the same doubles in the same order.
      expect(a.after).toEqual({ mu: r.mu, sigma: r.sigma, ordinal: r.ordinal });
      expect({
        matches: base.matches + a.matches,
        wins: base.wins + a.wins,
        draws: base.draws + a.draws,
        losses: base.losses + a.losses,
      }).toEqual({ matches: r.matches, wins: r.wins, draws: r.draws, losses: r.losses });
      expect(a.lastMatchAt).toEqual(r.at);
    }
    expect(batch.agents.size).toBe(
      new Set(pending.flatMap((m) => m.participants.map((p) => p.agentId))).size,
    );
  });

  test('splitting the pending matches into two runs of the writer gives the same ratings as one run', () => {
    const pending = matches(60);
    const whole = foldRatings(pending, stored, now);
    const first = foldRatings(pending.slice(0, 25), stored, now);
    const between = new Map(stored);
    for (const [id, a] of first.agents) between.set(id, a.after);
    const second = foldRatings(pending.slice(25), between, now);
    expect([...first.changes, ...second.changes]).toEqual(whole.changes);
    for (const [id, a] of second.agents) expect(a.after).toEqual(whole.agents.get(id)!.after);
  });

  test('the order of the matches matters, and the fold keeps the order it is given', () => {
    const pending = matches(20);
    const forward = foldRatings(pending, new Map(), now);
    const backward = foldRatings([...pending].reverse(), new Map(), now);
    expect(forward.changes.map((c) => c.matchId)).toEqual(
      pending.flatMap((m) => m.participants.map(() => m.matchId)),
    );
    expect([...forward.agents].map(([, a]) => a.after)).not.toEqual(
      [...forward.agents].map(([id]) => backward.agents.get(id)!.after),
    );
  });
});

describe('groupPendingRows', () => {
  test('rows in completion order then seat become one match each, order kept', () => {
    const row = (match_id: string, seq: string, agent_id: string, seat: number) => ({
      match_id,
      completed_seq: seq,
      completed_at: null,
      agent_id,
      seat,
      rank: seat,
      outcome: (seat === 1 ? 'win' : 'loss') as Outcome,
    });
    const grouped = groupPendingRows([
      row('m2', '5', 'a', 1),
      row('m2', '5', 'b', 2),
      row('m1', '7', 'b', 1),
      row('m1', '7', 'c', 2),
      row('m1', '7', 'a', 3),
    ]);
    expect(grouped.map((m) => [m.matchId, m.completedSeq, m.participants.map((p) => p.agentId)])).toEqual([
      ['m2', '5', ['a', 'b']],
      ['m1', '7', ['b', 'c', 'a']],
    ]);
  });
});
