/**
 * Fair share of the judges: a `tests` judging starts only while its agent and the agent's owner
 * are under their caps of judgings in flight (JUDGE_MAX_IN_FLIGHT_PER_AGENT / _PER_USER, counted
 * across all workers). The rest wait their turn, so one competitor flooding submissions cannot
 * take every slot while another competitor's single submission waits behind them.
 */
import type { Pool } from 'pg';
import type { Config } from '../../config';
import { type LeaseAdmission, acquireJudgingLease } from '../../db/queries/judging-leases';
import { findSubmissionById } from '../../db/queries/submissions';
import { withTransaction } from '../../db/pool';
import type { RunRef } from './contract';

/** A lease lives this long past its last refresh (the judging activity refreshes it with each heartbeat). */
export const JUDGING_LEASE_TTL_SECONDS = 120;

export type JudgingAdmission = LeaseAdmission | { stale: true } | { missing: true };

export async function admitJudging(
  db: Pool,
  config: Pick<Config, 'JUDGE_MAX_IN_FLIGHT_PER_USER' | 'JUDGE_MAX_IN_FLIGHT_PER_AGENT'>,
  ref: RunRef,
): Promise<JudgingAdmission> {
  const submission = await findSubmissionById(db, ref.submissionId);
  if (!submission) return { missing: true };
  // A superseded or finished run needs no slot: the workflow ends as stale.
  if (
    submission.judge_run !== ref.run ||
    submission.status === 'complete' ||
    submission.status === 'failed'
  ) {
    return { stale: true };
  }
  return withTransaction(db, (tx) =>
    acquireJudgingLease(
      tx,
      {
        submissionId: submission.id,
        run: ref.run,
        agentId: submission.agent_id,
        userId: submission.owner_user_id,
      },
      {
        perUser: config.JUDGE_MAX_IN_FLIGHT_PER_USER,
        perAgent: config.JUDGE_MAX_IN_FLIGHT_PER_AGENT,
        ttlSeconds: JUDGING_LEASE_TTL_SECONDS,
      },
    ),
  );
}
