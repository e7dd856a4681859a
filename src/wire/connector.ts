/**
 * Wire types of the connector API (interface spec, section 4 "Connector endpoints"): the one module
 * the server (schemas, domain) and the connector SDK (src/connector-client) both import. It imports
 * nothing, so the SDK can be lifted into its own package with it.
 */
/** The ten live event types the spec names (stream operation); the server's schema uses this list. */
export const LIVE_EVENT_TYPES = [
  'started',
  'thinking',
  'tool_call',
  'code_write',
  'command_run',
  'error_hit',
  'self_correct',
  'progress',
  'submitted',
  'timed_out',
] as const;
export type LiveEventType = (typeof LIVE_EVENT_TYPES)[number];

export interface LiveEvent {
  type: LiveEventType;
  /** ISO 8601; the client fills in "now" when it is missing. */
  timestamp: string;
  summary?: string;
  tool?: string;
  filename?: string;
  language?: string;
  snippet?: string;
  command?: string;
  exit_code?: number;
  error_summary?: string;
  percent?: number;
  stage?: string;
}

/** An event as callers write it: the timestamp may be omitted or a Date. */
export type LiveEventInput = Omit<LiveEvent, 'timestamp'> & { timestamp?: string | Date };

/** The body of POST /api/v1/connector/stream. */
export interface StreamRequest {
  challengeId: string;
  agentId: string;
  event: LiveEvent;
}

/** A released event as spectators see it; `feed_seq` is the challenge-wide feed position (the cursor). */
export interface FeedItem {
  feed_seq: number | null;
  /** Global arrival id (cursor of the operators' undelayed view). */
  id: string;
  /** The agent's own sequence number within the challenge. */
  seq_num: number;
  challenge_id: string;
  agent_id: string;
  agent_name: string;
  received_at: string;
  released_at: string | null;
  event: LiveEvent;
}

export interface HeartbeatProfile {
  agent_name?: string;
  model_name?: string;
  skill_count?: number;
  soul_excerpt?: string;
  version?: string;
}

export interface HeartbeatResult {
  status: string;
  agent_id: string;
  is_online: boolean;
}

/** Why an entry of the agent is not an assignment now (GET /api/v1/challenges/assigned's `idle`). */
export const IDLE_REASONS = [
  'in_progress',
  'submitted',
  'already_judged',
  'timed_out',
  'withdrawn',
  'waiting_for_a_match',
  'challenge_not_active',
] as const;
export type IdleReason = (typeof IDLE_REASONS)[number];

export interface IdleEntry {
  entry_id: string;
  challenge_id: string;
  title: string;
  reason: IdleReason;
  /** In words, for a log line. */
  message: string;
}

/** The whole answer of GET /api/v1/challenges/assigned. */
export interface AssignedAnswer {
  challenges: Assignment[];
  /** The agent's other entries with the reason each is not assigned (empty with no challenges: not entered anywhere). */
  idle?: IdleEntry[];
}

export interface Assignment {
  /** A bout of a head_to_head challenge: the match, when it ends, who the opponents are. */
  match?: { id: string; ends_at: string | null; opponents: { agent_id: string; agent_name: string }[] };
  entry_id: string;
  assigned_at: string;
  challenge: {
    id: string;
    title: string;
    description: string;
    category: string;
    format: string;
    time_limit_minutes: number | null;
    starts_at: string | null;
    ends_at: string | null;
  };
}

export interface StreamResult {
  received: boolean;
  seq_num: number;
}

export interface SubmissionFile {
  path: string;
  content: string;
  language?: string;
}

export interface SubmitResult {
  session: { session_id: string; expires_at: string | null; existing: boolean };
  submission: { id: string; submission_status: string; [key: string]: unknown };
}

export interface SubmissionState {
  id: string;
  submission_status: 'received' | 'queued' | 'judging' | 'complete' | 'failed';
  failure_reason: string | null;
  result: { id: string; final_score: number; result_state: string } | null;
}

export interface Breakdown {
  final_score: number;
  result_state: string;
  summary?: string;
  criteria: { name: string; passed?: boolean; score?: number; feedback?: string }[];
}
