import { NativeConnection, Worker } from '@temporalio/worker';
import { createActivities } from '../activities';
import { judgingTaskQueue } from './domain/submissions/contract';
import { type Config, getConfig } from './config';
import { createPool } from './db/pool';
import { NotificationListener } from './db/notification-listener';
import { startRelaySweeper } from './runtime/relay-sweeper';
import { startMatchSweeper } from './runtime/match-sweeper';
import { keepSubmissionSweeperRunning } from './runtime/submission-sweeper';
import { startOutboxDispatcher } from './runtime/outbox-dispatcher';
import { SandboxUnavailableError } from './judging/errors';
import { configureSandboxRuntime } from './judging/sandbox/sandbox-runtime';
import { stopToolchainSpare } from './judging/toolchain/run-esbuild';
import { startLanguageOffer } from './runtime/language-offer';
import { reportJudgingSlots } from './runtime/judging-capacity';
import { createLogger } from './lib/logger';
import { loadRatingLibrary } from './domain/matches/rules';
import { lazyTemporalClient, temporalConnectionOptions } from './temporal-client/client';
import { existsSync } from 'node:fs';
import path from 'node:path';

/**
 * Where the workflow code comes from: the bundle `npm run build` writes beside the compiled tree
 * (dist/workflow-bundle.js, next to dist/src/), or, from the sources, the registry
 * (workflows/index.ts at the repository's top level) bundled at start; TEMPORAL_WORKFLOW_BUNDLE
 * names one built beforehand (test harnesses).
 */
function workflowSource(
  prebuilt: string | undefined,
): { workflowBundle: { codePath: string } } | { workflowsPath: string } {
  if (prebuilt) return { workflowBundle: { codePath: prebuilt } };
  const bundle = path.join(__dirname, '..', 'workflow-bundle.js');
  return existsSync(bundle)
    ? { workflowBundle: { codePath: bundle } }
    : { workflowsPath: require.resolve('../workflows') };
}

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
      uidLockDir: config.JUDGE_UID_LOCK_DIR,
      cgroupParent: config.JUDGE_CGROUP_PARENT,
      slots: config.JUDGE_SLOTS,
      onUnsafeRun: () =>
        logger.warn(
          'judging submitted code WITHOUT the OS sandbox (JUDGE_SANDBOX=unsafe-process, development only)',
        ),
    });
    if (report.isolation === 'bwrap' && report.cgroup === 'none') {
      // Without a cgroup nothing bounds a run's tree (memory, CPU share) or kills its leftovers.
      if (config.NODE_ENV === 'production') {
        throw new SandboxUnavailableError(
          `no cgroup this worker can write (${report.cgroupNote}): delegate one (cgroup v2: JUDGE_CGROUP_PARENT; v1: writable memory, pids, cpu, cpuacct and freezer hierarchies)`,
        );
      }
      logger.warn(
        { cgroup: report.cgroupNote },
        `judging without a cgroup (development only): the limits that hold are ${report.limitsWithoutCgroup}`,
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
  // The wall is proven while Temporal is connected and the workflow bundle loads (start-up time);
  // no worker polls before both are done, and a failed proof still ends the process first.
  const sandboxReady = prepareJudgingSandbox(config, logger);
  const db = createPool(config.DATABASE_URL, config.DATABASE_POOL_MAX);
  const temporal = lazyTemporalClient(config);
  const { address, tls } = temporalConnectionOptions(config);
  // A Temporal failure is reported only once the wall's verdict is in: a worker without the wall
  // says so (and exits) first, whichever failed sooner.
  const afterSandboxVerdict = async (err: unknown): Promise<never> => {
    await sandboxReady;
    throw err;
  };
  const connection = await NativeConnection.connect({ address, tls, apiKey: config.TEMPORAL_API_KEY }).catch(
    afterSandboxVerdict,
  );
  const deps = { config, db, logger, temporal: temporal.get };
  // Asked to stop (SIGINT/SIGTERM): long activity loops end at once; Temporal's graceful shutdown does the rest.
  const stopping = new AbortController();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stopping.abort());
  // Every activity, from the registry (activities/index.ts): the features' step factories.
  const activities = createActivities(deps, stopping.signal);
  // The rating writer's library, loaded before the first rated match holds its class's lock.
  loadRatingLibrary();
  const workflows = workflowSource(config.TEMPORAL_WORKFLOW_BUNDLE);
  const worker = await Worker.create({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    // From a built tree (`npm run build`), the workflow code bundled at build time; from the
    // sources (tsx, development and tests), bundled here at start.
    ...workflows,
    activities,
    // Graceful shutdown lets running activities finish before the process exits.
    shutdownGraceTime: '10s',
  }).catch(afterSandboxVerdict);
  const judgingSlots = await sandboxReady;
  // `tests` and `program` judgings (and dry runs): granted their slots by the judging queue first;
  // this worker takes only as many as it has judging slots, so the rest stay in Temporal's queue
  // for whichever worker frees a slot first.
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
  const matchSweeper = startMatchSweeper(deps, config.MATCH_SWEEP_MS); // matches past their deadline or without a workflow
  // The program judge's languages: probed inside the wall in the background, offered as they pass.
  const languageOffer = config.JUDGE_SANDBOX === 'bwrap' ? startLanguageOffer(deps) : undefined;
  // The judging queue's capacity: this worker's slots count while it lives.
  const judgingCapacity = reportJudgingSlots(deps, judgingSlots);
  stopping.signal.addEventListener('abort', () => void dispatcher.stop(), { once: true });
  logger.info(
    { taskQueue: config.TEMPORAL_TASK_QUEUE, address: config.TEMPORAL_ADDRESS, judgingSlots, workflows },
    'worker ready',
  );
  // Tests wait for this exact line on stdout.
  console.log('WORKER_READY');
  await Promise.all([worker.run(), judgingWorker.run()]);
  // The esbuild child kept ready for the next JS/TS job (it would also exit with this process).
  stopToolchainSpare();
  relaySweeper.stop();
  submissionSweeper.stop();
  matchSweeper.stop();
  await languageOffer?.stop();
  await judgingCapacity.stop();
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
