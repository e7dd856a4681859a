/**
 * Submission intake's Temporal half with the fakes (test/fakes): which workflow a received
 * submission starts, that a repeat counts as started, and that an unavailable Temporal leaves it
 * to the sweeper. No PostgreSQL, no Temporal server: the start is recorded in the in-memory store
 * (test/fakes/stores/workflow-starts.ts, held to the SQL one's contract).
 */
import {
  startSubmissionWorkflow,
  startSubmissionWorkflowSoon,
} from '../../../../src/domain/submissions/workflow-start';
import { SUBMISSION_WORKFLOW, submissionWorkflowId } from '../../../../src/domain/submissions/contract';
import { fakeServiceDeps } from '../../../fakes/deps';
import { createFakeWorkflowStartStore } from '../../../fakes/stores/workflow-starts';

const ref = {
  id: '22222222-2222-4222-8222-222222222222',
  challenge_id: '33333333-3333-4333-8333-333333333333',
  agent_id: '44444444-4444-4444-8444-444444444444',
  judge_run: 2,
};

/** The fakes' deps with the in-memory store of workflow starts; the submission's current run is 2. */
function depsWithStore() {
  const deps = fakeServiceDeps();
  const starts = createFakeWorkflowStartStore();
  starts.submissions.set(ref.id, { judgeRun: 2, workflowStartedAt: null });
  return { ...deps, stores: { workflowStarts: starts }, starts };
}

describe('starting a submission run (fake Temporal, in-memory store)', () => {
  test("the run's workflow starts with its id, input and search attributes, then workflow_started_at is recorded", async () => {
    const deps = depsWithStore();
    await startSubmissionWorkflow(deps, ref);

    expect(deps.fakeTemporal.started(SUBMISSION_WORKFLOW)).toEqual([
      expect.objectContaining({
        workflowId: submissionWorkflowId(ref.id, 2),
        args: [{ submissionId: ref.id, challengeId: ref.challenge_id, agentId: ref.agent_id, run: 2 }],
        searchAttributes: expect.arrayContaining([
          { key: 'ChallengeId', value: ref.challenge_id },
          { key: 'AgentId', value: ref.agent_id },
        ]),
      }),
    ]);
    expect(deps.starts.marks).toEqual([{ id: ref.id, run: 2 }]);
    expect(deps.starts.submissions.get(ref.id)?.workflowStartedAt).toBeInstanceOf(Date);
  });

  test('a second start of the same run is not an error: still one workflow, the start recorded again (idempotent)', async () => {
    const deps = depsWithStore();
    await startSubmissionWorkflow(deps, ref);
    const first = deps.starts.submissions.get(ref.id)?.workflowStartedAt;
    await startSubmissionWorkflow(deps, ref);
    expect(deps.fakeTemporal.started()).toHaveLength(1);
    expect(deps.starts.marks).toHaveLength(2);
    expect(deps.starts.submissions.get(ref.id)?.workflowStartedAt).toBe(first);
  });

  test('a rejudge (the next run) is another workflow', async () => {
    const deps = depsWithStore();
    await startSubmissionWorkflow(deps, ref);
    await startSubmissionWorkflow(deps, { ...ref, judge_run: 3 });
    expect(deps.fakeTemporal.started().map((w) => w.workflowId)).toEqual([
      submissionWorkflowId(ref.id, 2),
      submissionWorkflowId(ref.id, 3),
    ]);
  });

  test('Temporal down: the intake is not failed (false, a warning), nothing recorded, left to the sweeper', async () => {
    const deps = depsWithStore();
    deps.fakeTemporal.unavailable = new Error('connection refused');
    await expect(startSubmissionWorkflowSoon(deps, ref)).resolves.toBe(false);
    expect(deps.starts.marks).toEqual([]);
    expect(deps.starts.submissions.get(ref.id)?.workflowStartedAt).toBeNull();
    expect(deps.warnings).toEqual([
      expect.objectContaining({
        msg: 'submission workflow not started; the sweeper will start it',
        submission_id: ref.id,
      }),
    ]);
  });
});
