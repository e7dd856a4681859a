import type { Pool } from 'pg';
import { withTransaction, type Queryable } from '../pool';
import { insertAuditRecord } from './audit-records';
import type { Bound } from './bound';
import { databaseNow, findChallengeById, lockChallengeById, updateChallenge } from './challenges';
import { insertOutboxEvents } from './outbox-events';

/**
 * What an operator's challenge transition (src/domain/challenges/lifecycle.ts: edit, publish,
 * quarantine, retire) and the console's challenge pages read and write: the challenge (read,
 * locked, updated), the database clock, the audit record and the outbox events, in one
 * transaction. The domain takes it through its deps (`stores.challenges`; this SQL one unless a
 * unit test hands it test/fakes/stores/challenges.ts). test/contracts/challenge-store.cases.ts
 * holds both to the same cases.
 */
export interface ChallengeStore {
  findChallengeById: Bound<typeof findChallengeById>;
  /** The challenge, its row locked until the transaction ends (null: no such challenge). */
  lockChallengeById: Bound<typeof lockChallengeById>;
  /** Sets the given columns (undefined: untouched); the fresh row, null when there is none. */
  updateChallenge: Bound<typeof updateChallenge>;
  /** The database clock (the transaction's start inside one). */
  databaseNow: Bound<typeof databaseNow>;
  insertAuditRecord: Bound<typeof insertAuditRecord>;
  insertOutboxEvents: Bound<typeof insertOutboxEvents>;
  /** Runs `fn` with a store whose writes commit together, or not at all when it throws. */
  transaction<T>(fn: (store: ChallengeStore) => Promise<T>): Promise<T>;
}

function boundStore(db: Queryable, transaction: ChallengeStore['transaction']): ChallengeStore {
  return {
    findChallengeById: (id) => findChallengeById(db, id),
    lockChallengeById: (id, mode) => lockChallengeById(db, id, mode),
    updateChallenge: (id, update) => updateChallenge(db, id, update),
    databaseNow: () => databaseNow(db),
    insertAuditRecord: (r) => insertAuditRecord(db, r),
    insertOutboxEvents: (events) => insertOutboxEvents(db, events),
    transaction,
  };
}

/** The challenges' store on PostgreSQL: statements on the pool, a transaction on one of its clients. */
export function sqlChallengeStore(pool: Pool): ChallengeStore {
  return boundStore(pool, (fn) =>
    withTransaction(pool, (tx) => {
      // Inside, a nested transaction is the same one.
      const inTx: ChallengeStore = boundStore(tx, (inner) => inner(inTx));
      return fn(inTx);
    }),
  );
}
