import {
  buildEventBody,
  buildTestEventBody,
  InvalidEventPayloadError,
  isValidDeliveryId,
  newDeliveryId,
  WEBHOOK_EVENT_TYPES,
  webhookEventTypeSchema,
} from '../../../src/webhook-transport';

const id = 'whd_0123456789abcdef0123456789abcdef';
const timestamp = new Date('2025-03-01T12:00:00.000Z');
const submissionId = '11111111-1111-4111-8111-111111111111';
const challengeId = '22222222-2222-4222-8222-222222222222';
const agentId = '33333333-3333-4333-8333-333333333333';
const sessionId = '44444444-4444-4444-8444-444444444444';

const build = (eventType: string, payload: Record<string, unknown>) =>
  buildEventBody({ id, eventType, timestamp, payload });

describe('event types', () => {
  it('accepts every type the spec names plus the two arena events (DESIGN: 14), and nothing else', () => {
    expect([...WEBHOOK_EVENT_TYPES].sort()).toEqual(
      [
        'result.finalized',
        'submission.completed',
        'submission.received',
        'submission.queued',
        'submission.failed',
        'challenge.started',
        'challenge.ended',
        'challenge.published',
        'challenge.quarantined',
        'challenge.retired',
        'session.created',
        'breakdown.generated',
        'match.started',
        'match.completed',
      ].sort(),
    );
    expect(webhookEventTypeSchema.safeParse('challenge.published').success).toBe(true);
    expect(webhookEventTypeSchema.safeParse('webhook.test').success).toBe(false);
    expect(webhookEventTypeSchema.safeParse('result.*').success).toBe(false);
  });
});

describe('body shapes the spec shows (fields kept in the spec order, id and timestamp added)', () => {
  it('result.finalized', () => {
    const body = build('result.finalized', {
      submission_id: submissionId,
      challenge_id: challengeId,
      final_score: 87.5,
      result_state: 'scored',
      agent_id: agentId, // not in the shape: must not leak
      judge: { kind: 'rubric' },
    });
    expect(JSON.stringify(body)).toBe(
      JSON.stringify({
        id,
        event_type: 'result.finalized',
        timestamp: '2025-03-01T12:00:00.000Z',
        submission_id: submissionId,
        challenge_id: challengeId,
        data: {
          submission_id: submissionId,
          final_score: 87.5,
          result_state: 'scored',
          challenge_id: challengeId,
        },
      }),
    );
  });

  it('submission.completed always says "completed"', () => {
    const body = build('submission.completed', {
      submission_id: submissionId,
      submission_status: 'complete',
    });
    expect(JSON.stringify(body)).toBe(
      JSON.stringify({
        id,
        event_type: 'submission.completed',
        timestamp: '2025-03-01T12:00:00.000Z',
        submission_id: submissionId,
        data: { submission_id: submissionId, submission_status: 'completed' },
      }),
    );
  });

  it('challenge.published', () => {
    expect(
      JSON.stringify(build('challenge.published', { challenge_id: challengeId, status: 'active' })),
    ).toBe(
      JSON.stringify({
        id,
        event_type: 'challenge.published',
        timestamp: '2025-03-01T12:00:00.000Z',
        challenge_id: challengeId,
        data: { challenge_id: challengeId, status: 'active' },
      }),
    );
  });

  it('challenge.quarantined', () => {
    expect(
      build('challenge.quarantined', { challenge_id: challengeId, reason: 'leaked tests' }),
    ).toStrictEqual({
      id,
      event_type: 'challenge.quarantined',
      timestamp: '2025-03-01T12:00:00.000Z',
      data: { challenge_id: challengeId, reason: 'leaked tests' },
    });
  });

  it('challenge.retired', () => {
    expect(build('challenge.retired', { challenge_id: challengeId, status: 'archived' })).toStrictEqual({
      id,
      event_type: 'challenge.retired',
      timestamp: '2025-03-01T12:00:00.000Z',
      data: { challenge_id: challengeId },
    });
  });
});

describe('body shapes decided here: {id, event_type, timestamp, data}', () => {
  const envelope = (eventType: string, data: Record<string, unknown>) => ({
    id,
    event_type: eventType,
    timestamp: '2025-03-01T12:00:00.000Z',
    data,
  });

  it.each(['received', 'queued'])('submission.%s', (status) => {
    expect(
      build(`submission.${status}`, {
        submission_id: submissionId,
        challenge_id: challengeId,
        agent_id: agentId,
      }),
    ).toStrictEqual(
      envelope(`submission.${status}`, {
        submission_id: submissionId,
        challenge_id: challengeId,
        agent_id: agentId,
        submission_status: status,
      }),
    );
  });

  it('submission.failed, with and without a reason', () => {
    const payload = { submission_id: submissionId, challenge_id: challengeId, agent_id: agentId };
    const expected = { ...payload, submission_status: 'failed' };
    expect(build('submission.failed', { ...payload, reason: 'judge crashed' })).toStrictEqual(
      envelope('submission.failed', { ...expected, reason: 'judge crashed' }),
    );
    expect(build('submission.failed', payload)).toStrictEqual(
      envelope('submission.failed', { ...expected, reason: null }),
    );
  });

  it('challenge.started and challenge.ended take date-times as Date or ISO string and send UTC ISO', () => {
    expect(
      build('challenge.started', {
        challenge_id: challengeId,
        status: 'active',
        starts_at: new Date(Date.UTC(2025, 2, 1)),
      }),
    ).toStrictEqual(
      envelope('challenge.started', {
        challenge_id: challengeId,
        status: 'active',
        starts_at: '2025-03-01T00:00:00.000Z',
      }),
    );
    expect(
      build('challenge.ended', {
        challenge_id: challengeId,
        status: 'complete',
        ends_at: '2025-03-02T01:00:00+01:00',
      }),
    ).toStrictEqual(
      envelope('challenge.ended', {
        challenge_id: challengeId,
        status: 'complete',
        ends_at: '2025-03-02T00:00:00.000Z',
      }),
    );
    expect(
      build('challenge.ended', { challenge_id: challengeId, status: 'complete', ends_at: null }).data,
    ).toEqual({
      challenge_id: challengeId,
      status: 'complete',
      ends_at: null,
    });
  });

  it('session.created', () => {
    expect(
      build('session.created', {
        session_id: sessionId,
        challenge_id: challengeId,
        agent_id: agentId,
        expires_at: null,
        version_snapshot: { secret: 'x' },
      }),
    ).toStrictEqual(
      envelope('session.created', {
        session_id: sessionId,
        challenge_id: challengeId,
        agent_id: agentId,
        expires_at: null,
      }),
    );
  });

  it('breakdown.generated carries ids only (the breakdown is audience-gated)', () => {
    expect(
      build('breakdown.generated', {
        submission_id: submissionId,
        challenge_id: challengeId,
        hidden_tests: ['t1'],
      }),
    ).toStrictEqual(
      envelope('breakdown.generated', { submission_id: submissionId, challenge_id: challengeId }),
    );
  });

  it('webhook.test (test operation only)', () => {
    const body = buildTestEventBody({ id, timestamp, subscriptionId: sessionId });
    expect(body).toStrictEqual(
      envelope('webhook.test', { subscription_id: sessionId, message: expect.any(String) as unknown }),
    );
  });
});

describe('invalid input', () => {
  it.each([
    ['result.finalized', { submission_id: submissionId, challenge_id: challengeId, final_score: 87 }],
    [
      'result.finalized',
      { submission_id: submissionId, challenge_id: challengeId, final_score: 101, result_state: 'scored' },
    ],
    [
      'result.finalized',
      { submission_id: submissionId, challenge_id: challengeId, final_score: '87', result_state: 'scored' },
    ],
    [
      'result.finalized',
      { submission_id: 'nope', challenge_id: challengeId, final_score: 1, result_state: 'scored' },
    ],
    [
      'result.finalized',
      { submission_id: submissionId, challenge_id: challengeId, final_score: 1, result_state: 'great' },
    ],
    ['submission.completed', {}],
    ['challenge.published', { challenge_id: challengeId, status: 'live' }],
    ['challenge.quarantined', { challenge_id: challengeId }],
    ['challenge.started', { challenge_id: challengeId, status: 'active', starts_at: 'yesterday' }],
    ['session.created', { session_id: sessionId, challenge_id: challengeId, agent_id: agentId }],
  ])('%s with %j', (eventType, payload) => {
    expect(() => build(eventType, payload)).toThrow(InvalidEventPayloadError);
  });

  it('names the offending field', () => {
    expect(() => build('challenge.quarantined', { challenge_id: challengeId })).toThrow(
      /invalid challenge.quarantined payload: reason: Required/,
    );
  });

  it('unknown types, bad ids and bad timestamps', () => {
    expect(() => build('webhook.test', {})).toThrow(/unknown webhook event type/);
    expect(() => build('submission.complete', { submission_id: submissionId })).toThrow(
      InvalidEventPayloadError,
    );
    expect(() =>
      buildEventBody({
        id: 'bad id',
        eventType: 'challenge.retired',
        timestamp,
        payload: { challenge_id: challengeId },
      }),
    ).toThrow(/invalid delivery id/);
    expect(() =>
      buildEventBody({
        id,
        eventType: 'challenge.retired',
        timestamp: new Date(NaN),
        payload: { challenge_id: challengeId },
      }),
    ).toThrow(/timestamp/);
  });
});

describe('newDeliveryId', () => {
  it('is a prefixed, header-safe, unique id', () => {
    const a = newDeliveryId();
    expect(a).toMatch(/^whd_[0-9a-f]{32}$/);
    expect(isValidDeliveryId(a)).toBe(true);
    expect(newDeliveryId()).not.toBe(a);
  });
});
