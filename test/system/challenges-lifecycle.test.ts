import pino from 'pino';
import { createLifecycleSteps } from '../../src/domain/challenges/lifecycle';
import { ChallengeIdKey } from '../../src/temporal-client/search-attributes';
import {
  CHALLENGE_LIFECYCLE_STATE_QUERY,
  challengeLifecycleWorkflowId,
  type ChallengeLifecycleState,
} from '../../src/domain/challenges/contract';
import { createActive, createDraft, inSeconds, outboxFor, transition } from '../helpers/challenge-factories';
import { eventually, type TestUser } from '../helpers/factories';
import { type TestServer } from '../helpers/server';
import { startServerAndAdmin } from '../helpers/server-and-admin';

let server: TestServer;
let admin: TestUser;
beforeAll(async () => ({ server, admin } = await startServerAndAdmin()));
afterAll(() => server.close());

const WAIT = 40_000;
jest.setTimeout(90_000);

async function handle(challengeId: string) {
  const client = await server.deps.temporal();
  return client.workflow.getHandle(challengeLifecycleWorkflowId(challengeId));
}

async function statusOf(id: string): Promise<string> {
  const res = await server.request('GET', `/api/v1/admin/challenges/${id}`, { auth: admin.jwt });
  return res.body.data.status;
}

async function workflowClosed(id: string): Promise<string | false> {
  const description = await (await handle(id)).describe();
  return description.status.name === 'RUNNING' ? false : description.status.name;
}

const types = async (id: string) => (await outboxFor(server, id)).map((e) => e.event_type);

describe('challenge-lifecycle workflow', () => {
  test('publish → challenge.started at starts_at → active→complete and challenge.ended at ends_at', async () => {
    // Times a second ahead: the timers' own logic (re-plans, never early) is test/service/workflows/challenges.test.ts.
    const startsAt = inSeconds(1);
    const endsAt = inSeconds(2);
    const challenge = await createActive(server, { starts_at: startsAt, ends_at: endsAt }, admin);

    const description = await (await handle(challenge.id)).describe();
    expect(description.typedSearchAttributes.get(ChallengeIdKey)).toBe(challenge.id);

    const [started] = await eventually(async () => {
      const rows = await outboxFor(server, challenge.id, 'challenge.started');
      return rows.length > 0 && rows;
    }, WAIT);
    expect(started.payload).toEqual({
      challenge_id: challenge.id,
      status: 'active',
      starts_at: new Date(startsAt).toISOString(),
    });
    expect(started.owner_user_id).toBeNull();
    expect(started.created_at.getTime()).toBeGreaterThanOrEqual(Date.parse(startsAt) - 50);

    await eventually(async () => (await statusOf(challenge.id)) === 'complete', WAIT);
    const ended = await outboxFor(server, challenge.id, 'challenge.ended');
    expect(ended.map((e) => e.payload)).toEqual([
      { challenge_id: challenge.id, status: 'complete', ends_at: new Date(endsAt).toISOString() },
    ]);
    expect(await types(challenge.id)).toEqual([
      'challenge.published',
      'challenge.started',
      'challenge.ended',
    ]);
    expect(await eventually(() => workflowClosed(challenge.id), WAIT)).toBe('COMPLETED');
    expect(await (await handle(challenge.id)).result()).toBe('completed');
    // complete is public but no longer enterable
    const res = await server.request('GET', `/api/v1/challenges/${challenge.id}`);
    expect(res.body.data.status).toBe('complete');
  });

  test('without starts_at, challenge.started follows publication at once', async () => {
    const challenge = await createActive(server, { starts_at: null, ends_at: null }, admin);
    const [started] = await eventually(async () => {
      const rows = await outboxFor(server, challenge.id, 'challenge.started');
      return rows.length > 0 && rows;
    }, WAIT);
    expect(started.payload).toEqual({ challenge_id: challenge.id, status: 'active', starts_at: null });
    // open-ended: the workflow keeps waiting for edits
    const state = await (
      await handle(challenge.id)
    ).query<ChallengeLifecycleState>(CHALLENGE_LIFECYCLE_STATE_QUERY);
    expect(state).toMatchObject({ phase: 'open_ended', startedDone: true });
    await transition(server, challenge.id, 'retire', undefined, admin);
    expect(await eventually(() => workflowClosed(challenge.id), WAIT)).toBe('COMPLETED');
  });

  test('an edit of the times reaches the running workflow: a later end re-plans it, an end in the past completes it', async () => {
    // That a re-planned run keeps waiting past its old end is test/service/workflows/challenges.test.ts.
    const moved = await createActive(server, { starts_at: null, ends_at: inSeconds(3600) }, admin);
    const later = inSeconds(7200);
    await server.request('PATCH', `/api/v1/admin/challenges/${moved.id}`, {
      auth: admin.jwt,
      body: { ends_at: later },
    });
    await eventually(async () => {
      const state = await (
        await handle(moved.id)
      ).query<ChallengeLifecycleState>(CHALLENGE_LIFECYCLE_STATE_QUERY);
      return state.schedule.endsAt === new Date(later).toISOString();
    }, WAIT);
    expect(await statusOf(moved.id)).toBe('active');
    // Ending it now: ends_at in the past completes it at once.
    const endNow = await server.request('PATCH', `/api/v1/admin/challenges/${moved.id}`, {
      auth: admin.jwt,
      body: { ends_at: new Date(Date.now() - 1000).toISOString() },
    });
    expect(endNow.status).toBe(200);
    await eventually(async () => (await statusOf(moved.id)) === 'complete', WAIT);
    expect(await outboxFor(server, moved.id, 'challenge.ended')).toHaveLength(1);
  });

  test('retire stops the workflow: nothing more is emitted', async () => {
    const challenge = await createActive(
      server,
      { starts_at: inSeconds(3600), ends_at: inSeconds(7200) },
      admin,
    );
    expect(await (await handle(challenge.id)).describe()).toMatchObject({ status: { name: 'RUNNING' } });
    await transition(server, challenge.id, 'retire', undefined, admin);
    expect(await eventually(() => workflowClosed(challenge.id), WAIT)).toBe('COMPLETED');
    expect(await (await handle(challenge.id)).result()).toBe('stopped');
    expect(await types(challenge.id)).toEqual(['challenge.published', 'challenge.retired']);
  });

  test('quarantine stops it; publishing again starts a new run', async () => {
    const challenge = await createActive(
      server,
      { starts_at: inSeconds(3600), ends_at: inSeconds(7200) },
      admin,
    );
    await transition(server, challenge.id, 'quarantine', { reason: 'investigating' }, admin);
    expect(await eventually(() => workflowClosed(challenge.id), WAIT)).toBe('COMPLETED');
    await transition(server, challenge.id, 'publish', undefined, admin);
    const description = await (await handle(challenge.id)).describe();
    expect(description.status.name).toBe('RUNNING');
    await transition(server, challenge.id, 'retire', undefined, admin);
    expect(await eventually(() => workflowClosed(challenge.id), WAIT)).toBe('COMPLETED');
  });

  test('activities are idempotent: started and ended are emitted once, and only for active challenges', async () => {
    const acts = createLifecycleSteps({ db: server.deps.db, logger: pino({ level: 'silent' }) });
    const draft = await createDraft(server, { starts_at: null, ends_at: null }, admin);
    expect(await acts.challengeStartReached({ challengeId: draft.id, expectedStartsAt: null })).toMatchObject(
      { status: 'draft', emitted: false },
    );

    const active = await createActive(
      server,
      { starts_at: inSeconds(3600), ends_at: inSeconds(7200) },
      admin,
    );
    // not due yet (the database clock and the expected time both say so)
    expect(
      await acts.challengeStartReached({ challengeId: active.id, expectedStartsAt: null }),
    ).toMatchObject({ emitted: false, startedEventAt: null });
    // due: the workflow's timer fired for exactly this starts_at
    const first = await acts.challengeStartReached({
      challengeId: active.id,
      expectedStartsAt: active.starts_at,
    });
    const second = await acts.challengeStartReached({
      challengeId: active.id,
      expectedStartsAt: active.starts_at,
    });
    expect(first).toMatchObject({ emitted: true, status: 'active' });
    // bookkeeping is not an edit: updated_at (the version sessions snapshot) stays
    const afterStart = await server.request('GET', `/api/v1/admin/challenges/${active.id}`, {
      auth: admin.jwt,
    });
    expect(afterStart.body.data.updated_at).toBe(active.updated_at);
    expect(afterStart.body.data.started_event_at).toBe(first.startedEventAt);
    expect(second).toMatchObject({ emitted: false, status: 'active', startedEventAt: first.startedEventAt });
    const endA = await acts.challengeEndReached({ challengeId: active.id, expectedEndsAt: active.ends_at });
    const endB = await acts.challengeEndReached({ challengeId: active.id, expectedEndsAt: active.ends_at });
    expect(endA).toMatchObject({ emitted: true, status: 'complete' });
    expect(endB).toMatchObject({ emitted: false, status: 'complete' });
    expect(await types(active.id)).toEqual(['challenge.published', 'challenge.started', 'challenge.ended']);
    await transition(server, active.id, 'retire', undefined, admin);
  });
});
