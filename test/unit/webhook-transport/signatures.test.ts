import { sign as octokitSign, verify as octokitVerify } from '@octokit/webhooks-methods';
import { Webhook } from 'standardwebhooks';
import {
  buildDeliveryHeaders,
  signSvcSignature,
  standardWebhookHeaders,
  timingSafeEqualStrings,
  toStandardWebhooksSecret,
  verifySvcSignature,
  WEBHOOK_USER_AGENT,
} from '../../../src/webhook-transport';

const secret = 'whsec-test-secret-1234';
const rawBody = JSON.stringify({
  id: 'whd_1',
  event_type: 'result.finalized',
  data: { final_score: 87.5, note: 'ünï' },
});
const nowSeconds = () => Math.floor(Date.now() / 1000);

describe('X-Svc-Signature', () => {
  it('is sha256=<hex> that the GitHub verifier (@octokit/webhooks-methods) accepts', async () => {
    const signature = signSvcSignature(secret, rawBody);
    expect(signature).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(await octokitVerify(secret, rawBody, signature)).toBe(true);
    expect(await octokitSign(secret, rawBody)).toBe(signature);
  });

  it('fails verification for a changed body or another secret', async () => {
    const signature = signSvcSignature(secret, rawBody);
    expect(await octokitVerify(secret, rawBody.replace('87.5', '97.5'), signature)).toBe(false);
    expect(await octokitVerify('another-secret', rawBody, signature)).toBe(false);
    expect(verifySvcSignature(secret, `${rawBody} `, signature)).toBe(false);
    expect(verifySvcSignature(secret, rawBody, signature)).toBe(true);
  });

  it('keys the HMAC with the UTF-8 bytes of a non-ASCII secret, like the GitHub verifier', async () => {
    const unicodeSecret = 'sécret-🔑-clé';
    expect(await octokitVerify(unicodeSecret, rawBody, signSvcSignature(unicodeSecret, rawBody))).toBe(true);
  });
});

describe('Standard Webhooks headers', () => {
  it('verify with the standardwebhooks reference library, with or without the whsec_ prefix', () => {
    const headers = standardWebhookHeaders({
      secret,
      msgId: 'whd_abc',
      timestampSeconds: nowSeconds(),
      rawBody,
    });
    expect(headers['webhook-id']).toBe('whd_abc');
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);

    const receiverSecret = toStandardWebhooksSecret(secret);
    expect(receiverSecret).toBe(`whsec_${Buffer.from(secret).toString('base64')}`);
    expect(new Webhook(receiverSecret).verify(rawBody, { ...headers })).toEqual(JSON.parse(rawBody));
    expect(new Webhook(Buffer.from(secret).toString('base64')).verify(rawBody, { ...headers })).toEqual(
      JSON.parse(rawBody),
    );
    // The reference "raw" format works for ASCII secrets too.
    expect(new Webhook(secret, { format: 'raw' }).verify(rawBody, { ...headers })).toEqual(
      JSON.parse(rawBody),
    );
  });

  it('matches the reference implementation byte for byte', () => {
    const timestampSeconds = 1_700_000_000;
    const headers = standardWebhookHeaders({ secret, msgId: 'whd_abc', timestampSeconds, rawBody });
    const reference = new Webhook(toStandardWebhooksSecret(secret)).sign(
      'whd_abc',
      new Date(timestampSeconds * 1000),
      rawBody,
    );
    expect(headers['webhook-signature']).toBe(reference);
    expect(headers['webhook-timestamp']).toBe('1700000000');
  });

  it('works for non-ASCII secrets through the documented base64 derivation', () => {
    const unicodeSecret = 'sécret-🔑-clé';
    const headers = standardWebhookHeaders({
      secret: unicodeSecret,
      msgId: 'm1',
      timestampSeconds: nowSeconds(),
      rawBody,
    });
    expect(() =>
      new Webhook(toStandardWebhooksSecret(unicodeSecret)).verify(rawBody, { ...headers }),
    ).not.toThrow();
  });

  it('is rejected for a tampered body, another id, another secret or an old timestamp', () => {
    const ts = nowSeconds();
    const headers = standardWebhookHeaders({ secret, msgId: 'whd_abc', timestampSeconds: ts, rawBody });
    const receiver = new Webhook(toStandardWebhooksSecret(secret));
    expect(() => receiver.verify(rawBody.replace('87.5', '97.5'), { ...headers })).toThrow(
      'No matching signature',
    );
    expect(() => receiver.verify(rawBody, { ...headers, 'webhook-id': 'whd_abd' })).toThrow(
      'No matching signature',
    );
    expect(() =>
      new Webhook(toStandardWebhooksSecret('other-secret')).verify(rawBody, { ...headers }),
    ).toThrow();
    const old = standardWebhookHeaders({ secret, msgId: 'whd_abc', timestampSeconds: ts - 3600, rawBody });
    expect(() => receiver.verify(rawBody, { ...old })).toThrow('too old');
  });

  it('refuses ids that are not header-safe and bad timestamps', () => {
    const base = { secret, timestampSeconds: 1, rawBody };
    expect(() => standardWebhookHeaders({ ...base, msgId: 'a.b' })).toThrow(TypeError);
    expect(() => standardWebhookHeaders({ ...base, msgId: 'x\r\ny: z' })).toThrow(TypeError);
    expect(() => standardWebhookHeaders({ ...base, msgId: '' })).toThrow(TypeError);
    expect(() => standardWebhookHeaders({ ...base, msgId: 'ok', timestampSeconds: 1.5 })).toThrow(TypeError);
    expect(() => standardWebhookHeaders({ ...base, msgId: 'ok', timestampSeconds: -1 })).toThrow(TypeError);
  });
});

describe('buildDeliveryHeaders', () => {
  it('produces every header of one attempt, each verifiable by third-party code', async () => {
    const timestampSeconds = nowSeconds();
    const headers = buildDeliveryHeaders({
      secret,
      deliveryId: 'whd_0123456789abcdef',
      eventType: 'result.finalized',
      rawBody,
      timestampSeconds,
    });
    expect(headers).toEqual({
      'Content-Type': 'application/json',
      'User-Agent': WEBHOOK_USER_AGENT,
      'X-Svc-Signature': signSvcSignature(secret, rawBody),
      'X-Svc-Delivery-ID': 'whd_0123456789abcdef',
      'X-Svc-Event': 'result.finalized',
      'X-Svc-Event-Version': '1',
      'webhook-id': 'whd_0123456789abcdef',
      'webhook-timestamp': String(timestampSeconds),
      'webhook-signature': expect.stringMatching(/^v1,/),
    });
    expect(await octokitVerify(secret, rawBody, headers['X-Svc-Signature']!)).toBe(true);
    expect(() => new Webhook(toStandardWebhooksSecret(secret)).verify(rawBody, headers)).not.toThrow();
  });

  it('defaults the timestamp to now', () => {
    const before = Math.floor(Date.now() / 1000);
    const headers = buildDeliveryHeaders({
      secret,
      deliveryId: 'whd_1',
      eventType: 'challenge.retired',
      rawBody,
    });
    expect(Number(headers['webhook-timestamp'])).toBeGreaterThanOrEqual(before);
    expect(Number(headers['webhook-timestamp'])).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
  });

  it('refuses event types that are not header-safe', () => {
    expect(() =>
      buildDeliveryHeaders({ secret, deliveryId: 'whd_1', eventType: 'a\r\nX-Evil: 1', rawBody }),
    ).toThrow(TypeError);
  });
});

describe('timingSafeEqualStrings', () => {
  it('compares by value, whatever the lengths', () => {
    expect(timingSafeEqualStrings('abc', 'abc')).toBe(true);
    expect(timingSafeEqualStrings('', '')).toBe(true);
    expect(timingSafeEqualStrings('abc', 'abd')).toBe(false);
    expect(timingSafeEqualStrings('abc', 'abcd')).toBe(false);
    expect(timingSafeEqualStrings('', 'a')).toBe(false);
    expect(timingSafeEqualStrings('é', 'e\u0301')).toBe(false);
  });
});
