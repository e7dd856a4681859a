import type { NotificationListener } from '../db/notification-listener';
import { OUTBOX_CHANNEL } from '../db/queries/outbox-events';
import {
  DISPATCH_BATCH_SIZE,
  dispatchPendingEvents,
  sweepUnstartedDeliveries,
  type DispatcherDeps,
} from '../domain/webhooks/dispatch';

/**
 * The outbox dispatcher loop of a worker process: a pass at once on each NOTIFY (through the
 * process's shared LISTEN connection), after a reconnect, and every `pollIntervalMs` in case a
 * notification was missed; a pass that filled its batch runs again at once. Every
 * `sweepIntervalMs` it also starts delivery workflows that were committed but never started.
 */
export interface OutboxDispatcher {
  /** Runs a pass now (or right after the current one). */
  kick(): void;
  stop(): Promise<void>;
}

export interface DispatcherOptions {
  pollIntervalMs?: number;
  sweepIntervalMs?: number;
}

export function startOutboxDispatcher(
  deps: DispatcherDeps,
  notifications: NotificationListener,
  options: DispatcherOptions = {},
): OutboxDispatcher {
  const pollIntervalMs = options.pollIntervalMs ?? 1000;
  const sweepIntervalMs = options.sweepIntervalMs ?? 5000;
  const log = deps.logger.child({ component: 'outbox-dispatcher' });
  let stopped = false;
  let running: Promise<void> | null = null;
  let again = false;

  const runPasses = async () => {
    do {
      again = false;
      try {
        const pass = await dispatchPendingEvents(deps);
        if (pass.events === DISPATCH_BATCH_SIZE) again = true; // more waiting
      } catch (err) {
        if (!stopped) log.error({ err }, 'dispatch pass failed; retrying on the next tick');
        again = false; // no tight loop while the database is down: the poll retries
        return;
      }
    } while (again && !stopped);
  };

  const kick = () => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = runPasses().finally(() => {
      running = null;
      if (again && !stopped) kick();
    });
  };

  const sweep = async () => {
    try {
      await sweepUnstartedDeliveries(deps);
    } catch (err) {
      if (!stopped) log.error({ err }, 'delivery sweep failed');
    }
  };

  // Notifications are hints: a missed one costs at most a poll interval; a reconnect re-reads at once.
  const unlisten = notifications.subscribe(OUTBOX_CHANNEL, { notify: () => kick(), resync: () => kick() });
  const poll = setInterval(kick, pollIntervalMs);
  poll.unref();
  const sweeper = setInterval(() => void sweep(), sweepIntervalMs);
  sweeper.unref();

  const stop = async () => {
    if (stopped) return;
    stopped = true;
    clearInterval(poll);
    clearInterval(sweeper);
    unlisten();
    await running?.catch(() => undefined);
  };

  kick();
  return { kick, stop };
}
