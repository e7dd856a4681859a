import { NativeConnection, Worker } from '@temporalio/worker';
import { createActivities } from '../activities';
import { getConfig } from './config';
import { createPool } from './db/pool';
import { startRelaySweeper } from './domain/connector/relay-sweeper';
import { startOutboxDispatcher } from './domain/webhooks/dispatcher';
import { createLogger } from './lib/logger';
import { lazyTemporalClient, temporalConnectionOptions } from './temporal/client';

async function main(): Promise<void> {
  const config = getConfig();
  const logger = createLogger(config.LOG_LEVEL, 'worker');
  const db = createPool(config.DATABASE_URL, config.DATABASE_POOL_MAX);
  const temporal = lazyTemporalClient(config);
  const { address, tls } = temporalConnectionOptions(config);
  const connection = await NativeConnection.connect({ address, tls, apiKey: config.TEMPORAL_API_KEY });
  const worker = await Worker.create({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    workflowsPath: require.resolve('../workflows'),
    activities: createActivities({ config, db, logger, temporal: temporal.get }),
    // Graceful shutdown lets running activities finish before the process exits.
    shutdownGraceTime: '10s',
  });
  startOutboxDispatcher({ config, db, logger, temporal: temporal.get, workerConnection: connection }); // outbox → webhook deliveries (stops on SIGINT/SIGTERM)
  const relaySweeper = startRelaySweeper({ config, db, logger, temporal: temporal.get }, config.SPECTATOR_RELAY_SWEEP_MS); // relays lost with pending events
  logger.info({ taskQueue: config.TEMPORAL_TASK_QUEUE, address: config.TEMPORAL_ADDRESS }, 'worker ready');
  // Tests wait for this exact line on stdout.
  console.log('WORKER_READY');
  await worker.run();
  relaySweeper.stop();
  await temporal.close();
  await db.end();
  await connection.close();
}

main().catch((err) => {
  console.error('worker failed:', err instanceof Error ? err.stack : err);
  process.exit(1);
});
