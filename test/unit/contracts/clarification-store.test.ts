/** The clarifications store's contract (test/contracts/clarification-store.cases.ts) on the in-memory store. */
import { randomBytes, randomUUID } from 'node:crypto';
import { clarificationStoreContract } from '../../contracts/clarification-store.cases';
import { createFakeClarificationStore } from '../../fakes/stores/clarifications';

describe('the in-memory clarifications store', () => {
  clarificationStoreContract(() => {
    const store = createFakeClarificationStore();
    return {
      store,
      async newChallenge(status = 'active') {
        const challenge = { id: randomUUID(), status, title: `challenge ${randomBytes(3).toString('hex')}` };
        store.challenges.set(challenge.id, challenge);
        return { id: challenge.id, title: challenge.title };
      },
      async newUser() {
        const id = randomUUID();
        store.users.add(id);
        return id;
      },
    };
  });
});
