/**
 * Challenge lifecycle (one per challenge, id `challenge-lifecycle-<challengeId>`).
 *
 * Started — or re-planned when already running — by the API with signalWithStart on publish and
 * on edits of starts_at/ends_at of an active challenge. It sleeps until `starts_at` and asks an
 * activity to emit challenge.started, then sleeps until `ends_at` and asks an activity to move
 * the challenge active → complete and emit challenge.ended. A stop signal (quarantine, retire)
 * ends it. Deterministic only: times arrive as ISO strings, the clock is Temporal's, every side
 * effect is an idempotent activity that re-checks the database (the source of truth) and returns
 * its current schedule, so a missed signal only costs one extra wake-up.
 */
import {
  condition,
  defineQuery,
  defineSignal,
  makeContinueAsNewFunc,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { LifecycleSteps } from '../lifecycle';
import {
  CHALLENGE_LIFECYCLE_MAX_SIGNALS_PER_RUN,
  CHALLENGE_LIFECYCLE_STATE_QUERY,
  CHALLENGE_SCHEDULE_SIGNAL,
  CHALLENGE_STOP_SIGNAL,
  type ChallengeLifecycleInput,
  type ChallengeLifecycleOutcome,
  type ChallengeLifecycleState,
  type ChallengeSchedule,
  type ChallengeStopSignal,
} from '../contract';
import { ChallengeIdKey } from '../../../temporal-client/search-attributes';

const challengeScheduleSignal = defineSignal<[ChallengeSchedule]>(CHALLENGE_SCHEDULE_SIGNAL);
const challengeStopSignal = defineSignal<[ChallengeStopSignal]>(CHALLENGE_STOP_SIGNAL);
const challengeLifecycleStateQuery = defineQuery<ChallengeLifecycleState>(CHALLENGE_LIFECYCLE_STATE_QUERY);

const { challengeStartReached, challengeEndReached } = proxyActivities<LifecycleSteps>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

export async function challengeLifecycleWorkflow(
  input: ChallengeLifecycleInput,
): Promise<ChallengeLifecycleOutcome> {
  const { challengeId } = input;
  let schedule: ChallengeSchedule = input.schedule;
  let startedDone = input.startedDone ?? false;
  let changed = false;
  let stopped = false;
  let signals = 0;
  let phase: ChallengeLifecycleState['phase'] = 'acting';

  if (workflowInfo().typedSearchAttributes.get(ChallengeIdKey) !== challengeId) {
    upsertSearchAttributes([{ key: ChallengeIdKey, value: challengeId }]);
  }

  setHandler(challengeScheduleSignal, (next) => {
    // A start moved into the future is announced again when it is reached.
    if (
      next.startsAt !== schedule.startsAt &&
      next.startsAt !== null &&
      Date.parse(next.startsAt) > Date.now()
    ) {
      startedDone = false;
    }
    schedule = { startsAt: next.startsAt, endsAt: next.endsAt };
    changed = true;
    stopped = false;
    signals += 1;
  });
  setHandler(challengeStopSignal, () => {
    stopped = true;
    signals += 1;
  });
  setHandler(challengeLifecycleStateQuery, () => ({
    challengeId,
    schedule,
    startedDone,
    phase,
    signalsThisRun: signals,
  }));

  /** Sleeps until `at`; false when a signal interrupted the wait (re-plan). */
  async function reached(at: string): Promise<boolean> {
    const ms = Date.parse(at) - Date.now();
    if (ms <= 0) return true;
    return !(await condition(() => changed || stopped, ms));
  }

  const continueAsNew = makeContinueAsNewFunc<typeof challengeLifecycleWorkflow>({
    typedSearchAttributes: [{ key: ChallengeIdKey, value: challengeId }],
  });

  for (;;) {
    changed = false;
    if (stopped) return 'stopped';
    if (signals >= CHALLENGE_LIFECYCLE_MAX_SIGNALS_PER_RUN || workflowInfo().continueAsNewSuggested) {
      return continueAsNew({ challengeId, schedule, startedDone });
    }

    if (!startedDone) {
      phase = 'waiting_start';
      if (schedule.startsAt !== null && !(await reached(schedule.startsAt))) continue;
      phase = 'acting';
      const snapshot = await challengeStartReached({ challengeId, expectedStartsAt: schedule.startsAt });
      if (changed || stopped) continue; // newer instructions arrived while the activity ran
      if (snapshot.status !== 'active') return 'inactive';
      schedule = { startsAt: snapshot.startsAt, endsAt: snapshot.endsAt };
      startedDone = snapshot.startedEventAt !== null;
      continue;
    }

    if (schedule.endsAt === null) {
      phase = 'open_ended';
      await condition(() => changed || stopped);
      continue;
    }
    phase = 'waiting_end';
    if (!(await reached(schedule.endsAt))) continue;
    phase = 'acting';
    const snapshot = await challengeEndReached({ challengeId, expectedEndsAt: schedule.endsAt });
    if (changed || stopped) continue;
    if (snapshot.status === 'complete') return 'completed';
    if (snapshot.status !== 'active') return 'inactive';
    // Still active: the database holds other times than ours (an edit we missed). Re-plan.
    schedule = { startsAt: snapshot.startsAt, endsAt: snapshot.endsAt };
    startedDone = snapshot.startedEventAt !== null;
  }
}
