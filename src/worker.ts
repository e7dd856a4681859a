import { NativeConnection, Worker } from '@temporalio/worker';
import { createActivities } from '../activities';
import { judgingTaskQueue } from './domain/submissions/contract';
import { type Config, getConfig } from './config';
import { createPool } from './db/pool';
import { NotificationListener } from './db/notification-listener';
import { startRelaySweeper } from './runtime/relay-sweeper';
import { keepSubmissionSweeperRunning } from './runtime/submission-sweeper';
import { startOutboxDispatcher } from './runtime/outbox-dispatcher';
import { SandboxUnavailableError } from './judging/errors';
import { configureSandboxRuntime } from './judging/sandbox/sandbox-runtime';
import { createLogger } from './lib/logger';
import { lazyTemporalClient, temporalConnectionOptions } from './temporal/client';

/**
 * Proves the OS sandbox on this machine before taking any work. Without it the worker does not
 * start (one line on stderr, exit 1), unless a developer chose `JUDGE_SANDBOX=unsafe-process`.
 */
async function prepareJudgingSandbox(
  config: Config,
  logger: ReturnType<typeof createLogger>,
): Promise<number> {
  try {
    const report = await configureSandboxRuntime({
      mode: config.JUDGE_SANDBOX,
      bwrapPath: config.JUDGE_BWRAP_PATH,
      uidBase: config.JUDGE_SANDBOX_UID_BASE,
      cgroupParent: config.JUDGE_CGROUP_PARENT,
      slots: config.JUDGE_SLOTS,
      onUnsafeRun: () =>
        logger.warn(
          'judging submitted code WITHOUT the OS sandbox (JUDGE_SANDBOX=unsafe-process, development only)',
        ),
    });
    if (config.NODE_ENV === 'production' && !report.uidSwitch && report.cgroup === 'none') {
      throw new SandboxUnavailableError(
        `nothing bounds the processes of a sandbox here (worker not root, and ${report.cgroupNote}): run the worker as root or delegate a cgroup (JUDGE_CGROUP_PARENT)`,
      );
    }
    if (report.isolation === 'unsafe-process') {
      logger.warn(
        'JUDGE_SANDBOX=unsafe-process: submitted code runs without the OS sandbox (development only)',
      );
    } else {
      logger.info({ sandbox: report }, 'judging sandbox ready');
    }
    return report.slots;
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    const hint = config.NODE_ENV === 'production' ? '' : ' (development only: JUDGE_SANDBOX=unsafe-process)';
    console.error(
      `worker refused to start: the tests judge needs the bubblewrap OS sandbox: ${reason}${hint}`,
    );
    process.exit(1);
  }
}

async function main(): Promise<void> {
  const config = getConfig();
  const logger = createLogger(config.LOG_LEVEL, 'worker');
  const judgingSlots = await prepareJudgingSandbox(config, logger);
  const db = createPool(config.DATABASE_URL, config.DATABASE_POOL_MAX);
  const temporal = lazyTemporalClient(config);
  const { address, tls } = temporalConnectionOptions(config);
  const connection = await NativeConnection.connect({ address, tls, apiKey: config.TEMPORAL_API_KEY });
  const deps = { config, db, logger, temporal: temporal.get };
  // Asked to stop (SIGINT/SIGTERM): long activity loops end at once; Temporal's graceful shutdown does the rest.
  const stopping = new AbortController();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stopping.abort());
  const activities = createActivities(deps, { stopping: stopping.signal });
  const worker = await Worker.create({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    workflowsPath: require.resolve('../workflows'),
    activities,
    // Graceful shutdown lets running activities finish before the process exits.
    shutdownGraceTime: '10s',
  });
  // `tests` judgings: this worker takes only as many as it has judging slots, so the rest stay
  // in Temporal's queue for whichever worker frees a slot first.
  const judgingWorker = await Worker.create({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: judgingTaskQueue(config.TEMPORAL_TASK_QUEUE),
    activities,
    maxConcurrentActivityTaskExecutions: judgingSlots,
    shutdownGraceTime: '10s',
  });
  // The worker's long-running loops, each explicit here (src/runtime/).
  const notifications = new NotificationListener(config.DATABASE_URL, logger);
  const dispatcher = startOutboxDispatcher({ ...deps, workerConnection: connection }, notifications); // outbox → webhook deliveries
  const relaySweeper = startRelaySweeper(deps, config.SPECTATOR_RELAY_SWEEP_MS); // relays lost with pending events
  const submissionSweeper = keepSubmissionSweeperRunning(deps); // the sweeper workflow, whatever closed it
  stopping.signal.addEventListener('abort', () => void dispatcher.stop(), { once: true });
  logger.info(
    { taskQueue: config.TEMPORAL_TASK_QUEUE, address: config.TEMPORAL_ADDRESS, judgingSlots },
    'worker ready',
  );
  // Tests wait for this exact line on stdout.
  console.log('WORKER_READY');
  await Promise.all([worker.run(), judgingWorker.run()]);
  relaySweeper.stop();
  submissionSweeper.stop();
  await dispatcher.stop();
  await notifications.close();
  await temporal.close();
  await db.end();
  await connection.close();
}

main().catch((err) => {
  console.error('worker failed:', err instanceof Error ? err.stack : err);
  process.exit(1);
});
