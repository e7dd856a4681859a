/**
 * Issue 38, finding 5: clarification questions, answers and announcements follow the agent-name
 * rule (DESIGN "Whatever a program writes is data"): no control or zero-width characters but
 * newline and tab; at least one visible character that is not a combining mark.
 */
import type { Pool } from 'pg';
import { announce, answerQuestion, askQuestion } from '../../../../src/domain/contests/clarifications';
import { ServiceError } from '../../../../src/errors';
import { RecordingDb } from '../../../fakes/deps';

const CHALLENGE_ID = '00000000-0000-4000-8000-000000000001';
const actor = { userId: '00000000-0000-4000-8000-000000000002' };
const asker = {
  kind: 'user',
  userId: '00000000-0000-4000-8000-000000000003',
  role: 'user',
  name: null,
} as const;

function dbWithChallenge(): RecordingDb {
  const now = new Date();
  return new RecordingDb()
    .answer(/FROM challenges/, [{ id: CHALLENGE_ID, status: 'active', created_at: now, updated_at: now }])
    .answer(/INSERT INTO clarifications/, [
      {
        id: '00000000-0000-4000-8000-000000000004',
        kind: 'question',
        question: 'ok',
        answer: null,
        public: false,
        asked_at: now,
        answered_at: null,
      },
    ]);
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
    const db = dbWithChallenge();
    const err = await refusal(() => askQuestion(db as unknown as Pool, asker, CHALLENGE_ID, text));
    expect(err.code).toBe('VALIDATION_ERROR');
    expect(err.message).toMatch(/^body\.question: /);
    expect(db.statements().some((s) => s.startsWith('INSERT'))).toBe(false);
  });

  test.each(BAD)('an answer or announcement of %s is refused', async (_what, text) => {
    const db = dbWithChallenge();
    const answer = await refusal(() =>
      answerQuestion(db as unknown as Pool, actor, CHALLENGE_ID, { answer: text, public: true }),
    );
    expect(answer.code).toBe('VALIDATION_ERROR');
    expect(answer.message).toMatch(/^body\.answer: /);
    const announcement = await refusal(() => announce(db as unknown as Pool, actor, CHALLENGE_ID, text));
    expect(announcement.code).toBe('VALIDATION_ERROR');
    expect(announcement.message).toMatch(/^body\.text: /);
    expect(db.queries).toHaveLength(0);
  });

  test('newlines (CRLF from a form too) and tabs are fine in long text; a visible accent is fine', async () => {
    const db = dbWithChallenge();
    await askQuestion(db as unknown as Pool, asker, CHALLENGE_ID, 'Line one\r\n\tindented é?');
    const insert = db.queries.find((q) => q.text.includes('INSERT INTO clarifications'))!;
    expect(insert.values).toContain('Line one\n\tindented é?');
  });
});
