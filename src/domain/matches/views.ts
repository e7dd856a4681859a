/**
 * The arena's public shapes (DESIGN "Matches between agents"), built from rows: the match, its
 * result, a ratings row. Pure; the API's zod schemas check against these types, and pages or the
 * CLI can call the same builders.
 */
import type { MatchRow } from '../../db/queries/matches';
import type { ParticipantRow } from '../../db/queries/match-participants';
import type { RatingListRow } from '../../db/queries/ratings';
import { isProvisional, type RatingView } from './rules';

export interface MatchParticipantView {
  agent_id: string;
  agent_name: string;
  seat: number;
  submission_id: string | null;
  score: number | null;
  rank: number | null;
  outcome: 'win' | 'loss' | 'draw' | 'forfeit' | null;
  rating_before: RatingView | null;
  rating_after: RatingView | null;
}

export interface MatchView {
  id: string;
  challenge_id: string;
  weight_class_id: string;
  kind: 'bout' | 'game';
  status: 'scheduled' | 'running' | 'complete' | 'void';
  rated: boolean;
  reason: string | null;
  participants: MatchParticipantView[];
  scheduled_at: string;
  started_at: string | null;
  ends_at: string | null;
  completed_at: string | null;
  result_id: string | null;
}

export interface MatchResultView {
  id: string;
  kind: 'match';
  match_id: string;
  challenge_id: string;
  result_state: 'scored' | 'void';
  placements: {
    agent_id: string;
    rank: number | null;
    score: number | null;
    outcome: 'win' | 'loss' | 'draw' | 'forfeit' | null;
  }[];
  judged_at: string | null;
}

export interface RatingRowView {
  rank: number;
  agent_id: string;
  agent_name: string;
  mu: number;
  sigma: number;
  ordinal: number;
  matches: number;
  wins: number;
  draws: number;
  losses: number;
  provisional: boolean;
  last_match_at: string | null;
}

const isoOrNull = (d: Date | null) => (d ? d.toISOString() : null);
const num = (v: string | null) => (v === null ? null : Number(v));

/** Scores and outcomes appear once the match is complete (or void), never while it runs. */
export function toMatchView(match: MatchRow, participants: ParticipantRow[]): MatchView {
  const finished = match.status === 'complete' || match.status === 'void';
  return {
    id: match.id,
    challenge_id: match.challenge_id,
    weight_class_id: match.weight_class_id,
    kind: match.kind,
    status: match.status,
    rated: match.rated,
    reason: match.reason,
    participants: participants
      .filter((p) => p.match_id === match.id)
      .sort((a, b) => a.seat - b.seat)
      .map((p) => ({
        agent_id: p.agent_id,
        agent_name: p.agent_name,
        seat: p.seat,
        submission_id: finished ? p.submission_id : null,
        score: finished ? num(p.score) : null,
        rank: finished ? p.rank : null,
        outcome: finished ? p.outcome : null,
        rating_before: p.rating_before,
        rating_after: p.rating_after,
      })),
    scheduled_at: match.scheduled_at.toISOString(),
    started_at: isoOrNull(match.started_at),
    ends_at: isoOrNull(match.ends_at),
    completed_at: isoOrNull(match.completed_at),
    result_id: match.result_id,
  };
}

/** The match result: a finished match only (the caller answers 404 before that). */
export function toMatchResultView(match: MatchRow, participants: ParticipantRow[]): MatchResultView {
  return {
    id: match.result_id ?? match.id,
    kind: 'match',
    match_id: match.id,
    challenge_id: match.challenge_id,
    result_state: match.status === 'complete' ? 'scored' : 'void',
    placements: participants
      .filter((p) => p.match_id === match.id)
      .sort(
        (a, b) =>
          (a.rank ?? Number.MAX_SAFE_INTEGER) - (b.rank ?? Number.MAX_SAFE_INTEGER) || a.seat - b.seat,
      )
      .map((p) => ({ agent_id: p.agent_id, rank: p.rank, score: num(p.score), outcome: p.outcome })),
    judged_at: isoOrNull(match.completed_at),
  };
}

export function toRatingRowView(row: RatingListRow, rank: number): RatingRowView {
  return {
    rank,
    agent_id: row.agent_id,
    agent_name: row.agent_name,
    mu: row.mu,
    sigma: row.sigma,
    ordinal: row.ordinal,
    matches: row.matches,
    wins: row.wins,
    draws: row.draws,
    losses: row.losses,
    provisional: isProvisional(row.matches),
    last_match_at: isoOrNull(row.last_match_at),
  };
}
