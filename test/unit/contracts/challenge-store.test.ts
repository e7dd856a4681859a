/** The challenges' store contract (test/contracts/challenge-store.cases.ts) on the in-memory store. */
import { randomUUID } from 'node:crypto';
import { challengeStoreContract } from '../../contracts/challenge-store.cases';
import { createFakeChallengeStore } from '../../fakes/stores/challenges';
import { challengeRow } from '../../fakes/challenge-row';

describe('the in-memory challenges store', () => {
  challengeStoreContract(() => {
    const store = createFakeChallengeStore();
    return {
      store,
      async newChallenge() {
        const row = challengeRow({ id: randomUUID(), title: 'Contract' });
        store.challenges.set(row.id, row);
        return row.id;
      },
      async newUser() {
        const id = randomUUID();
        store.users.add(id);
        return id;
      },
      async audits(challengeId) {
        return store.audits
          .filter((a) => a.targetId === challengeId)
          .map((a) => ({ action: a.action, detail: a.detail }));
      },
      async events(challengeId) {
        return store.events
          .filter((e) => e.challengeId === challengeId)
          .map((e) => ({ type: e.type, payload: e.payload, owner: e.ownerUserId }));
      },
    };
  });
});
