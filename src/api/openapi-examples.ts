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

function sampleString(s: Schema): string {
  const format = s.format as string | undefined;
  if (format === 'uuid') return SAMPLE_UUID;
  if (format === 'date-time') return SAMPLE_TIME;
  if (format === 'uri' || format === 'url') return 'https://hooks.example.com/svc';
  if (format === 'email') return 'alice@example.com';
  const pattern = s.pattern as string | undefined;
  if (pattern === '^whd_[0-9a-f]{32}$') return `whd_${'0123456789abcdef'.repeat(2)}`;
  const min = typeof s.minLength === 'number' ? s.minLength : 0;
  const base = 'example';
  const text = base.length >= min ? base : base.padEnd(min, 'x');
  return typeof s.maxLength === 'number' ? text.slice(0, Math.max(s.maxLength, min)) : text;
}

function sample(schema: Schema | undefined, doc: OpenApiDoc, depth = 0): unknown {
  if (!schema || depth > 12) return null;
  if (typeof schema.$ref === 'string') {
    const name = schema.$ref.split('/').pop()!;
    return sample(doc.components?.schemas?.[name], doc, depth + 1);
  }
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if ('example' in schema) return schema.example;
  for (const key of ['anyOf', 'oneOf'] as const) {
    const options = schema[key] as Schema[] | undefined;
    if (options?.length) return sample(options.find((o) => o.type !== 'null') ?? options[0], doc, depth + 1);
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
      for (const [key, prop] of Object.entries(props)) out[key] = sample(prop, doc, depth + 1);
      return out;
    }
    case 'array': {
      const min = typeof schema.minItems === 'number' ? schema.minItems : 1;
      const max = typeof schema.maxItems === 'number' ? schema.maxItems : 1;
      return Array.from({ length: Math.min(Math.max(min, 1), max) }, () =>
        sample(schema.items as Schema, doc, depth + 1),
      );
    }
    case 'string':
      return sampleString(schema);
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
      const holders = [op.requestBody, ...Object.values(op.responses ?? {})];
      for (const holder of holders) {
        const media = holder?.content?.['application/json'];
        if (media?.schema && media.example === undefined) media.example = sample(media.schema, doc);
      }
    }
  }
}
