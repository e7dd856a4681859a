import { findChallengesWithOverdueEvents } from '../../db/queries/live-events';
import { RELAY_OVERDUE_GRACE_MS, signalRelay, } from './relay-client';
import type { ServiceDeps } from '../../service-deps';

/** At most this many relays restarted per sweep (a backlog is worked off over several sweeps). */
const SWEEP_LIMIT = 100;

/**
 * Restarts (signalWithStart) the relay of every challenge holding an event overdue by `graceMs`.
 * The stream route already signals when a *later* event finds an overdue one; this covers the
 * stream that went quiet after the relay was lost, where no later event comes. Returns the
 * challenges signalled. A failed signal is logged and retried at the next sweep.
 */
export async function sweepOverdueRelays(deps: ServiceDeps, graceMs = RELAY_OVERDUE_GRACE_MS): Promise<string[]> {
  const challengeIds = await findChallengesWithOverdueEvents(deps.db, deps.config.SPECTATOR_DELAY_MS, graceMs, SWEEP_LIMIT);
  const signalled: string[] = [];
  for (const challengeId of challengeIds) {
    try {
      await signalRelay(deps, challengeId);
      signalled.push(challengeId);
    } catch (err) {
      deps.logger.warn({ err, challengeId }, 'could not restart an overdue spectator relay; the next sweep retries');
    }
  }
  if (signalled.length > 0) deps.logger.warn({ challengeIds: signalled }, 'restarted spectator relays with overdue events');
  return signalled;
}

/**
 * Runs the sweep every `intervalMs` in this process (the worker starts it; 0 = off). Every worker
 * may run it: a relay signalled twice only wakes twice, it releases each event once.
 */
export function startRelaySweeper(deps: ServiceDeps, intervalMs: number): { stop(): void } {
  if (intervalMs <= 0) return { stop() {} };
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    sweepOverdueRelays(deps)
      .catch((err) => deps.logger.error({ err }, 'spectator relay sweep failed'))
      .finally(() => {
        running = false;
      });
  }, intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
