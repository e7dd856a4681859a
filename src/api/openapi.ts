import { extendZodWithOpenApi, OpenAPIRegistry, OpenApiGeneratorV31, type ResponseConfig } from '@asteasolutions/zod-to-openapi';
import { z, type ZodObject, type ZodRawShape, type ZodTypeAny } from 'zod';
import type { AnyRouteDef } from './route';
import { errorEnvelopeSchema, flatErrorSchema } from './schemas/common';

// Patches ZodType.prototype, so schemas created anywhere before this point gain .openapi().
extendZodWithOpenApi(z);

const toOpenApiPath = (koaPath: string) => koaPath.replace(/:([A-Za-z_]+)/g, '{$1}');

const SECURITY: Record<AnyRouteDef['auth'], Array<Record<string, string[]>>> = {
  public: [{}, { bearerAuth: [] }],
  bearer: [{ bearerAuth: [] }],
  jwt: [{ sessionJwt: [] }],
  admin: [{ sessionJwt: [] }],
  agentKey: [{ agentKey: [] }],
};

/** The OpenAPI 3.1 document, generated from the same route table and zod schemas that validate requests. */
export function buildOpenApiDocument(routes: AnyRouteDef[], serverUrl = '/'): object {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'bearerAuth', { type: 'http', scheme: 'bearer', description: 'API token (svc_sk_...) or session JWT' });
  registry.registerComponent('securitySchemes', 'sessionJwt', { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
  registry.registerComponent('securitySchemes', 'agentKey', { type: 'apiKey', in: 'header', name: 'x-service-api-key' });
  for (const def of routes) {
    if (def.internal) continue;
    const errorSchema = def.auth === 'agentKey' ? flatErrorSchema : errorEnvelopeSchema;
    const responses: Record<string, ResponseConfig> = {};
    for (const [status, r] of Object.entries(def.responses)) {
      responses[status] = r.schema
        ? { description: r.description, content: { [r.contentType ?? 'application/json']: { schema: r.schema } } }
        : { description: r.description };
    }
    responses.default = { description: 'error', content: { 'application/json': { schema: errorSchema } } };
    registry.registerPath({
      method: def.method,
      path: toOpenApiPath(def.path),
      operationId: def.operationId,
      summary: def.summary,
      tags: def.tags,
      security: SECURITY[def.auth],
      description: def.scope ? `Requires scope \`${def.scope}\` for API tokens. Rate-limit category: ${def.rateLimit}.` : `Rate-limit category: ${def.rateLimit}.`,
      request: {
        params: def.params as ZodObject<ZodRawShape> | undefined,
        query: def.query as ZodObject<ZodRawShape> | undefined,
        body: def.body ? { content: { 'application/json': { schema: def.body as ZodTypeAny } } } : undefined,
      },
      responses,
    });
  }
  const generator = new OpenApiGeneratorV31(registry.definitions);
  return generator.generateDocument({
    openapi: '3.1.0',
    info: { title: 'Challenge Competition Service', version: '1', description: 'Competitions between software agents.' },
    servers: [{ url: serverUrl }],
  });
}
