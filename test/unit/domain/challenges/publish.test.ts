/**
 * Publishing a challenge with the fakes (test/fakes): the transaction runs on the in-memory
 * challenges store (test/fakes/stores/challenges.ts; the SQL one is held to the same contract,
 * test/contracts/challenge-store.cases.ts), the lifecycle workflow on the in-memory Temporal
 * client. No PostgreSQL, no Temporal server: the system tests (challenges-lifecycle,
 * admin-console) prove the real path.
 */
import { publishChallenge, planLifecycle } from '../../../../src/domain/challenges/lifecycle';
import {
  CHALLENGE_LIFECYCLE_WORKFLOW,
  CHALLENGE_SCHEDULE_SIGNAL,
  challengeLifecycleWorkflowId,
} from '../../../../src/domain/challenges/contract';
import { ServiceError } from '../../../../src/errors';
import { fakeServiceDeps } from '../../../fakes/deps';
import { challengeRow } from '../../../fakes/challenge-row';
import { createFakeChallengeStore } from '../../../fakes/stores/challenges';

const ID = '11111111-1111-4111-8111-111111111111';
const NOW = new Date('2026-03-01T12:00:00Z');

function draft(overrides: Record<string, unknown> = {}) {
  return challengeRow({
    id: ID,
    title: 'Sorting',
    status: 'draft',
    starts_at: new Date('2026-03-02T00:00:00Z'),
    ends_at: new Date('2026-03-09T00:00:00Z'),
    quarantine_reason: null,
    published_at: null,
    updated_at: NOW,
    ...overrides,
  });
}

/** The deps with the challenge stored, its operator u1 known to the audit trail, the database clock at NOW. */
function depsWith(row: ReturnType<typeof draft> | null) {
  const store = createFakeChallengeStore({ challenges: row ? [row] : [], users: ['u1'] });
  store.clock = () => NOW;
  return Object.assign(fakeServiceDeps(), { stores: { challenges: store }, store });
}

describe('publishChallenge (fake Temporal, in-memory challenges store)', () => {
  test('a draft becomes active in one transaction: audited, challenge.published in the outbox, the lifecycle workflow started with its schedule', async () => {
    const deps = depsWith(draft());
    const outcome = await publishChallenge(deps, { userId: 'u1' }, ID);

    expect(outcome.changed).toBe(true);
    expect(outcome.challenge.status).toBe('active');
    expect(deps.store.challenges.get(ID)).toMatchObject({ status: 'active', published_at: NOW });
    expect(deps.store.audits).toEqual([
      {
        actorUserId: 'u1',
        action: 'challenge.publish',
        targetType: 'challenge',
        targetId: ID,
        detail: { from: 'draft', changed: true },
      },
    ]);
    expect(deps.store.events.map((e) => [e.type, e.payload, e.challengeId, e.ownerUserId])).toEqual([
      ['challenge.published', { challenge_id: ID, status: 'active' }, ID, null],
    ]);

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
    expect(deps.store.events).toEqual([]);
    expect(deps.store.audits.map((a) => a.detail)).toEqual([{ from: 'active', changed: false }]);
    expect(deps.fakeTemporal.started()).toHaveLength(1);
    expect(deps.fakeTemporal.started()[0].signals.map((s) => s.name)).toEqual([
      CHALLENGE_SCHEDULE_SIGNAL,
      CHALLENGE_SCHEDULE_SIGNAL,
    ]);
  });

  test('Temporal down: SERVICE_UNAVAILABLE and the transaction rolls back (no state change, no event)', async () => {
    const row = draft();
    const deps = depsWith(row);
    deps.fakeTemporal.unavailable = new Error('connection refused');

    const err = await publishChallenge(deps, { userId: 'u1' }, ID).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect((err as ServiceError).code).toBe('SERVICE_UNAVAILABLE');
    // Rolled back: the row as it was, no audit record, no event.
    expect(deps.store.challenges.get(ID)).toEqual(row);
    expect(deps.store.audits).toEqual([]);
    expect(deps.store.events).toEqual([]);
    expect(deps.fakeTemporal.started()).toEqual([]);
  });

  test('a challenge that is not there is NOT_FOUND, and nothing reaches Temporal', async () => {
    const deps = depsWith(null);
    const err = await publishChallenge(deps, { userId: 'u1' }, ID).catch((e: unknown) => e);
    expect((err as ServiceError).code).toBe('NOT_FOUND');
    expect(deps.fakeTemporal.connects).toBe(0);
  });
});
