/**
 * A loopback webhook receiver that records every delivery (raw body, headers, arrival time) and
 * verifies X-Svc-Signature with the subscription's secret. Answers quickly: 200, or the status
 * `statusFor` names for a path (a failing receiver, to measure the retry schedule).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { freePort } from './processes';

export interface RecordedDelivery {
  path: string;
  deliveryId: string;
  eventType: string;
  rawBody: string;
  body: any;
  receivedAt: number;
  signatureValid: boolean | null;
}

export interface Receiver {
  /** Base URL; subscribe `${url}/<name>` to tell subscriptions apart by path. */
  url: string;
  deliveries: RecordedDelivery[];
  /** Secret per path, for signature checks (optional). */
  secrets: Map<string, string>;
  onDelivery?: (d: RecordedDelivery) => void;
  /** The status answered for a path (default 200). */
  statusFor?: (path: string) => number;
  close(): Promise<void>;
}

function validSignature(secret: string, rawBody: string, header: string | undefined): boolean {
  if (!header?.startsWith('sha256=')) return false;
  const expected = Buffer.from(createHmac('sha256', secret).update(rawBody).digest('hex'));
  const got = Buffer.from(header.slice('sha256='.length));
  return expected.length === got.length && timingSafeEqual(expected, got);
}

export async function startReceiver(): Promise<Receiver> {
  const sockets = new Set<Socket>();
  const receiver: Receiver = {
    url: '',
    deliveries: [],
    secrets: new Map(),
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      const path = req.url ?? '/';
      let body: any = null;
      try {
        body = JSON.parse(rawBody);
      } catch {
        /* recorded as is */
      }
      const secret = receiver.secrets.get(path);
      const delivery: RecordedDelivery = {
        path,
        deliveryId: String(req.headers['x-svc-delivery-id'] ?? ''),
        eventType: String(req.headers['x-svc-event'] ?? ''),
        rawBody,
        body,
        receivedAt: Date.now(),
        signatureValid: secret
          ? validSignature(secret, rawBody, req.headers['x-svc-signature'] as string | undefined)
          : null,
      };
      receiver.deliveries.push(delivery);
      receiver.onDelivery?.(delivery);
      res.writeHead(receiver.statusFor?.(path) ?? 200, { 'content-type': 'text/plain' });
      res.end('ok');
    });
  });
  server.keepAliveTimeout = 30_000;
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return receiver;
}
