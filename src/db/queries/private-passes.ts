import type { Queryable } from '../pool';
import type { Bound } from './bound';
import { findChallengeJudge } from './challenges';
import { removeWork } from './judging-queue';
import { findResultForRun, storePrivatePass, type ResultRow } from './results';

/**
 * What storing a run's private pass (src/domain/submissions/judging.ts: judgePrivatePass's store,
 * recordPrivatePassFailure) reads and writes: the run's result, its challenge's judge, the pass
 * stored once (`pending` → `done`), and the pass's entry in the judging queue. The domain takes it
 * through its deps (`stores.privatePasses`; this SQL one unless a unit test hands it
 * test/fakes/stores/private-passes.ts). test/contracts/private-pass-store.cases.ts holds both to
 * the same cases.
 */
export interface PrivatePassStore {
  /** The run's result, as far as the pass reads it (null when the run has none). */
  findResultForRun(
    submissionId: string,
    run: number,
  ): Promise<Pick<ResultRow, 'challenge_id' | 'private_state' | 'breakdown'> | null>;
  /** The challenge's stored judge config (unparsed), null when there is no such challenge. */
  findChallengeJudge: Bound<typeof findChallengeJudge>;
  /** Stores the pass on a `pending` result (score, reason, breakdown, `done`); null when none was pending. */
  storePrivatePass: Bound<typeof storePrivatePass>;
  /** Removes a judging-queue entry by its work key; false when it was not there. */
  removeWork: Bound<typeof removeWork>;
}

/** The private passes' store on PostgreSQL. */
export function sqlPrivatePassStore(db: Queryable): PrivatePassStore {
  return {
    findResultForRun: (submissionId, run) => findResultForRun(db, submissionId, run),
    findChallengeJudge: (id) => findChallengeJudge(db, id),
    storePrivatePass: (p) => storePrivatePass(db, p),
    removeWork: (workKey) => removeWork(db, workKey),
  };
}
