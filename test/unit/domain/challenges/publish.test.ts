/**
 * Publishing a challenge with the fakes (test/fakes): the transaction's statements go to a
 * recording database, the lifecycle workflow to the in-memory Temporal client. No PostgreSQL, no
 * Temporal server: the integration tests (challenges-lifecycle, admin-console) prove the real path.
 */
import { publishChallenge, planLifecycle } from '../../../../src/domain/challenges/lifecycle';
import {
  CHALLENGE_LIFECYCLE_WORKFLOW,
  CHALLENGE_SCHEDULE_SIGNAL,
  challengeLifecycleWorkflowId,
} from '../../../../src/domain/challenges/contract';
import { ServiceError } from '../../../../src/errors';
import { fakeServiceDeps } from '../../../fakes/deps';

const ID = '11111111-1111-4111-8111-111111111111';
const NOW = new Date('2026-03-01T12:00:00Z');

function draft(overrides: Record<string, unknown> = {}) {
  return {
    id: ID,
    title: 'Sorting',
    status: 'draft',
    starts_at: new Date('2026-03-02T00:00:00Z'),
    ends_at: new Date('2026-03-09T00:00:00Z'),
    quarantine_reason: null,
    published_at: null,
    updated_at: NOW,
    ...overrides,
  };
}

function depsWith(row: ReturnType<typeof draft>) {
  const deps = fakeServiceDeps();
  deps.fakeDb
    .answer(/FOR UPDATE/, [row])
    .answer(/INSERT INTO audit_records/, [{ id: 'audit-1' }])
    .answer(/SELECT now\(\)/, [{ now: NOW }])
    .answer(/^\s*UPDATE challenges/, [{ ...row, status: 'active', published_at: NOW }]);
  return deps;
}

describe('publishChallenge (fake Temporal, recording database)', () => {
  test('a draft becomes active in one transaction: audited, challenge.published in the outbox, the lifecycle workflow started with its schedule', async () => {
    const deps = depsWith(draft());
    const outcome = await publishChallenge(deps, { userId: 'u1' }, ID);

    expect(outcome.changed).toBe(true);
    expect(outcome.challenge.status).toBe('active');
    const statements = deps.fakeDb.statements();
    expect(statements[0]).toBe('BEGIN');
    expect(statements.at(-1)).toBe('COMMIT');
    const texts = deps.fakeDb.queries.map((q) => q.text);
    expect(texts.some((t) => t.includes('INSERT INTO audit_records'))).toBe(true);
    const outbox = deps.fakeDb.queries.find((q) => q.text.includes('INSERT INTO outbox_events'));
    expect(outbox?.values[0]).toEqual(['challenge.published']);

    const [workflow] = deps.fakeTemporal.started(CHALLENGE_LIFECYCLE_WORKFLOW);
    expect(workflow).toMatchObject({
      workflowId: challengeLifecycleWorkflowId(ID),
      taskQueue: 'unit-test-queue',
      args: [
        {
          challengeId: ID,
          schedule: { startsAt: '2026-03-02T00:00:00.000Z', endsAt: '2026-03-09T00:00:00.000Z' },
        },
      ],
      searchAttributes: [{ key: 'ChallengeId', value: ID }],
    });
    expect(workflow.signals).toEqual([
      {
        name: CHALLENGE_SCHEDULE_SIGNAL,
        args: [{ startsAt: '2026-03-02T00:00:00.000Z', endsAt: '2026-03-09T00:00:00.000Z' }],
      },
    ]);
  });

  test('an active challenge is not published again: no event, the running workflow re-planned (one workflow, two schedule signals)', async () => {
    const deps = depsWith(draft({ status: 'active' }));
    await planLifecycle(deps, draft({ status: 'active' }) as never);
    const outcome = await publishChallenge(deps, { userId: 'u1' }, ID);

    expect(outcome.changed).toBe(false);
    expect(deps.fakeDb.queries.some((q) => q.text.includes('INSERT INTO outbox_events'))).toBe(false);
    expect(deps.fakeTemporal.started()).toHaveLength(1);
    expect(deps.fakeTemporal.started()[0].signals.map((s) => s.name)).toEqual([
      CHALLENGE_SCHEDULE_SIGNAL,
      CHALLENGE_SCHEDULE_SIGNAL,
    ]);
  });

  test('Temporal down: SERVICE_UNAVAILABLE and the transaction rolls back (no state change, no event)', async () => {
    const deps = depsWith(draft());
    deps.fakeTemporal.unavailable = new Error('connection refused');

    const err = await publishChallenge(deps, { userId: 'u1' }, ID).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect((err as ServiceError).code).toBe('SERVICE_UNAVAILABLE');
    expect(deps.fakeDb.statements()).toContain('ROLLBACK');
    expect(deps.fakeDb.statements()).not.toContain('COMMIT');
    expect(deps.fakeTemporal.started()).toEqual([]);
  });

  test('a challenge that is not there is NOT_FOUND, and nothing reaches Temporal', async () => {
    const deps = fakeServiceDeps();
    const err = await publishChallenge(deps, { userId: 'u1' }, ID).catch((e: unknown) => e);
    expect((err as ServiceError).code).toBe('NOT_FOUND');
    expect(deps.fakeTemporal.connects).toBe(0);
  });
});
