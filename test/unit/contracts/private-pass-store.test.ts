/** The private passes' store contract (test/contracts/private-pass-store.cases.ts) on the in-memory store. */
import { randomUUID } from 'node:crypto';
import type { JudgeOutcome } from '../../../src/judging';
import { privatePassStoreContract } from '../../contracts/private-pass-store.cases';
import { createFakePrivatePassStore } from '../../fakes/stores/private-passes';

describe('the in-memory private passes store', () => {
  privatePassStoreContract(() => {
    const store = createFakePrivatePassStore();
    return {
      store,
      async newChallenge(judge) {
        const id = randomUUID();
        store.judges.set(id, judge);
        return id;
      },
      async newResult(challengeId, result) {
        const row = store.addResult({
          submission_id: randomUUID(),
          run: 0,
          challenge_id: challengeId,
          private_state: result.privateState,
          breakdown: structuredClone(result.breakdown) as JudgeOutcome,
          superseded: result.superseded ?? false,
        });
        return { submissionId: row.submission_id, run: row.run, resultId: row.id, agentId: row.agent_id };
      },
      async queueWork(workKey) {
        store.work.add(workKey);
      },
    };
  });
});
