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
  listSelectableIds,
  listSelectedIds,
  setSubmissionSelected,
  type SubmissionSummaryRow,
} from '../../db/queries/submissions';
import { conflict, invalidFields, notFound, validationError } from '../../errors';
import { requireOwnedAgent } from '../identity';
import { hasFinalSelection, isPractice } from './rules';

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

export interface SelectionChange {
  challengeId: string;
  agentId: string;
  /** The agent's submissions the form showed (a history page shows one page of them). */
  shown: readonly string[];
  /** Those of `shown` that are ticked; the agent's selections not shown are kept. */
  chosen: readonly string[];
}

/**
 * The history page's checkboxes (Kaggle's "select per row"): one agent's selection in one
 * challenge set at once, all or nothing. More than `final_submissions` → VALIDATION_ERROR with the
 * field `selected` (the form says it beside the boxes); a practice challenge offers no selection.
 */
export async function saveSelection(
  db: Pool,
  principal: Principal,
  change: SelectionChange,
): Promise<{ selected: number; limit: number }> {
  await requireOwnedAgent(db, principal, change.agentId);
  return withTransaction(db, async (tx) => {
    await lockEntry(tx, change.challengeId, change.agentId);
    const challenge = await findChallengeById(tx, change.challengeId);
    if (!challenge) throw notFound('challenge');
    if (isPractice(challenge))
      throw validationError('this challenge is practice: it has no final board to select for');
    if (challenge.status !== 'active')
      throw conflict(`final selections are closed: the challenge is ${challenge.status}`);
    const shown = new Set(change.shown);
    const rows = await listSelectableIds(tx, change.challengeId, change.agentId, [...shown]);
    const known = new Map(rows.map((r) => [r.id, r.selected]));
    if (change.chosen.some((id) => !known.has(id))) throw notFound('submission');
    const chosen = new Set(change.chosen);
    const kept = (await listSelectedIds(tx, change.challengeId, change.agentId)).filter(
      (id) => !shown.has(id),
    );
    const total = kept.length + chosen.size;
    const limit = challenge.final_submissions;
    if (total > limit)
      throw invalidFields({
        selected: `you ticked ${total}, but at most ${limit} submission${limit === 1 ? '' : 's'} of this agent count on the final board: untick ${total - limit}`,
      });
    let changed = false;
    for (const [id, was] of known) {
      const want = chosen.has(id);
      if (want === was) continue;
      await setSubmissionSelected(tx, id, want);
      changed = true;
    }
    if (changed) await bumpLeaderboardVersion(tx, change.challengeId);
    return { selected: total, limit };
  });
}
