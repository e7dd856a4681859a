/**
 * Issue 38, finding 5: clarification questions, answers and announcements follow the agent-name
 * rule (DESIGN "Whatever a program writes is data"): no control or zero-width characters but
 * newline and tab; at least one visible character that is not a combining mark. On the in-memory
 * clarifications store (test/fakes/stores/clarifications.ts): a refusal stores nothing.
 */
import {
  announce,
  answerQuestion,
  askQuestion,
  listChallengeClarifications,
} from '../../../../src/domain/contests/clarifications';
import type { Principal } from '../../../../src/auth/principal';
import { ServiceError } from '../../../../src/errors';
import type { Pool } from 'pg';
import {
  createFakeClarificationStore,
  type FakeClarificationStore,
} from '../../../fakes/stores/clarifications';

const CHALLENGE_ID = '00000000-0000-4000-8000-000000000001';
const actor = { userId: '00000000-0000-4000-8000-000000000002' };
const asker = {
  kind: 'user',
  userId: '00000000-0000-4000-8000-000000000003',
  role: 'user',
  name: null,
} as const;

/** Deps whose only store is the fake: no database behind `db` (a query would throw). */
function depsWithChallenge(): {
  store: FakeClarificationStore;
  deps: { db: Pool; stores: { clarifications: FakeClarificationStore } };
} {
  const store = createFakeClarificationStore({
    challenges: [{ id: CHALLENGE_ID, status: 'active', title: 'c' }],
    users: [actor.userId, asker.userId],
  });
  return { store, deps: { db: {} as Pool, stores: { clarifications: store } } };
}

async function refusal(run: () => Promise<unknown>): Promise<ServiceError> {
  try {
    await run();
  } catch (err) {
    if (err instanceof ServiceError) return err;
    throw err;
  }
  throw new Error('expected a refusal, the text was accepted');
}

const BAD: [string, string][] = [
  ['zero-width characters only', '\u200b\u200b\u200b'],
  ['a zero-width joiner inside', 'why\u200d?'],
  ['a control character', 'is this\u0007 allowed?'],
  ['combining marks only', '\u0301\u0302\u0303'],
  ['a bidi override', 'abc\u202edef'],
];

describe('clarification text follows the agent-name rule', () => {
  test.each(BAD)('a question of %s is 400 VALIDATION_ERROR naming the field', async (_what, text) => {
    const { store, deps } = depsWithChallenge();
    const err = await refusal(() => askQuestion(deps, asker, CHALLENGE_ID, text));
    expect(err.code).toBe('VALIDATION_ERROR');
    expect(err.message).toMatch(/^body\.question: /);
    expect(store.rows.size).toBe(0);
  });

  test.each(BAD)('an answer or announcement of %s is refused', async (_what, text) => {
    const { store, deps } = depsWithChallenge();
    const question = await askQuestion(deps, asker, CHALLENGE_ID, 'a fine question?');
    const answer = await refusal(() =>
      answerQuestion(deps, actor, question.id, { answer: text, public: true }),
    );
    expect(answer.code).toBe('VALIDATION_ERROR');
    expect(answer.message).toMatch(/^body\.answer: /);
    const announcement = await refusal(() => announce(deps, actor, CHALLENGE_ID, text));
    expect(announcement.code).toBe('VALIDATION_ERROR');
    expect(announcement.message).toMatch(/^body\.text: /);
    // Nothing but the question: no answer, no announcement, no audit record.
    expect([...store.rows.values()].map((r) => [r.kind, r.answer])).toEqual([['question', null]]);
    expect(store.audits).toEqual([]);
  });

  test('newlines (CRLF from a form too) and tabs are fine in long text; a visible accent is fine', async () => {
    const { store, deps } = depsWithChallenge();
    const asked = await askQuestion(deps, asker, CHALLENGE_ID, 'Line one\r\n\tindented é?');
    expect(asked.question).toBe('Line one\n\tindented é?');
    expect(store.rows.get(asked.id)?.question).toBe('Line one\n\tindented é?');
  });
});

/**
 * Who sees what (DESIGN "Fair contests"), on the domain's operations: what
 * test/system/fair-contests.test.ts checked through HTTP for each audience, kept there only
 * for the wiring (credentials, the page).
 */
describe('clarifications keep their audience', () => {
  const ada = { kind: 'user', userId: asker.userId, role: 'user', name: 'ada' } as const;
  const adaToken: Principal = {
    kind: 'apiToken',
    tokenId: 't-1',
    userId: asker.userId,
    agentId: 'a-1',
    scopes: [],
    sandbox: false,
    role: 'user',
  };
  const bob = {
    kind: 'user',
    userId: '00000000-0000-4000-8000-000000000005',
    role: 'user',
    name: 'bob',
  } as const;
  const operator = { kind: 'user', userId: actor.userId, role: 'admin', name: 'op' } as const;

  test('a private question is invisible to another competitor; a public answer and announcements reach everyone; operators see all, and are audited', async () => {
    const { store, deps } = depsWithChallenge();
    await expect(askQuestion(deps, { kind: 'anonymous' }, CHALLENGE_ID, 'anonymous?')).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
    });
    await expect(askQuestion(deps, adaToken, CHALLENGE_ID, '   ')).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
    });
    // Asked with the agent's token, the question is its owner's.
    const privateOne = await askQuestion(deps, adaToken, CHALLENGE_ID, 'Is the secret input sorted?');
    expect(privateOne).toMatchObject({ kind: 'question', answer: null, public: false });
    const publicOne = await askQuestion(deps, ada, CHALLENGE_ID, 'May we use the standard library?');
    const seen = async (who: Parameters<typeof listChallengeClarifications>[1]) =>
      (await listChallengeClarifications(deps, who, CHALLENGE_ID)).map((c) => c.id);
    expect(await seen(bob)).toEqual([]);
    expect(await seen(adaToken)).toEqual([privateOne.id, publicOne.id]);
    expect(await seen(operator)).toEqual([privateOne.id, publicOne.id]);

    await answerQuestion(deps, actor, privateOne.id, { answer: 'We cannot say.', public: false });
    expect(await answerQuestion(deps, actor, publicOne.id, { answer: 'Yes.', public: true })).toMatchObject({
      public: true,
      answer: 'Yes.',
    });
    const news = await announce(deps, actor, CHALLENGE_ID, 'Test 3 was fixed.');
    expect(news).toMatchObject({
      kind: 'announcement',
      question: null,
      answer: 'Test 3 was fixed.',
      public: true,
    });
    expect(await seen(bob)).toEqual([publicOne.id, news.id]);
    expect(await seen({ kind: 'anonymous' })).toEqual([publicOne.id, news.id]);
    const adas = await listChallengeClarifications(deps, ada, CHALLENGE_ID);
    expect(adas.find((c) => c.id === privateOne.id)?.answer).toBe('We cannot say.');
    expect(store.audits.map((r) => [r.action, r.targetId]).sort()).toEqual([
      ['challenge.announce', CHALLENGE_ID],
      ['clarification.answer', CHALLENGE_ID],
      ['clarification.answer', CHALLENGE_ID],
    ]);
    // An announcement is not a question to answer; an unknown one is not found.
    await expect(answerQuestion(deps, actor, news.id, { answer: 'x', public: true })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  test("a draft challenge's clarifications are the operators' only", async () => {
    const { store, deps } = depsWithChallenge();
    store.challenges.set('draft-1', { id: 'draft-1', status: 'draft', title: 'd' });
    await expect(askQuestion(deps, ada, 'draft-1', 'what?')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(await listChallengeClarifications(deps, operator, 'draft-1')).toEqual([]);
  });
});
