/**
 * A loopback webhook receiver that records every delivery (raw body, headers, arrival time) and
 * verifies X-Svc-Signature with the subscription's secret. Answers quickly: 200, or the status
 * `statusFor` names for a path (a failing receiver, to measure the retry schedule).
 */
import { fork } from 'node:child_process';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import path from 'node:path';
import { freePort, ROOT } from './processes';

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

/**
 * The same receiver in a child process (./receiver-child.ts): it answers on an event loop of its
 * own, so a parent busy with its own work (a test issuing hundreds of requests on a loaded
 * machine) cannot hold a delivery past the service's 10 s timeout and have the subscription
 * disabled for the harness's stall. Deliveries reach `deliveries` (and `onDelivery`) when the
 * parent reads its IPC; secrets set on `secrets` are forwarded before any subscription that uses
 * them can exist. `statusFor` is not supported here (every delivery is answered 200).
 */
export async function startReceiverProcess(): Promise<Receiver> {
  const child = fork(path.join(ROOT, 'bench/lib/receiver-child.ts'), [], {
    execArgv: ['--import', 'tsx'],
    cwd: ROOT,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const secrets = new Map<string, string>();
  const forwardingSecrets = Object.assign(secrets, {
    set(key: string, value: string) {
      Map.prototype.set.call(secrets, key, value);
      child.send({ type: 'secret', path: key, secret: value });
      return secrets;
    },
  });
  const receiver: Receiver = {
    url: '',
    deliveries: [],
    secrets: forwardingSecrets,
    async close() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.disconnect();
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
  child.on('message', (message: { type: string; url?: string; delivery?: RecordedDelivery }) => {
    if (message.type !== 'delivery' || !message.delivery) return;
    receiver.deliveries.push(message.delivery);
    receiver.onDelivery?.(message.delivery);
  });
  receiver.url = await new Promise<string>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => reject(new Error(`webhook receiver exited (${code ?? signal})`)));
    child.on('message', (message: { type: string; url?: string }) => {
      if (message.type === 'ready' && message.url) resolve(message.url);
    });
  });
  return receiver;
}
