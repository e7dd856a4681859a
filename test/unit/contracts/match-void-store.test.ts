/** The match voids' store contract (test/contracts/match-void-store.cases.ts) on the in-memory store. */
import { randomUUID } from 'node:crypto';
import { matchVoidStoreContract } from '../../contracts/match-void-store.cases';
import { createFakeMatchVoidStore } from '../../fakes/stores/match-voids';

describe('the in-memory match voids store', () => {
  matchVoidStoreContract(() => {
    const store = createFakeMatchVoidStore();
    return {
      store,
      async newMatch(status, owners) {
        const ids = Array.from({ length: owners }, () => randomUUID());
        return { id: store.addMatch({ status }, ids).id, owners: ids };
      },
      async match(id) {
        const row = store.matches.get(id);
        return row ? { status: row.status, reason: row.reason, finished: row.completed_at !== null } : null;
      },
      async audits(matchId) {
        return store.audits
          .filter((a) => a.targetId === matchId)
          .map((a) => ({ actor: a.actor, action: a.action, detail: a.detail }));
      },
      async events(matchId) {
        return store.events
          .filter((e) => e.payload.match_id === matchId)
          .map((e) => ({ type: e.type, owner: e.ownerUserId }));
      },
    };
  });
});
