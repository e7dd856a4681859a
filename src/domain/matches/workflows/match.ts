/**
 * One match (id `match-<uuid>`): scheduled → running → complete | void. Its steps (../bout.ts)
 * re-check and change the database only forward, so replays, re-delivered activities and restarts
 * change nothing; the database is the source of truth and this workflow only decides when to look.
 * MatchStatus (search attribute) follows the match.
 */
import {
  ActivityCancellationType,
  CancellationScope,
  condition,
  continueAsNew,
  defineSignal,
  isCancellation,
  patched,
  proxyActivities,
  setHandler,
  sleep,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { BoutSteps } from '../bout';
import type { GameMatchSteps } from '../../games/match-steps';
import { judgingTaskQueue } from '../../submissions/contract';
import {
  GAME_VOID_CANCELS_PATCH,
  MATCH_MAX_POLLS_PER_RUN,
  MATCH_NUDGE_SIGNAL,
  MATCH_VOID_SIGNAL,
  type MatchPhase,
  type MatchWorkflowInput,
  type MatchWorkflowOutcome,
} from '../contract';
import { MatchIdKey, MatchStatusKey } from '../../../temporal-client/search-attributes';

const voidSignal = defineSignal(MATCH_VOID_SIGNAL);
const nudgeSignal = defineSignal(MATCH_NUDGE_SIGNAL);

const { matchStart, matchLook, matchEndBout, matchSettle, matchApplyRatings } = proxyActivities<BoutSteps>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
});

// A game match: its wait in the service's judging queue (one slot per player), then its games on
// the judging task queue (a worker with the wall); heartbeats notice a dead worker, and the retry
// plays the match again from the start (nothing is stored before it completes). A void cancels
// them and waits until they stopped: the players' sandboxes are gone and the queue's row released.
const { waitForGameMatchSlots } = proxyActivities<GameMatchSteps>({
  startToCloseTimeout: '7 days',
  heartbeatTimeout: '30s',
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s' },
});

async function playGame(matchId: string) {
  const { playGameMatchGames } = proxyActivities<GameMatchSteps>({
    startToCloseTimeout: '12 hours',
    heartbeatTimeout: '30s',
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
    taskQueue: judgingTaskQueue(workflowInfo().taskQueue),
    retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 5 },
  });
  await waitForGameMatchSlots({ matchId });
  return playGameMatchGames({ matchId });
}

export async function matchWorkflow(input: MatchWorkflowInput): Promise<MatchWorkflowOutcome> {
  const { matchId } = input;
  let woken = false;
  let voided = false;
  let onVoid = () => {};
  setHandler(voidSignal, () => {
    woken = true;
    voided = true;
    onVoid();
  });
  setHandler(nudgeSignal, () => {
    woken = true;
  });
  let shown: MatchPhase | null = null;
  const show = (status: MatchPhase) => {
    if (status === shown || status === 'missing') return;
    shown = status;
    upsertSearchAttributes([
      { key: MatchIdKey, value: matchId },
      { key: MatchStatusKey, value: status },
    ]);
  };

  let snapshot = await matchStart({ matchId });
  if (snapshot.status === 'missing') return 'missing';
  show(snapshot.status);

  if (snapshot.kind === 'game' && snapshot.status === 'running') {
    // The database already says void when the signal comes (voidMatch commits, then signals).
    const scope = new CancellationScope();
    if (patched(GAME_VOID_CANCELS_PATCH)) {
      onVoid = () => scope.cancel();
      if (voided) scope.cancel();
    }
    let played;
    try {
      played = await scope.run(() => playGame(matchId));
    } catch (err) {
      if (!voided || !isCancellation(err)) throw err;
      show('void');
      return 'void';
    }
    show(played.status);
    if (played.status === 'complete' && played.rated && played.weightClassId)
      await matchApplyRatings({ weightClassId: played.weightClassId });
    return played.status === 'complete' ? 'complete' : played.status === 'void' ? 'void' : 'missing';
  }

  let polls = 0;
  while (snapshot.status === 'running' && !snapshot.boutOver) {
    if (++polls > MATCH_MAX_POLLS_PER_RUN) await continueAsNew<typeof matchWorkflow>(input);
    const untilEnd = snapshot.endsAt ? Date.parse(snapshot.endsAt) - Date.now() : snapshot.pollMs;
    woken = false;
    await condition(() => woken, Math.max(1, Math.min(snapshot.pollMs, untilEnd)));
    snapshot = await matchLook({ matchId });
  }

  await matchEndBout({ matchId });
  let settled = await matchSettle({ matchId });
  while (!settled.settled) {
    if (++polls > MATCH_MAX_POLLS_PER_RUN) await continueAsNew<typeof matchWorkflow>(input);
    await sleep(settled.pollMs);
    settled = await matchSettle({ matchId });
  }
  show(settled.status);
  if (settled.status === 'complete' && settled.rated && settled.weightClassId)
    await matchApplyRatings({ weightClassId: settled.weightClassId });
  return settled.status === 'complete' ? 'complete' : settled.status === 'void' ? 'void' : 'missing';
}
