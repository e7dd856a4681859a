/**
 * PostgreSQL refusing connections answers 503 SERVICE_UNAVAILABLE with Retry-After (DESIGN),
 * never the 500 DB_ERROR of other database failures.
 */
import pino from 'pino';
import { DATABASE_RETRY_AFTER_SEC, errorHandler } from '../../../src/api/middleware/error-handler';

async function answerTo(thrown: unknown) {
  const headers: Record<string, string> = {};
  const ctx = {
    state: { requestId: 'req-1', errorStyle: 'envelope' },
    status: 200,
    body: undefined as unknown,
    type: '',
    method: 'GET',
    path: '/api/v1/challenges',
    set(name: string, value: string) {
      headers[name] = value;
    },
  };
  await errorHandler(pino({ level: 'silent' }))(ctx as never, async () => {
    throw thrown;
  });
  return { status: ctx.status, body: ctx.body as { error: { code: string } }, headers };
}

const pgError = (code: string, message = 'pg') => Object.assign(new Error(message), { code });

test.each([
  ['53300 too_many_connections', pgError('53300', 'sorry, too many clients already')],
  ['57P03 cannot_connect_now', pgError('57P03', 'the database system is starting up')],
  ['08006 connection_failure', pgError('08006')],
  ['ECONNREFUSED', pgError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432')],
  ["the pool's connect timeout", new Error('timeout exceeded when trying to connect')],
])('%s → 503 SERVICE_UNAVAILABLE with Retry-After', async (_name, thrown) => {
  const answer = await answerTo(thrown);
  expect(answer.status).toBe(503);
  expect(answer.body.error.code).toBe('SERVICE_UNAVAILABLE');
  expect(answer.headers['Retry-After']).toBe(String(DATABASE_RETRY_AFTER_SEC));
});

test('another database error stays 500 DB_ERROR', async () => {
  const answer = await answerTo(pgError('42P01', 'relation does not exist'));
  expect(answer.status).toBe(500);
  expect(answer.body.error.code).toBe('DB_ERROR');
  expect(answer.headers['Retry-After']).toBeUndefined();
});
