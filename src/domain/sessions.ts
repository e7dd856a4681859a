import { createHash } from 'node:crypto';
import type { Pool } from 'pg';
import { ServiceError, notFound } from '../errors';
import { canonicalJson } from '../lib/canonical-json';
import { iso } from '../lib/time';
import type { Principal } from '../auth/principal';
import { withTransaction, type Queryable } from '../db/pool';
import { findChallengeById, type ChallengeRow } from '../db/queries/challenges';
import { upsertEntry } from '../db/queries/entries';
import {
  closeSession,
  findOpenSession,
  findSessionById,
  insertSession,
  type CloseReason,
  type SessionRow,
} from '../db/queries/sessions';
import { findRunningBoutEntry, markEntryActive, type EntryRow } from '../db/queries/entries';
import { emitEvent } from '../events/outbox';
import { enterability } from './challenges/rules';
import { resolveActingAgent } from './identity';
import { isOwnerOrOperator } from './submissions/policy';

/** Why an open session must be closed now (expired, or its challenge stopped being active), or null. */
export function lapseReason(
  session: Pick<SessionRow, 'status' | 'expires_at'>,
  challenge: { status: string; ends_at: Date | null } | null,
  now = new Date(),
): CloseReason | null {
  if (session.status !== 'open') return null;
  if (session.expires_at && session.expires_at.getTime() <= now.getTime()) return 'expired';
  if (
    !challenge ||
    challenge.status !== 'active' ||
    (challenge.ends_at && challenge.ends_at.getTime() <= now.getTime())
  ) {
    return 'challenge_inactive';
  }
  return null;
}

/**
 * What the session was opened against: the challenge version (its updated_at), the judge kind and
 * a hash of the judge config (so a later judge change is detectable without revealing hidden tests).
 */
export function versionSnapshot(challenge: ChallengeRow): Record<string, unknown> {
  const judge = (challenge.judge ?? {}) as { kind?: unknown };
  return {
    challenge_updated_at: challenge.updated_at.toISOString(),
    judge_kind: typeof judge.kind === 'string' ? judge.kind : null,
    judge_hash: createHash('sha256').update(canonicalJson(challenge.judge)).digest('hex').slice(0, 16),
    time_limit_minutes: challenge.time_limit_minutes,
    max_submissions_per_session: challenge.max_submissions_per_session,
    max_submissions_per_day: challenge.max_submissions_per_day,
  };
}

function isOpenSessionConflict(err: unknown): boolean {
  const e = err as { code?: string; constraint?: string };
  return e?.code === '23505' && e.constraint === 'sessions_one_open_idx';
}

export interface OpenedSession {
  session: SessionRow;
  existing: boolean;
}

/**
 * Opens (or returns the open) session of the acting agent for a challenge. Idempotent per
 * (challenge, agent): the unique partial index makes concurrent opens return the same session.
 */
export async function openSession(
  db: Pool,
  principal: Principal,
  challengeId: string,
  requestedAgentId?: string,
): Promise<OpenedSession> {
  const agent = await resolveActingAgent(db, principal, requestedAgentId ?? null);
  const challenge = await findChallengeById(db, challengeId);
  if (!challenge) throw notFound('challenge');
  // Any existing challenge that cannot be entered now (draft/quarantined, complete, archived, not
  // started, ended) is 400 CHALLENGE_NOT_ENTERABLE; only an unknown id is 404.
  const verdict = enterability(challenge);
  if (!verdict.ok) throw new ServiceError('CHALLENGE_NOT_ENTERABLE', verdict.message);
  const sandbox = principal.kind === 'apiToken' && principal.sandbox;
  // head_to_head: only during the agent's running bout, on its bout entry, until the bout's end.
  let bout: (EntryRow & { match_ends_at: Date | null }) | null = null;
  if (challenge.format === 'head_to_head') {
    bout = sandbox ? null : await findRunningBoutEntry(db, challengeId, agent.id);
    if (!bout)
      throw new ServiceError(
        'CHALLENGE_NOT_ENTERABLE',
        'no match is running for this agent in this head_to_head challenge: sessions open only during its bout',
      );
  }

  for (let attempt = 0; attempt < 5; attempt++) {
    const open = await findOpenSession(db, challengeId, agent.id);
    if (open) {
      const lapsed = lapseReason(open, challenge);
      if (!lapsed) return { session: open, existing: true };
      await closeSession(db, open.id, lapsed);
      continue;
    }
    try {
      const created = await withTransaction(db, async (tx) => {
        const { entry, created } = bout
          ? { entry: bout, created: false }
          : await upsertEntry(tx, { challengeId, agentId: agent.id, sandbox });
        if (created || bout) await markEntryActive(tx, entry.id);
        const row = await insertSession(tx, {
          challengeId,
          agentId: agent.id,
          entryId: entry.id,
          sandbox,
          timeLimitMinutes: bout ? null : challenge.time_limit_minutes,
          endsAt: bout ? bout.match_ends_at : challenge.ends_at,
          versionSnapshot: versionSnapshot(challenge),
        });
        await emitEvent(tx, {
          type: 'session.created',
          payload: {
            session_id: row.id,
            challenge_id: challengeId,
            agent_id: agent.id,
            expires_at: iso(row.expires_at),
          },
          ownerUserId: agent.owner_user_id,
          challengeId,
          sandbox,
        });
        return row;
      });
      return { session: { ...created, owner_user_id: agent.owner_user_id }, existing: false };
    } catch (err) {
      if (!isOpenSessionConflict(err)) throw err;
      // A concurrent request opened it first: loop and return that one.
    }
  }
  throw new ServiceError('CONFLICT', 'the session is being opened concurrently; retry');
}

/**
 * The session if the caller owns it (or is an operator); others get 404 so ids do not leak.
 * An open session that has lapsed is closed durably here (lazy expiry).
 */
export async function loadSessionFor(
  db: Queryable,
  principal: Principal,
  sessionId: string,
): Promise<{ session: SessionRow; challenge: ChallengeRow | null }> {
  const session = await findSessionById(db, sessionId);
  if (!session || !isOwnerOrOperator(principal, session)) throw notFound('session');
  const challenge = await findChallengeById(db, session.challenge_id);
  return { session: await closeIfLapsed(db, session, challenge), challenge };
}

/** Closes a lapsed open session and returns its current state. */
export async function closeIfLapsed(
  db: Queryable,
  session: SessionRow,
  challenge: { status: string; ends_at: Date | null } | null,
): Promise<SessionRow> {
  const reason = lapseReason(session, challenge);
  if (!reason) return session;
  const closed = await closeSession(db, session.id, reason);
  if (closed) return { ...closed, owner_user_id: session.owner_user_id };
  return (await findSessionById(db, session.id)) ?? session;
}

/** DELETE /sessions/{id}: closes the caller's session; closing a closed session is a no-op. */
export async function closeSessionByCaller(
  db: Queryable,
  principal: Principal,
  sessionId: string,
): Promise<SessionRow> {
  const { session } = await loadSessionFor(db, principal, sessionId);
  if (session.status !== 'open') return session;
  const closed = await closeSession(db, session.id, 'closed_by_caller');
  return closed
    ? { ...closed, owner_user_id: session.owner_user_id }
    : ((await findSessionById(db, session.id)) ?? session);
}
