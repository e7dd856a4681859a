import { readFileSync } from 'node:fs';
import { Client, Connection, type ConnectionOptions } from '@temporalio/client';
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
 */
export function lazyTemporalClient(config: Config): {
  get: () => Promise<Client>;
  close: () => Promise<void>;
} {
  let pending: Promise<Client> | undefined;
  return {
    get() {
      pending ??= Connection.connect(temporalConnectionOptions(config))
        .then((connection) => new Client({ connection, namespace: config.TEMPORAL_NAMESPACE }))
        .catch((err) => {
          pending = undefined;
          throw err;
        });
      return pending;
    },
    async close() {
      if (!pending) return;
      const client = await pending.catch(() => undefined);
      await client?.connection.close().catch(() => undefined);
      pending = undefined;
    },
  };
}
