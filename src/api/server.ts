import { getConfig } from '../config';
import { bufferedStdout, createLogger } from '../lib/logger';
import { startMetricsListener } from './metrics-access';
import { createApp } from './app';
import { buildDeps } from './build-deps';
import { configureHttpServer } from './http-server';

async function main(): Promise<void> {
  const config = getConfig();
  const logger = createLogger(config.LOG_LEVEL, 'api', bufferedStdout());
  const { deps, close } = buildDeps(config, logger);
  const server = createApp(deps).listen(config.PORT, config.HOST, () => {
    logger.info({ url: `http://${config.HOST}:${config.PORT}` }, 'API listening');
  });
  configureHttpServer(server, config);
  const metricsServer = config.METRICS_PORT !== undefined ? startMetricsListener(config) : undefined;
  metricsServer?.once('listening', () =>
    logger.info({ url: `http://${config.METRICS_HOST}:${config.METRICS_PORT}/metrics` }, 'metrics listening'),
  );
  const shutdown = (signal: string) => {
    logger.info({ signal }, 'API shutting down');
    metricsServer?.close();
    server.close(() => void close().finally(() => process.exit(0)));
    setTimeout(() => process.exit(0), 5000).unref();
  };
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));
}

main().catch((err) => {
  console.error('API failed to start:', err instanceof Error ? err.message : err);
  process.exit(1);
});
