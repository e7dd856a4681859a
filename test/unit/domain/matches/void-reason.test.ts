/**
 * Issue 37: a match voided by the service keeps a reason that may quote an error's words (a
 * program's bytes among them). It reaches the matches row and the audit record as storable text
 * (the one sanitizer: NUL and lone surrogates as U+FFFD), at most 500 characters, never half a pair.
 * On the in-memory match voids store (test/fakes/stores/match-voids.ts); what the SQL store does
 * with it: test/contracts/match-void-store.cases.ts on PostgreSQL.
 */
import { voidMatchAsSystem } from '../../../../src/domain/matches/deadline';
import { noDatabase } from '../../../fakes/deps';
import { createFakeMatchVoidStore } from '../../../fakes/stores/match-voids';

function voidDeps() {
  const store = createFakeMatchVoidStore();
  return { store, deps: { db: noDatabase, stores: { matchVoids: store } } };
}

describe('voidMatchAsSystem: the reason as stored', () => {
  it('NUL and lone surrogates become U+FFFD; a long reason is cut on a character', async () => {
    const { store, deps } = voidDeps();
    const match = store.addMatch({ status: 'running' }, ['owner-1']);
    const reason = `RangeError: a\u0000b \uD800 ${'😀'.repeat(600)}`;
    expect(await voidMatchAsSystem(deps, match.id, reason)).toBe('void');
    const stored = store.matches.get(match.id)!.reason!;
    expect(store.matches.get(match.id)!.status).toBe('void');
    expect(stored.startsWith('RangeError: a\uFFFDb \uFFFD 😀')).toBe(true);
    expect(Array.from(stored)).toHaveLength(500);
    expect(stored).not.toMatch(/\u0000|\p{Surrogate}/u);
    expect(store.audits).toEqual([
      {
        actor: 'system',
        action: 'match.void',
        targetType: 'match',
        targetId: match.id,
        detail: { reason: stored, from: 'running' },
      },
    ]);
  });

  it("the void's match.completed goes to each participant's owner once; a finished or unknown match is left as it is", async () => {
    const { store, deps } = voidDeps();
    const match = store.addMatch({ status: 'scheduled' }, ['owner-1', 'owner-2', 'owner-1']);
    await voidMatchAsSystem(deps, match.id, 'gone');
    expect(store.events.map((e) => [e.type, e.ownerUserId, e.payload.rated])).toEqual([
      ['match.completed', 'owner-1', false],
      ['match.completed', 'owner-2', false],
    ]);
    const done = store.addMatch({ status: 'complete' }, ['owner-3']);
    expect(await voidMatchAsSystem(deps, done.id, 'late')).toBe('complete');
    expect(await voidMatchAsSystem(deps, '00000000-0000-4000-8000-0000000000ee', 'none')).toBe('missing');
    expect(store.matches.get(done.id)!.status).toBe('complete');
    expect(store.audits).toHaveLength(1);
    expect(store.events).toHaveLength(2);
  });
});
