/**
 * Examples for the generated OpenAPI document, derived from the schemas themselves (so they are
 * never written twice and always validate): each request body and response gets one built from
 * its JSON Schema, using the first enum value, the declared format, and the smallest allowed size.
 */

type Schema = Record<string, unknown>;
export interface OpenApiDoc {
  paths: Record<
    string,
    Record<string, { requestBody?: MediaHolder; responses?: Record<string, MediaHolder> }>
  >;
  components?: { schemas?: Record<string, Schema> };
}
interface MediaHolder {
  content?: Record<string, { schema?: Schema; example?: unknown }>;
}

const SAMPLE_UUID = '3f2c8a4e-5b6d-4e7f-8a9b-0c1d2e3f4a5b';
const SAMPLE_TIME = '2026-01-15T09:30:00.000Z';

/**
 * Realistic values for string fields that carry no format, by field name: the reference should read
 * like a real answer (ids, hashes, times, messages), never like a placeholder.
 */
const SAMPLE_BY_KEY: Record<string, string> = {
  request_id: 'req_5f1c9a2e7b3d4c60',
  message: 'challenge not found',
  code: 'NOT_FOUND',
  artifact_hash: 'sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
  failure_reason: 'the grader answered 502 three times',
  agent_name: 'sieve-runner',
  name: 'sieve-runner',
  challenge_title: 'Prime Sieve Sprint',
  title: 'Prime Sieve Sprint',
  description: 'Return every prime below n as a JSON array; the fastest correct answer wins.',
  category: 'coding',
  format: 'solo',
  weight_class_id: 'open',
  model_name: 'orca-7b-instruct',
  soul_excerpt: 'Careful, terse, writes the tests first.',
  version: '1.4.2',
  next_cursor: 'WyIyMDI2LTAxLTE1VDA5OjMwOjAwLjAwMDAwMFoiLCIzZjJjOGE0ZSJd',
  token: 'svc_sk_live_4nqG7cX2pV9rT1sLw8yZbE3hK6mJ0aUd',
  token_prefix: 'svc_sk_live_4nqG',
  key: 'aa_Xk29fQm7LpVt3RcN8sWy1GhB5zJd4EoU',
  key_prefix: 'aa_Xk29',
  secret: 'whsec_7d1f4b9c2e8a6035',
  secret_prefix: 'whse',
  url: 'https://hooks.example.com/svc',
  self: '/api/v1/submissions/3f2c8a4e-5b6d-4e7f-8a9b-0c1d2e3f4a5b',
  result: '/api/v1/results/3f2c8a4e-5b6d-4e7f-8a9b-0c1d2e3f4a5b',
  breakdown: '/api/v1/submissions/3f2c8a4e-5b6d-4e7f-8a9b-0c1d2e3f4a5b/breakdown',
  summary: '3 of 4 criteria met (hidden: 1 of 1)',
  feedback: 'Output matched the expected primes below 100.',
  reason: 'a hidden test leaked in the judge config',
  quarantine_reason: 'a hidden test leaked in the judge config',
  disabled_reason: '10 consecutive failed attempts',
  close_reason: 'expired',
  error: 'HTTP 500',
  last_error: 'HTTP 500',
  error_summary: 'AssertionError: expected [2,3,5,7] to equal [2,3,5,7,11]',
  response_excerpt: '{"error":"upstream timeout"}',
  content: 'The answer is 42',
  path: 'src/solution.ts',
  filename: 'src/solution.ts',
  language: 'typescript',
  snippet: 'const primes = sieve(100);',
  command: 'npm test',
  tool: 'bash',
  stage: 'tests',
  workflow_id: 'submission-3f2c8a4e-5b6d-4e7f-8a9b-0c1d2e3f4a5b',
  judge: 'rubric',
  event_type: 'result.finalized',
  events: 'result.finalized',
  delivery_id: 'whd_7c1e9a0f3b5d4e2a8c6f0b1d9e3a5c7f',
  delivery_ids: 'whd_7c1e9a0f3b5d4e2a8c6f0b1d9e3a5c7f',
  actor: 'auth0|6543b1f2c9e77a0012ab34cd',
  target_id: SAMPLE_UUID,
  id: SAMPLE_UUID,
  scopes: 'submission:create',
  status: 'active',
  value: '42',
  result_state: 'scored',
};

/** The error code and message an error response of this status carries. */
const ERROR_BY_STATUS: Record<string, [code: string, message: string]> = {
  '400': ['VALIDATION_ERROR', 'body.title: Required'],
  '401': ['UNAUTHORIZED', 'missing or invalid credentials'],
  '403': ['FORBIDDEN', 'the credential lacks the required scope'],
  '404': ['NOT_FOUND', 'challenge not found'],
  '409': ['CONFLICT', 'only an active challenge can be quarantined; this one is draft'],
  '410': ['GONE', 'POST /api/v1/submissions is retired: submit to a session'],
  '412': [
    'PRECONDITION_FAILED',
    'the challenge changed since you read it: it is at version 8, If-Match names version 7; nothing was changed',
  ],
  '413': ['PAYLOAD_TOO_LARGE', 'request body exceeds 1048576 bytes'],
  '415': ['UNSUPPORTED_MEDIA_TYPE', 'send application/json'],
  '429': ['RATE_LIMITED', 'rate limit exceeded: retry after 12 seconds'],
  '500': ['INTERNAL_ERROR', 'internal error'],
  '503': ['SERVICE_UNAVAILABLE', 'the workflow service is unavailable; nothing was changed, retry later'],
};

function sampleString(s: Schema, key: string | undefined): string {
  const format = s.format as string | undefined;
  if (format === 'uuid') return SAMPLE_UUID;
  if (format === 'date-time') return SAMPLE_TIME;
  if (format === 'uri' || format === 'url') return 'https://hooks.example.com/svc';
  if (format === 'email') return 'alice@example.com';
  const pattern = s.pattern as string | undefined;
  if (pattern === '^whd_[0-9a-f]{32}$') return 'whd_7c1e9a0f3b5d4e2a8c6f0b1d9e3a5c7f';
  if (key && (key === 'at' || key.endsWith('_at'))) return SAMPLE_TIME;
  const known = key ? SAMPLE_BY_KEY[key] : undefined;
  // Unknown fields get a value shaped like their name (never a placeholder word).
  const base = known ?? (key ? `${key.replace(/_/g, '-')}-7f3a` : 'sieve-7f3a');
  const min = typeof s.minLength === 'number' ? s.minLength : 0;
  const text = base.length >= min ? base : base.padEnd(min, '0');
  return typeof s.maxLength === 'number' ? text.slice(0, Math.max(s.maxLength, min)) : text;
}

function sample(schema: Schema | undefined, doc: OpenApiDoc, depth = 0, key?: string): unknown {
  if (!schema || depth > 12) return null;
  if (typeof schema.$ref === 'string') {
    const name = schema.$ref.split('/').pop()!;
    return sample(doc.components?.schemas?.[name], doc, depth + 1, key);
  }
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if ('example' in schema) return schema.example;
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options = schema[key] as Schema[] | undefined;
    if (options?.length)
      return sample(options.find((o) => o.type !== 'null') ?? options[0], doc, depth + 1, key);
  }
  if (Array.isArray(schema.allOf)) {
    return Object.assign(
      {},
      ...(schema.allOf as Schema[]).map((part) => sample(part, doc, depth + 1) as object),
    );
  }
  const type = Array.isArray(schema.type)
    ? (schema.type as string[]).find((t) => t !== 'null')
    : (schema.type as string | undefined);
  switch (type) {
    case 'object': {
      const props = (schema.properties ?? {}) as Record<string, Schema>;
      const out: Record<string, unknown> = {};
      for (const [name, prop] of Object.entries(props)) out[name] = sample(prop, doc, depth + 1, name);
      return out;
    }
    case 'array': {
      const min = typeof schema.minItems === 'number' ? schema.minItems : 1;
      const max = typeof schema.maxItems === 'number' ? schema.maxItems : 1;
      return Array.from({ length: Math.min(Math.max(min, 1), max) }, () =>
        sample(schema.items as Schema, doc, depth + 1, key),
      );
    }
    case 'string':
      return sampleString(schema, key);
    case 'integer':
    case 'number': {
      const min =
        typeof schema.minimum === 'number'
          ? schema.minimum
          : typeof schema.exclusiveMinimum === 'number'
            ? schema.exclusiveMinimum + 1
            : 1;
      const max = typeof schema.maximum === 'number' ? schema.maximum : Infinity;
      return Math.min(Math.max(min, 1), max);
    }
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return {};
  }
}

/** Adds `example` to every JSON request body and response of the document (in place). */
export function addExamples(doc: OpenApiDoc): void {
  for (const ops of Object.values(doc.paths)) {
    for (const op of Object.values(ops)) {
      const holders: [string | null, MediaHolder | undefined][] = [
        [null, op.requestBody],
        ...Object.entries(op.responses ?? {}),
      ];
      for (const [status, holder] of holders) {
        const media = holder?.content?.['application/json'];
        if (!media?.schema || media.example !== undefined) continue;
        media.example = sample(media.schema, doc);
        const error = status ? ERROR_BY_STATUS[status] : undefined;
        const body = media.example as { error?: unknown };
        // An error answer's example names the code and message of its own status.
        if (error && body && typeof body.error === 'object' && body.error !== null)
          body.error = { ...body.error, code: error[0], message: error[1] };
        else if (error && body && typeof body.error === 'string') body.error = error[1];
      }
    }
  }
}
