import type { ServiceDeps } from '../service-deps';
import { sweepOverdueRelays } from '../domain/connector/relay-client';

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
