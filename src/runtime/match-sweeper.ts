import type { ServiceDeps } from '../service-deps';
import { sweepMatches } from '../domain/matches/deadline';

/**
 * Runs the match sweeper every `intervalMs` in this process (the worker starts it; 0 = off): running
 * matches past their deadline, or whose workflow is gone, are voided. Every worker may run it: a
 * match is voided once (its row is locked and re-checked).
 */
export function startMatchSweeper(deps: ServiceDeps, intervalMs: number): { stop(): void } {
  if (intervalMs <= 0) return { stop() {} };
  const cursor = { after: null as string | null };
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    sweepMatches(deps, cursor)
      .catch((err) => deps.logger.error({ err }, 'match sweep failed'))
      .finally(() => {
        running = false;
      });
  }, intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
