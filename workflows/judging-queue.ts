/**
 * Contract between the submission workflow and the worker: `tests` judgings run on their own task
 * queue, polled by a worker whose activity concurrency is its judging slots, so Temporal hands a
 * judging only to a worker with a free slot (docs/decisions/security.md, "Fair share of the judges").
 * Pure: imported by workflow code and by the worker.
 */
export function judgingTaskQueue(taskQueue: string): string {
  return `${taskQueue}-judging`;
}

/** Marker of the workflow change that added admission and the judging queue (replay-safe). */
export const JUDGING_SLOTS_PATCH = 'judging-admission-and-slots';
