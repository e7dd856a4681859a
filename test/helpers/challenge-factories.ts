import { randomUUID } from 'node:crypto';
import { eventually, newAdmin, type TestUser } from './factories';
import type { TestServer } from './server';
import type { OutboxEventRow } from '../../src/db/queries/outbox-events';

/** A small valid rubric judge config. */
export function rubricJudge() {
  return {
    kind: 'rubric',
    criteria: [
      { name: 'greets', weight: 2, check: { type: 'contains', value: 'hello', case_sensitive: false } },
      { name: 'short', weight: 1, check: { type: 'length', max: 200 } },
    ],
  };
}

/** A unique category, so that listing assertions only see the test's own challenges. */
export const uniqueCategory = () => `cat-${randomUUID().slice(0, 8)}`;

export function challengeBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    title: `Challenge ${randomUUID().slice(0, 6)}`,
    description: 'Say hello politely.',
    category: uniqueCategory(),
    format: 'solo',
    weight_class_id: 'open',
    time_limit_minutes: 30,
    judge: rubricJudge(),
    ...overrides,
  };
}

let cachedAdmin: { server: TestServer; admin: TestUser } | undefined;
async function adminFor(server: TestServer): Promise<TestUser> {
  if (cachedAdmin?.server !== server) cachedAdmin = { server, admin: await newAdmin(server) };
  return cachedAdmin.admin;
}

/** Creates a draft through the admin API; returns the admin view. */
export async function createDraft(
  server: TestServer,
  overrides: Record<string, unknown> = {},
  admin?: TestUser,
): Promise<any> {
  const res = await server.request('POST', '/api/v1/admin/challenges', {
    auth: (admin ?? (await adminFor(server))).jwt,
    body: challengeBody(overrides),
  });
  if (res.status !== 201) throw new Error(`create challenge failed: ${res.status} ${res.text}`);
  return res.body.data;
}

/** Creates and publishes a challenge (active); returns the admin view. */
export async function createActive(
  server: TestServer,
  overrides: Record<string, unknown> = {},
  admin?: TestUser,
): Promise<any> {
  const draft = await createDraft(server, overrides, admin);
  return transition(server, draft.id, 'publish', undefined, admin);
}

/**
 * An active challenge whose automatic start the lifecycle workflow has already recorded. Publishing
 * starts that workflow; its first step writes the row (`started_event_at`), and every write of the
 * row moves its version (DESIGN "Operators"). A form opened before that step ran is one version
 * behind, and its save is refused as an edit conflict: right, but not what a test about someone
 * else's edit means to set up. Under load the step can run seconds after the publish.
 */
export async function createStarted(
  server: TestServer,
  overrides: Record<string, unknown> = {},
  admin?: TestUser,
): Promise<any> {
  const active = await createActive(server, overrides, admin);
  await eventually(async () => (await outboxFor(server, active.id, 'challenge.started')).length > 0, 60_000);
  const res = await server.request('GET', `/api/v1/admin/challenges/${active.id}`, {
    auth: (admin ?? (await adminFor(server))).jwt,
  });
  if (res.status !== 200) throw new Error(`read failed: ${res.status} ${res.text}`);
  return res.body.data;
}

export async function transition(
  server: TestServer,
  id: string,
  action: 'publish' | 'quarantine' | 'retire',
  body?: unknown,
  admin?: TestUser,
): Promise<any> {
  const res = await server.request('POST', `/api/v1/admin/challenges/${id}/${action}`, {
    auth: (admin ?? (await adminFor(server))).jwt,
    body,
  });
  if (res.status !== 200) throw new Error(`${action} failed: ${res.status} ${res.text}`);
  return res.body.data;
}

/** An outbox row as the service writes it. */
export type OutboxRow = OutboxEventRow;

/** The outbox rows recorded for a challenge, oldest first (optionally of one type). */
export async function outboxFor(
  server: TestServer,
  challengeId: string,
  type?: string,
): Promise<OutboxRow[]> {
  const res = await server.deps.db.query<OutboxRow>(
    `SELECT * FROM outbox_events WHERE challenge_id = $1 AND ($2::text IS NULL OR event_type = $2) ORDER BY created_at, id`,
    [challengeId, type ?? null],
  );
  return res.rows;
}

/** ISO time `seconds` from now. */
export const inSeconds = (seconds: number) => new Date(Date.now() + seconds * 1000).toISOString();
