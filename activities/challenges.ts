import { markChallengeEnded, markChallengeStarted } from '../src/domain/challenges/lifecycle';
import type { ChallengeLifecycleSnapshot } from '../src/domain/challenges/contract';
import type { ServiceDeps } from '../src/service-deps';

/** The lifecycle workflow's activities: thin adapters over the challenge rules (src/domain/challenges). */
export function createChallengeActivities(deps: Pick<ServiceDeps, 'db' | 'logger'>) {
  return {
    async challengeStartReached(input: {
      challengeId: string;
      expectedStartsAt: string | null;
    }): Promise<ChallengeLifecycleSnapshot> {
      return markChallengeStarted(deps, input.challengeId, input.expectedStartsAt);
    },
    async challengeEndReached(input: {
      challengeId: string;
      expectedEndsAt: string | null;
    }): Promise<ChallengeLifecycleSnapshot> {
      return markChallengeEnded(deps, input.challengeId, input.expectedEndsAt);
    },
  };
}

export type ChallengeActivities = ReturnType<typeof createChallengeActivities>;
