import type { Pool } from 'pg';
import { withTransaction, type Queryable } from '../pool';
import { insertSystemAuditRecord } from './audit-records';
import type { Bound } from './bound';
import { timeOutBoutEntries } from './entries';
import { listParticipants, recordPlacement } from './match-participants';
import { finishMatch, lockMatch } from './matches';
import { insertOutboxEvents } from './outbox-events';
import { lockWeightClassRatings } from './ratings';
import { closeBoutSessions } from './sessions';

/**
 * What finishing a match (src/domain/matches/settle.ts: finishMatchWith) writes, on one connection:
 * the weight class's rating lock, the match's end, its placements, its bout entries timed out and
 * sessions closed, its participants read back, and its events. Callers holding a transaction's
 * client bind it with `sqlMatchFinishStore(tx)`.
 */
export interface MatchFinishStore {
  lockWeightClassRatings: Bound<typeof lockWeightClassRatings>;
  /** scheduled/running → complete or void (once): null when the match had already finished. */
  finishMatch: Bound<typeof finishMatch>;
  recordPlacement: Bound<typeof recordPlacement>;
  timeOutBoutEntries: Bound<typeof timeOutBoutEntries>;
  closeBoutSessions: Bound<typeof closeBoutSessions>;
  listParticipants: Bound<typeof listParticipants>;
  insertOutboxEvents: Bound<typeof insertOutboxEvents>;
}

export function sqlMatchFinishStore(db: Queryable): MatchFinishStore {
  return {
    lockWeightClassRatings: (weightClassId) => lockWeightClassRatings(db, weightClassId),
    finishMatch: (id, status, reason) => finishMatch(db, id, status, reason),
    recordPlacement: (matchId, p) => recordPlacement(db, matchId, p),
    timeOutBoutEntries: (matchId) => timeOutBoutEntries(db, matchId),
    closeBoutSessions: (matchId) => closeBoutSessions(db, matchId),
    listParticipants: (matchIds) => listParticipants(db, matchIds),
    insertOutboxEvents: (events) => insertOutboxEvents(db, events),
  };
}

/**
 * What the service's void of a match (src/domain/matches/deadline.ts: voidMatchAsSystem) reads
 * and writes: the match locked, its `system` audit record, the finish above, in one transaction.
 * The domain takes it through its deps (`stores.matchVoids`; this SQL one unless a unit test hands
 * it test/fakes/stores/match-voids.ts). test/contracts/match-void-store.cases.ts holds both to the
 * same cases.
 */
export interface MatchVoidStore extends MatchFinishStore {
  /** The match, its row locked until the transaction ends (null: no such match). */
  lockMatch: Bound<typeof lockMatch>;
  insertSystemAuditRecord: Bound<typeof insertSystemAuditRecord>;
  /** Runs `fn` with a store whose writes commit together, or not at all when it throws. */
  transaction<T>(fn: (store: MatchVoidStore) => Promise<T>): Promise<T>;
}

function boundVoidStore(db: Queryable, transaction: MatchVoidStore['transaction']): MatchVoidStore {
  return {
    ...sqlMatchFinishStore(db),
    lockMatch: (id) => lockMatch(db, id),
    insertSystemAuditRecord: (r) => insertSystemAuditRecord(db, r),
    transaction,
  };
}

/** The match voids' store on PostgreSQL: statements on the pool, a transaction on one of its clients. */
export function sqlMatchVoidStore(pool: Pool): MatchVoidStore {
  return boundVoidStore(pool, (fn) =>
    withTransaction(pool, (tx) => {
      // Inside, a nested transaction is the same one.
      const inTx: MatchVoidStore = boundVoidStore(tx, (inner) => inner(inTx));
      return fn(inTx);
    }),
  );
}
