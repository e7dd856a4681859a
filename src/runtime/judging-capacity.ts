import os from 'node:os';
import { randomBytes } from 'node:crypto';
import { forgetJudgingWorker, recordJudgingWorker } from '../db/queries/judging-queue';
import { WORKER_REPORT_MS } from '../domain/judging-queue/queue';
import type { ServiceDeps } from '../service-deps';

/**
 * Reports this worker's judging slots to the judging queue while it lives: the queue's capacity
 * is the live workers' slots together (unless JUDGE_QUEUE_SLOTS fixes it). stop() withdraws them.
 */
export function reportJudgingSlots(
  deps: Pick<ServiceDeps, 'db' | 'logger'>,
  slots: number,
): { stop(): Promise<void> } {
  const workerId = `${os.hostname()}-${process.pid}-${randomBytes(4).toString('hex')}`;
  const report = () =>
    recordJudgingWorker(deps.db, workerId, slots).catch((err) =>
      deps.logger.error({ err }, 'reporting the judging slots failed'),
    );
  void report();
  const timer = setInterval(() => void report(), WORKER_REPORT_MS);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await forgetJudgingWorker(deps.db, workerId).catch(() => undefined);
    },
  };
}
