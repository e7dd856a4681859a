import {
  extendZodWithOpenApi,
  OpenAPIRegistry,
  OpenApiGeneratorV31,
  type ResponseConfig,
} from '@asteasolutions/zod-to-openapi';
import { z, type ZodObject, type ZodRawShape, type ZodTypeAny } from 'zod';
import { addExamples, type OpenApiDoc } from './openapi-examples';
import type { AnyRouteDef } from './route';
import { errorEnvelopeSchema, flatErrorSchema } from './schemas/common';
import { COMPLETED_VS_COMPLETE, registerWebhookCatalog, WEBHOOK_EVENTS_TAG } from './webhook-catalog';

// Patches ZodType.prototype, so schemas created anywhere before this point gain .openapi().
extendZodWithOpenApi(z);

const toOpenApiPath = (koaPath: string) => koaPath.replace(/:([A-Za-z_]+)/g, '{$1}');

const SECURITY: Record<AnyRouteDef['auth'], Array<Record<string, string[]>>> = {
  public: [{}, { bearerAuth: [] }],
  bearer: [{ bearerAuth: [] }],
  jwt: [{ sessionJwt: [] }],
  admin: [{ sessionJwt: [] }],
  agentKey: [{ agentKey: [] }],
  // Web pages only (hidden from the document): the session cookie is no API credential.
  webSession: [],
};

/** A route whose zod schemas the generator cannot represent (e.g. an un-annotated z.lazy). */
export interface OpenApiSchemaProblem {
  operationId: string;
  error: string;
}

const pascal = (id: string) => id.charAt(0).toUpperCase() + id.slice(1);

const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': { $ref: '#/components/headers/RateLimitLimit' },
  'X-RateLimit-Remaining': { $ref: '#/components/headers/RateLimitRemaining' },
  'X-RateLimit-Reset': { $ref: '#/components/headers/RateLimitReset' },
  'X-Request-ID': { $ref: '#/components/headers/RequestId' },
};

/** What any route may answer when something below it fails (never a stack trace; see src/api/errors.ts). */
export const SERVER_ERRORS: Record<number, string> = {
  500: 'INTERNAL_ERROR or DB_ERROR: an unexpected failure on our side (the message says no more; quote the request id)',
  503: 'SERVICE_UNAVAILABLE: a dependency (database or workflow service) is unavailable; retry later',
};

/**
 * Every 4xx a route can answer, from what the pipeline does for it (src/api/pipeline.ts):
 * credentials, scope, validation, JSON body, idempotency, rate limit; plus those it declares.
 */
export function clientErrorsOf(def: AnyRouteDef): Record<number, string> {
  const errors: Record<number, string[]> = {};
  const add = (status: number, text: string) => (errors[status] ??= []).push(text);
  if (def.params || def.query || def.body)
    add(400, 'VALIDATION_ERROR: a parameter or field is invalid (the message names it)');
  if (def.body) add(400, 'INVALID_JSON: the body is not JSON');
  add(
    401,
    def.auth === 'public'
      ? 'UNAUTHORIZED: a credential was presented but is invalid or expired'
      : 'UNAUTHORIZED: missing, invalid or expired credential',
  );
  if (def.scope) add(403, `FORBIDDEN: the API token lacks the ${def.scope} scope`);
  if (def.auth === 'jwt') add(403, 'FORBIDDEN: this route needs a session JWT, not an API token');
  if (def.auth === 'admin') add(403, 'FORBIDDEN: operators only (role admin)');
  if (def.params) add(404, 'NOT_FOUND: no such resource, or not yours');
  if (def.idempotent)
    add(
      409,
      'CONFLICT / IDEMPOTENCY_KEY_REUSED: the Idempotency-Key is in use, or was used with another body',
    );
  if (def.body) {
    add(413, 'PAYLOAD_TOO_LARGE: the body is too large');
    add(415, 'UNSUPPORTED_MEDIA_TYPE: send application/json');
  }
  if (!def.unmetered) add(429, 'RATE_LIMITED: too many requests; retry after Retry-After seconds');
  for (const [status, r] of Object.entries(def.responses)) {
    if (Number(status) >= 400 && Number(status) < 500) add(Number(status), r.description);
  }
  return Object.fromEntries(Object.entries(errors).map(([status, texts]) => [status, texts.join('; ')]));
}

function generate(
  routes: AnyRouteDef[],
  serverUrl: string,
  withoutSchemas: Set<string>,
  withWebhooks = true,
) {
  const registry = new OpenAPIRegistry();
  if (withWebhooks) registerWebhookCatalog(registry);
  registry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    description: 'API token (svc_sk_...) or session JWT',
  });
  registry.registerComponent('securitySchemes', 'sessionJwt', {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
  });
  registry.registerComponent('securitySchemes', 'agentKey', {
    type: 'apiKey',
    in: 'header',
    name: 'x-service-api-key',
  });
  const int = { type: 'integer' as const };
  const headers: [name: string, description: string, schema: { type: 'integer' | 'string' }][] = [
    ['RateLimitLimit', 'Requests allowed in the current window (per rate-limit category)', int],
    ['RateLimitRemaining', 'Requests left in the current window', int],
    ['RateLimitReset', 'Unix time (seconds) when the window resets', int],
    ['RetryAfter', 'Seconds to wait before retrying', int],
    ['RequestId', 'The request id (also in error bodies)', { type: 'string' }],
  ];
  for (const [name, description, schema] of headers)
    registry.registerComponent('headers', name, { description, schema });
  const errorEnvelope = registry.register('Error', errorEnvelopeSchema);
  const connectorError = registry.register('ConnectorError', flatErrorSchema);
  const idempotencyHeader = z.object({
    'Idempotency-Key': z.string().min(1).max(255).optional().openapi({
      description:
        'Makes retries safe: a repeat with the same key and body returns the original answer (Idempotent-Replayed: true)',
    }),
  });
  for (const def of routes) {
    if (def.internal) continue;
    const plain = withoutSchemas.has(def.operationId);
    const errorSchema = def.auth === 'agentKey' ? connectorError : errorEnvelope;
    const name = pascal(def.operationId);
    const responses: Record<string, ResponseConfig> = {};
    let named = 0;
    for (const [status, r] of Object.entries(def.responses)) {
      if (Number(status) >= 400) continue;
      const json = (r.contentType ?? 'application/json') === 'application/json';
      const schema =
        r.schema && json && !plain
          ? registry.register(named++ === 0 ? `${name}Response` : `${name}Response${status}`, r.schema)
          : r.schema;
      responses[status] =
        schema && !plain
          ? {
              description: r.description,
              headers: RATE_LIMIT_HEADERS,
              content: { [r.contentType ?? 'application/json']: { schema } },
            }
          : { description: r.description, headers: RATE_LIMIT_HEADERS };
    }
    for (const [status, text] of Object.entries(clientErrorsOf(def))) {
      responses[status] = {
        description: text,
        headers:
          status === '429'
            ? { ...RATE_LIMIT_HEADERS, 'Retry-After': { $ref: '#/components/headers/RetryAfter' } }
            : RATE_LIMIT_HEADERS,
        content: { 'application/json': { schema: errorSchema } },
      };
    }
    for (const [status, text] of Object.entries(SERVER_ERRORS)) {
      responses[status] = {
        description: text,
        headers: RATE_LIMIT_HEADERS,
        content: { 'application/json': { schema: errorSchema } },
      };
    }
    if (def.httpCache) {
      responses['304'] = {
        description: 'Not Modified: If-None-Match names the current ETag (no body)',
        headers: RATE_LIMIT_HEADERS,
      };
    }
    const caching = def.httpCache
      ? ' Cacheable: a strong ETag; If-None-Match → 304; Cache-Control public (anonymous) or private (with a credential).'
      : '';
    const budget = def.unmetered
      ? `Reports the caller's rate-limit budget (category: ${def.rateLimit}) without spending it; never 429.`
      : `Rate-limit category: ${def.rateLimit}.`;
    const base = (def.scope ? `Requires scope \`${def.scope}\` for API tokens. ${budget}` : budget) + caching;
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
            headers: def.idempotent ? idempotencyHeader : undefined,
            body: def.body
              ? {
                  required: true,
                  content: {
                    'application/json': {
                      schema: registry.register(`${name}Request`, def.body as ZodTypeAny),
                    },
                  },
                }
              : undefined,
          },
      responses,
    });
  }
  const generator = new OpenApiGeneratorV31(registry.definitions);
  const doc = generator.generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Challenge Competition Service',
      version: '1',
      description: [
        'Competitions between software agents.',
        `**Webhook events.** The \`webhooks\` section documents every event a subscription can receive: body, headers, signatures, retries. ${COMPLETED_VS_COMPLETE}`,
      ].join('\n\n'),
      license: { name: 'UNLICENSED', identifier: 'UNLICENSED' },
    },
    servers: [{ url: serverUrl }],
    tags: [
      ...[...new Set(routes.filter((r) => !r.internal).flatMap((r) => r.tags))].map((tag) => ({
        name: tag,
        description: `${tag} operations`,
      })),
      ...(withWebhooks
        ? [
            {
              name: WEBHOOK_EVENTS_TAG,
              description: 'what the service POSTs to a subscription URL, per event type',
            },
          ]
        : []),
    ],
  });
  addExamples(doc as unknown as OpenApiDoc);
  return doc;
}

/** Routes whose schemas cannot be generated, each with the generator's complaint (tests assert none). */
export function openApiSchemaProblems(routes: AnyRouteDef[]): OpenApiSchemaProblem[] {
  const problems: OpenApiSchemaProblem[] = [];
  for (const def of routes) {
    if (def.internal) continue;
    try {
      generate([def], '/', new Set(), false);
    } catch (err) {
      const detail = (err as { data?: { currentSchema?: { typeName?: string } } }).data?.currentSchema
        ?.typeName;
      problems.push({
        operationId: def.operationId,
        error: `${(err as Error).message}${detail ? ` (${detail})` : ''}`,
      });
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
