/**
 * One match (id `match-<uuid>`), bouts and games alike: scheduled → running → complete | void.
 * Its steps (../start.ts, then ../bout.ts or ../game.ts, ../settle.ts, ../deadline.ts) re-check
 * and change the database only forward, so replays, re-delivered activities and restarts
 * change nothing; the database is the source of truth and this workflow only decides when to look.
 * MatchStatus (search attribute) follows the match.
 */
import {
  ActivityCancellationType,
  ActivityFailure,
  CancellationScope,
  condition,
  ContinueAsNew,
  continueAsNew,
  defineSignal,
  isCancellation,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  sleep,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { BoutSteps } from '../bout';
import type { MatchDeadlineSteps } from '../deadline';
import type { GameMatchSteps } from '../game';
import type { SettleSteps } from '../settle';
import type { MatchStartSteps } from '../start';
import { judgingTaskQueue } from '../../submissions/contract';
import {
  BOUT_NUDGE_KEPT_PATCH,
  BOUT_ONE_STEP_PATCH,
  GAME_VOID_CANCELS_PATCH,
  MATCH_CURRENT_SHAPE_PATCH,
  MATCH_DEADLINE_PATCH,
  MATCH_LOCAL_STEPS_PATCH,
  MATCH_MAX_POLLS_PER_RUN,
  MATCH_NUDGE_SIGNAL,
  MATCH_VOID_SIGNAL,
  type LookOrFinish,
  type MatchPhase,
  type MatchSnapshot,
  type MatchWorkflowInput,
  type MatchWorkflowOutcome,
} from '../contract';
import { MatchIdKey, MatchStatusKey } from '../../../temporal-client/search-attributes';

const voidSignal = defineSignal(MATCH_VOID_SIGNAL);
const nudgeSignal = defineSignal(MATCH_NUDGE_SIGNAL);

type MatchSteps = MatchStartSteps & BoutSteps & SettleSteps & Pick<MatchDeadlineSteps, 'matchVoidWithReason'>;
const stepOptions = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
} as const;
// MATCH_LOCAL_STEPS_PATCH: local activities, recorded as markers in the workflow task that ran them.
const localSteps = proxyLocalActivities<MatchSteps>(stepOptions);
// Before it, and for the runs it recorded: remote activities.
const remoteSteps = proxyActivities<MatchSteps>(stepOptions);

// A game match: its wait in the service's judging queue (one slot per player), then its games on
// the judging task queue (a worker with the wall); heartbeats notice a dead worker, and the retry
// plays the match again from the start (nothing is stored before it completes). A void cancels
// them and waits until they stopped: the players' sandboxes are gone and the queue's row released.
const { releaseGameMatchSlots } = proxyActivities<GameMatchSteps>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '30 seconds' },
});

const { waitForGameMatchSlots } = proxyActivities<GameMatchSteps>({
  startToCloseTimeout: '7 days',
  heartbeatTimeout: '30s',
  cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s' },
});

/** Why a step failed for good, in words for the match's reason: the activity's own failure. */
function failureText(err: unknown): string {
  if (err instanceof ActivityFailure && err.cause) return err.cause.message;
  return err instanceof Error ? err.message : String(err);
}

function gamePlayActivities() {
  return proxyActivities<GameMatchSteps>({
    startToCloseTimeout: '12 hours',
    heartbeatTimeout: '30s',
    cancellationType: ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
    taskQueue: judgingTaskQueue(workflowInfo().taskQueue),
    retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 5 },
  });
}

async function playGame(matchId: string) {
  const { playGameMatchGames } = gamePlayActivities();
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

  // A run started by this code takes every patch below with one marker and never asks them; an
  // older run's history (no such marker) answers each of them as it was recorded.
  const current = patched(MATCH_CURRENT_SHAPE_PATCH);
  const since = (patch: string) => current || patched(patch);
  // Decided once, before the first step: a run's steps are all local or all remote.
  const steps = since(MATCH_LOCAL_STEPS_PATCH) ? localSteps : remoteSteps;
  const { matchStart, matchLook, matchEndBout, matchSettle, matchApplyRatings, matchVoidWithReason } = steps;
  let snapshot = await matchStart({ matchId });
  if (snapshot.status === 'missing') return 'missing';
  show(snapshot.status);

  // Histories recorded before the deadline waited as long as their steps took (and failed the run
  // when a step failed for good, leaving the match running).
  const bounded = since(MATCH_DEADLINE_PATCH);
  const voidBecause = async (reason: string): Promise<MatchWorkflowOutcome> => {
    const after = await matchVoidWithReason({ matchId, reason });
    show(after.status);
    return after.status === 'complete' ? 'complete' : after.status === 'void' ? 'void' : 'missing';
  };

  if (snapshot.kind === 'game' && snapshot.status === 'running') {
    // The database already says void when the signal comes (voidMatch commits, then signals).
    const scope = new CancellationScope();
    if (since(GAME_VOID_CANCELS_PATCH)) {
      onVoid = () => scope.cancel();
      if (voided) scope.cancel();
    }
    if (bounded) {
      // The deadline runs from the slots' grant; at it the match is void in the database first
      // (its players are free at once, its play step sees it within a second), then the play is cancelled.
      let pastDeadline = false;
      const timer = new CancellationScope();
      let watch: Promise<void> = Promise.resolve();
      try {
        const granted = await scope.run(() => waitForGameMatchSlots({ matchId }));
        if (granted.deadlineAt) {
          const deadline = Date.parse(granted.deadlineAt);
          watch = timer
            .run(() => sleep(Math.max(1, deadline - Date.now())))
            .then(
              async () => {
                pastDeadline = true;
                await voidBecause(`the match went past its deadline (${granted.deadlineAt})`);
                scope.cancel();
              },
              () => undefined,
            );
        }
        const played = await scope.run(() => gamePlayActivities().playGameMatchGames({ matchId }));
        timer.cancel();
        await watch;
        show(played.status);
        if (played.status === 'complete' && played.rated && played.weightClassId)
          await matchApplyRatings({ weightClassId: played.weightClassId });
        return played.status === 'complete' ? 'complete' : played.status === 'void' ? 'void' : 'missing';
      } catch (err) {
        timer.cancel();
        await watch;
        if (isCancellation(err) && (voided || pastDeadline)) {
          // Voided between the grant and the play step: nothing else gives the slots back.
          await releaseGameMatchSlots({ matchId });
          show('void');
          return 'void';
        }
        if (isCancellation(err)) throw err;
        return voidBecause(`the match could not be played: ${failureText(err)}`);
      }
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

  if (bounded && snapshot.status === 'running')
    return boundedBout(
      input,
      steps,
      snapshot,
      voidBecause,
      () => {
        const was = woken;
        woken = false;
        return was;
      },
      () => woken,
      show,
      since,
    );

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

/**
 * A bout under its deadline (MATCH_DEADLINE_PATCH): the same looks, end and settlement, raced against
 * a timer to `deadlineAt`; at it, or when a step failed for good, the service voids the match.
 */
async function boundedBout(
  input: MatchWorkflowInput,
  steps: MatchSteps,
  first: MatchSnapshot,
  voidBecause: (reason: string) => Promise<MatchWorkflowOutcome>,
  takeWoken: () => boolean,
  isWoken: () => boolean,
  show: (status: MatchPhase) => void,
  since: (patch: string) => boolean,
): Promise<MatchWorkflowOutcome> {
  const { matchId } = input;
  const { matchLook, matchEndBout, matchSettle, matchApplyRatings, matchLookOrFinish } = steps;
  const deadline = first.deadlineAt ? Date.parse(first.deadlineAt) : undefined;
  const scope = new CancellationScope();
  let pastDeadline = false;
  const timer = new CancellationScope();
  const watch =
    deadline === undefined
      ? Promise.resolve()
      : timer
          .run(() => sleep(Math.max(1, deadline - Date.now())))
          .then(
            () => {
              pastDeadline = true;
              scope.cancel();
            },
            () => undefined,
          );
  // A nudge taken when a look starts, not when a wait starts: one that came during a look ends the next wait.
  const keepNudges = since(BOUT_NUDGE_KEPT_PATCH);
  const oneStep = since(BOUT_ONE_STEP_PATCH);
  try {
    const { settled, ratingsApplied } = await scope.run(async () => {
      let snapshot = first;
      let polls = 0;
      if (oneStep) {
        // Looks until one finds the bout over and finishes it (end, settlement, ratings) itself.
        let finished: LookOrFinish | null =
          snapshot.status === 'running' && !snapshot.boutOver ? null : await matchLookOrFinish({ matchId });
        while (!finished) {
          if (++polls > MATCH_MAX_POLLS_PER_RUN) await continueAsNew<typeof matchWorkflow>(input);
          const untilEnd = snapshot.endsAt ? Date.parse(snapshot.endsAt) - Date.now() : snapshot.pollMs;
          await condition(isWoken, Math.max(1, Math.min(snapshot.pollMs, untilEnd)));
          takeWoken();
          const step = await matchLookOrFinish({ matchId });
          snapshot = step.look;
          if (step.settle) finished = step;
        }
        let outcome = finished.settle!;
        // Still judging what was made before the end: a nudge (a judged submission) or the poll.
        while (!outcome.settled) {
          if (++polls > MATCH_MAX_POLLS_PER_RUN) await continueAsNew<typeof matchWorkflow>(input);
          await condition(isWoken, Math.max(1, outcome.pollMs));
          takeWoken();
          outcome = await matchSettle({ matchId });
        }
        return { settled: outcome, ratingsApplied: outcome === finished.settle && finished.ratingsApplied };
      }
      while (snapshot.status === 'running' && !snapshot.boutOver) {
        if (++polls > MATCH_MAX_POLLS_PER_RUN) await continueAsNew<typeof matchWorkflow>(input);
        const untilEnd = snapshot.endsAt ? Date.parse(snapshot.endsAt) - Date.now() : snapshot.pollMs;
        if (!keepNudges) takeWoken();
        await condition(isWoken, Math.max(1, Math.min(snapshot.pollMs, untilEnd)));
        if (keepNudges) takeWoken();
        snapshot = await matchLook({ matchId });
      }
      await matchEndBout({ matchId });
      let outcome = await matchSettle({ matchId });
      while (!outcome.settled) {
        if (++polls > MATCH_MAX_POLLS_PER_RUN) await continueAsNew<typeof matchWorkflow>(input);
        await sleep(outcome.pollMs);
        outcome = await matchSettle({ matchId });
      }
      return { settled: outcome, ratingsApplied: false };
    });
    timer.cancel();
    await watch;
    show(settled.status);
    if (!ratingsApplied && settled.status === 'complete' && settled.rated && settled.weightClassId)
      await matchApplyRatings({ weightClassId: settled.weightClassId });
    return settled.status === 'complete' ? 'complete' : settled.status === 'void' ? 'void' : 'missing';
  } catch (err) {
    timer.cancel();
    await watch;
    if (isCancellation(err) && pastDeadline)
      return voidBecause(`the match went past its deadline (${first.deadlineAt ?? ''})`);
    if (isCancellation(err) || err instanceof ContinueAsNew) throw err;
    return voidBecause(`the match could not be played: ${failureText(err)}`);
  }
}
