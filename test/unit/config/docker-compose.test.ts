import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { loadConfig } from '../../../src/config';

/**
 * docker-compose.yml cannot run here (no Docker engine), so it is held to what `npm run
 * test:topology` runs: the same server version and setup scripts, the same dynamic config, the
 * Temporal frontend and UI on loopback only, a scalable API, healthchecks, and an app environment
 * that production settings accept.
 */
const ROOT = path.resolve(__dirname, '../../..');
const compose = parse(readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8'));
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed YAML, checked field by field
const services = compose.services as Record<string, any>;
const ensureServer = readFileSync(path.join(ROOT, 'temporal/ensure-server.sh'), 'utf8');

describe('docker-compose.yml mirrors the topology run', () => {
  test('the Temporal server and admin tools are the version server-postgres.sh builds', () => {
    const version = /^VERSION=v(\S+)/m.exec(ensureServer)![1];
    expect(services.temporal.image).toBe(`temporalio/server:${version}`);
    expect(compose['x-temporal-admin-tools'].image).toMatch(
      new RegExp(`^temporalio/admin-tools:${version.replace(/\./g, '\\.')}-`),
    );
    expect(JSON.stringify(compose)).not.toContain('auto-setup');
  });

  test('schema, namespace and dynamic config come from the files server-postgres.sh uses', () => {
    expect(services['temporal-schema'].entrypoint).toContain('/setup/setup-schema.sh');
    expect(services['temporal-setup'].entrypoint).toContain('/setup/setup-namespace.sh');
    expect(compose['x-temporal-admin-tools'].volumes).toContain('./temporal:/setup:ro');
    const mount = services.temporal.volumes.find((v: string) =>
      v.startsWith('./temporal/dynamicconfig.yaml:'),
    );
    expect(mount.split(':')[1]).toBe(services.temporal.environment.DYNAMIC_CONFIG_FILE_PATH);
    const script = readFileSync(path.join(ROOT, 'temporal/server-postgres.sh'), 'utf8');
    for (const file of ['setup-schema.sh', 'setup-namespace.sh', 'dynamicconfig.yaml'])
      expect(script).toContain(`$here/${file}`);
  });

  test('the Temporal frontend and UI are published on loopback only; the API scales (no fixed host port)', () => {
    expect(services.temporal.ports).toEqual(['127.0.0.1:7233:7233']);
    expect(services['temporal-ui'].ports).toEqual(['127.0.0.1:8233:8080']);
    expect(services.api.ports).toEqual(['${API_PORTS:-3000-3009}:3000']);
    expect(services.worker.ports).toBeUndefined();
  });

  test('every long-running service has a healthcheck; one-shot jobs gate what depends on them', () => {
    for (const [name, service] of Object.entries(services)) {
      const oneShot = service.restart === 'no' || String(service.restart).startsWith('on-failure');
      if (!oneShot) expect([name, service.healthcheck?.test]).toEqual([name, expect.any(Array)]);
    }
    expect(services.api.depends_on['temporal-setup'].condition).toBe('service_completed_successfully');
    expect(services.worker.depends_on['temporal-setup'].condition).toBe('service_completed_successfully');
    expect(services.temporal.depends_on['temporal-schema'].condition).toBe('service_completed_successfully');
  });

  test('the app environment, filled as the README says, passes the production checks', () => {
    const env = Object.fromEntries(
      Object.entries(compose['x-app-environment'] as Record<string, string | number>).map(([key, value]) => [
        key,
        String(value)
          .replace(/\$\{POSTGRES_PASSWORD:\?[^}]*\}/g, 'pg-password')
          .replace(
            /\$\{(AUTH_JWT_SECRET|WEBHOOK_SECRET_KEY|METRICS_TOKEN):\?[^}]*\}/g,
            'a-secret-of-enough-length-0123',
          )
          .replace(/\$\{[A-Z_]+:-([^}]*)\}/g, '$1'),
      ]),
    );
    const config = loadConfig(env);
    expect(config.NODE_ENV).toBe('production');
    expect(config.TEMPORAL_ADDRESS).toBe('temporal:7233');
  });
});
