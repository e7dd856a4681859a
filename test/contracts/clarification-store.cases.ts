/**
 * The clarifications store's contract: the same cases against the in-memory store (unit tier,
 * test/unit/contracts/clarification-store.test.ts) and the SQL one on PostgreSQL
 * (test/service/clarification-store.test.ts), so the fake cannot drift from the database.
 */
import type { ClarificationStore } from '../../src/db/queries/clarifications';
import { storableText } from '../../src/lib/storable-text';

export interface ClarificationStoreHarness {
  store: ClarificationStore;
  /** A challenge of its own (active unless told). */
  newChallenge(status?: 'draft' | 'active'): Promise<{ id: string; title: string }>;
  /** A user of its own (an asker, an operator). */
  newUser(): Promise<string>;
}

const text = (s: string) => storableText(s);

export function clarificationStoreContract(harness: () => ClarificationStoreHarness): void {
  let h: ClarificationStoreHarness;
  let store: ClarificationStore;
  beforeEach(() => {
    h = harness();
    store = h.store;
  });

  test('a question is stored unanswered and private, and found by its id', async () => {
    const challenge = await h.newChallenge();
    const asker = await h.newUser();
    const q = await store.insertQuestion({
      challengeId: challenge.id,
      question: text('why?'),
      askedBy: asker,
    });
    expect(q).toMatchObject({
      challenge_id: challenge.id,
      kind: 'question',
      question: 'why?',
      answer: null,
      public: false,
      asked_by: asker,
      answered_by: null,
      answered_at: null,
    });
    expect(q!.asked_at).toBeInstanceOf(Date);
    expect(await store.findClarification(q!.id)).toEqual(q);
    expect(await store.findClarification(q!.id, true)).toEqual(q);
    expect(await store.findClarification('00000000-0000-4000-8000-00000000dead')).toBeNull();
  });

  test('answering a question records the answer, its visibility and who answered; an announcement is not a question', async () => {
    const challenge = await h.newChallenge();
    const [asker, operator] = [await h.newUser(), await h.newUser()];
    const q = await store.insertQuestion({
      challengeId: challenge.id,
      question: text('when?'),
      askedBy: asker,
    });
    const answered = await store.answerClarification({
      id: q!.id,
      answer: text('now'),
      public: true,
      by: operator,
    });
    expect(answered).toMatchObject({ id: q!.id, answer: 'now', public: true, answered_by: operator });
    expect(answered!.answered_at).toBeInstanceOf(Date);
    const a = await store.insertAnnouncement({
      challengeId: challenge.id,
      text: text('hello'),
      by: operator,
    });
    expect(a).toMatchObject({
      kind: 'announcement',
      question: null,
      answer: 'hello',
      public: true,
      asked_by: null,
      answered_by: operator,
    });
    expect(a!.answered_at).toBeInstanceOf(Date);
    expect(
      await store.answerClarification({ id: a!.id, answer: text('x'), public: false, by: operator }),
    ).toBeNull();
    expect(await store.findClarification(a!.id)).toEqual(a);
  });

  test('a listing shows the public ones and announcements, the asker its own questions, operators all; oldest first', async () => {
    const challenge = await h.newChallenge();
    const other = await h.newChallenge();
    const [asker, someone, operator] = [await h.newUser(), await h.newUser(), await h.newUser()];
    const mine = await store.insertQuestion({
      challengeId: challenge.id,
      question: text('mine'),
      askedBy: asker,
    });
    const theirs = await store.insertQuestion({
      challengeId: challenge.id,
      question: text('theirs'),
      askedBy: someone,
    });
    const news = await store.insertAnnouncement({
      challengeId: challenge.id,
      text: text('news'),
      by: operator,
    });
    await store.answerClarification({ id: theirs!.id, answer: text('public'), public: true, by: operator });
    await store.insertQuestion({ challengeId: other.id, question: text('elsewhere'), askedBy: asker });
    const ids = async (who: { all: boolean; askedBy: string | null }) =>
      (await store.listClarifications(challenge.id, who)).map((r) => r.id);
    expect(await ids({ all: false, askedBy: asker })).toEqual([mine!.id, theirs!.id, news!.id]);
    expect(await ids({ all: false, askedBy: someone })).toEqual([theirs!.id, news!.id]);
    expect(await ids({ all: false, askedBy: null })).toEqual([theirs!.id, news!.id]);
    expect(await ids({ all: true, askedBy: operator })).toEqual([mine!.id, theirs!.id, news!.id]);
  });

  test("the unanswered questions: oldest first, with their challenge's title, counted", async () => {
    const challenge = await h.newChallenge();
    const asker = await h.newUser();
    const before = await store.countUnansweredQuestions();
    const first = await store.insertQuestion({
      challengeId: challenge.id,
      question: text('1'),
      askedBy: asker,
    });
    const second = await store.insertQuestion({
      challengeId: challenge.id,
      question: text('2'),
      askedBy: asker,
    });
    const third = await store.insertQuestion({
      challengeId: challenge.id,
      question: text('3'),
      askedBy: asker,
    });
    await store.answerClarification({ id: second!.id, answer: text('a'), public: false, by: asker });
    await store.insertAnnouncement({ challengeId: challenge.id, text: text('not a question'), by: asker });
    expect(await store.countUnansweredQuestions()).toBe(before + 2);
    // This store's rows (the database is the suite's own): the newest come last.
    const listed = await store.listUnansweredQuestions(before + 2);
    expect(listed.slice(-2).map((r) => [r.id, r.challenge_title])).toEqual([
      [first!.id, challenge.title],
      [third!.id, challenge.title],
    ]);
    expect(await store.listUnansweredQuestions(before + 1)).toHaveLength(before + 1);
  });

  test('the challenge a clarification hangs on: its id and status, null when there is none', async () => {
    const draft = await h.newChallenge('draft');
    expect(await store.findChallenge(draft.id)).toEqual({ id: draft.id, status: 'draft' });
    expect(await store.findChallenge('00000000-0000-4000-8000-00000000beef')).toBeNull();
  });

  test('a question needs its challenge', async () => {
    const asker = await h.newUser();
    await expect(
      store.insertQuestion({
        challengeId: '00000000-0000-4000-8000-00000000f00d',
        question: text('?'),
        askedBy: asker,
      }),
    ).rejects.toThrow();
  });

  test('an audit record names a known user; for an unknown one it is refused', async () => {
    const operator = await h.newUser();
    const challenge = await h.newChallenge();
    const record = await store.insertAuditRecord({
      actorUserId: operator,
      action: 'challenge.announce',
      targetType: 'challenge',
      targetId: challenge.id,
      detail: { n: 1 },
    });
    expect(record).toMatchObject({
      action: 'challenge.announce',
      target_type: 'challenge',
      target_id: challenge.id,
      detail: { n: 1 },
    });
    await expect(
      store.insertAuditRecord({
        actorUserId: '00000000-0000-4000-8000-00000000abcd',
        action: 'challenge.announce',
        targetType: 'challenge',
        targetId: challenge.id,
        detail: {},
      }),
    ).rejects.toThrow(/audit: no user/);
  });

  test('a transaction keeps its writes when it returns and none of them when it throws', async () => {
    const challenge = await h.newChallenge();
    const asker = await h.newUser();
    const kept = await store.transaction((tx) =>
      tx.insertQuestion({ challengeId: challenge.id, question: text('kept'), askedBy: asker }),
    );
    let lost: string | undefined;
    await expect(
      store.transaction(async (tx) => {
        lost = (await tx.insertQuestion({
          challengeId: challenge.id,
          question: text('lost'),
          askedBy: asker,
        }))!.id;
        await tx.answerClarification({ id: kept!.id, answer: text('undone'), public: true, by: asker });
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    expect(lost).toBeDefined();
    expect(await store.findClarification(lost!)).toBeNull();
    expect(await store.findClarification(kept!.id)).toMatchObject({ answer: null, public: false });
  });
}
