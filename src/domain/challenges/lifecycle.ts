/**
 * A challenge's life: operators create, edit, publish, quarantine and retire it; the lifecycle
 * workflow (contract.ts) announces its start and ends it on time through the two activities'
 * steps at the bottom. Every transition locks the row, re-checks, and emits its event in the same
 * transaction.
 */
import type { Client as TemporalClient } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/common';
import { ServiceError, conflict, notFound } from '../../errors';
import type { Principal } from '../../auth/principal';
import {
  databaseNow,
  findChallengeById,
  insertChallenge,
  lockChallengeById,
  updateChallenge,
  type ChallengeRow,
  type ChallengeUpdate,
} from '../../db/queries/challenges';
import { withTransaction, type Queryable } from '../../db/pool';
import { sqlChallengeStore, type ChallengeStore } from '../../db/queries/challenge-transitions';
import type { Pool } from 'pg';
import { recordAudit, type Actor } from '../audit/trail';
import { emitEvent, eventRow, type DomainEvent } from '../../events/outbox';
import { iso } from '../../lib/time';
import type { ServiceDeps } from '../../service-deps';
import { ChallengeIdKey } from '../../temporal-client/search-attributes';
import {
  CHALLENGE_LIFECYCLE_WORKFLOW,
  CHALLENGE_SCHEDULE_SIGNAL,
  CHALLENGE_STOP_SIGNAL,
  challengeLifecycleWorkflowId,
  type ChallengeLifecycleInput,
  type ChallengeLifecycleSnapshot,
  type ChallengeStopSignal,
} from './contract';
import { canSeeChallenge } from './policy';
import { checkGameChallenge, resolveMatchSettings, type MatchSettings } from '../matches/rules';
import { startMatchmakerFor } from '../matches/matchmaking';
import {
  checkFormat,
  checkVersion,
  checkWindow,
  instantMs,
  scheduleOf,
  toChallengeFields,
  type ChallengePatch,
  type NewChallenge,
} from './rules';

// ---- reads -------------------------------------------------------------------------------------

/** The challenge, or 404 when missing or a draft the caller may not see. */
export async function requireVisibleChallenge(
  db: Queryable,
  principal: Principal,
  id: string,
): Promise<ChallengeRow> {
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
    throw new ServiceError(
      'SERVICE_UNAVAILABLE',
      'the workflow service is unavailable; nothing was changed, retry later',
    );
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
    const input: ChallengeLifecycleInput = { challengeId: row.id, schedule };
    await client.workflow.signalWithStart(CHALLENGE_LIFECYCLE_WORKFLOW, {
      workflowId: challengeLifecycleWorkflowId(row.id),
      taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
      args: [input],
      signal: CHALLENGE_SCHEDULE_SIGNAL,
      signalArgs: [schedule],
      typedSearchAttributes: [{ key: ChallengeIdKey, value: row.id }],
    });
  } catch (err) {
    deps.logger.error({ err, challengeId: row.id }, 'could not plan the challenge lifecycle');
    throw new ServiceError(
      'SERVICE_UNAVAILABLE',
      'the workflow service is unavailable; nothing was changed, retry later',
    );
  }
}

/**
 * Tells a running lifecycle workflow to end (quarantine, retire). Best effort after the commit:
 * a workflow that misses it wakes at its next time, finds the challenge inactive and ends.
 */
async function stopLifecycle(deps: ServiceDeps, challengeId: string, reason: string): Promise<void> {
  try {
    const client = await deps.temporal();
    await client.workflow
      .getHandle(challengeLifecycleWorkflowId(challengeId))
      .signal(CHALLENGE_STOP_SIGNAL, { reason } satisfies ChallengeStopSignal);
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return;
    deps.logger.warn(
      { err, challengeId },
      'could not signal the challenge lifecycle to stop; it will stop at its next wake-up',
    );
  }
}

// ---- operator operations -----------------------------------------------------------------------

export interface TransitionOutcome {
  challenge: ChallengeRow;
  /** false: the transition changed nothing (idempotent repeat; no event emitted). */
  changed: boolean;
}

/**
 * Creates a draft (with its judge config); nothing is public or scheduled until it is published.
 * An operator's creation is audited in the same transaction; `null` (fixtures) creates unaudited.
 */
export async function createChallenge(
  db: Pool,
  createdBy: string | null,
  challenge: NewChallenge,
  id?: string,
): Promise<ChallengeRow | null> {
  checkFormat(challenge.format);
  return withTransaction(db, async (tx) => {
    const row = await insertChallenge(tx, toChallengeFields(challenge), { createdBy, id });
    if (row && createdBy)
      await recordAudit(
        tx,
        { userId: createdBy },
        'challenge.create',
        { type: 'challenge', id: row.id },
        {
          title: row.title,
          judge_kind: (row.judge as { kind?: unknown } | null)?.kind ?? null,
        },
      );
    return row;
  });
}

/** The challenges' store of these deps: the SQL one unless a test handed its own. */
export function challengeStoreOf(deps: Pick<ServiceDeps, 'db' | 'stores'>): ChallengeStore {
  return deps.stores?.challenges ?? sqlChallengeStore(deps.db);
}

async function lockOrNotFound(tx: ChallengeStore, id: string): Promise<ChallengeRow> {
  const row = await tx.lockChallengeById(id);
  if (!row) throw notFound('challenge');
  return row;
}

/** An operator's audit record of a transition, in the transition's transaction. */
function auditTransition(
  tx: ChallengeStore,
  actor: Actor,
  action: 'challenge.update' | 'challenge.publish' | 'challenge.quarantine' | 'challenge.retire',
  id: string,
  detail: Record<string, unknown>,
) {
  return tx.insertAuditRecord({
    actorUserId: actor.userId,
    action,
    targetType: 'challenge',
    targetId: id,
    detail,
  });
}

/** A challenge event of a transition, in the transition's transaction (broadcast: no owner). */
function emitChallengeEvent(tx: ChallengeStore, id: string, event: Pick<DomainEvent, 'type' | 'payload'>) {
  return tx.insertOutboxEvents([eventRow({ ...event, challengeId: id, ownerUserId: null })]);
}

/**
 * Edits fields (any status). Times: the merged window must be ordered; a start or end moved into
 * the future re-arms its event; an active challenge's workflow is re-planned in the same
 * transaction. Status changes only through publish / quarantine / retire.
 * `versions` (from If-Match; null: any): an edit made from another version than the current one
 * is refused with 412 before anything is written (no audit record either).
 */
export async function editChallenge(
  deps: ServiceDeps,
  actor: Actor,
  id: string,
  body: ChallengePatch,
  versions: number[] | null = null,
): Promise<ChallengeRow> {
  return challengeStoreOf(deps).transaction(async (tx) => {
    const row = await lockOrNotFound(tx, id);
    checkVersion(row.version, versions);
    await auditTransition(tx, actor, 'challenge.update', id, { fields: Object.keys(body).sort() });
    const now = await tx.databaseNow();
    const startsAt =
      body.starts_at === undefined
        ? row.starts_at
        : body.starts_at === null
          ? null
          : new Date(body.starts_at);
    const endsAt =
      body.ends_at === undefined ? row.ends_at : body.ends_at === null ? null : new Date(body.ends_at);
    checkWindow(startsAt, endsAt);

    const update: ChallengeUpdate = {};
    if (body.format !== undefined) checkFormat(body.format, row.format);
    for (const [key, value] of Object.entries(body) as [keyof ChallengePatch, unknown][]) {
      if (key === 'starts_at' || key === 'ends_at') continue;
      (update as Record<string, unknown>)[key] = value;
    }
    if (body.format !== undefined || body.match !== undefined) {
      // Match settings follow the format (src/domain/matches/rules.ts); format is fixed once published.
      update.match = resolveMatchSettings({
        format: body.format ?? row.format,
        match: body.match as Partial<MatchSettings> | null | undefined,
        stored: { format: row.format, match: row.match, published: row.published_at !== null },
      }) as Record<string, unknown> | null;
    }
    if (body.format !== undefined || body.match !== undefined || body.judge !== undefined)
      checkGameChallenge({
        format: body.format ?? row.format,
        judge: body.judge ?? row.judge,
        match: update.match !== undefined ? update.match : row.match,
      });
    const startsChanged = body.starts_at !== undefined && instantMs(startsAt) !== instantMs(row.starts_at);
    const endsChanged = body.ends_at !== undefined && instantMs(endsAt) !== instantMs(row.ends_at);
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
    const updated = (await tx.updateChallenge(id, update))!;
    if (updated.status === 'active' && (startsChanged || endsChanged)) await planLifecycle(deps, updated);
    return updated;
  });
}

/**
 * Any status → active; emits challenge.published. Repeating it on an active challenge changes
 * nothing and emits nothing (it re-plans the workflow, which repairs a lost schedule). Publishing
 * a challenge whose ends_at has passed is a 409: move ends_at first.
 */
export async function publishChallenge(
  deps: ServiceDeps,
  actor: Actor,
  id: string,
): Promise<TransitionOutcome> {
  const outcome = await publishInTransaction(deps, actor, id);
  // A match challenge's (head_to_head, game) matchmaker starts once the challenge is active (after the commit,
  // so its first round sees it); it ends by itself when the challenge stops being active.
  await startMatchmakerFor(deps, outcome.challenge);
  return outcome;
}

function publishInTransaction(deps: ServiceDeps, actor: Actor, id: string): Promise<TransitionOutcome> {
  return challengeStoreOf(deps).transaction(async (tx) => {
    const row = await lockOrNotFound(tx, id);
    await auditTransition(tx, actor, 'challenge.publish', id, {
      from: row.status,
      changed: row.status !== 'active',
    });
    if (row.status === 'active') {
      await planLifecycle(deps, row);
      return { challenge: row, changed: false };
    }
    const now = await tx.databaseNow();
    if (row.ends_at && row.ends_at <= now) {
      throw conflict(
        `ends_at (${row.ends_at.toISOString()}) has passed: move it with PATCH before publishing`,
      );
    }
    const update: ChallengeUpdate = {
      status: 'active',
      published_at: now,
      quarantine_reason: null,
      ended_event_at: null,
    };
    if (row.starts_at && row.starts_at > now) update.started_event_at = null;
    const updated = (await tx.updateChallenge(id, update))!;
    await emitChallengeEvent(tx, id, {
      type: 'challenge.published',
      payload: { challenge_id: id, status: 'active' },
    });
    await planLifecycle(deps, updated);
    return { challenge: updated, changed: true };
  });
}

/** active → draft (hidden, not enterable); emits challenge.quarantined {challenge_id, reason}. Else 409. */
export async function quarantineChallenge(
  deps: ServiceDeps,
  actor: Actor,
  id: string,
  reason: string,
): Promise<TransitionOutcome> {
  const outcome = await challengeStoreOf(deps).transaction(async (tx) => {
    const row = await lockOrNotFound(tx, id);
    if (row.status !== 'active')
      throw conflict(`only an active challenge can be quarantined; this one is ${row.status}`);
    await auditTransition(tx, actor, 'challenge.quarantine', id, { reason });
    const now = await tx.databaseNow();
    const updated = (await tx.updateChallenge(id, {
      status: 'draft',
      quarantine_reason: reason,
      quarantined_at: now,
    }))!;
    await emitChallengeEvent(tx, id, {
      type: 'challenge.quarantined',
      payload: { challenge_id: id, reason },
    });
    return { challenge: updated, changed: true };
  });
  await stopLifecycle(deps, id, 'quarantined');
  return outcome;
}

/** Any status → archived; emits challenge.retired. Repeating it on an archived challenge is a no-op. */
export async function retireChallenge(
  deps: ServiceDeps,
  actor: Actor,
  id: string,
): Promise<TransitionOutcome> {
  const outcome = await challengeStoreOf(deps).transaction(async (tx) => {
    const row = await lockOrNotFound(tx, id);
    await auditTransition(tx, actor, 'challenge.retire', id, {
      from: row.status,
      changed: row.status !== 'archived',
    });
    if (row.status === 'archived') return { challenge: row, changed: false };
    const now = await tx.databaseNow();
    const updated = (await tx.updateChallenge(id, { status: 'archived', retired_at: now }))!;
    await emitChallengeEvent(tx, id, { type: 'challenge.retired', payload: { challenge_id: id } });
    return { challenge: updated, changed: true };
  });
  await stopLifecycle(deps, id, 'retired');
  return outcome;
}

// ---- steps of the lifecycle workflow (registered as its activities) -----------------------------

function snapshot(row: ChallengeRow | null, emitted: boolean): ChallengeLifecycleSnapshot {
  if (!row) return { status: 'missing', startsAt: null, endsAt: null, startedEventAt: null, emitted: false };
  return {
    status: row.status,
    startsAt: iso(row.starts_at),
    endsAt: iso(row.ends_at),
    startedEventAt: iso(row.started_event_at),
    emitted,
  };
}

/**
 * A time is due when the database clock has passed it, or when it is exactly the time whose
 * timer just fired in the workflow (Temporal's clock decided; no clock-skew loop).
 */
function isDue(at: Date, now: Date, expected: string | null): boolean {
  return at.getTime() <= now.getTime() || (expected !== null && at.getTime() === Date.parse(expected));
}

/** One timed step of an active challenge: when it is due, what it writes, what it announces. */
interface TimedStep {
  /** False: not due (or already done); the step changes nothing. */
  dueAt: (row: ChallengeRow, now: Date) => boolean;
  update: (now: Date) => ChallengeUpdate;
  event: (row: ChallengeRow) => Pick<DomainEvent, 'type' | 'payload'>;
  logged: string;
}

/**
 * Runs a timed step once: locks the row (waits for an operator transition in flight), re-checks
 * that the challenge is active and the step due, and writes the step's guard column with its event
 * in the same transaction, so running twice emits once.
 */
function runTimedStep(
  deps: Pick<ServiceDeps, 'db' | 'logger'>,
  challengeId: string,
  step: TimedStep,
): Promise<ChallengeLifecycleSnapshot> {
  return withTransaction(deps.db, async (tx) => {
    const row = await lockChallengeById(tx, challengeId);
    if (!row || row.status !== 'active') return snapshot(row, false);
    const now = await databaseNow(tx);
    if (!step.dueAt(row, now)) return snapshot(row, false);
    const updated = await updateChallenge(tx, row.id, step.update(now));
    await emitEvent(tx, { ...step.event(row), challengeId: row.id, ownerUserId: null });
    deps.logger.info({ challengeId: row.id }, step.logged);
    return snapshot(updated, true);
  });
}

/**
 * The lifecycle workflow's steps, registered by the worker as they are (the activity type names
 * are the method names; recorded histories name them, so they do not change). Each re-checks the
 * database and returns its current schedule.
 */
export function createLifecycleSteps(deps: Pick<ServiceDeps, 'db' | 'logger'>) {
  return {
    /** challenge.started, once, when an active challenge's starts_at (or its publication, when null) has come. */
    challengeStartReached(input: {
      challengeId: string;
      expectedStartsAt: string | null;
    }): Promise<ChallengeLifecycleSnapshot> {
      return runTimedStep(deps, input.challengeId, {
        dueAt: (row, now) =>
          !row.started_event_at && (!row.starts_at || isDue(row.starts_at, now, input.expectedStartsAt)),
        update: (now) => ({ started_event_at: now }),
        event: (row) => ({
          type: 'challenge.started',
          payload: { challenge_id: row.id, status: 'active', starts_at: iso(row.starts_at) },
        }),
        logged: 'challenge started',
      });
    },

    /** active → complete and challenge.ended, once, when ends_at has come (only if still active). */
    challengeEndReached(input: {
      challengeId: string;
      expectedEndsAt: string | null;
    }): Promise<ChallengeLifecycleSnapshot> {
      return runTimedStep(deps, input.challengeId, {
        dueAt: (row, now) => row.ends_at !== null && isDue(row.ends_at, now, input.expectedEndsAt),
        update: (now) => ({ status: 'complete', ended_event_at: now }),
        event: (row) => ({
          type: 'challenge.ended',
          payload: { challenge_id: row.id, status: 'complete', ends_at: iso(row.ends_at) },
        }),
        logged: 'challenge ended',
      });
    },
  };
}

export type LifecycleSteps = ReturnType<typeof createLifecycleSteps>;
