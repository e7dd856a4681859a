import type { JudgeOutcome } from './types';

/**
 * How a judge tells "the competitor's code could not be judged" from "we could not judge it"
 * (docs/decisions/submissions.md, "Outcomes"; the same for every judge):
 * - the submission is at fault (it does not compile, its entry file is missing, its language
 *   cannot be detected, …): resolve with `judgedZero(reason, outcome)`, a judged 0
 *   (`result_state: scored`, score 0, `submission_status: complete`) whose breakdown says why in
 *   `details.not_judged` and its summary;
 * - the service is at fault (a grader unreachable, a sandbox that could not start, a judge crash):
 *   throw. Retryable errors are retried; then the submission is `failed` with the reason.
 */
export function judgedZero(
  reason: string,
  outcome: Pick<JudgeOutcome, 'criteria' | 'details'>,
): JudgeOutcome {
  return {
    score: 0,
    privateScore: outcome.criteria.some((criterion) => criterion.private === true) ? 0 : null,
    resultState: 'scored',
    summary: `Not judged, score 0: ${reason}`,
    criteria: outcome.criteria.map((criterion) => ({ ...criterion, score: 0, passed: false })),
    details: { ...outcome.details, not_judged: reason },
  };
}
