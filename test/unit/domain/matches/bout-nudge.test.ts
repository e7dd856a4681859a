/**
 * Issue 42: a bout is over once every participant opened and closed a session; closing one wakes
 * the bout's workflow (its nudge signal) instead of leaving it to the next look (ARENA_POLL_MS).
 */
import { MATCH_NUDGE_SIGNAL, MATCH_WORKFLOW, matchWorkflowId } from '../../../../src/domain/matches/contract';
import { nudgeBoutOfSession } from '../../../../src/domain/matches/workflow-start';
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
    deps.fakeDb.answer(/SELECT match_id FROM entries/, [{ match_id: 'm-1' }]);
    await nudgeBoutOfSession(deps, { entry_id: 'e-1' });
    expect(deps.fakeDb.queries.find((q) => /FROM entries/.test(q.text))?.values).toEqual(['e-1']);
    expect(deps.fakeTemporal.workflows.get(matchWorkflowId('m-1'))?.signals).toEqual([
      { name: MATCH_NUDGE_SIGNAL, args: [] },
    ]);
  });

  it('signals nothing for a session outside a bout, and a finished workflow is no error', async () => {
    const deps = fakeServiceDeps();
    deps.fakeDb.answer(/SELECT match_id FROM entries/, [{ match_id: null }]);
    await nudgeBoutOfSession(deps, { entry_id: 'e-2' });
    expect(deps.fakeTemporal.connects).toBe(0);
    const gone = fakeServiceDeps();
    gone.fakeDb.answer(/SELECT match_id FROM entries/, [{ match_id: 'm-gone' }]);
    await expect(nudgeBoutOfSession(gone, { entry_id: 'e-3' })).resolves.toBeUndefined();
  });
});
