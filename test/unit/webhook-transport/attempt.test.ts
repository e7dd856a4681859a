import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import tls from 'node:tls';
import { verify as octokitVerify } from '@octokit/webhooks-methods';
import { Webhook } from 'standardwebhooks';
import {
  buildDeliveryHeaders,
  type ResolvedAddress,
  sendWebhookAttempt,
  toStandardWebhooksSecret,
  type WebhookAttemptInput,
  type WebhookAttemptOutcome,
} from '../../../src/webhook-transport';

interface ReceivedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

interface Receiver {
  port: number;
  url: string;
  received: ReceivedRequest[];
  close: () => Promise<void>;
}

const openReceivers: Receiver[] = [];

/** A real HTTP receiver on 127.0.0.1, port chosen by the OS. */
async function startReceiver(
  respond: (req: http.IncomingMessage, res: http.ServerResponse) => void,
): Promise<Receiver> {
  const received: ReceivedRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      respond(req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const receiver: Receiver = {
    port,
    url: `http://127.0.0.1:${port}/hooks/in?source=test`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  openReceivers.push(receiver);
  return receiver;
}

afterEach(async () => {
  await Promise.all(openReceivers.splice(0).map((r) => r.close()));
});

const secret = 'receiver-shared-secret';
const rawBody = JSON.stringify({ id: 'whd_1', event_type: 'challenge.retired', data: { note: 'ünïcode' } });

function attemptTo(
  url: string,
  overrides: Partial<WebhookAttemptInput> = {},
): Promise<WebhookAttemptOutcome> {
  return sendWebhookAttempt({
    url,
    headers: buildDeliveryHeaders({ secret, deliveryId: 'whd_1', eventType: 'challenge.retired', rawBody }),
    rawBody,
    timeoutMs: 2000,
    allowPrivate: true,
    ...overrides,
  });
}

describe('sendWebhookAttempt against real loopback receivers', () => {
  it('200: delivered, and the receiver can verify both signatures over the bytes it got', async () => {
    const receiver = await startReceiver((_req, res) =>
      res.writeHead(200, { 'content-type': 'text/plain' }).end('thanks'),
    );
    const outcome = await attemptTo(receiver.url);

    expect(outcome).toEqual({
      ok: true,
      statusCode: 200,
      latencyMs: expect.any(Number),
      error: null,
      responseBodyExcerpt: 'thanks',
      responseBodyReplaced: false,
      gone: false,
      sentAtMs: expect.any(Number),
    });
    expect(Number.isInteger(outcome.latencyMs)).toBe(true);

    const [request] = receiver.received;
    expect(request!.method).toBe('POST');
    expect(request!.url).toBe('/hooks/in?source=test');
    expect(request!.body).toBe(rawBody);
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.headers['content-length']).toBe(String(Buffer.byteLength(rawBody)));
    expect(request!.headers['x-svc-delivery-id']).toBe('whd_1');
    expect(request!.headers['x-svc-event']).toBe('challenge.retired');
    expect(request!.headers['x-svc-event-version']).toBe('1');
    expect(request!.headers['user-agent']).toMatch(/^challenge-service-webhooks\//);
    expect(await octokitVerify(secret, request!.body, String(request!.headers['x-svc-signature']))).toBe(
      true,
    );
    const swHeaders = {
      'webhook-id': String(request!.headers['webhook-id']),
      'webhook-timestamp': String(request!.headers['webhook-timestamp']),
      'webhook-signature': String(request!.headers['webhook-signature']),
    };
    expect(new Webhook(toStandardWebhooksSecret(secret)).verify(request!.body, swHeaders)).toEqual(
      JSON.parse(rawBody),
    );
  });

  it('sentAtMs is when the request went out: after the attempt began, never after the receiver got it; headers given as a function are signed with it', async () => {
    const arrivals: number[] = [];
    const receiver = await startReceiver((_req, res) => {
      arrivals.push(Date.now());
      res.writeHead(204).end();
    });
    const stamps: number[] = [];
    const began = Date.now();
    const outcome = await attemptTo(receiver.url, {
      headers: (sentAtMs) => {
        stamps.push(sentAtMs);
        return buildDeliveryHeaders({
          secret,
          deliveryId: 'whd_1',
          eventType: 'challenge.retired',
          rawBody,
          timestampSeconds: Math.floor(sentAtMs / 1000),
        });
      },
    });
    expect(outcome).toMatchObject({ ok: true, statusCode: 204 });
    expect(stamps).toEqual([outcome.sentAtMs]);
    expect(outcome.sentAtMs!).toBeGreaterThanOrEqual(began);
    expect(outcome.sentAtMs!).toBeLessThanOrEqual(arrivals[0]!);
    const [request] = receiver.received;
    expect(request!.headers['webhook-timestamp']).toBe(String(Math.floor(outcome.sentAtMs! / 1000)));
    expect(request!.headers['x-svc-delivery-id']).toBe('whd_1');
    expect(await octokitVerify(secret, request!.body, String(request!.headers['x-svc-signature']))).toBe(
      true,
    );
  });

  it('sentAtMs is null when the request never went out', async () => {
    const closed = await startReceiver(() => undefined);
    const port = closed.port;
    await closed.close();
    expect(await attemptTo(`http://127.0.0.1:${port}/`)).toMatchObject({
      error: 'connection failed: ECONNREFUSED',
      sentAtMs: null,
    });
    expect(await attemptTo(`http://127.0.0.1:${port}/`, { allowPrivate: false })).toMatchObject({
      statusCode: null,
      sentAtMs: null,
    });
    const receiver = await startReceiver((_req, res) => res.writeHead(200).end());
    const unsendable = await attemptTo(receiver.url, { headers: () => ({ 'X-Bad': 'a\r\nInjected: yes' }) });
    expect(unsendable).toMatchObject({ ok: false, statusCode: null, sentAtMs: null });
    expect(unsendable.error).toMatch(/^request not sent: ERR_INVALID_CHAR/);
    expect(receiver.received).toHaveLength(0);
  });

  it('500: failure with the status and the start of the body', async () => {
    const receiver = await startReceiver((_req, res) => res.writeHead(500).end('boom'));
    expect(await attemptTo(receiver.url)).toMatchObject({
      ok: false,
      statusCode: 500,
      error: 'HTTP 500',
      responseBodyExcerpt: 'boom',
      gone: false,
    });
  });

  it('302: failure, and the redirect is not followed', async () => {
    const elsewhere = await startReceiver((_req, res) => res.writeHead(200).end());
    const receiver = await startReceiver((_req, res) =>
      res.writeHead(302, { location: elsewhere.url }).end(),
    );
    const outcome = await attemptTo(receiver.url);
    expect(outcome).toMatchObject({ ok: false, statusCode: 302, gone: false });
    expect(outcome.error).toMatch(/redirects are not followed/);
    expect(elsewhere.received).toHaveLength(0);
  });

  it('410: failure marked gone', async () => {
    const receiver = await startReceiver((_req, res) => res.writeHead(410).end('unsubscribed'));
    expect(await attemptTo(receiver.url)).toMatchObject({ ok: false, statusCode: 410, gone: true });
  });

  it('a receiver that never answers: timeout at timeoutMs', async () => {
    const receiver = await startReceiver(() => undefined);
    const timeoutMs = 300;
    const started = performance.now();
    const outcome = await attemptTo(receiver.url, { timeoutMs });
    const elapsed = performance.now() - started;
    expect(outcome).toEqual({
      ok: false,
      statusCode: null,
      latencyMs: expect.any(Number),
      error: 'timeout',
      responseBodyExcerpt: null,
      responseBodyReplaced: false,
      gone: false,
      sentAtMs: expect.any(Number), // sent; only the answer was missing
    });
    // The receiver never answers: only the timeout ends the attempt, and never before it. Node
    // counts a timer from its event loop's cached clock, which can lag the real one by a few ms.
    const loopClockLagMs = 10;
    expect(outcome.latencyMs).toBeGreaterThanOrEqual(timeoutMs - loopClockLagMs);
    expect(elapsed).toBeGreaterThanOrEqual(timeoutMs - loopClockLagMs);
    expect(receiver.received).toHaveLength(1); // the request did arrive; only the answer was missing
  });

  it('a hanging DNS lookup also ends at timeoutMs', async () => {
    const outcome = await attemptTo('http://slow-dns.test/', {
      timeoutMs: 200,
      lookup: () => new Promise<ResolvedAddress[]>(() => undefined),
    });
    expect(outcome).toMatchObject({ ok: false, statusCode: null, error: 'timeout' });
  });

  it('a huge response body is capped and not read to the end', async () => {
    const receiver = await startReceiver((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('x'.repeat(8 * 1024 * 1024));
    });
    // The deadline is a safety net only: at load 20 on 2 cores, 2 s did not outlast writing 8 MiB.
    const outcome = await attemptTo(receiver.url, { timeoutMs: 15_000 });
    expect(outcome).toMatchObject({ ok: true, error: null });
    expect(outcome.responseBodyExcerpt).toBe('x'.repeat(4096));
  });

  it('the cap never splits a UTF-8 character; NUL becomes U+FFFD and the outcome says bytes were replaced', async () => {
    const receiver = await startReceiver((_req, res) => res.writeHead(400).end(`a\u0000${'é'.repeat(3000)}`));
    const outcome = await attemptTo(receiver.url, { maxExcerptBytes: 101 });
    expect(outcome.statusCode).toBe(400);
    // 'a' + NUL + 49 two-byte characters = 100 bytes, and the first byte of the 50th, left out.
    expect(outcome.responseBodyExcerpt).toBe(`a\uFFFD${'é'.repeat(49)}`);
    expect(outcome.responseBodyReplaced).toBe(true);
  });

  it("a receiver's bytes that are not UTF-8 become U+FFFD, flagged; clean text is not flagged", async () => {
    const receiver = await startReceiver((req, res) =>
      req.url?.endsWith('&clean=1')
        ? res.writeHead(200).end('all good 😀')
        : res.writeHead(500).end(Buffer.from([0x6f, 0x6b, 0xff, 0xc0, 0x80])),
    );
    const bad = await attemptTo(receiver.url);
    expect(bad.responseBodyExcerpt).toBe('ok\uFFFD\uFFFD\uFFFD');
    expect(bad.responseBodyReplaced).toBe(true);
    const clean = await attemptTo(`${receiver.url}&clean=1`);
    expect(clean).toMatchObject({ responseBodyExcerpt: 'all good 😀', responseBodyReplaced: false });
  });

  it('a 2xx whose body never ends keeps its status when the deadline passes', async () => {
    const receiver = await startReceiver((_req, res) => {
      res.writeHead(202, { 'content-type': 'text/plain' });
      res.write('accepted, still talking');
    });
    // The attempt ends only at its deadline (the body never ends), which must come after the status
    // line and the first chunk reached it: 300 ms did not on a busy CI machine (load 12 on 2 cores).
    const outcome = await attemptTo(receiver.url, { timeoutMs: 3_000 });
    expect(outcome).toMatchObject({
      ok: true,
      statusCode: 202,
      error: null,
      responseBodyExcerpt: 'accepted, still talking',
    });
  });

  it('connects to the address that passed the SSRF check, resolving the name only once', async () => {
    const receiver = await startReceiver((_req, res) => res.writeHead(204).end());
    const answers = [['127.0.0.1'], ['10.0.0.1']]; // a rebinding resolver: safe first, internal next
    const asked: string[] = [];
    const lookup = async (hostname: string) => {
      asked.push(hostname);
      return (answers.shift() ?? ['10.0.0.1']).map((address) => ({ address, family: 4 }));
    };
    const outcome = await attemptTo(`http://hooks.receiver.test:${receiver.port}/in`, { lookup });
    expect(outcome).toMatchObject({ ok: true, statusCode: 204, error: null });
    expect(asked).toEqual(['hooks.receiver.test']);
    expect(receiver.received[0]!.headers.host).toBe(`hooks.receiver.test:${receiver.port}`);
  });

  it('refuses loopback without allowPrivate, before sending anything', async () => {
    const receiver = await startReceiver((_req, res) => res.writeHead(200).end());
    const outcome = await attemptTo(receiver.url, { allowPrivate: false });
    expect(outcome).toMatchObject({ ok: false, statusCode: null, responseBodyExcerpt: null, gone: false });
    expect(outcome.error).toMatch(/^refused target: scheme http: is not allowed/);
    const https = await attemptTo(`https://127.0.0.1:${receiver.port}/`, { allowPrivate: false });
    expect(https.error).toMatch(/^refused target: host 127\.0\.0\.1 is a loopback address/);
    expect(receiver.received).toHaveLength(0);
  });

  it('refuses a name that resolves to a private address', async () => {
    const outcome = await attemptTo('https://hooks.example.com/', {
      allowPrivate: false,
      lookup: async () => [{ address: '192.168.0.5', family: 4 }],
    });
    expect(outcome.error).toMatch(
      /^refused target: host hooks\.example\.com resolves to 192\.168\.0\.5, a private/,
    );
  });

  it('reports unresolvable names, refused connections and unsendable headers without throwing', async () => {
    const unresolvable = await attemptTo('https://nowhere.example.org/', {
      allowPrivate: false,
      lookup: async () => {
        throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
      },
    });
    expect(unresolvable).toMatchObject({ ok: false, statusCode: null });
    expect(unresolvable.error).toMatch(/could not be resolved \(ENOTFOUND\)/);

    const closed = await startReceiver(() => undefined);
    const port = closed.port;
    await closed.close();
    const refused = await attemptTo(`http://127.0.0.1:${port}/`);
    expect(refused).toMatchObject({ ok: false, statusCode: null, error: 'connection failed: ECONNREFUSED' });

    const receiver = await startReceiver((_req, res) => res.writeHead(200).end());
    const badHeaders = await attemptTo(receiver.url, { headers: { 'X-Bad': 'a\r\nInjected: yes' } });
    expect(badHeaders).toMatchObject({ ok: false, statusCode: null });
    expect(badHeaders.error).toMatch(/^request not sent: ERR_INVALID_CHAR/);
    expect(receiver.received).toHaveLength(0);
  });

  it('a plain-HTTP port spoken to over https is a TLS error', async () => {
    const receiver = await startReceiver((_req, res) => res.writeHead(200).end());
    const outcome = await attemptTo(`https://127.0.0.1:${receiver.port}/`);
    // OpenSSL's "wrong version number": EPROTO when a write was pending, its own code otherwise.
    expect(outcome).toMatchObject({ ok: false, statusCode: null, sentAtMs: null });
    expect(outcome.error).toMatch(/^TLS error: (EPROTO|ERR_SSL_WRONG_VERSION_NUMBER)$/);
  });

  it('pinning keeps TLS honest: SNI is the host name and an untrusted certificate is refused', async () => {
    const servernames: string[] = [];
    const context = tls.createSecureContext({ key: SELF_SIGNED_KEY, cert: SELF_SIGNED_CERT });
    const server = https.createServer(
      {
        key: SELF_SIGNED_KEY,
        cert: SELF_SIGNED_CERT,
        SNICallback: (servername, callback) => {
          servernames.push(servername);
          callback(null, context);
        },
      },
      (_req, res) => res.writeHead(200).end('must not be reached'),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const outcome = await attemptTo(`https://hooks.receiver.test:${port}/`, {
        lookup: async () => [{ address: '127.0.0.1', family: 4 }],
      });
      expect(outcome).toMatchObject({ ok: false, statusCode: null });
      expect(outcome.error).toMatch(/^TLS error: /); // self-signed (or, on a skewed clock, not yet valid)
      expect(servernames).toEqual(['hooks.receiver.test']);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

/** Self-signed P-256 certificate for hooks.receiver.test (test fixture only; valid 2026-2126). */
const SELF_SIGNED_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgMNnW7U2xc7fOjvWj
ra5tLaI1qZLWK4oGQ0QUIOiuprChRANCAAQH51XSI0SjFJM224sLc/KbKGaMGoiy
dgXzuCfvwAbAFWoS0+BQzvtDD8V9xqdh5LhkxpwZQ2eGZLAz6sMkR2vZ
-----END PRIVATE KEY-----
`;
const SELF_SIGNED_CERT = `-----BEGIN CERTIFICATE-----
MIIBsjCCAVmgAwIBAgIULDbgvReYEOCBLYA7NsHxuZLCMQMwCgYIKoZIzj0EAwIw
HjEcMBoGA1UEAwwTaG9va3MucmVjZWl2ZXIudGVzdDAgFw0yNjExMjIwMjMyMzNa
GA8yMTI2MTAyOTAyMzIzM1owHjEcMBoGA1UEAwwTaG9va3MucmVjZWl2ZXIudGVz
dDBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IABAfnVdIjRKMUkzbbiwtz8psoZowa
iLJ2BfO4J+/ABsAVahLT4FDO+0MPxX3Gp2HkuGTGnBlDZ4ZksDPqwyRHa9mjczBx
MB0GA1UdDgQWBBTZUOIWVZHX4CdmhUv1rmctA55JzTAfBgNVHSMEGDAWgBTZUOIW
VZHX4CdmhUv1rmctA55JzTAPBgNVHRMBAf8EBTADAQH/MB4GA1UdEQQXMBWCE2hv
b2tzLnJlY2VpdmVyLnRlc3QwCgYIKoZIzj0EAwIDRwAwRAIgcyDylNeTHVQf+FhK
zRklidZsna62b0hAqXUf/T8s/nMCIHdioHJ6r5MT7FdQMvEx0l4jkT+2rsFToQef
uJf9BMQa
-----END CERTIFICATE-----
`;
