/**
 * The webhook event catalog (OpenAPI 3.1 `webhooks`) describes exactly what receivers get: each
 * example is built by the real body builder and parses strictly against the documented schema,
 * its signatures verify with the receivers' own libraries, and no example reads like a placeholder.
 */
import { verify as verifyGithubStyle } from '@octokit/webhooks-methods';
import { Webhook } from 'standardwebhooks';
import { buildOpenApiDocument } from '../../../src/api/openapi';
import { allRoutes } from '../../../src/api/routes';
import { EVENT_TYPES } from '../../../src/events/types';
import { deliveredBodySchema, sampleEventBody } from '../../../src/webhook-transport';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const doc = buildOpenApiDocument(allRoutes()) as Json;
const SECRET = 'whsec_7d1f4b9c2e8a6035';

test('one webhook per event type, each a POST with a named schema, an example and every delivery header', () => {
  expect(Object.keys(doc.webhooks).sort()).toEqual([...EVENT_TYPES].sort());
  for (const type of EVENT_TYPES) {
    const op = doc.webhooks[type].post;
    expect(op.summary).toEqual(expect.any(String));
    const media = op.requestBody.content['application/json'];
    expect(media.schema.$ref).toMatch(/^#\/components\/schemas\/\w+Event$/);
    expect(media.example).toEqual(sampleEventBody(type));
    expect(op.parameters.map((p: Json) => [p.in, p.name])).toEqual(
      [
        'Content-Type',
        'User-Agent',
        'X-Svc-Event',
        'X-Svc-Event-Version',
        'X-Svc-Delivery-ID',
        'X-Svc-Signature',
        'webhook-id',
        'webhook-timestamp',
        'webhook-signature',
      ].map((name) => ['header', name]),
    );
    expect(Object.keys(op.responses)).toEqual(['200', '410', 'default']);
  }
});

test.each([...EVENT_TYPES])(
  '%s: the example is what the builder sends and parses strictly as documented',
  (type) => {
    const body = sampleEventBody(type);
    expect(deliveredBodySchema(type).parse(body)).toEqual(body);
    expect(Object.keys(body).slice(0, 3)).toEqual(['id', 'event_type', 'timestamp']);
    expect(Object.keys(body).at(-1)).toBe('data');
    // The documented schema refuses what a receiver would never get.
    expect(deliveredBodySchema(type).safeParse({ ...body, extra: 1 }).success).toBe(false);
    expect(deliveredBodySchema(type).safeParse({ ...body, event_type: 'webhook.test' }).success).toBe(false);
  },
);

test.each([...EVENT_TYPES])(
  '%s: the example headers carry signatures that verify over the example body',
  async (type) => {
    const op = doc.webhooks[type].post;
    const headers = Object.fromEntries(op.parameters.map((p: Json) => [p.name, p.schema.example as string]));
    const rawBody = JSON.stringify(op.requestBody.content['application/json'].example);
    expect(await verifyGithubStyle(SECRET, rawBody, headers['X-Svc-Signature'])).toBe(true);
    const timestamp = Number(headers['webhook-timestamp']);
    const wh = new Webhook(Buffer.from(SECRET).toString('base64'));
    // The example is dated; verify it at its own time (the library checks a 5-minute tolerance).
    jest.useFakeTimers({ now: timestamp * 1000 });
    try {
      expect(() => wh.verify(rawBody, headers)).not.toThrow();
    } finally {
      jest.useRealTimers();
    }
    expect(headers['X-Svc-Delivery-ID']).toBe(headers['webhook-id']);
    expect(headers['X-Svc-Event']).toBe(type);
  },
);

test('submission.completed says plainly that the REST enum says complete', () => {
  const schema = doc.components.schemas.SubmissionCompletedEvent;
  const status = schema.properties.data.properties.submission_status;
  expect(status.const ?? status.enum?.[0]).toBe('completed');
  expect(status.description).toMatch(/"complete"/);
  expect(doc.webhooks['submission.completed'].post.description).toMatch(/`complete`/);
  expect(doc.info.description).toMatch(/"completed" in webhook bodies and "complete" in API answers/);
});

test('examples everywhere look real: no placeholder word, only example.com hosts', () => {
  const found: string[] = [];
  const walk = (value: unknown, where: string) => {
    if (typeof value === 'string') {
      if (/example/i.test(value.replace(/[a-z0-9.-]*example\.com/gi, ''))) found.push(`${where}: ${value}`);
    } else if (Array.isArray(value)) value.forEach((v, i) => walk(v, `${where}/${i}`));
    else if (value && typeof value === 'object')
      for (const [k, v] of Object.entries(value)) if (k !== 'examples') walk(v, `${where}/${k}`);
  };
  walk(doc, '#');
  expect(found).toEqual([]);
});

test('every operation documents 500 and 503 in the error envelope', () => {
  for (const [p, ops] of Object.entries(doc.paths as Json))
    for (const [method, op] of Object.entries(ops as Json))
      for (const status of ['500', '503'])
        expect([
          `${method} ${p} ${status}`,
          op.responses[status]?.content?.['application/json']?.schema?.$ref,
        ]).toEqual([
          `${method} ${p} ${status}`,
          expect.stringMatching(/#\/components\/schemas\/(Error|ConnectorError)$/),
        ]);
});
