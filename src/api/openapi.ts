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

/** A route whose zod schemas the generator cannot represent (e.g. an un-annotated z.lazy). */
export interface OpenApiSchemaProblem {
  operationId: string;
  error: string;
}

function generate(routes: AnyRouteDef[], serverUrl: string, withoutSchemas: Set<string>) {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'bearerAuth', { type: 'http', scheme: 'bearer', description: 'API token (svc_sk_...) or session JWT' });
  registry.registerComponent('securitySchemes', 'sessionJwt', { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
  registry.registerComponent('securitySchemes', 'agentKey', { type: 'apiKey', in: 'header', name: 'x-service-api-key' });
  for (const def of routes) {
    if (def.internal) continue;
    const plain = withoutSchemas.has(def.operationId);
    const errorSchema = def.auth === 'agentKey' ? flatErrorSchema : errorEnvelopeSchema;
    const responses: Record<string, ResponseConfig> = {};
    for (const [status, r] of Object.entries(def.responses)) {
      responses[status] =
        r.schema && !plain
          ? { description: r.description, content: { [r.contentType ?? 'application/json']: { schema: r.schema } } }
          : { description: r.description };
    }
    if (def.httpCache) {
      responses['304'] = { description: 'Not Modified: If-None-Match names the current ETag (no body)' };
    }
    responses.default = { description: 'error', content: { 'application/json': { schema: errorSchema } } };
    const caching = def.httpCache
      ? ' Cacheable: a strong ETag; If-None-Match → 304; Cache-Control public (anonymous) or private (with a credential).'
      : '';
    const base =
      (def.scope ? `Requires scope \`${def.scope}\` for API tokens. Rate-limit category: ${def.rateLimit}.` : `Rate-limit category: ${def.rateLimit}.`) + caching;
    registry.registerPath({
      method: def.method,
      path: toOpenApiPath(def.path),
      operationId: def.operationId,
      summary: def.summary,
      tags: def.tags,
      security: SECURITY[def.auth],
      description: plain ? `${base} (Request and response schemas could not be generated.)` : base,
      request: plain
        ? undefined
        : {
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

/** Routes whose schemas cannot be generated, each with the generator's complaint (tests assert none). */
export function openApiSchemaProblems(routes: AnyRouteDef[]): OpenApiSchemaProblem[] {
  const problems: OpenApiSchemaProblem[] = [];
  for (const def of routes) {
    if (def.internal) continue;
    try {
      generate([def], '/', new Set());
    } catch (err) {
      const detail = (err as { data?: { currentSchema?: { typeName?: string } } }).data?.currentSchema?.typeName;
      problems.push({ operationId: def.operationId, error: `${(err as Error).message}${detail ? ` (${detail})` : ''}` });
    }
  }
  return problems;
}

/**
 * The OpenAPI 3.1 document, generated from the same route table and zod schemas that validate
 * requests. Should one route's schemas be unrepresentable, that route is documented without them
 * (listed under `x-schema-problems`) rather than the whole document failing.
 */
export function buildOpenApiDocument(routes: AnyRouteDef[], serverUrl = '/'): object {
  try {
    return generate(routes, serverUrl, new Set());
  } catch {
    const problems = openApiSchemaProblems(routes);
    const doc = generate(routes, serverUrl, new Set(problems.map((p) => p.operationId)));
    return { ...doc, 'x-schema-problems': problems };
  }
}
