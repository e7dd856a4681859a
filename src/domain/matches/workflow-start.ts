/** Starting and signalling the arena's workflows (the match, the matchmaker). */
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import type { ServiceDeps } from '../../service-deps';
import type { Queryable } from '../../db/pool';
import { findEndedBoutOfSubmission, findEntryMatchId } from '../../db/queries/entries';
import { boutSessionState } from '../../db/queries/match-participants';
import {
  AgentIdsKey,
  ChallengeIdKey,
  MatchIdKey,
  MatchStatusKey,
} from '../../temporal-client/search-attributes';
import {
  MATCH_NUDGE_SIGNAL,
  MATCH_VOID_SIGNAL,
  MATCH_WORKFLOW,
  MATCHMAKER_WORKFLOW,
  matchmakerWorkflowId,
  matchWorkflowId,
  type MatchmakerInput,
  type MatchWorkflowInput,
} from './contract';
import { everyoneLeftBout } from './rules';

type Deps = Pick<ServiceDeps, 'config' | 'temporal'>;

/**
 * Starts a match's workflow (`match-<uuid>`), searchable by MatchId, MatchStatus, AgentIds and
 * ChallengeId. Conflict-safe: an already started (or finished) workflow counts as started.
 */
export async function startMatchWorkflow(
  deps: Deps,
  match: { id: string; challengeId: string; agentIds: string[] },
): Promise<void> {
  const client = await deps.temporal();
  try {
    const input: MatchWorkflowInput = { matchId: match.id };
    await client.workflow.start(MATCH_WORKFLOW, {
      taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
      workflowId: matchWorkflowId(match.id),
      args: [input],
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      typedSearchAttributes: [
        { key: MatchIdKey, value: match.id },
        { key: MatchStatusKey, value: 'scheduled' },
        { key: AgentIdsKey, value: match.agentIds },
        { key: ChallengeIdKey, value: match.challengeId },
      ],
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}

/** Tells a match's workflow it was voided (the database already says so; best effort). */
export async function signalMatchVoided(deps: Deps, matchId: string): Promise<void> {
  try {
    const client = await deps.temporal();
    await client.workflow.getHandle(matchWorkflowId(matchId)).signal(MATCH_VOID_SIGNAL);
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return;
    // The workflow's next look at the database sees the void anyway.
  }
}

/**
 * The bout of a session's entry when that bout is now over by its participants (everyone opened
 * and closed a session: `everyoneLeftBout`, the rule the workflow's look applies), else null. Read
 * after the close committed: of two participants closing at once, the later commit sees both.
 */
export async function boutEveryoneLeft(db: Queryable, entryId: string): Promise<string | null> {
  const matchId = await findEntryMatchId(db, entryId);
  if (!matchId) return null;
  return everyoneLeftBout(await boutSessionState(db, matchId)) ? matchId : null;
}

/**
 * Wakes the workflow of the bout a session belongs to once the close ended it (every participant
 * opened and closed a session): otherwise its workflow notices only at its next look
 * (ARENA_POLL_MS, 5 s by default). An earlier participant's close wakes nothing: the look it
 * caused found the bout still on (issue 42: a nudge is a workflow task and an activity). Best
 * effort: the look is the backstop.
 */
export async function nudgeBoutOfSession(
  deps: Deps & Pick<ServiceDeps, 'db'>,
  session: { entry_id: string },
  // The bout the close ended, if any; a parameter so the unit test names it without a database.
  boutOf: (entryId: string) => Promise<string | null> = (entryId) => boutEveryoneLeft(deps.db, entryId),
): Promise<void> {
  try {
    const matchId = await boutOf(session.entry_id);
    if (!matchId) return;
    const client = await deps.temporal();
    await client.workflow.getHandle(matchWorkflowId(matchId)).signal(MATCH_NUDGE_SIGNAL);
  } catch {
    // Gone, finished or unreachable: the bout's next look sees the closed session anyway.
  }
}

/**
 * Wakes the workflow of an ended bout whose settlement may wait for this submission's judging
 * (BOUT_ONE_STEP_PATCH: it waits on its nudge or its poll). Best effort, like the session's nudge.
 */
export async function nudgeEndedBoutOfSubmission(
  deps: Deps & Pick<ServiceDeps, 'db'>,
  submissionId: string,
  // The submission's ended bout; a parameter so the unit test names it without a database.
  boutOf: (submissionId: string) => Promise<string | null> = (id) => findEndedBoutOfSubmission(deps.db, id),
): Promise<void> {
  try {
    const matchId = await boutOf(submissionId);
    if (!matchId) return;
    const client = await deps.temporal();
    await client.workflow.getHandle(matchWorkflowId(matchId)).signal(MATCH_NUDGE_SIGNAL);
  } catch {
    // Gone, finished or unreachable: the settlement's next poll sees the judging done anyway.
  }
}

/**
 * Starts the challenge's matchmaker unless it runs. It ends by itself once the challenge is no
 * longer an active match challenge (complete, archived, quarantined), so nothing has to stop it.
 */
export async function ensureMatchmaker(deps: Deps, challengeId: string, round: number): Promise<void> {
  const client = await deps.temporal();
  try {
    const input: MatchmakerInput = { challengeId, round };
    await client.workflow.start(MATCHMAKER_WORKFLOW, {
      taskQueue: deps.config.TEMPORAL_TASK_QUEUE,
      workflowId: matchmakerWorkflowId(challengeId),
      args: [input],
      workflowIdReusePolicy: 'ALLOW_DUPLICATE',
      typedSearchAttributes: [{ key: ChallengeIdKey, value: challengeId }],
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}
