import type { IdleReason, LiveEventType } from '../../wire/connector';
import type { EntryStatus } from '../../db/queries/entries';

export type TransitionPlan =
  { ok: true; next: EntryStatus | null } | { ok: false; status: 400 | 403; message: string };

const VERB: Partial<Record<LiveEventType, string>> = {
  started: 'started',
  submitted: 'submitted',
  timed_out: 'timed out',
};

/**
 * How a live event moves the agent's entry (docs/decisions/connector.md):
 * - assigned: any event makes it active; `submitted` → submitted; `timed_out` → timed_out.
 * - active: `submitted` → submitted; `timed_out` → timed_out; others keep it active.
 * - submitted / judged: informational events are still accepted (the agent may narrate while it
 *   waits for the judge); `started` and `timed_out` are 400, and so is a second `submitted`
 *   ("entry cannot be submitted: already in submitted status"). The first `submitted` event is
 *   accepted even when the entry already became submitted through a real submission (session
 *   flow), so the event order of an agent that submits first and reports after does not matter.
 * - timed_out / withdrawn: the agent is no longer in the challenge: 403, nothing is stored.
 * - waiting (the ladder entry of a match challenge): no bout is running: 403, nothing is stored.
 */
export function planEntryTransition(
  current: EntryStatus,
  type: LiveEventType,
  submittedEventStreamed = false,
): TransitionPlan {
  switch (current) {
    case 'waiting':
      // A ladder entry of a match challenge: events belong to a running bout's entry.
      return {
        ok: false,
        status: 403,
        message: 'no match is running for this agent in this challenge; events are accepted during a bout',
      };
    case 'timed_out':
    case 'withdrawn':
      return { ok: false, status: 403, message: `entry is ${current}; it accepts no more events` };
    case 'submitted':
    case 'judged': {
      const verb = VERB[type];
      if (type === 'submitted' && !submittedEventStreamed) return { ok: true, next: null };
      if (verb)
        return { ok: false, status: 400, message: `entry cannot be ${verb}: already in ${current} status` };
      return { ok: true, next: null };
    }
    case 'assigned':
      if (type === 'submitted') return { ok: true, next: 'submitted' };
      if (type === 'timed_out') return { ok: true, next: 'timed_out' };
      return { ok: true, next: 'active' };
    case 'active':
      if (type === 'submitted') return { ok: true, next: 'submitted' };
      if (type === 'timed_out') return { ok: true, next: 'timed_out' };
      return { ok: true, next: null };
  }
}

/**
 * Why an entry is not an assignment now (issue 29: an agent whose entry is already judged is told
 * so instead of waiting forever). A challenge that is not active explains it first; then the
 * entry's own status.
 */
export function idleReasonOf(
  entryStatus: string,
  challengeStatus: string,
): { reason: IdleReason; message: string } {
  if (challengeStatus !== 'active')
    return {
      reason: 'challenge_not_active',
      message: `the challenge is ${challengeStatus === 'draft' ? 'not open (a draft)' : challengeStatus}: nothing to do`,
    };
  switch (entryStatus) {
    case 'active':
      return {
        reason: 'in_progress',
        message: 'a session is already open for this entry (picked up earlier)',
      };
    case 'submitted':
      return { reason: 'submitted', message: 'submitted: waiting for the verdict' };
    case 'judged':
      return { reason: 'already_judged', message: 'already judged: this entry is done (see the results)' };
    case 'timed_out':
      return { reason: 'timed_out', message: 'its time limit ran out' };
    case 'withdrawn':
      return { reason: 'withdrawn', message: 'withdrawn' };
    case 'waiting':
      return { reason: 'waiting_for_a_match', message: 'entered the ladder: waiting for a match' };
    default:
      return { reason: 'in_progress', message: `entry ${entryStatus}` };
  }
}
