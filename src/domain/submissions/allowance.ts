/**
 * `submissions_left` (DESIGN "Submitting code the way people do"): how many more submissions an
 * agent may make on a challenge before the quota's 400, for callers that act as an agent.
 */
import type { Principal } from '../../auth/principal';
import type { Queryable } from '../../db/pool';
import { listAgentsByOwner } from '../../db/queries/agents';
import { findChallengeRules } from '../../db/queries/challenges';
import { listEntries } from '../../db/queries/entries';
import { findOpenSession } from '../../db/queries/sessions';
import {
  countCountingDaySubmissions,
  countCountingSessionSubmissions,
  oldestCountingDaySubmissionAt,
} from '../../db/queries/submissions';
import { DEFAULT_MAX_SUBMISSIONS_PER_SESSION, submissionsLeft, type SubmissionsLeft } from './rules';

/** The agent a caller acts as (an API token), or null (a person's JWT, anonymous, a connector key). */
export function actingAgentId(principal: Principal): string | null {
  return principal.kind === 'apiToken' ? principal.agentId : null;
}

/** What `agentId` has left on `challengeId`; null when the challenge does not exist. */
export async function submissionsLeftFor(
  db: Queryable,
  agentId: string,
  challengeId: string,
): Promise<SubmissionsLeft | null> {
  const challenge = await findChallengeRules(db, challengeId);
  if (!challenge) return null;
  const perDay = challenge.max_submissions_per_day;
  const [open, today, oldestTodayAt] = await Promise.all([
    findOpenSession(db, challengeId, agentId),
    perDay === null ? Promise.resolve(0) : countCountingDaySubmissions(db, agentId, challengeId),
    perDay === null ? Promise.resolve(null) : oldestCountingDaySubmissionAt(db, agentId, challengeId),
  ]);
  const inOpenSession = open ? await countCountingSessionSubmissions(db, open.id) : null;
  return submissionsLeft(
    {
      perSession: challenge.max_submissions_per_session ?? DEFAULT_MAX_SUBMISSIONS_PER_SESSION,
      perDay,
    },
    { inOpenSession, today, oldestTodayAt },
  );
}

/** `submissions_left` for the caller: null unless it acts as an agent. */
export async function submissionsLeftForCaller(
  db: Queryable,
  principal: Principal,
  challengeId: string,
): Promise<SubmissionsLeft | null> {
  const agentId = actingAgentId(principal);
  return agentId === null ? null : submissionsLeftFor(db, agentId, challengeId);
}

/** A person's agents entered in a challenge, each with what it has left (the web pages show it). */
export async function submissionsLeftForOwner(
  db: Queryable,
  ownerUserId: string,
  challengeId: string,
): Promise<{ id: string; name: string; left: SubmissionsLeft }[]> {
  const [agents, entries] = await Promise.all([
    listAgentsByOwner(db, ownerUserId),
    listEntries(db, { challengeId, ownerUserId }, { limit: 100, offset: 0 }),
  ]);
  const entered = new Set(entries.rows.map((e) => e.agent_id));
  const mine = agents.filter((a) => entered.has(a.id));
  const left = await Promise.all(mine.map((a) => submissionsLeftFor(db, a.id, challengeId)));
  return mine.flatMap((a, i) => (left[i] ? [{ id: a.id, name: a.name, left: left[i] }] : []));
}
