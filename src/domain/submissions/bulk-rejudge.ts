/**
 * Rejudging a whole challenge (DESIGN, "Fourth-round extensions" → "Operators";
 * docs/decisions/operators.md "Rejudging a whole challenge"): after fixing a test, an operator
 * judges again every submission of the challenge in the chosen statuses. Each one gets a new run,
 * exactly as a single rejudge (src/domain/submissions/rejudge.ts) does; the runs wait in the one
 * judging queue at low priority and count against no owner (admission.ts: any run after the
 * first). One `challenge.rejudge` audit record; one rejudge at a time per challenge.
 */
import { withTransaction } from '../../db/pool';
import { lockChallengeById } from '../../db/queries/challenges';
import {
  finishRejudgeIfDone,
  findRejudge,
  findRunningRejudgeId,
  insertRejudge,
  listRejudgeItems,
  lockRunningRejudge,
  startRejudgeItems,
  type RejudgeRow,
  type StartedRejudgeItem,
} from '../../db/queries/rejudges';
import { insertQueuedEvents } from '../../db/queries/submissions';
import { conflict, notFound } from '../../errors';
import { emitEvent } from '../../events/outbox';
import type { ServiceDeps } from '../../service-deps';
import { recordAudit, type Actor } from '../audit/trail';
import { startSubmissionWorkflowSoon } from './workflow-start';

/** The submission statuses a bulk rejudge may pick (the finished ones), and its default. */
export const BULK_REJUDGE_STATUSES = ['complete', 'failed'] as const;
export type BulkRejudgeStatus = (typeof BULK_REJUDGE_STATUSES)[number];

/** How many submission workflows the request starts at once (the sweeper starts any it misses). */
const START_CONCURRENCY = 8;

export interface RejudgeProgress {
  id: string;
  challenge_id: string;
  status: 'running' | 'done';
  count: number;
  done: number;
  items: {
    submission_id: string;
    agent_id: string;
    agent_name: string;
    old_score: number | null;
    new_score: number | null;
    /** The held-out scores (this listing is the operators'); null when the challenge has no private test. */
    old_private_score: number | null;
    new_private_score: number | null;
    done: boolean;
  }[];
  statuses: string[];
  requested_at: Date;
  finished_at: Date | null;
}

type Deps = Pick<ServiceDeps, 'db' | 'config' | 'temporal' | 'logger'>;

/**
 * Starts the rejudge: in one transaction, under the challenge's row lock (so two requests never
 * both start one), refuses with 409 while another runs, starts a run of every picked submission,
 * records the items with their current scores, the "queued" events and the audit record; then
 * starts the runs' workflows.
 */
export async function rejudgeChallenge(
  deps: Deps,
  actor: Actor,
  challengeId: string,
  statuses: readonly BulkRejudgeStatus[] = BULK_REJUDGE_STATUSES,
): Promise<{ rejudge_id: string; count: number }> {
  const picked = [...new Set(statuses.length ? statuses : BULK_REJUDGE_STATUSES)].sort();
  const { rejudge, items } = await withTransaction(deps.db, async (tx) => {
    const challenge = await lockChallengeById(tx, challengeId);
    if (!challenge) throw notFound('challenge');
    const running = await lockRunningRejudge(tx, challengeId);
    if (running && !(await finishRejudgeIfDone(tx, running.id)))
      throw conflict(
        `a rejudge of this challenge is running (${running.id}): wait until it is done, or follow it at GET /api/v1/admin/rejudges/${running.id}`,
      );
    const rejudge = (await insertRejudge(tx, {
      challengeId,
      requestedBy: actor.userId,
      statuses: picked,
    }))!;
    const items = await startRejudgeItems(tx, rejudge.id, challengeId, picked);
    await insertQueuedEvents(tx, items, 'rejudge of the whole challenge requested by an operator');
    for (const item of items) {
      await emitEvent(tx, {
        type: 'submission.queued',
        payload: {
          submission_id: item.submission_id,
          challenge_id: item.challenge_id,
          agent_id: item.agent_id,
          submission_status: 'queued',
        },
        ownerUserId: item.owner_user_id,
        challengeId: item.challenge_id,
        sandbox: item.sandbox,
      });
    }
    await recordAudit(
      tx,
      actor,
      'challenge.rejudge',
      { type: 'challenge', id: challengeId },
      { rejudge_id: rejudge.id, statuses: picked, count: items.length, title: challenge.title },
    );
    if (items.length === 0) await finishRejudgeIfDone(tx, rejudge.id);
    return { rejudge, items };
  });
  await startRuns(deps, items);
  return { rejudge_id: rejudge.id, count: items.length };
}

async function startRuns(deps: Deps, items: StartedRejudgeItem[]): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++];
      await startSubmissionWorkflowSoon(
        deps,
        {
          id: item.submission_id,
          challenge_id: item.challenge_id,
          agent_id: item.agent_id,
          judge_run: item.judge_run,
        },
        'queued',
      );
    }
  };
  await Promise.all(Array.from({ length: Math.min(START_CONCURRENCY, items.length) }, worker));
}

/** The challenge's running rejudge, if one still runs (one found finished is marked done here). */
export async function runningRejudgeOf(
  deps: Pick<ServiceDeps, 'db'>,
  challengeId: string,
): Promise<string | null> {
  const id = await findRunningRejudgeId(deps.db, challengeId);
  if (!id) return null;
  return (await finishRejudgeIfDone(deps.db, id)) ? null : id;
}

/** A rejudge with its items' progress (404 when unknown); marks it done once every item is. */
export async function rejudgeProgress(deps: Pick<ServiceDeps, 'db'>, id: string): Promise<RejudgeProgress> {
  let row: RejudgeRow | null = await findRejudge(deps.db, id);
  if (!row) throw notFound('rejudge');
  const items = await listRejudgeItems(deps.db, id);
  const done = items.filter((item) => item.done).length;
  if (row.status === 'running' && done === items.length)
    row = (await finishRejudgeIfDone(deps.db, id)) ?? (await findRejudge(deps.db, id))!;
  return {
    id: row.id,
    challenge_id: row.challenge_id,
    status: row.status,
    count: items.length,
    done,
    items: items.map((item) => ({
      submission_id: item.submission_id,
      agent_id: item.agent_id,
      agent_name: item.agent_name,
      old_score: item.old_score,
      new_score: item.done ? item.new_score : null,
      old_private_score: item.old_private_score,
      new_private_score: item.done ? item.new_private_score : null,
      done: item.done,
    })),
    statuses: row.statuses,
    requested_at: row.created_at,
    finished_at: row.finished_at,
  };
}
