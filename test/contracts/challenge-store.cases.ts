/**
 * The challenges' store contract: the same cases against the in-memory store (unit tier,
 * test/unit/contracts/challenge-store.test.ts) and the SQL one on PostgreSQL
 * (test/service/challenge-store.test.ts).
 */
import type { ChallengeStore } from '../../src/db/queries/challenge-transitions';

export interface ChallengeStoreHarness {
  store: ChallengeStore;
  /** A draft solo challenge of its own (title 'Contract', starting and ending in the future). */
  newChallenge(): Promise<string>;
  /** A user the audit trail can name. */
  newUser(): Promise<string>;
  /** The audit records about the challenge. */
  audits(challengeId: string): Promise<{ action: string; detail: unknown }[]>;
  /** The outbox events of the challenge. */
  events(challengeId: string): Promise<{ type: string; payload: unknown; owner: string | null }[]>;
}

export function challengeStoreContract(harness: () => ChallengeStoreHarness): void {
  let h: ChallengeStoreHarness;
  beforeEach(() => {
    h = harness();
  });

  test('find and lock answer the stored challenge; an unknown one is null', async () => {
    const id = await h.newChallenge();
    expect(await h.store.findChallengeById(id)).toMatchObject({ id, title: 'Contract', status: 'draft' });
    expect(await h.store.transaction((tx) => tx.lockChallengeById(id))).toMatchObject({
      id,
      status: 'draft',
    });
    expect(await h.store.findChallengeById('00000000-0000-4000-8000-0000000000ab')).toBeNull();
  });

  test('updateChallenge sets the given columns (null too), leaves the others, counts a version; bookkeeping alone keeps updated_at', async () => {
    const id = await h.newChallenge();
    const before = (await h.store.findChallengeById(id))!;
    const now = await h.store.databaseNow();
    expect(now).toBeInstanceOf(Date);
    const updated = await h.store.updateChallenge(id, {
      status: 'active',
      published_at: now,
      quarantine_reason: null,
      starts_at: null,
      judge: { kind: 'rubric', criteria: [{ name: 'test 2', weight: 1, pattern: 'y' }] },
    });
    expect(updated).toMatchObject({ id, status: 'active', starts_at: null, title: 'Contract' });
    expect(updated!.published_at!.getTime()).toBe(now.getTime());
    expect(updated!.ends_at).toEqual(before.ends_at);
    expect(updated!.version).toBeGreaterThan(before.version);
    expect(JSON.stringify((await h.store.findChallengeById(id))!.judge)).toContain('test 2');
    const edited = (await h.store.findChallengeById(id))!;
    const bookkeeping = await h.store.updateChallenge(id, { started_event_at: null });
    expect(bookkeeping!.updated_at).toEqual(edited.updated_at);
    expect(await h.store.updateChallenge('00000000-0000-4000-8000-0000000000ab', { title: 'x' })).toBeNull();
  });

  test('the audit record names its actor; the events are stored as given', async () => {
    const id = await h.newChallenge();
    const user = await h.newUser();
    await h.store.insertAuditRecord({
      actorUserId: user,
      action: 'challenge.publish',
      targetType: 'challenge',
      targetId: id,
      detail: { from: 'draft', changed: true },
    });
    expect(await h.audits(id)).toEqual([
      { action: 'challenge.publish', detail: { from: 'draft', changed: true } },
    ]);
    await h.store.insertOutboxEvents([
      {
        type: 'challenge.published',
        payload: { challenge_id: id, status: 'active' },
        ownerUserId: null,
        challengeId: id,
        sandbox: false,
      },
    ]);
    expect(await h.events(id)).toEqual([
      { type: 'challenge.published', payload: { challenge_id: id, status: 'active' }, owner: null },
    ]);
  });

  test('a transaction that throws leaves nothing: the row as it was, no audit record, no event', async () => {
    const id = await h.newChallenge();
    const user = await h.newUser();
    const before = (await h.store.findChallengeById(id))!;
    const failed = await h.store
      .transaction(async (tx) => {
        await tx.lockChallengeById(id);
        await tx.insertAuditRecord({
          actorUserId: user,
          action: 'challenge.update',
          targetType: 'challenge',
          targetId: id,
          detail: {},
        });
        await tx.updateChallenge(id, { title: 'half' });
        await tx.insertOutboxEvents([
          {
            type: 'challenge.published',
            payload: { challenge_id: id },
            ownerUserId: null,
            challengeId: id,
            sandbox: false,
          },
        ]);
        throw new Error('boom');
      })
      .catch((e: unknown) => e);
    expect(failed).toEqual(new Error('boom'));
    expect(await h.store.findChallengeById(id)).toEqual(before);
    expect(await h.audits(id)).toEqual([]);
    expect(await h.events(id)).toEqual([]);
  });
}
