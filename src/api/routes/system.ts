import { z } from 'zod';
import { metricsRegistry } from '../../lib/metrics';
import { metricsCredentialAccepted } from '../metrics-access';
import { ApiError } from '../errors';
import { notFound, unauthorized } from '../../errors';
import { pingDatabase } from '../../db/pool';
import { buildOpenApiDocument } from '../openapi';
import { defineRoute, type AnyRouteDef } from '../route';
import { referenceRoutes } from './reference-page';

/** Service routes. The OpenAPI route needs the whole table, so it is built from it. */
export function systemRoutes(allRoutes: () => AnyRouteDef[]): AnyRouteDef[] {
  let openApiCache: object | undefined;
  return [
    defineRoute({
      operationId: 'healthz',
      method: 'get',
      path: '/healthz',
      summary: 'Liveness: the process is up',
      tags: ['system'],
      auth: 'public',
      rateLimit: 'default',
      unmetered: true,
      responses: { 200: { description: 'alive', schema: z.object({ status: z.literal('ok') }) } },
      async handler() {
        return { raw: { status: 'ok' } };
      },
    }),
    defineRoute({
      operationId: 'readyz',
      method: 'get',
      path: '/readyz',
      summary: 'Readiness: PostgreSQL and Temporal answer',
      tags: ['system'],
      auth: 'public',
      rateLimit: 'default',
      unmetered: true,
      responses: { 200: { description: 'ready' }, 503: { description: 'a dependency is down' } },
      async handler({ deps }) {
        const checks: Record<string, 'ok' | 'down'> = { postgres: 'down', temporal: 'down' };
        await pingDatabase(deps.db).then(
          () => (checks.postgres = 'ok'),
          () => undefined,
        );
        await Promise.race([
          deps
            .temporal()
            .then((c) => c.connection.workflowService.getSystemInfo({}))
            .then(() => (checks.temporal = 'ok')),
          new Promise((resolve) => setTimeout(resolve, 2000)),
        ]).catch(() => undefined);
        const ready = Object.values(checks).every((v) => v === 'ok');
        return { status: ready ? 200 : 503, raw: { status: ready ? 'ready' : 'not_ready', checks } };
      },
    }),
    defineRoute({
      operationId: 'metrics',
      method: 'get',
      path: '/metrics',
      summary: 'Prometheus metrics',
      tags: ['system'],
      auth: 'public',
      rateLimit: 'default',
      internal: true,
      ownCredential: (config) => config.METRICS_TOKEN !== undefined,
      responses: { 200: { description: 'metrics', contentType: 'text/plain' } },
      async handler({ deps, ctx }) {
        // With its own listener (METRICS_PORT) the API port does not serve it at all.
        if (deps.config.METRICS_PORT !== undefined) throw notFound('route');
        if (!metricsCredentialAccepted(deps.config, ctx.get('authorization'))) {
          throw unauthorized('GET /metrics needs "Authorization: Bearer <METRICS_TOKEN>"');
        }
        return { raw: await metricsRegistry.metrics(), contentType: metricsRegistry.contentType };
      },
    }),
    defineRoute({
      operationId: 'getOpenApiDocument',
      method: 'get',
      path: '/api/v1/openapi.json',
      summary: 'This OpenAPI 3.1 document',
      tags: ['system'],
      auth: 'public',
      rateLimit: 'reads',
      responses: { 200: { description: 'the document' } },
      async handler() {
        openApiCache ??= buildOpenApiDocument(allRoutes());
        return { raw: openApiCache };
      },
    }),
    ...referenceRoutes,
    defineRoute({
      operationId: 'retiredCreateSubmission',
      method: 'post',
      path: '/api/v1/submissions',
      summary: 'Retired: use POST /api/v1/sessions/{id}/submissions',
      tags: ['submissions'],
      auth: 'public',
      rateLimit: 'submissions',
      responses: { 410: { description: 'gone' } },
      async handler() {
        throw new ApiError(
          'GONE',
          'this endpoint is retired: open a session with POST /api/v1/challenges/{id}/sessions and submit with POST /api/v1/sessions/{id}/submissions',
        );
      },
    }),
  ];
}
