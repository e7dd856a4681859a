/**
 * The match voids' store contract: the same cases against the in-memory store (unit tier,
 * test/unit/contracts/match-void-store.test.ts) and the SQL one on PostgreSQL
 * (test/service/match-void-store.test.ts).
 */
import type { MatchVoidStore } from '../../src/db/queries/match-finish';
import type { StorableText } from '../../src/lib/storable-text';

export interface MatchVoidStoreHarness {
  store: MatchVoidStore;
  /** A game match of its own in this status, one participant per owner given (seat order). */
  newMatch(
    status: 'scheduled' | 'running' | 'complete',
    owners: number,
  ): Promise<{ id: string; owners: string[] }>;
  /** The match as stored (null: none). */
  match(id: string): Promise<{ status: string; reason: string | null; finished: boolean } | null>;
  /** The audit records about the match: who, what, the detail. */
  audits(matchId: string): Promise<{ actor: string; action: string; detail: unknown }[]>;
  /** The outbox events whose payload names the match: type and owner. */
  events(matchId: string): Promise<{ type: string; owner: string | null }[]>;
}

const reason = (text: string) => text as StorableText;
const byOwner = <T extends { owner: string | null }>(rows: T[]) =>
  [...rows].sort((a, b) => String(a.owner).localeCompare(String(b.owner)));

export function matchVoidStoreContract(harness: () => MatchVoidStoreHarness): void {
  let h: MatchVoidStoreHarness;
  beforeEach(() => {
    h = harness();
  });

  test('lockMatch answers the match with its status; an unknown one is null', async () => {
    const { id } = await h.newMatch('running', 1);
    expect(await h.store.transaction((tx) => tx.lockMatch(id))).toMatchObject({ id, status: 'running' });
    expect(await h.store.lockMatch('00000000-0000-4000-8000-0000000000dd')).toBeNull();
  });

  test('finishMatch ends a running or scheduled match once, with its reason; a finished one is left as it is', async () => {
    for (const status of ['running', 'scheduled'] as const) {
      const { id } = await h.newMatch(status, 1);
      const finished = await h.store.finishMatch(id, 'void', reason('gone'));
      expect(finished).toMatchObject({ id, status: 'void', reason: 'gone' });
      expect(finished?.result_id).toEqual(expect.any(String));
      expect(await h.match(id)).toEqual({ status: 'void', reason: 'gone', finished: true });
      expect(await h.store.finishMatch(id, 'void', reason('again'))).toBeNull();
      expect(await h.match(id)).toEqual({ status: 'void', reason: 'gone', finished: true });
    }
    const done = await h.newMatch('complete', 1);
    expect(await h.store.finishMatch(done.id, 'void', reason('late'))).toBeNull();
    expect((await h.match(done.id))?.status).toBe('complete');
  });

  test("listParticipants answers the match's seats in order with their owners; the bout steps on a match with no entries are no error", async () => {
    const { id, owners } = await h.newMatch('running', 2);
    const seats = await h.store.listParticipants([id]);
    expect(seats.map((p) => [p.seat, p.owner_user_id])).toEqual([
      [1, owners[0]],
      [2, owners[1]],
    ]);
    await expect(h.store.timeOutBoutEntries(id)).resolves.toBeUndefined();
    await expect(h.store.closeBoutSessions(id)).resolves.toBe(0);
  });

  test("the system audit record and the outbox events are stored as given (actor 'system')", async () => {
    const { id, owners } = await h.newMatch('running', 2);
    await h.store.insertSystemAuditRecord({
      action: 'match.void',
      targetType: 'match',
      targetId: id,
      detail: { reason: 'why', from: 'running' },
    });
    expect(await h.audits(id)).toEqual([
      { actor: 'system', action: 'match.void', detail: { reason: 'why', from: 'running' } },
    ]);
    const ids = await h.store.insertOutboxEvents(
      owners.map((ownerUserId) => ({
        type: 'match.completed',
        payload: { match_id: id },
        ownerUserId,
        challengeId: null,
        sandbox: false,
      })),
    );
    expect(ids).toHaveLength(2);
    expect(byOwner(await h.events(id))).toEqual(
      byOwner(owners.map((owner) => ({ type: 'match.completed', owner }))),
    );
  });

  test('a transaction that throws leaves nothing: the match as it was, no audit record, no event', async () => {
    const { id, owners } = await h.newMatch('running', 1);
    const failed = await h.store
      .transaction(async (tx) => {
        await tx.lockMatch(id);
        await tx.insertSystemAuditRecord({
          action: 'match.void',
          targetType: 'match',
          targetId: id,
          detail: {},
        });
        await tx.finishMatch(id, 'void', reason('half'));
        await tx.insertOutboxEvents([
          {
            type: 'match.completed',
            payload: { match_id: id },
            ownerUserId: owners[0],
            challengeId: null,
            sandbox: false,
          },
        ]);
        throw new Error('boom');
      })
      .catch((e: unknown) => e);
    expect(failed).toEqual(new Error('boom'));
    expect(await h.match(id)).toEqual({ status: 'running', reason: null, finished: false });
    expect(await h.audits(id)).toEqual([]);
    expect(await h.events(id)).toEqual([]);
  });
}
