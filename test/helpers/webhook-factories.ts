import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Pool } from 'pg';
import { withTransaction } from '../../src/db/pool';
import { assignFirstAttemptBatches, type WebhookDeliveryRow } from '../../src/db/queries/webhook-deliveries';
import { planFirstAttemptBatches } from '../../src/domain/webhooks/dispatch';
import { fanOutEvent } from '../../src/domain/webhooks/fan-out';
import type { OutboxEventRow } from '../../src/db/queries/outbox-events';
import { emitEvent, type DomainEvent } from '../../src/events/outbox';
import { eventually, newUser, type TestUser } from './factories';
import type { TestServer } from './server';

/** How the receiver answers one request. */
export type ReceiverMode =
  { status: number; body?: string } | { hang: true } | { redirect: string; status?: 301 | 302 | 307 | 308 };

export interface ReceivedRequest {
  method: string;
  path: string;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  /** The exact bytes received, as UTF-8 text (what signatures are computed over). */
  rawBody: string;
  /** Date.now() when the body was complete. */
  receivedAt: number;
  /** What it was answered with. */
  answered: ReceiverMode;
}

export interface TestReceiver {
  url: string;
  /** Every request, in arrival order. */
  requests: ReceivedRequest[];
  /** Answer used when the queue is empty (default 200). */
  setDefault(mode: ReceiverMode): void;
  /** Answers for the next requests, in order. */
  enqueue(...modes: ReceiverMode[]): void;
  /** Resolves when at least `n` requests arrived (or throws after timeoutMs). */
  waitForRequests(n: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  onRequest?: (req: ReceivedRequest) => void;
  close(): Promise<void>;
}

/**
 * A loopback webhook receiver (http on 127.0.0.1, ephemeral port) recording raw bodies and headers.
 * Answers 200 by default; `enqueue` / `setDefault` make it answer 500, 410, redirect or hang.
 */
export async function startReceiver(path = '/hook'): Promise<TestReceiver> {
  const requests: ReceivedRequest[] = [];
  const queue: ReceiverMode[] = [];
  let defaultMode: ReceiverMode = { status: 200, body: 'ok' };
  const sockets = new Set<Socket>();
  const waiters: { n: number; resolve: () => void }[] = [];

  const receiver: TestReceiver = {
    url: '',
    requests,
    setDefault(mode) {
      defaultMode = mode;
    },
    enqueue(...modes) {
      queue.push(...modes);
    },
    async waitForRequests(n, timeoutMs = 20_000) {
      if (requests.length >= n) return requests;
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`receiver got ${requests.length} of ${n} requests within ${timeoutMs} ms`)),
          timeoutMs,
        );
        waiters.push({
          n,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
      });
      return requests;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const mode = queue.shift() ?? defaultMode;
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers))
        headers[k] = Array.isArray(v) ? v.join(', ') : (v ?? '');
      const record: ReceivedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers,
        rawBody: Buffer.concat(chunks).toString('utf8'),
        receivedAt: Date.now(),
        answered: mode,
      };
      requests.push(record);
      receiver.onRequest?.(record);
      for (const w of [...waiters]) {
        if (requests.length >= w.n) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve();
        }
      }
      if ('hang' in mode) return; // never answer
      if ('redirect' in mode) {
        res.writeHead(mode.status ?? 302, { location: mode.redirect });
        res.end();
        return;
      }
      res.writeHead(mode.status, { 'content-type': 'text/plain' });
      res.end(mode.body ?? '');
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
  return receiver;
}

export const TEST_SECRET = 'whsec-test-secret-0123456789';

/** POST /api/v1/webhooks; throws unless 201. */
export async function createWebhook(
  server: TestServer,
  auth: string,
  input: { url: string; events: string[]; secret?: string },
): Promise<any> {
  const res = await server.request('POST', '/api/v1/webhooks', {
    auth,
    body: { secret: TEST_SECRET, ...input },
  });
  if (res.status !== 201) throw new Error(`create webhook failed: ${res.status} ${res.text}`);
  return res.body.data;
}

/** The users.id behind a JWT subject (the row is created on the JWT's first use). */
export async function userIdOf(db: Pool, subject: string): Promise<string> {
  const res = await db.query<{ id: string }>('SELECT id FROM users WHERE subject = $1', [subject]);
  if (!res.rows[0]) throw new Error(`no user row for ${subject} (make one authenticated request first)`);
  return res.rows[0].id;
}

/** A real outbox row (emitEvent in its own transaction): the worker's dispatcher fans it out. */
export async function emit(db: Pool, event: DomainEvent): Promise<string> {
  return withTransaction(db, (tx) => emitEvent(tx, event));
}

/** A result.finalized for the user's subscriptions, as the judge emits it; resolves with its event id. */
export function emitResultFinalized(db: Pool, ownerUserId: string, finalScore = 87.5): Promise<string> {
  return emit(db, {
    type: 'result.finalized',
    payload: {
      submission_id: randomUUID(),
      final_score: finalScore,
      result_state: 'scored',
      challenge_id: randomUUID(),
    },
    ownerUserId,
  });
}

/** The event's delivery id, once the delivery is dead-lettered (its receiver keeps failing). */
export function deadLetteredDelivery(db: Pool, eventId: string): Promise<string> {
  return eventually(async () => {
    const res = await db.query<{ id: string; status: string }>(
      'SELECT id, status FROM webhook_deliveries WHERE event_id = $1',
      [eventId],
    );
    return res.rows[0]?.status === 'dead_letter' ? res.rows[0].id : undefined;
    // Only a safety net: three attempts and a workflow on a machine far busier than its cores.
  }, 90_000);
}

/**
 * An outbox event that the dispatcher will not pick up (already marked dispatched), fanned out here:
 * the deliveries exist but no workflow runs, so a test can start one with its own schedule.
 */
export async function manualDeliveries(
  db: Pool,
  event: DomainEvent,
): Promise<{ eventId: string; deliveryIds: string[] }> {
  return withTransaction(db, async (tx) => {
    const res = await tx.query<OutboxEventRow>(
      `INSERT INTO outbox_events (event_type, payload, owner_user_id, challenge_id, sandbox, dispatched_at)
       VALUES ($1, $2, $3, $4, $5, now())
       RETURNING id, event_type, payload, owner_user_id, challenge_id, sandbox, created_at`,
      [
        event.type,
        JSON.stringify(event.payload),
        event.ownerUserId ?? null,
        event.challengeId ?? null,
        event.sandbox ?? false,
      ],
    );
    const { created } = await fanOutEvent(tx, res.rows[0]!);
    // Mark them started so the sweeper leaves them to the test.
    await tx.query('UPDATE webhook_deliveries SET workflow_started_at = now() WHERE id = ANY($1::text[])', [
      created.map((d) => d.id),
    ]);
    return { eventId: res.rows[0]!.id, deliveryIds: created.map((d) => d.id) };
  });
}

export async function deliveriesOfEvent(db: Pool, eventId: string): Promise<any[]> {
  return (
    await db.query('SELECT * FROM webhook_deliveries WHERE event_id = $1 ORDER BY created_at', [eventId])
  ).rows;
}

export async function deliveryRow(db: Pool, id: string): Promise<any> {
  return (await db.query('SELECT * FROM webhook_deliveries WHERE id = $1', [id])).rows[0];
}

export async function attemptRows(db: Pool, deliveryId: string): Promise<any[]> {
  return (
    await db.query('SELECT * FROM webhook_attempts WHERE delivery_id = $1 ORDER BY series, attempt_number', [
      deliveryId,
    ])
  ).rows;
}

/**
 * The schedule's promise, exactly (no tolerance): an attempt's recorded time is when its request went
 * out, so the receiver got each request at or after it (and the signed timestamp is its second); each
 * retry went out, and so reached the receiver, no sooner than its delay after the previous attempt
 * went out. `requests` and `attempts` are one series' in order; the receiver shares this machine's clock.
 */
export function expectAttemptTimesKeepDelays(
  requests: ReceivedRequest[],
  attempts: { attempted_at: Date }[],
  delaysMs: readonly number[],
): void {
  expect(requests).toHaveLength(attempts.length);
  const sent = attempts.map((a) => a.attempted_at.getTime());
  const broken: string[] = [];
  for (let i = 0; i < sent.length; i++) {
    const n = i + 1;
    const received = requests[i]!.receivedAt;
    if (received < sent[i]!)
      broken.push(`attempt ${n}: received at ${received}, before it was recorded as sent (${sent[i]})`);
    const stamp = requests[i]!.headers['webhook-timestamp'];
    if (stamp !== String(Math.floor(sent[i]! / 1000)))
      broken.push(`attempt ${n}: webhook-timestamp ${stamp}, sent at ${sent[i]}`);
    if (i === 0) continue;
    const delay = delaysMs[i - 1]!;
    if (sent[i]! - sent[i - 1]! < delay)
      broken.push(
        `attempt ${n}: recorded ${sent[i]! - sent[i - 1]!} ms after attempt ${i}, delay ${delay} ms`,
      );
    if (received - sent[i - 1]! < delay)
      broken.push(
        `attempt ${n}: received ${received - sent[i - 1]!} ms after attempt ${i} was sent, delay ${delay} ms`,
      );
  }
  expect(broken).toEqual([]);
}

export async function subscriptionRow(db: Pool, id: string): Promise<any> {
  return (await db.query('SELECT * FROM webhook_subscriptions WHERE id = $1', [id])).rows[0];
}

/**
 * Like manualDeliveries, but the event's deliveries form one first-attempt batch (as a dispatch pass
 * would make them); nothing is started: the test starts the batch (or lets the sweeper do it when
 * `unstarted`).
 */
export async function manualFirstAttemptBatch(
  db: Pool,
  event: DomainEvent,
  options: { unstarted?: boolean } = {},
): Promise<{ eventId: string; batchWorkflowId: string; deliveries: WebhookDeliveryRow[] }> {
  return withTransaction(db, async (tx) => {
    const res = await tx.query<OutboxEventRow>(
      `INSERT INTO outbox_events (event_type, payload, owner_user_id, challenge_id, sandbox, dispatched_at)
       VALUES ($1, $2, $3, $4, $5, now())
       RETURNING id, event_type, payload, owner_user_id, challenge_id, sandbox, created_at`,
      [
        event.type,
        JSON.stringify(event.payload),
        event.ownerUserId ?? null,
        event.challengeId ?? null,
        event.sandbox ?? false,
      ],
    );
    const { created } = await fanOutEvent(tx, res.rows[0]!);
    const batches = planFirstAttemptBatches(created, 50);
    if (batches.length !== 1)
      throw new Error(`expected one batch, got ${batches.length} from ${created.length} deliveries`);
    await assignFirstAttemptBatches(tx, batches);
    const ids = created.map((d) => d.id);
    // Started (the test starts it) or unstarted long enough for the sweeper.
    await tx.query(
      options.unstarted
        ? `UPDATE webhook_deliveries SET workflow_started_at = NULL, updated_at = now() - interval '10 seconds' WHERE id = ANY($1::text[])`
        : 'UPDATE webhook_deliveries SET workflow_started_at = now() WHERE id = ANY($1::text[])',
      [ids],
    );
    const rows = await tx.query<WebhookDeliveryRow>(
      'SELECT * FROM webhook_deliveries WHERE id = ANY($1::text[]) ORDER BY seq',
      [ids],
    );
    return { eventId: res.rows[0]!.id, batchWorkflowId: batches[0]!.batchWorkflowId, deliveries: rows.rows };
  });
}

/** A user whose users row exists (so events can name it as owner), with its JWT. */
export async function newWebhookOwner(server: TestServer): Promise<{ user: TestUser; userId: string }> {
  const user = await newUser(server);
  await server.request('GET', '/api/v1/webhooks', { auth: user.jwt }); // creates the users row
  return { user, userId: await userIdOf(server.deps.db, user.subject) };
}

/**
 * Per-test webhook fixtures for a suite: receivers closed and subscriptions deactivated after each
 * test, so broadcast (challenge.*) events of later tests, this suite's or another's, never reach
 * an earlier test's receivers. Call at the top level of a test file.
 */
export function webhookFixtures(server: () => TestServer): {
  receiver(): Promise<TestReceiver>;
  subscribe(user: TestUser, body: { url: string; events: string[] }): Promise<any>;
} {
  const cleanups: (() => Promise<unknown>)[] = [];
  const subscriptions: string[] = [];
  afterEach(async () => {
    await server().deps.db.query(
      `UPDATE webhook_subscriptions SET status = 'inactive' WHERE id = ANY($1::uuid[])`,
      [subscriptions.splice(0)],
    );
    await Promise.all(cleanups.splice(0).map((close) => close()));
  });
  return {
    async receiver() {
      const r = await startReceiver();
      cleanups.push(() => r.close());
      return r;
    },
    async subscribe(user, body) {
      const sub = await createWebhook(server(), user.jwt, body);
      subscriptions.push(sub.id);
      return sub;
    },
  };
}
