/**
 * The arena's workflow contracts: the match workflow (one per match, id `match-<uuid>`) and the
 * matchmaker (one per active match challenge, id `matchmaker-<challengeId>`, continue-as-new).
 * Plain strings and interfaces (the deterministic workflow bundle imports this file).
 */

export const MATCH_WORKFLOW = 'matchWorkflow';
export const MATCHMAKER_WORKFLOW = 'matchmakerWorkflow';
/** An operator voided the match (the database already says so): the workflow finishes now. */
export const MATCH_VOID_SIGNAL = 'matchVoided';
/** Someone's session closed or a submission was judged: look again now instead of at the next poll. */
export const MATCH_NUDGE_SIGNAL = 'matchNudge';

/**
 * A void reaching a running game match cancels its activities (the referee stops and its players'
 * sandboxes are killed); histories recorded before this patch kept waiting for the games to end.
 */
export const GAME_VOID_CANCELS_PATCH = 'game-void-cancels-play';

/**
 * Every match has an absolute deadline past which the service voids it, and a step that failed for
 * good voids it with the failure (issue 37); histories recorded before waited as long as it took.
 */
export const MATCH_DEADLINE_PATCH = 'match-deadline';
/**
 * A bout's nudge that arrives while it looks is kept for its next wait (that wait ends at once).
 * Before it, the wait cleared it first, so the second participant's closed session, signalled
 * during the look the first one's caused, was noticed only at the next poll.
 */
export const BOUT_NUDGE_KEPT_PATCH = 'bout-nudge-kept';

/**
 * A bout's look, once it finds the bout over, also ends and settles it and applies the class's
 * ratings in the same activity (matchLookOrFinish), and a bout still waiting for its judging waits
 * on its nudge or poll instead of sleeping the poll. Before it: the look, the end, the settlement
 * and the ratings were four activities, each a Temporal round trip (issue 42: played matches).
 */
export const BOUT_ONE_STEP_PATCH = 'bout-finish-in-one-step';

/**
 * The match's own steps (its start, looks, end, settlement, ratings and the service's void) run as
 * local activities in the workflow task that asks for them: each was a remote activity, a round
 * trip through Temporal's matching service and a workflow task of its own (issue 42: a played
 * match cost Temporal as much CPU as its two judged submissions). Game play and its slots stay
 * remote (long, heartbeated, on the judging task queue). Histories recorded before it keep remote steps.
 */
export const MATCH_LOCAL_STEPS_PATCH = 'match-local-steps';

/**
 * A run started since records this one marker for every patch above (each `patched()` a run takes
 * is a marker and a search-attribute upsert of TemporalChangeVersion, which the Temporal server
 * writes to visibility: four of each per played match, issue 42). Runs recorded before it replay
 * as they were: without this marker the workflow asks each older patch in turn, as it did.
 */
export const MATCH_CURRENT_SHAPE_PATCH = 'match-shape-2026-11';

/** A look that may also have finished the bout: `settle` is set once it ended and settled it. */
export interface LookOrFinish {
  look: MatchSnapshot;
  settle: SettleOutcome | null;
  /** The class's ratings were applied after a rated completion (the workflow need not). */
  ratingsApplied: boolean;
}

export function matchWorkflowId(matchId: string): string {
  return `match-${matchId}`;
}
export function matchmakerWorkflowId(challengeId: string): string {
  return `matchmaker-${challengeId}`;
}

export interface MatchWorkflowInput {
  matchId: string;
}

export type MatchPhase = 'missing' | 'scheduled' | 'running' | 'complete' | 'void';

/** What the match's steps report back: the database's state, and how long to wait next. */
export interface MatchSnapshot {
  status: MatchPhase;
  /** A game match is played by the service (absent in histories recorded before games: a bout). */
  kind?: 'bout' | 'game';
  /** ISO 8601: the bout's end (null until it starts). */
  endsAt: string | null;
  /** ISO 8601: the match's absolute deadline (absent in older histories; a game's is set at its slots' grant). */
  deadlineAt?: string | null;
  /** The bout is over (ends_at passed, everyone opened and closed a session, or voided). */
  boutOver: boolean;
  /** How long to wait before looking again (configuration: shortened in tests only). */
  pollMs: number;
  weightClassId: string | null;
  rated: boolean;
}

/** After the bout: settled (placed, complete or void) or still waiting for judging within the grace. */
export interface SettleOutcome {
  settled: boolean;
  status: MatchPhase;
  pollMs: number;
  rated: boolean;
  weightClassId: string | null;
}

export type MatchWorkflowOutcome = 'complete' | 'void' | 'missing';

/** A poll loop carries at most this many looks per run before continuing as new. */
export const MATCH_MAX_POLLS_PER_RUN = 500;

export interface MatchmakerInput {
  challengeId: string;
  /** The next round's number (carried over continue-as-new). */
  round: number;
  /** Rounds per run before continuing as new (default MATCHMAKER_ROUNDS_PER_RUN; tests use a small number). */
  roundsPerRun?: number;
}

export interface MatchmakingRoundOutcome {
  /** The challenge is no longer an active match challenge: the matchmaker ends. */
  stop: boolean;
  /** Milliseconds to the next round (every_minutes, scaled in tests only). */
  nextInMs: number;
  matchIds: string[];
}

/** The matchmaker continues as new after this many rounds (bounded history). */
export const MATCHMAKER_ROUNDS_PER_RUN = 50;
