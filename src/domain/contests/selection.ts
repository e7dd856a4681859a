/**
 * Final selection (DESIGN, "Fair contests"): an owner marks up to the challenge's
 * `final_submissions` of an agent's submissions; the final board counts those (or, with none
 * selected, the agent's best public ones). Selecting changes no score. Solo formats only: a match
 * challenge (head_to_head, game) ranks by rating, and no board counts a selection there.
 */
import type { Pool } from 'pg';
import type { Principal } from '../../auth/principal';
import { maySelect } from './policy';
import { withTransaction } from '../../db/pool';
import { findChallengeById } from '../../db/queries/challenges';
import { lockEntry } from '../../db/queries/entries';
import { bumpLeaderboardVersion } from '../../db/queries/leaderboard-versions';
import {
  countSelectedSubmissions,
  findSubmissionSummary,
  setSubmissionSelected,
  type SubmissionSummaryRow,
} from '../../db/queries/submissions';
import { conflict, notFound, validationError } from '../../errors';
import { hasFinalSelection } from './rules';

export async function selectSubmission(
  db: Pool,
  principal: Principal,
  submissionId: string,
  selected: boolean,
): Promise<SubmissionSummaryRow> {
  return withTransaction(db, async (tx) => {
    const submission = await findSubmissionSummary(tx, submissionId);
    // Another owner's submission (operators included: selection is the competitor's) does not exist.
    if (!submission || !maySelect(principal, submission)) throw notFound('submission');
    // One agent's selections change one at a time (the entry row is the agent's lock in a challenge).
    await lockEntry(tx, submission.challenge_id, submission.agent_id);
    const challenge = await findChallengeById(tx, submission.challenge_id);
    if (!challenge) throw notFound('submission');
    if (!hasFinalSelection(challenge.format))
      throw validationError(
        `final selection exists on solo formats only: this challenge is ${challenge.format}`,
      );
    if (submission.sandbox) throw validationError('sandbox submissions never count on the final board');
    if (challenge.status !== 'active')
      throw conflict(`final selections are closed: the challenge is ${challenge.status}`);
    const already = submission.selected_at !== null;
    if (selected === already) return submission;
    if (selected) {
      const count = await countSelectedSubmissions(tx, submission.challenge_id, submission.agent_id);
      if (count >= challenge.final_submissions)
        throw validationError(
          `at most ${challenge.final_submissions} submissions per agent may be selected; unselect one first`,
        );
    }
    const row = await setSubmissionSelected(tx, submission.id, selected);
    // The final board (operators may read it before completion) shows selections.
    await bumpLeaderboardVersion(tx, submission.challenge_id);
    return row!;
  });
}
