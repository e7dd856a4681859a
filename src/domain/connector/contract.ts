/**
 * The spectator-relay workflow's contract: names, id and payloads shared by the API (which starts
 * and nudges the relay), the workflow file and its activity. Plain values only: this module is also
 * bundled into the deterministic workflow sandbox.
 */
export const SPECTATOR_RELAY_WORKFLOW = 'spectatorRelayWorkflow';
export const LIVE_EVENTS_ARRIVED_SIGNAL = 'liveEventsArrived';

// ---- the relay's timing: when it looks, decided here (the delay itself is SPECTATOR_DELAY_MS) ------
/** The timer wakes this long before the oldest pending event is due... */
export const RELAY_TIMER_LEAD_MS = 1_000;
/** ...and the release step then keeps releasing, on time, whatever falls due within this window. */
export const RELAY_HOLD_MS = 2_000;
/** Releases within the hold window are batched by this grain (one transaction per grain). */
export const RELAY_BATCH_WINDOW_MS = 100;
/** A run with nothing pending ends after this long (the next event starts a new one). */
export const RELAY_IDLE_TIMEOUT_MS = 10 * 60_000;
/** Steps per run before continuing as new. */
export const RELAY_MAX_ITERATIONS = 500;

export const spectatorRelayWorkflowId = (challengeId: string): string => `spectator-relay-${challengeId}`;

export interface SpectatorRelayInput {
  challengeId: string;
  /** Release delay in ms, from the API's configuration (SPECTATOR_DELAY_MS). */
  delayMs: number;
  /** The run completes after this long without pending events or signals (default 10 min). */
  idleTimeoutMs?: number;
  /** Continue-as-new after this many relay steps (default 500), or earlier when Temporal suggests it. */
  maxIterations?: number;
  /**
   * Batching grain (default 100 ms): events falling due within it leave in one release
   * transaction, so a busy challenge costs a few transactions per second, not one per event, and
   * each API process writes each open stream at most ~10 times a second (one socket write per
   * stream per release is what a spectator fan-out costs: bench/spectators.ts).
   */
  batchWindowMs?: number;
  /** The release step's hold window (default RELAY_HOLD_MS; SPECTATOR_RELAY_HOLD_MS). */
  holdMs?: number;
  /** How early the relay's timer wakes before the oldest pending event is due (default RELAY_TIMER_LEAD_MS). */
  timerLeadMs?: number;
}

/** Signal payload: a nudge. State lives in the database; the delay rides along so a config change reaches a running relay. */
export interface LiveEventsArrivedSignal {
  delayMs?: number;
}

export interface SpectatorRelayResult {
  steps: number;
  released: number;
  ended: 'idle' | 'challenge_closed';
}

/** The release step's input (a local activity of the relay). */
export interface ReleaseDueInput {
  challengeId: string;
  delayMs: number;
  /**
   * Keep releasing inside this step while the next event falls due within this many ms of the
   * step's start (default 0: one pass). Lets the workflow wake a little early with one timer and
   * still release each event at its exact due time, whatever the timer's lateness.
   */
  holdMs?: number;
  /** While holding, at most one release transaction per this many ms (default 50): the batching grain. */
  granularityMs?: number;
}
