/**
 * The matchmaker of one active match challenge (head_to_head or game) (id `matchmaker-<challengeId>`): a round
 * at once, then one every `every_minutes`; it ends when the challenge stops being an active match
 * challenge (complete, archived, quarantined) and continues as new every few rounds. Rounds are
 * numbered; the round step records each number once, so a replay never schedules twice.
 */
import { continueAsNew, proxyActivities, sleep, workflowInfo } from '@temporalio/workflow';
import type { MatchmakingSteps } from '../matchmaking';
import { MATCHMAKER_ROUNDS_PER_RUN, type MatchmakerInput } from '../contract';

const { matchmakingRound } = proxyActivities<MatchmakingSteps>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

export async function matchmakerWorkflow(input: MatchmakerInput): Promise<'stopped'> {
  let round = input.round;
  for (let done = 0; ; done++) {
    if (done >= (input.roundsPerRun ?? MATCHMAKER_ROUNDS_PER_RUN) || workflowInfo().continueAsNewSuggested)
      await continueAsNew<typeof matchmakerWorkflow>({
        challengeId: input.challengeId,
        round,
        roundsPerRun: input.roundsPerRun,
      });
    const outcome = await matchmakingRound({ challengeId: input.challengeId, round });
    if (outcome.stop) return 'stopped';
    round += 1;
    await sleep(outcome.nextInMs);
  }
}
