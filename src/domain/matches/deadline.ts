/**
 * No match runs forever (DESIGN, "Whatever a program writes is data"; issue 37). Every match has an
 * absolute deadline (`matches.deadline_at`: a bout's set when it starts, a game match's when its
 * judging slots are granted; rules.ts says how long). The service voids a match with its reason
 * (audit `match.void`, actor `system`), and its players are free at once (a void match holds no
 * one): the match workflow at its deadline or when a step failed for good (workflows/match.ts),
 * and this sweeper for running matches past their deadline or whose workflow is gone.
 */
import { WorkflowNotFoundError } from '@temporalio/client';
import { sqlMatchVoidStore } from '../../db/queries/match-finish';
import { listMatchIdsPastDeadline, listRunningMatchIdsAfter } from '../../db/queries/matches';
import type { ServiceDeps } from '../../service-deps';
import { finishMatchWith } from './settle';
import { matchWorkflowId, type MatchPhase } from './contract';
import { signalMatchVoided } from './workflow-start';
import { type StorableText, storableText } from '../../lib/storable-text';

/** A reason as stored: through the one sanitizer (an error's message may carry a program's bytes), 500 characters at most. */
function storableReason(reason: string): StorableText {
  return storableText(Array.from(reason).slice(0, 500).join(''));
}

/**
 * Voids a scheduled or running match as the service (once; a finished match is left as it is):
 * audit `match.void` by `system`, the match void with its reason. Answers the match's status after.
 */
export async function voidMatchAsSystem(
  deps: Pick<ServiceDeps, 'db' | 'stores'>,
  matchId: string,
  reason: string,
): Promise<MatchPhase> {
  const text = storableReason(reason);
  const store = deps.stores?.matchVoids ?? sqlMatchVoidStore(deps.db);
  return store.transaction(async (tx) => {
    const match = await tx.lockMatch(matchId);
    if (!match) return 'missing';
    if (match.status !== 'scheduled' && match.status !== 'running') return match.status;
    await tx.insertSystemAuditRecord({
      action: 'match.void',
      targetType: 'match',
      targetId: matchId,
      detail: { reason: text, from: match.status },
    });
    return (await finishMatchWith(tx, match, 'void', text, null))?.status ?? match.status;
  });
}

export function createMatchDeadlineSteps(deps: Pick<ServiceDeps, 'db' | 'logger'>) {
  return {
    /** The workflow's void: at the deadline, or after a step failed for good. */
    async matchVoidWithReason(input: { matchId: string; reason: string }): Promise<{ status: MatchPhase }> {
      const status = await voidMatchAsSystem(deps, input.matchId, input.reason);
      deps.logger.warn(
        { matchId: input.matchId, reason: input.reason, status },
        'match voided by the service',
      );
      return { status };
    },
  };
}

export type MatchDeadlineSteps = ReturnType<typeof createMatchDeadlineSteps>;

export interface MatchSweepReport {
  pastDeadline: number;
  workflowGone: number;
}

/** The sweeper leaves a match past its deadline to its own workflow for this long first. */
export const SWEEP_DEADLINE_GRACE_MS = 30_000;

/**
 * One pass: voids running matches past their deadline (by more than SWEEP_DEADLINE_GRACE_MS) and
 * running matches whose workflow is no longer running (terminated, failed, unknown to Temporal),
 * then tells their workflow (a game's players stop). `cursor` carries the workflow check's place
 * from pass to pass, `batch` matches at a time.
 */
export async function sweepMatches(
  deps: Pick<ServiceDeps, 'db' | 'temporal' | 'logger' | 'config'>,
  cursor: { after: string | null } = { after: null },
  batch = 20,
): Promise<MatchSweepReport> {
  const report: MatchSweepReport = { pastDeadline: 0, workflowGone: 0 };
  const voidAndTell = async (matchId: string, reason: string) => {
    if ((await voidMatchAsSystem(deps, matchId, reason)) !== 'void') return false;
    deps.logger.warn({ matchId, reason }, 'match voided by the sweeper');
    await signalMatchVoided(deps, matchId).catch(() => undefined);
    return true;
  };
  for (const id of await listMatchIdsPastDeadline(deps.db, SWEEP_DEADLINE_GRACE_MS, batch)) {
    if (await voidAndTell(id, 'the match went past its deadline')) report.pastDeadline += 1;
  }
  const running = await listRunningMatchIdsAfter(deps.db, cursor.after, 0, batch);
  cursor.after = running.length < batch ? null : running[running.length - 1];
  if (running.length === 0) return report;
  const client = await deps.temporal();
  for (const id of running) {
    let reason: string | null = null;
    try {
      const description = await client.workflow.getHandle(matchWorkflowId(id)).describe();
      if (description.status.name !== 'RUNNING' && description.status.name !== 'CONTINUED_AS_NEW')
        reason = `the match's workflow is ${description.status.name.toLowerCase()}`;
    } catch (err) {
      if (err instanceof WorkflowNotFoundError) reason = "the match's workflow no longer exists";
      else deps.logger.warn({ err, matchId: id }, 'match sweeper could not describe a match workflow');
    }
    if (reason && (await voidAndTell(id, reason))) report.workflowGone += 1;
  }
  return report;
}
