import { readFileSync } from 'node:fs';
import {
  Client,
  Connection,
  defaultGrpcRetryOptions,
  makeGrpcRetryInterceptor,
  type ConnectionOptions,
} from '@temporalio/client';
import type { Config } from '../config';

export function temporalConnectionOptions(config: Config): ConnectionOptions {
  const tls =
    config.TEMPORAL_TLS_CERT_PATH && config.TEMPORAL_TLS_KEY_PATH
      ? {
          clientCertPair: {
            crt: readFileSync(config.TEMPORAL_TLS_CERT_PATH),
            key: readFileSync(config.TEMPORAL_TLS_KEY_PATH),
          },
          serverRootCACertificate: config.TEMPORAL_TLS_CA_PATH
            ? readFileSync(config.TEMPORAL_TLS_CA_PATH)
            : undefined,
        }
      : config.TEMPORAL_API_KEY
        ? true
        : undefined;
  return { address: config.TEMPORAL_ADDRESS, tls, apiKey: config.TEMPORAL_API_KEY, connectTimeout: '5s' };
}

/**
 * A memoised client that connects on first use. A failed connection is forgotten so that the
 * next call retries: the API keeps serving reads while Temporal restarts.
 *
 * Closing waits out the client's own gRPC retries: `@temporalio/client` schedules a retry with
 * `setTimeout`, and `Connection.close()` does not clear it, so a retry firing after the close
 * throws "Channel has been shut down" inside the timer (an uncaught exception in the process).
 * Once closing, no new retry is scheduled, and the close comes after the last scheduled one.
 */
export function lazyTemporalClient(config: Config): {
  get: () => Promise<Client>;
  close: () => Promise<void>;
} {
  let pending: Promise<Client> | undefined;
  let closing = false;
  let retriesDueBy = 0;
  const defaults = defaultGrpcRetryOptions();
  const retries = makeGrpcRetryInterceptor({
    retryableDecider: (attempt, status) => !closing && defaults.retryableDecider(attempt, status),
    delayFunction: (attempt, status) => {
      const ms = defaults.delayFunction(attempt, status);
      retriesDueBy = Math.max(retriesDueBy, Date.now() + ms);
      return ms;
    },
  });
  return {
    get() {
      closing = false;
      pending ??= Connection.connect({ ...temporalConnectionOptions(config), interceptors: [retries] })
        .then((connection) => new Client({ connection, namespace: config.TEMPORAL_NAMESPACE }))
        .catch((err) => {
          pending = undefined;
          throw err;
        });
      return pending;
    },
    async close() {
      if (!pending) return;
      closing = true;
      const client = await pending.catch(() => undefined);
      // A retry scheduled before `closing` still fires: let it run (and fail without retrying).
      const wait = retriesDueBy + RETRY_CLOSE_MARGIN_MS - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      await client?.connection.close().catch(() => undefined);
      pending = undefined;
    },
  };
}

/** After the last scheduled retry: its call starts, fails fast on a closing client, and is done. */
const RETRY_CLOSE_MARGIN_MS = 250;
