/**
 * What the pages read to show matches and ratings under the hold (hold.ts, the rule): who looks,
 * when, with which delay, and the recent rated matches that may still be held. The JSON API reads
 * without it.
 */
import type { Principal } from '../../auth/principal';
import type { Config } from '../../config';
import type { Queryable } from '../../db/pool';
import { listRecentRatedOutcomes } from '../../db/queries/match-participants';
import { heldOutcomesByAgent, type PageHold, type RecentRatedOutcome } from './hold';
import { seesOutcomesAtOnce } from './policy';

/** The hold of a page rendered now for this principal. */
export function pageHold(
  principal: Principal,
  config: Pick<Config, 'SPECTATOR_DELAY_MS'>,
  now: Date = new Date(),
): PageHold {
  return { viewer: { atOnce: seesOutcomesAtOnce(principal) }, now, delayMs: config.SPECTATOR_DELAY_MS };
}

/** The weight class's rated matches this page must still hold, by agent (empty for operators). */
export async function heldRatedOutcomes(
  db: Queryable,
  weightClassId: string,
  hold: PageHold,
): Promise<Map<string, RecentRatedOutcome[]>> {
  if (hold.viewer.atOnce) return new Map();
  const recent = await listRecentRatedOutcomes(
    db,
    weightClassId,
    new Date(hold.now.getTime() - hold.delayMs),
  );
  return heldOutcomesByAgent(recent, hold.viewer, hold.now, hold.delayMs);
}
