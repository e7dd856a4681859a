import type { Pool } from 'pg';
import { ServiceError, notFound, validationError } from '../../errors';
import type { Principal } from '../../auth/principal';
import { mayHandleDeliveries, mayManageSubscription } from './policy';
import type { Config } from '../../config';
import { withTransaction } from '../../db/pool';
import { lockUser } from '../../db/queries/users';
import {
  countActiveSubscriptions,
  deactivateSubscription,
  findSubscription,
  insertSubscription,
  purgeSubscription,
  reenableSubscription,
  type WebhookSubscriptionRow,
} from '../../db/queries/webhook-subscriptions';
import { EVENT_TYPES } from '../../events/types';
import { deriveSecretBoxKey, encryptSecret, secretPrefix } from '../../webhook-transport/secret-box';
import {
  assertDeliverableUrl,
  syntacticUrlProblem,
  UnsafeWebhookUrlError,
  type HostLookup,
} from '../../webhook-transport/ssrf';

/** DESIGN.md: at most 10 active subscriptions per owner (user). */
export const MAX_ACTIVE_SUBSCRIPTIONS = 10;
/** Creation-time DNS check budget; an unresolvable name is accepted (attempt-time checks still apply). */
const CREATE_DNS_TIMEOUT_MS = 2000;

const keyCache = new Map<string, Buffer>();
/** The AES key derived from WEBHOOK_SECRET_KEY (HKDF), once per configured value. */
export function secretBoxKey(config: Pick<Config, 'WEBHOOK_SECRET_KEY'>): Buffer {
  let key = keyCache.get(config.WEBHOOK_SECRET_KEY);
  if (!key) {
    key = deriveSecretBoxKey(config.WEBHOOK_SECRET_KEY);
    keyCache.set(config.WEBHOOK_SECRET_KEY, key);
  }
  return key;
}

/** The user a subscription belongs to: the API token's user or the JWT's user. */
export function ownerOf(principal: Principal): string {
  if (principal.kind === 'user' || principal.kind === 'apiToken') return principal.userId;
  throw new ServiceError('UNAUTHORIZED', 'missing or invalid credentials');
}

/**
 * The caller's subscription, or 404 NOT_FOUND: another user's subscription is reported as not found
 * so ids do not leak (the spec's 403 stays for a token without webhook:manage). Who: policy.ts.
 */
export async function requireOwnedSubscription(
  db: Pool,
  principal: Principal,
  id: string,
): Promise<WebhookSubscriptionRow> {
  return subscriptionIf(db, id, (row) => mayManageSubscription(principal, row));
}

/**
 * A subscription whose deliveries the caller may read and replay: its owner's, or any for an
 * operator (support); anyone else gets 404, as for the subscription itself.
 */
export async function requireSubscriptionForDeliveries(
  db: Pool,
  principal: Principal,
  id: string,
): Promise<WebhookSubscriptionRow> {
  return subscriptionIf(db, id, (row) => mayHandleDeliveries(principal, row));
}

/** The subscription when the policy allows it; unknown and refused both read as 404 (no id leaks). */
async function subscriptionIf(
  db: Pool,
  id: string,
  allowed: (row: WebhookSubscriptionRow) => boolean,
): Promise<WebhookSubscriptionRow> {
  const row = await findSubscription(db, id);
  if (!row || !allowed(row)) throw notFound('webhook subscription');
  return row;
}

/** Unknown event types → 400 INVALID_EVENT naming the first bad one. */
export function assertKnownEventTypes(events: string[]): void {
  const known = new Set<string>(EVENT_TYPES);
  const bad = events.find((e) => !known.has(e));
  if (bad !== undefined) {
    throw new ServiceError(
      'INVALID_EVENT',
      `unknown event type ${JSON.stringify(bad)}; accepted: ${EVENT_TYPES.join(', ')}`,
    );
  }
}

/**
 * SSRF check at creation: the syntactic pre-check (scheme, credentials, literal addresses, internal
 * names), then a DNS resolution: a name resolving to a refused address is refused now. A name that
 * does not resolve (yet) is accepted for https (every attempt checks again after resolving); http
 * (loopback only, WEBHOOK_ALLOW_PRIVATE=1) must resolve to loopback now.
 */
export async function assertAcceptableUrl(
  url: string,
  allowPrivate: boolean,
  lookup?: HostLookup,
  internalOrigins: readonly string[] = [],
): Promise<void> {
  const problem = syntacticUrlProblem(url, allowPrivate, internalOrigins);
  if (problem !== null) throw validationError(`body.url: ${problem}`);
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      assertDeliverableUrl(url, { allowPrivate, lookup, internalOrigins }),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, CREATE_DNS_TIMEOUT_MS);
      }),
    ]);
  } catch (err) {
    if (!(err instanceof UnsafeWebhookUrlError)) throw err;
    if (err.code !== 'UNRESOLVABLE') throw validationError(`body.url: ${err.message}`);
    // http is only for loopback targets, which must be known now.
    if (new URL(url).protocol === 'http:')
      throw validationError(
        `body.url: ${err.message}; http is only allowed to loopback addresses, use https`,
      );
  } finally {
    clearTimeout(timer);
  }
}

export interface CreateSubscriptionInput {
  url: string;
  events: string[];
  secret: string;
}

export async function createSubscription(
  db: Pool,
  config: Config,
  ownerUserId: string,
  input: CreateSubscriptionInput,
  lookup?: HostLookup,
): Promise<WebhookSubscriptionRow> {
  assertKnownEventTypes(input.events);
  await assertAcceptableUrl(input.url, config.WEBHOOK_ALLOW_PRIVATE, lookup, config.WEBHOOK_INTERNAL_ORIGINS);
  const events = [...new Set(input.events)];
  const secretEncrypted = encryptSecret(input.secret, secretBoxKey(config));
  return withTransaction(db, async (tx) => {
    // Serialises concurrent creations of one owner so the limit cannot be overshot.
    await lockUser(tx, ownerUserId);
    if ((await countActiveSubscriptions(tx, ownerUserId)) >= MAX_ACTIVE_SUBSCRIPTIONS) {
      throw new ServiceError(
        'WEBHOOK_LIMIT_REACHED',
        `at most ${MAX_ACTIVE_SUBSCRIPTIONS} active webhook subscriptions per user; delete one first`,
      );
    }
    return insertSubscription(tx, {
      ownerUserId,
      url: input.url,
      events,
      secretEncrypted,
      secretPrefix: secretPrefix(input.secret),
    });
  });
}

/**
 * PATCH {active: true}: a disabled subscription becomes active again with failure_count 0 (and a new
 * generation, so the health workflow restarts its count). Already active: unchanged. Deleted
 * (inactive) subscriptions stay deleted: 400 WEBHOOK_INACTIVE.
 */
export async function reactivateSubscription(
  db: Pool,
  sub: WebhookSubscriptionRow,
): Promise<WebhookSubscriptionRow> {
  if (sub.status === 'active') return sub;
  if (sub.status === 'inactive') {
    throw new ServiceError(
      'WEBHOOK_INACTIVE',
      'this subscription was deleted and cannot be re-enabled; create a new one',
    );
  }
  return withTransaction(db, async (tx) => {
    await lockUser(tx, sub.owner_user_id);
    if ((await countActiveSubscriptions(tx, sub.owner_user_id)) >= MAX_ACTIVE_SUBSCRIPTIONS) {
      throw new ServiceError(
        'WEBHOOK_LIMIT_REACHED',
        `at most ${MAX_ACTIVE_SUBSCRIPTIONS} active webhook subscriptions per user; delete one first`,
      );
    }
    const row = await reenableSubscription(tx, sub.id);
    return row ?? (await findSubscription(tx, sub.id))!;
  });
}

export function assertActive(sub: WebhookSubscriptionRow): void {
  if (sub.status !== 'active') {
    throw new ServiceError(
      'WEBHOOK_INACTIVE',
      `the webhook subscription is ${sub.status}${sub.status === 'disabled' ? '; re-enable it with PATCH {"active": true}' : ''}`,
    );
  }
}

/** The owner deletes (deactivates) a subscription: no further deliveries are created for it. */
/**
 * DELETE with `purge`: the owner's subscription is removed outright with its deliveries and their
 * attempts (the CLI's `webhooks listen` uses it so each run leaves nothing behind). Nothing more
 * is delivered; a delivery workflow still running finds no delivery and ends.
 */
export async function purgeOwnedSubscription(
  db: Pool,
  principal: Principal,
  id: string,
): Promise<WebhookSubscriptionRow> {
  await requireOwnedSubscription(db, principal, id);
  const row = await withTransaction(db, (tx) => purgeSubscription(tx, id));
  if (!row) throw notFound('webhook subscription');
  return row;
}

export async function deactivateOwnedSubscription(
  db: Pool,
  principal: Principal,
  id: string,
): Promise<WebhookSubscriptionRow> {
  await requireOwnedSubscription(db, principal, id);
  const row = await deactivateSubscription(db, id);
  if (!row) throw notFound('webhook subscription');
  return row;
}
