/**
 * Pages hold match outcomes (DESIGN "Fifth-round extensions", "Pages hold match outcomes";
 * docs/decisions/arena.md): the one rule every HTML page applies to a match and to the ratings it
 * moved. Until `completed_at` + the spectator delay a finished match is shown as still going, with
 * no outcome, placement, score, rating change or completion time, and the ratings it changed are
 * shown as they stood before it; operators see everything at once. Pure: the pages' reads
 * (shown.ts) fetch the rows, this decides; views reach it through policy.ts (who may see what,
 * when). The JSON API does not apply it (results at completion).
 */
import type { MatchView } from './views';
import type { RatingView } from './rules';

/** Who looks: operators see outcomes at once (policy.ts `seesOutcomesAtOnce`), everyone else held. */
export interface OutcomeViewer {
  atOnce: boolean;
}

/** One page's view of the hold: who looks, the moment the page is rendered, the spectator delay. */
export interface PageHold {
  viewer: OutcomeViewer;
  now: Date;
  delayMs: number;
}

/** When a finished match's outcome may be shown to a held viewer; null while it is not finished. */
export function holdEndsAt(
  match: { status: string; completed_at: string | Date | null },
  delayMs: number,
): Date | null {
  if (match.status !== 'complete' && match.status !== 'void') return null;
  if (!match.completed_at) return null;
  return new Date(new Date(match.completed_at).getTime() + delayMs);
}

/** Whether this viewer, at `now`, must not yet learn that the match has ended. */
export function isHeld(
  match: { status: string; completed_at: string | Date | null },
  viewer: OutcomeViewer,
  now: Date,
  delayMs: number,
): boolean {
  if (viewer.atOnce) return false;
  const end = holdEndsAt(match, delayMs);
  return end !== null && now.getTime() < end.getTime();
}

/**
 * The match as this viewer may see it at `now`. A held match reads as one still going: `running`
 * (or `scheduled` if it never left it), no reason, completion time or result id, and per
 * participant no submission, score, rank, outcome or rating after. `ends_at` stays: it is the
 * bout's scheduled end, known before it started, and says nothing of how or when it ended.
 */
export function shownMatch(
  match: MatchView,
  viewer: OutcomeViewer,
  now: Date,
  delayMs: number,
): { match: MatchView; held: boolean } {
  if (!isHeld(match, viewer, now, delayMs)) return { match, held: false };
  return {
    held: true,
    match: {
      ...match,
      status: match.status === 'scheduled' ? 'scheduled' : 'running',
      reason: null,
      completed_at: null,
      result_id: null,
      participants: match.participants.map((p) => ({
        ...p,
        submission_id: null,
        score: null,
        rank: null,
        outcome: null,
        rating_after: null,
      })),
    },
  };
}

/**
 * One agent's part in a rated complete match that finished recently (the pages' read of what may
 * still be held): `rating_before` is null until the rating step has applied the match.
 */
export interface RecentRatedOutcome {
  match_id: string;
  challenge_id: string;
  agent_id: string;
  outcome: 'win' | 'loss' | 'draw' | 'forfeit' | null;
  completed_at: Date;
  /** Completion order within the weight class (the order ratings are applied in). */
  completed_seq: number;
  rating_before: RatingView | null;
}

/** The outcomes of `recent` this viewer may not see yet, by agent, in completion order. */
export function heldOutcomesByAgent(
  recent: readonly RecentRatedOutcome[],
  viewer: OutcomeViewer,
  now: Date,
  delayMs: number,
): Map<string, RecentRatedOutcome[]> {
  const byAgent = new Map<string, RecentRatedOutcome[]>();
  for (const o of [...recent].sort((a, b) => a.completed_seq - b.completed_seq)) {
    if (!isHeld({ status: 'complete', completed_at: o.completed_at }, viewer, now, delayMs)) continue;
    const list = byAgent.get(o.agent_id) ?? [];
    list.push(o);
    byAgent.set(o.agent_id, list);
  }
  return byAgent;
}

/** A weight-class rating and the record that moves with it. */
export interface RatingRecord {
  mu: number;
  sigma: number;
  ordinal: number;
  /** Rated matches applied to this rating. */
  matches: number;
  wins: number;
  draws: number;
  losses: number;
}

const tally = (outcomes: readonly RecentRatedOutcome[]) => ({
  matches: outcomes.length,
  wins: outcomes.filter((o) => o.outcome === 'win').length,
  draws: outcomes.filter((o) => o.outcome === 'draw').length,
  losses: outcomes.filter((o) => o.outcome === 'loss' || o.outcome === 'forfeit').length,
});

/**
 * A stored rating as it stood before the agent's held matches: the rating before the first held
 * match the rating step has applied (later ones were applied on top of it), and the record without
 * the applied held matches. Null when every rated match of the agent is held (not rated yet, as
 * far as the viewer may know). Held matches not applied yet have not moved the stored rating.
 */
export function ratingBeforeHeld<R extends RatingRecord>(
  rating: R,
  held: readonly RecentRatedOutcome[] | undefined,
): R | null {
  const applied = (held ?? []).filter((o) => o.rating_before !== null);
  if (applied.length === 0) return rating;
  const t = tally(applied);
  if (rating.matches - t.matches <= 0) return null;
  const before = applied[0].rating_before!;
  return {
    ...rating,
    mu: before.mu,
    sigma: before.sigma,
    ordinal: before.ordinal,
    matches: rating.matches - t.matches,
    wins: rating.wins - t.wins,
    draws: rating.draws - t.draws,
    losses: rating.losses - t.losses,
  };
}

/** A challenge's rated record of an agent without its held matches of that challenge. */
export function recordBeforeHeld(
  record: { matches: number; wins: number; draws: number; losses: number },
  held: readonly RecentRatedOutcome[] | undefined,
  challengeId: string,
): { matches: number; wins: number; draws: number; losses: number } {
  const t = tally((held ?? []).filter((o) => o.challenge_id === challengeId));
  return {
    matches: record.matches - t.matches,
    wins: record.wins - t.wins,
    draws: record.draws - t.draws,
    losses: record.losses - t.losses,
  };
}

/** Rows ranked by the rating shown: highest ordinal first, agent id breaking ties (as the reads). */
export function byShownOrdinal<R extends { agent_id: string; ordinal: number }>(rows: R[]): R[] {
  return [...rows].sort(
    (a, b) => b.ordinal - a.ordinal || (a.agent_id < b.agent_id ? -1 : a.agent_id > b.agent_id ? 1 : 0),
  );
}
