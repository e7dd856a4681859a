/**
 * The private passes' store contract: the same cases against the in-memory store (unit tier,
 * test/unit/contracts/private-pass-store.test.ts) and the SQL one on PostgreSQL
 * (test/service/private-pass-store.test.ts), so the fake cannot drift from the database.
 */
import type { PrivatePassStore } from '../../src/db/queries/private-passes';
import type { PrivateState } from '../../src/db/queries/results';
import { storableJson, storableText } from '../../src/lib/storable-text';

export interface PrivatePassStoreHarness {
  store: PrivatePassStore;
  /** A challenge of its own with this judge config. */
  newChallenge(judge: unknown): Promise<string>;
  /** A run (run 0) of a submission of its own to `challengeId` with a stored result. */
  newResult(
    challengeId: string,
    result: { privateState: PrivateState; breakdown: unknown; superseded?: boolean },
  ): Promise<{ submissionId: string; run: number; resultId: string; agentId: string }>;
  /** A judging-queue entry with this work key for that run. */
  queueWork(workKey: string, run: { submissionId: string; run: number }): Promise<void>;
}

const JUDGE = {
  kind: 'rubric',
  criteria: [{ name: 'held', weight: 1, private: true, check: { type: 'contains', value: 'seven' } }],
};
const BREAKDOWN = { score: 100, privateScore: null, summary: 'public', criteria: [] };

export function privatePassStoreContract(harness: () => PrivatePassStoreHarness): void {
  let h: PrivatePassStoreHarness;
  let store: PrivatePassStore;
  beforeEach(() => {
    h = harness();
    store = h.store;
  });

  test("a run's result is found by its submission and run: its challenge, private state and breakdown", async () => {
    const challengeId = await h.newChallenge(JUDGE);
    const run = await h.newResult(challengeId, { privateState: 'pending', breakdown: BREAKDOWN });
    expect(await store.findResultForRun(run.submissionId, run.run)).toMatchObject({
      challenge_id: challengeId,
      private_state: 'pending',
      breakdown: BREAKDOWN,
    });
    expect(await store.findResultForRun(run.submissionId, run.run + 1)).toBeNull();
    expect(await store.findResultForRun('00000000-0000-4000-8000-0000000000aa', 0)).toBeNull();
  });

  test("a challenge's judge as it was stored; null when there is no such challenge", async () => {
    const challengeId = await h.newChallenge(JUDGE);
    expect(await store.findChallengeJudge(challengeId)).toEqual(JUDGE);
    expect(await store.findChallengeJudge('00000000-0000-4000-8000-0000000000bb')).toBeNull();
  });

  test('a pending pass is stored once: score, reason and breakdown, done; a second store changes nothing', async () => {
    const challengeId = await h.newChallenge(JUDGE);
    const run = await h.newResult(challengeId, { privateState: 'pending', breakdown: BREAKDOWN });
    const merged = { ...BREAKDOWN, privateScore: 0 };
    const stored = await store.storePrivatePass({
      submissionId: run.submissionId,
      run: run.run,
      privateScore: 0,
      reason: storableText('sandbox unavailable'),
      breakdown: storableJson(merged),
    });
    expect(stored).toEqual({
      id: run.resultId,
      challenge_id: challengeId,
      agent_id: run.agentId,
      superseded: false,
    });
    expect(await store.findResultForRun(run.submissionId, run.run)).toMatchObject({
      private_state: 'done',
      breakdown: merged,
    });
    const again = await store.storePrivatePass({
      submissionId: run.submissionId,
      run: run.run,
      privateScore: 50,
      reason: null,
      breakdown: storableJson({ ...BREAKDOWN, privateScore: 50 }),
    });
    expect(again).toBeNull();
    expect(await store.findResultForRun(run.submissionId, run.run)).toMatchObject({ breakdown: merged });
  });

  test('a result with no pending pass (none, or done) is not stored over; a superseded run says so', async () => {
    const challengeId = await h.newChallenge(JUDGE);
    for (const privateState of ['none', 'done'] as const) {
      const run = await h.newResult(challengeId, { privateState, breakdown: BREAKDOWN });
      expect(
        await store.storePrivatePass({
          submissionId: run.submissionId,
          run: run.run,
          privateScore: 0,
          reason: null,
          breakdown: storableJson({}),
        }),
      ).toBeNull();
      expect(await store.findResultForRun(run.submissionId, run.run)).toMatchObject({
        private_state: privateState,
        breakdown: BREAKDOWN,
      });
    }
    const old = await h.newResult(challengeId, {
      privateState: 'pending',
      breakdown: BREAKDOWN,
      superseded: true,
    });
    expect(
      await store.storePrivatePass({
        submissionId: old.submissionId,
        run: old.run,
        privateScore: 0,
        reason: storableText('superseded'),
        breakdown: storableJson(BREAKDOWN),
      }),
    ).toMatchObject({ id: old.resultId, superseded: true });
  });

  test("a pass's queue entry is removed once: true, then false; an unknown key is false", async () => {
    const challengeId = await h.newChallenge(JUDGE);
    const run = await h.newResult(challengeId, { privateState: 'pending', breakdown: BREAKDOWN });
    const key = `private:${run.submissionId}:${run.run}`;
    await h.queueWork(key, run);
    expect(await store.removeWork(key)).toBe(true);
    expect(await store.removeWork(key)).toBe(false);
    expect(await store.removeWork(`private:${run.submissionId}:99`)).toBe(false);
  });
}
