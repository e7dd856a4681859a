import { verify as verifyGithubStyle } from '@octokit/webhooks-methods';
import { Webhook } from 'standardwebhooks';
import { EVENT_TYPES } from '../../src/events/types';
import { createActive, transition } from '../helpers/challenge-factories';
import { eventually, newAgent } from '../helpers/factories';
import { startTestServer, type TestServer } from '../helpers/server';
import { sessionFor, submit, waitForSubmission } from '../helpers/submission-factories';
import {
  attemptRows,
  createWebhook,
  expectAttemptTimesKeepDelays,
  startReceiver,
  TEST_SECRET,
  type ReceivedRequest,
  type TestReceiver,
} from '../helpers/webhook-factories';

/** The real emitters (admin challenge API, sessions, the submission workflow) driving real deliveries. */
let server: TestServer;
let mine: TestReceiver;
let theirs: TestReceiver;
beforeAll(async () => {
  [server, mine, theirs] = await Promise.all([startTestServer(), startReceiver(), startReceiver()]);
});
afterAll(async () => {
  await Promise.all([mine.close(), theirs.close()]);
  await server.close();
});

test('a challenge lifecycle and a judged submission reach the subscriber as signed deliveries', async () => {
  const agent = await newAgent(server);
  const other = await newAgent(server);
  const sub = await createWebhook(server, agent.token, { url: mine.url, events: [...EVENT_TYPES] });
  const otherSub = await createWebhook(server, other.token, {
    url: theirs.url,
    events: ['submission.completed', 'result.finalized', 'challenge.retired'],
  });

  const challenge = await createActive(server);
  const sessionId = await sessionFor(server, agent, challenge.id);
  const created = await submit(server, agent.token, sessionId, { content: 'The answer is 42' });
  expect(created.status).toBe(201);
  const submissionId: string = created.body.data.id;
  const judged = await waitForSubmission(server, agent.token, submissionId);
  await transition(server, challenge.id, 'quarantine', { reason: 'answers leaked' });
  await transition(server, challenge.id, 'retire');

  const about = (r: ReceivedRequest) => {
    const body = JSON.parse(r.rawBody);
    return body.data?.challenge_id === challenge.id || body.data?.submission_id === submissionId;
  };
  const expected = [
    'challenge.published',
    'session.created',
    'submission.received',
    'submission.queued',
    'submission.completed',
    'result.finalized',
    'breakdown.generated',
    'challenge.quarantined',
    'challenge.retired',
  ];
  const received = await eventually(async () => {
    const got = mine.requests.filter(about);
    const types = new Set(got.map((r) => r.headers['x-svc-event']));
    return expected.every((t) => types.has(t)) ? got : undefined;
  }, 30_000);

  const byType = new Map(received.map((r) => [r.headers['x-svc-event'], r]));
  for (const r of received) {
    expect(await verifyGithubStyle(TEST_SECRET, r.rawBody, r.headers['x-svc-signature']!)).toBe(true);
    expect(() =>
      new Webhook(Buffer.from(TEST_SECRET).toString('base64')).verify(r.rawBody, r.headers),
    ).not.toThrow();
    expect(r.headers['x-svc-event-version']).toBe('1');
    // One attempt each, recorded when its request went out (batched or not): received at or after it.
    // (The row is written once the answer is in, so it may lag the receiver a moment.)
    const attempts = await eventually(async () => {
      const rows = await attemptRows(server.deps.db, r.headers['x-svc-delivery-id']!);
      return rows.length > 0 ? rows : undefined;
    });
    expectAttemptTimesKeepDelays([r], attempts, []);
  }
  const body = (t: string) => JSON.parse(byType.get(t)!.rawBody);
  expect(body('challenge.published')).toMatchObject({
    event_type: 'challenge.published',
    challenge_id: challenge.id,
    data: { challenge_id: challenge.id, status: 'active' },
  });
  expect(body('session.created').data).toMatchObject({
    session_id: sessionId,
    challenge_id: challenge.id,
    agent_id: agent.agentId,
  });
  expect(body('submission.completed')).toMatchObject({
    submission_id: submissionId,
    data: { submission_id: submissionId, submission_status: 'completed' },
  });
  const finalized = body('result.finalized');
  expect(finalized).toMatchObject({
    submission_id: submissionId,
    challenge_id: challenge.id,
    data: { submission_id: submissionId, challenge_id: challenge.id },
  });
  expect(typeof finalized.data.final_score).toBe('number');
  expect(judged.submission_status).toBe('complete');
  expect(finalized.data.result_state).toBe('scored');
  expect(body('challenge.quarantined').data).toEqual({
    challenge_id: challenge.id,
    reason: 'answers leaked',
  });
  expect(body('challenge.retired').data).toEqual({ challenge_id: challenge.id });

  // Another user's subscription gets the public challenge news, never this agent's submission events.
  await eventually(async () =>
    theirs.requests.some((r) => about(r) && r.headers['x-svc-event'] === 'challenge.retired'),
  );
  expect(theirs.requests.filter(about).map((r) => r.headers['x-svc-event'])).toEqual(['challenge.retired']);

  const listed = await server.request('GET', `/api/v1/webhooks/${sub.id}/deliveries`, { auth: agent.token });
  expect(listed.body.data.length).toBeGreaterThanOrEqual(expected.length);
  expect(otherSub.status).toBe('active');
});
