/**
 * Issue 37: a match voided by the service keeps a reason that may quote an error's words (a
 * program's bytes among them). It reaches the matches row and the audit record as storable text
 * (the one sanitizer: NUL and lone surrogates as U+FFFD), at most 500 characters, never half a pair.
 */
import type { Pool } from 'pg';
import { voidMatchAsSystem } from '../../../../src/domain/matches/deadline';
import { RecordingDb } from '../../../fakes/deps';

const MATCH = {
  id: 'm-1',
  status: 'running',
  rated: false,
  challenge_id: 'c-1',
  weight_class_id: null,
  kind: 'game',
};

describe('voidMatchAsSystem: the reason as stored', () => {
  it('NUL and lone surrogates become U+FFFD; a long reason is cut on a character', async () => {
    const db = new RecordingDb()
      .answer(/FROM matches .*FOR UPDATE|FOR UPDATE/s, [MATCH])
      .answer(/UPDATE matches SET status/, [{ ...MATCH, status: 'void' }]);
    const reason = `RangeError: a\u0000b \uD800 ${'😀'.repeat(600)}`;
    await voidMatchAsSystem({ db: db as unknown as Pool }, 'm-1', reason);
    const update = db.queries.find((q) => /UPDATE matches SET status/.test(q.text));
    const stored = update?.values[2] as string;
    expect(stored.startsWith('RangeError: a\uFFFDb \uFFFD 😀')).toBe(true);
    expect(Array.from(stored)).toHaveLength(500);
    expect(stored).not.toMatch(/\u0000|\p{Surrogate}/u);
    const audit = db.queries.find((q) => /INSERT INTO audit_records/.test(q.text));
    expect(JSON.parse(audit?.values.at(-1) as string)).toMatchObject({ reason: stored, from: 'running' });
  });
});
