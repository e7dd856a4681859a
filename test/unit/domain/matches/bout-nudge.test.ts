/**
 * Issue 42: a bout is over once every participant opened and closed a session; closing one wakes
 * the bout's workflow (its nudge signal) instead of leaving it to the next look (ARENA_POLL_MS).
 */
import { MATCH_NUDGE_SIGNAL, MATCH_WORKFLOW, matchWorkflowId } from '../../../../src/domain/matches/contract';
import {
  nudgeBoutOfSession,
  nudgeEndedBoutOfSubmission,
} from '../../../../src/domain/matches/workflow-start';
import { fakeServiceDeps } from '../../../fakes/deps';

describe('nudgeBoutOfSession', () => {
  it("signals the workflow of the session's bout", async () => {
    const deps = fakeServiceDeps();
    const client = await deps.temporal();
    await client.workflow.start(MATCH_WORKFLOW, {
      taskQueue: 'q',
      workflowId: matchWorkflowId('m-1'),
      args: [{ matchId: 'm-1' }],
    });
    const asked: string[] = [];
    const boutOf = async (entryId: string) => (asked.push(entryId), 'm-1');
    await nudgeBoutOfSession(deps, { entry_id: 'e-1' }, boutOf);
    expect(asked).toEqual(['e-1']);
    expect(deps.fakeTemporal.workflows.get(matchWorkflowId('m-1'))?.signals).toEqual([
      { name: MATCH_NUDGE_SIGNAL, args: [] },
    ]);
  });

  it('signals nothing for a session outside a bout, and a finished workflow is no error', async () => {
    const deps = fakeServiceDeps();
    await nudgeBoutOfSession(deps, { entry_id: 'e-2' }, async () => null);
    expect(deps.fakeTemporal.connects).toBe(0);
    const gone = fakeServiceDeps();
    await expect(
      nudgeBoutOfSession(gone, { entry_id: 'e-3' }, async () => 'm-gone'),
    ).resolves.toBeUndefined();
  });
});

// Issue 42: an ended bout's settlement waits on its nudge or its poll for judging still going.
describe('nudgeEndedBoutOfSubmission', () => {
  it("signals the workflow of the submission's ended bout, and nothing without one", async () => {
    const deps = fakeServiceDeps();
    const client = await deps.temporal();
    await client.workflow.start(MATCH_WORKFLOW, {
      taskQueue: 'q',
      workflowId: matchWorkflowId('m-2'),
      args: [{ matchId: 'm-2' }],
    });
    const asked: string[] = [];
    await nudgeEndedBoutOfSubmission(deps, 's-1', async (id) => (asked.push(id), 'm-2'));
    expect(asked).toEqual(['s-1']);
    expect(deps.fakeTemporal.workflows.get(matchWorkflowId('m-2'))?.signals).toEqual([
      { name: MATCH_NUDGE_SIGNAL, args: [] },
    ]);
    const solo = fakeServiceDeps();
    await nudgeEndedBoutOfSubmission(solo, 's-2', async () => null);
    expect(solo.fakeTemporal.connects).toBe(0);
    await expect(nudgeEndedBoutOfSubmission(solo, 's-3', async () => 'm-gone')).resolves.toBeUndefined();
  });
});
