import { ensureSubmissionSweeper } from '../domain/submissions/sweeper';
import type { ServiceDeps } from '../service-deps';

const SWEEPER_ENSURE_EVERY_MS = 60_000;

/**
 * Started by each worker: ensures the submission sweeper workflow at start and every minute after,
 * so it comes back whatever closed it. Timers are unref'd: they never hold the process.
 */
export function keepSubmissionSweeperRunning(deps: Pick<ServiceDeps, 'config' | 'temporal' | 'logger'>): {
  stop(): void;
} {
  const tick = () => {
    ensureSubmissionSweeper(deps).catch((err) =>
      deps.logger.warn({ err }, 'could not ensure the submission sweeper workflow'),
    );
  };
  const first = setTimeout(tick, 0);
  first.unref();
  const timer = setInterval(tick, SWEEPER_ENSURE_EVERY_MS);
  timer.unref();
  return {
    stop: () => {
      clearTimeout(first);
      clearInterval(timer);
    },
  };
}
