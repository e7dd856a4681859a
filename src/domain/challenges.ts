import type { Client as TemporalClient } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/common';
import type { Pool, PoolClient } from 'pg';
import {
  challengeLifecycleWorkflow,
  challengeLifecycleWorkflowId,
  challengeScheduleSignal,
  challengeStopSignal,
  type ChallengeSchedule,
} from '../../workflows/challenge-lifecycle';
import { ServiceError, conflict, notFound, validationError } from '../errors';
import type { CreateChallengeBody, PatchChallengeBody } from '../api/schemas/challenges';
import { isAdmin, type Principal } from '../auth/principal';
import {
  CHALLENGE_STATUSES,
  databaseNow,
  findChallengeById,
  insertChallenge,
  lockChallengeById,
  PUBLIC_STATUSES,
  updateChallenge,
  type ChallengeFields,
  type ChallengeRow,
  type ChallengeStatus,
  type ChallengeUpdate,
} from '../db/queries/challenges';
import { findEntry, upsertEntry, type EntryRow } from '../db/queries/entries';
import { withTransaction, type Queryable } from '../db/pool';
import { emitEvent } from '../events/outbox';
import { ChallengeIdKey } from '../../temporal/search-attributes';
import { requireOwnedAgent } from './identity';
import type { ServiceDeps } from '../service-deps';

// ---- pure rules (unit-tested) ------------------------------------------------------------------

type Instant = Date | string | null;
type ChallengeTimes = { status: string; starts_at: Instant; ends_at: Instant };

const ms = (t: Instant): number | null => (t === null ? null : typeof t === 'string' ? Date.parse(t) : t.getTime());

export type Enterability = { ok: true } | { ok: false; reason: 'not_active' | 'not_started' | 'ended'; message: string };

/**
 * Whether work can happen in a challenge now (opening sessions, submitting): active, started
 * (`starts_at` null or reached) and not ended (`ends_at` null or still ahead). Accepts a row or the
 * public Challenge (ISO strings).
 */
export function enterability(challenge: ChallengeTimes, now: Date = new Date()): Enterability {
  const t = now.getTime();
  if (challenge.status !== 'active') {
    return { ok: false, reason: 'not_active', message: `challenge is not enterable: its status is ${challenge.status}` };
  }
  const starts = ms(challenge.starts_at);
  if (starts !== null && starts > t) {
    return { ok: false, reason: 'not_started', message: `challenge is not enterable yet: it starts at ${new Date(starts).toISOString()}` };
  }
  const ends = ms(challenge.ends_at);
  if (ends !== null && ends <= t) return { ok: false, reason: 'ended', message: 'challenge is not enterable: it has ended' };
  return { ok: true };
}

/** For the sessions engineer: can a session be opened now? (see `enterability` for the reason). */
export function isEnterable(challenge: ChallengeTimes, now: Date = new Date()): boolean {
  return enterability(challenge, now).ok;
}

/**
 * Entering from the web interface (an `assigned` entry) is registration: allowed for an active
 * challenge that has not ended, also before it starts (the connector sees starts_at and waits).
 */
export function acceptsEntries(challenge: ChallengeTimes, now: Date = new Date()): Enterability {
  const verdict = enterability(challenge, now);
  return !verdict.ok && verdict.reason === 'not_started' ? { ok: true } : verdict;
}

/** Statuses a caller may list: drafts only for operators (session JWT with role admin). */
export function visibleStatuses(principal: Principal, requested?: ChallengeStatus): ChallengeStatus[] {
  const allowed: readonly ChallengeStatus[] = isAdmin(principal) ? CHALLENGE_STATUSES : PUBLIC_STATUSES;
  return requested ? allowed.filter((s) => s === requested) : [...allowed];
}

export function canSeeChallenge(principal: Principal, challenge: { status: string }): boolean {
  return challenge.status !== 'draft' || isAdmin(principal);
}

/** Rejects a window whose end is not after its start (after merging a PATCH into the row). */
export function checkWindow(startsAt: Instant, endsAt: Instant): void {
  const s = ms(startsAt);
  const e = ms(endsAt);
  if (s !== null && e !== null && e <= s) throw validationError('body.ends_at: ends_at must be after starts_at');
}

export function scheduleOf(row: Pick<ChallengeRow, 'starts_at' | 'ends_at'>): ChallengeSchedule {
  return { startsAt: row.starts_at?.toISOString() ?? null, endsAt: row.ends_at?.toISOString() ?? null };
}

// ---- reads -------------------------------------------------------------------------------------

/** The challenge, or 404 when missing or a draft the caller may not see. */
export async function requireVisibleChallenge(db: Queryable, principal: Principal, id: string): Promise<ChallengeRow> {
  const row = await findChallengeById(db, id);
  if (!row || !canSeeChallenge(principal, row)) throw notFound('challenge');
  return row;
}

// ---- lifecycle workflow ------------------------------------------------------------------------

async function temporalClient(deps: ServiceDeps): Promise<TemporalClient> {
  try {
    return await deps.temporal();
  } catch (err) {
    deps.logger.error({ err }, 'Temporal unavailable');
    throw new ServiceError('SERVICE_UNAVAILABLE', 'the workflow service is unavailable; nothing was changed, retry later');
  }
}

/**
 * Starts the challenge's lifecycle workflow or re-plans the running one (signalWithStart).
 * Called inside the transition's transaction, while the row is locked: if Temporal refuses,
 * the transaction rolls back (no state change, no event); the workflow's activities lock the
 * row too, so they wait for the commit and see its outcome.
 */
export async function planLifecycle(deps: ServiceDeps, row: ChallengeRow): Promise<void> {
  const client = await temporalClient(deps);
  const schedule = scheduleOf(row);
  try {
    await client.workflow.signalWithStart(challengeLifecycleWorkflow, {
      workflowId: challengeLifecycleWorkflowId(row.id),
      taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
      args: [{ challengeId: row.id, schedule }],
      signal: challengeScheduleSignal,
      signalArgs: [schedule],
      typedSearchAttributes: [{ key: ChallengeIdKey, value: row.id }],
    });
  } catch (err) {
    deps.logger.error({ err, challengeId: row.id }, 'could not plan the challenge lifecycle');
    throw new ServiceError('SERVICE_UNAVAILABLE', 'the workflow service is unavailable; nothing was changed, retry later');
  }
}

/**
 * Tells a running lifecycle workflow to end (quarantine, retire). Best effort after the commit:
 * a workflow that misses it wakes at its next time, finds the challenge inactive and ends.
 */
async function stopLifecycle(deps: ServiceDeps, challengeId: string, reason: string): Promise<void> {
  try {
    const client = await deps.temporal();
    await client.workflow.getHandle(challengeLifecycleWorkflowId(challengeId)).signal(challengeStopSignal, { reason });
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return;
    deps.logger.warn({ err, challengeId }, 'could not signal the challenge lifecycle to stop; it will stop at its next wake-up');
  }
}

// ---- operator operations -----------------------------------------------------------------------

export interface TransitionOutcome {
  challenge: ChallengeRow;
  /** false: the transition changed nothing (idempotent repeat; no event emitted). */
  changed: boolean;
}

function toFields(body: CreateChallengeBody): ChallengeFields {
  return {
    title: body.title,
    description: body.description,
    category: body.category,
    format: body.format,
    weight_class_id: body.weight_class_id,
    time_limit_minutes: body.time_limit_minutes,
    entry_fee_cents: body.entry_fee_cents,
    prize_pool: body.prize_pool,
    starts_at: body.starts_at ? new Date(body.starts_at) : null,
    ends_at: body.ends_at ? new Date(body.ends_at) : null,
    is_featured: body.is_featured,
    is_daily: body.is_daily,
    judge: body.judge as Record<string, unknown>,
    max_submissions_per_session: body.max_submissions_per_session,
    max_submissions_per_day: body.max_submissions_per_day,
  };
}

/** Creates a draft (with its judge config); nothing is public or scheduled until it is published. */
export async function createChallenge(db: Queryable, createdBy: string | null, body: CreateChallengeBody, id?: string): Promise<ChallengeRow | null> {
  return insertChallenge(db, toFields(body), { createdBy, id });
}

async function lockOrNotFound(tx: PoolClient, id: string): Promise<ChallengeRow> {
  const row = await lockChallengeById(tx, id);
  if (!row) throw notFound('challenge');
  return row;
}

/**
 * Edits fields (any status). Times: the merged window must be ordered; a start or end moved into
 * the future re-arms its event; an active challenge's workflow is re-planned in the same
 * transaction. Status changes only through publish / quarantine / retire.
 */
export async function editChallenge(deps: ServiceDeps, id: string, body: PatchChallengeBody): Promise<ChallengeRow> {
  return withTransaction(deps.db, async (tx) => {
    const row = await lockOrNotFound(tx, id);
    const now = await databaseNow(tx);
    const startsAt = body.starts_at === undefined ? row.starts_at : body.starts_at === null ? null : new Date(body.starts_at);
    const endsAt = body.ends_at === undefined ? row.ends_at : body.ends_at === null ? null : new Date(body.ends_at);
    checkWindow(startsAt, endsAt);

    const update: ChallengeUpdate = {};
    for (const [key, value] of Object.entries(body) as [keyof PatchChallengeBody, unknown][]) {
      if (key === 'starts_at' || key === 'ends_at') continue;
      (update as Record<string, unknown>)[key] = value;
    }
    const startsChanged = body.starts_at !== undefined && ms(startsAt) !== ms(row.starts_at);
    const endsChanged = body.ends_at !== undefined && ms(endsAt) !== ms(row.ends_at);
    if (startsChanged) {
      update.starts_at = startsAt;
      if (startsAt && startsAt > now) update.started_event_at = null;
    }
    if (endsChanged) {
      update.ends_at = endsAt;
      if (row.status === 'active' && (!endsAt || endsAt > now)) update.ended_event_at = null;
    }
    if (Object.keys(update).length === 0) return row;
    // starts_at/ends_at may be set to null: updateChallenge skips only undefined.
    const updated = (await updateChallenge(tx, id, update))!;
    if (updated.status === 'active' && (startsChanged || endsChanged)) await planLifecycle(deps, updated);
    return updated;
  });
}

/**
 * Any status → active; emits challenge.published. Repeating it on an active challenge changes
 * nothing and emits nothing (it re-plans the workflow, which repairs a lost schedule). Publishing
 * a challenge whose ends_at has passed is a 409: move ends_at first.
 */
export async function publishChallenge(deps: ServiceDeps, id: string): Promise<TransitionOutcome> {
  return withTransaction(deps.db, async (tx) => {
    const row = await lockOrNotFound(tx, id);
    if (row.status === 'active') {
      await planLifecycle(deps, row);
      return { challenge: row, changed: false };
    }
    const now = await databaseNow(tx);
    if (row.ends_at && row.ends_at <= now) {
      throw conflict(`ends_at (${row.ends_at.toISOString()}) has passed: move it with PATCH before publishing`);
    }
    const update: ChallengeUpdate = { status: 'active', published_at: now, quarantine_reason: null, ended_event_at: null };
    if (row.starts_at && row.starts_at > now) update.started_event_at = null;
    const updated = (await updateChallenge(tx, id, update))!;
    await emitEvent(tx, { type: 'challenge.published', payload: { challenge_id: id, status: 'active' }, challengeId: id, ownerUserId: null });
    await planLifecycle(deps, updated);
    return { challenge: updated, changed: true };
  });
}

/** active → draft (hidden, not enterable); emits challenge.quarantined {challenge_id, reason}. Else 409. */
export async function quarantineChallenge(deps: ServiceDeps, id: string, reason: string): Promise<TransitionOutcome> {
  const outcome = await withTransaction(deps.db, async (tx) => {
    const row = await lockOrNotFound(tx, id);
    if (row.status !== 'active') throw conflict(`only an active challenge can be quarantined; this one is ${row.status}`);
    const now = await databaseNow(tx);
    const updated = (await updateChallenge(tx, id, { status: 'draft', quarantine_reason: reason, quarantined_at: now }))!;
    await emitEvent(tx, { type: 'challenge.quarantined', payload: { challenge_id: id, reason }, challengeId: id, ownerUserId: null });
    return { challenge: updated, changed: true };
  });
  await stopLifecycle(deps, id, 'quarantined');
  return outcome;
}

/** Any status → archived; emits challenge.retired. Repeating it on an archived challenge is a no-op. */
export async function retireChallenge(deps: ServiceDeps, id: string): Promise<TransitionOutcome> {
  const outcome = await withTransaction(deps.db, async (tx) => {
    const row = await lockOrNotFound(tx, id);
    if (row.status === 'archived') return { challenge: row, changed: false };
    const now = await databaseNow(tx);
    const updated = (await updateChallenge(tx, id, { status: 'archived', retired_at: now }))!;
    await emitEvent(tx, { type: 'challenge.retired', payload: { challenge_id: id }, challengeId: id, ownerUserId: null });
    return { challenge: updated, changed: true };
  });
  await stopLifecycle(deps, id, 'retired');
  return outcome;
}

// ---- entries -----------------------------------------------------------------------------------

/**
 * "Entered from the web interface": the owner's JWT enters one of their agents. Returns the
 * existing entry when there is one (whatever the challenge's state now); otherwise the
 * challenge must accept entries (400 CHALLENGE_NOT_ENTERABLE). The challenge row is share-locked
 * so a concurrent quarantine or retirement cannot slip between the check and the insert.
 */
export async function enterChallenge(
  db: Pool,
  principal: Principal,
  challengeId: string,
  agentId: string,
): Promise<{ entry: EntryRow; created: boolean }> {
  await requireVisibleChallenge(db, principal, challengeId);
  await requireOwnedAgent(db, principal, agentId);
  return withTransaction(db, async (tx) => {
    const challenge = await lockChallengeById(tx, challengeId, 'share');
    if (!challenge || !canSeeChallenge(principal, challenge)) throw notFound('challenge');
    const existing = await findEntry(tx, challengeId, agentId);
    if (existing) return { entry: existing, created: false };
    const verdict = acceptsEntries(challenge, await databaseNow(tx));
    if (!verdict.ok) throw new ServiceError('CHALLENGE_NOT_ENTERABLE', verdict.message);
    return upsertEntry(tx, { challengeId, agentId, sandbox: false });
  });
}
