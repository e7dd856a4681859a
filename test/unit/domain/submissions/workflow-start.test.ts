/**
 * Submission intake's Temporal half with the fakes (test/fakes): which workflow a received
 * submission starts, that a repeat counts as started, and that an unavailable Temporal leaves it
 * to the sweeper. No PostgreSQL, no Temporal server (the integration tests prove the real path).
 */
import {
  startSubmissionWorkflow,
  startSubmissionWorkflowSoon,
} from '../../../../src/domain/submissions/workflow-start';
import { SUBMISSION_WORKFLOW, submissionWorkflowId } from '../../../../src/domain/submissions/contract';
import { fakeServiceDeps } from '../../../fakes/deps';

const ref = {
  id: '22222222-2222-4222-8222-222222222222',
  challenge_id: '33333333-3333-4333-8333-333333333333',
  agent_id: '44444444-4444-4444-8444-444444444444',
  judge_run: 2,
};

describe('starting a submission run (fake Temporal, recording database)', () => {
  test("the run's workflow starts with its id, input and search attributes, then workflow_started_at is recorded", async () => {
    const deps = fakeServiceDeps();
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
    const mark = deps.fakeDb.queries.find((q) => q.text.includes('workflow_started_at = now()'));
    expect(mark?.values).toEqual([ref.id, 2]);
  });

  test('a second start of the same run is not an error: still one workflow, the start recorded again (idempotent)', async () => {
    const deps = fakeServiceDeps();
    await startSubmissionWorkflow(deps, ref);
    await startSubmissionWorkflow(deps, ref);
    expect(deps.fakeTemporal.started()).toHaveLength(1);
    expect(deps.fakeDb.queries.filter((q) => q.text.includes('workflow_started_at'))).toHaveLength(2);
  });

  test('a rejudge (the next run) is another workflow', async () => {
    const deps = fakeServiceDeps();
    await startSubmissionWorkflow(deps, ref);
    await startSubmissionWorkflow(deps, { ...ref, judge_run: 3 });
    expect(deps.fakeTemporal.started().map((w) => w.workflowId)).toEqual([
      submissionWorkflowId(ref.id, 2),
      submissionWorkflowId(ref.id, 3),
    ]);
  });

  test('Temporal down: the intake is not failed (false, a warning), nothing recorded, left to the sweeper', async () => {
    const deps = fakeServiceDeps();
    deps.fakeTemporal.unavailable = new Error('connection refused');
    await expect(startSubmissionWorkflowSoon(deps, ref)).resolves.toBe(false);
    expect(deps.fakeDb.queries).toEqual([]);
    expect(deps.warnings).toEqual([
      expect.objectContaining({
        msg: 'submission workflow not started; the sweeper will start it',
        submission_id: ref.id,
      }),
    ]);
  });
});
