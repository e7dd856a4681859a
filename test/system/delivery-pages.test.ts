/**
 * The console's webhook delivery pages over HTTP (issue 23): support's /admin/deliveries (operators
 * only: the 403 page for anyone else), a subscriber's /me/webhooks (their own only: the 404 page
 * for another's), each attempt's status code, latency, error and response excerpt; replays are
 * CSRF-checked forms that write their audit record; bad input is an HTML error page that changes
 * nothing. Real HTTP, PostgreSQL, Temporal and worker; the receiver is a real loopback server.
 */
import { randomUUID } from 'node:crypto';
import { mintSessionJwt } from '../../src/auth/jwt';
import { EMBEDDED_OPERATOR_SUBJECT } from '../../src/auth/embedded-oidc-client';
import { disableSubscription } from '../../src/db/queries/webhook-subscriptions';
import { encodeSeqCursor } from '../../src/lib/keyset-cursor';
import { verifySvcSignature } from '../../src/webhook-transport/signatures';
import { eventually, newAdmin, type TestUser } from '../helpers/factories';
import { startTestServer, type TestServer } from '../helpers/server';
import {
  createWebhook,
  deliveryRow,
  deadLetteredDelivery,
  emitResultFinalized,
  startReceiver,
  subscriptionRow,
  userIdOf,
  type TestReceiver,
} from '../helpers/webhook-factories';
import { csrfFrom, signInThroughEmbeddedProvider, webClient, type WebClient } from '../helpers/web-session';

const BROKEN = 'receiver exploded: TypeError: cannot read properties of undefined (reading "score")';

let server: TestServer;
let apiAdmin: TestUser;
let receiver: TestReceiver;
const subscriptions: string[] = [];

/** A person signed in on the web (and the same person's JWT for the API). */
interface Person {
  subject: string;
  jwt: string;
  web: WebClient;
  csrf: string;
}

async function person(subject: string): Promise<Person> {
  const web = webClient(server.baseUrl);
  await signInThroughEmbeddedProvider(web, subject);
  const csrf = csrfFrom(await (await web.fetch('/me/webhooks')).text());
  const jwt = await mintSessionJwt(server.config.AUTH_JWT_SECRET, { sub: subject, name: subject });
  return { subject, jwt, web, csrf };
}

let operator: Person;
let owner: Person;
let stranger: Person;
let ownerId: string;
let subId: string;

/** A result.finalized for the owner; resolves with its delivery once it is dead-lettered. */
const deadLetter = async () =>
  deadLetteredDelivery(server.deps.db, await emitResultFinalized(server.deps.db, ownerId));

const page = async (who: Person, path: string) => {
  const res = await who.web.fetch(path);
  return { status: res.status, type: res.headers.get('content-type') ?? '', html: await res.text() };
};
const post = (
  who: Person,
  path: string,
  form: Record<string, string | string[]>,
  headers?: Record<string, string>,
) => who.web.fetch(path, { method: 'POST', form: { _csrf: who.csrf, ...form }, headers });
const audit = async (targetId: string) =>
  (await server.request('GET', `/api/v1/admin/audit?target_id=${targetId}`, { auth: apiAdmin.jwt })).body
    .data;
const stateOf = async (id: string) => {
  const row = await deliveryRow(server.deps.db, id);
  return { status: row.status, series: row.series, attempt_count: row.attempt_count };
};

beforeAll(async () => {
  server = await startTestServer({ RATE_LIMIT_DISABLED: '1' });
  apiAdmin = await newAdmin(server);
  operator = await person(EMBEDDED_OPERATOR_SUBJECT);
  owner = await person(`test|owner-${randomUUID()}`);
  stranger = await person(`test|stranger-${randomUUID()}`);
  ownerId = await userIdOf(server.deps.db, owner.subject);
  receiver = await startReceiver();
  receiver.setDefault({ status: 500, body: BROKEN });
  subId = (await createWebhook(server, owner.jwt, { url: receiver.url, events: ['result.finalized'] })).id;
  subscriptions.push(subId);
}, 60_000);

afterAll(async () => {
  await server?.deps.db.query(
    `UPDATE webhook_subscriptions SET status = 'inactive' WHERE id = ANY($1::uuid[])`,
    [subscriptions],
  );
  await receiver?.close();
  await server?.close();
});

describe('support: /admin/deliveries (operators only)', () => {
  let first: string;
  let second: string;

  beforeAll(async () => {
    first = await deadLetter();
    second = await deadLetter();
  }, 70_000);

  test('a signed-in non-operator gets the 403 page, never the deliveries; a form changes nothing', async () => {
    for (const who of [owner, stranger]) {
      for (const path of [
        '/admin/deliveries',
        `/admin/deliveries/${first}`,
        `/admin/deliveries?status=nonsense`,
      ]) {
        const res = await page(who, path);
        expect([res.status, res.type]).toEqual([403, 'text/html; charset=utf-8']);
        expect(res.html).toContain('Error 403');
        expect(res.html).not.toContain(first);
        expect(res.html).not.toContain(receiver.url);
      }
      const before = await stateOf(first);
      const forms: [string, Record<string, string | string[]>][] = [
        ['/admin/deliveries/replay', { delivery_ids: [first] }],
        [`/admin/deliveries/${first}/replay`, {}],
        [`/admin/webhooks/${subId}/replay-dead-letters`, { since: '2020-01-01T00:00' }],
      ];
      for (const [path, form] of forms) {
        const res = await post(who, path, form);
        expect(res.status).toBe(403);
        expect(await res.text()).toContain('Error 403');
      }
      expect(await stateOf(first)).toEqual(before);
    }
    expect(await audit(first)).toEqual([]);
    expect(await audit(subId)).toEqual([]);
  });

  test('lists dead letters across subscriptions with attempts, last code and last error; filters and cursor', async () => {
    const all = await page(operator, `/admin/deliveries?status=dead_letter&subscription_id=${subId}`);
    expect(all.status).toBe(200);
    // Newest first, with the subscription's panel (bulk replay form).
    expect(all.html.indexOf(second)).toBeGreaterThan(-1);
    expect(all.html.indexOf(second)).toBeLessThan(all.html.indexOf(first));
    expect(all.html).toContain(`action="/admin/webhooks/${subId}/replay-dead-letters"`);
    const row = all.html.slice(all.html.indexOf(`value="${first}"`));
    const firstRow = row.slice(0, row.indexOf('</tr>'));
    expect(firstRow).toContain('dead letter');
    expect(firstRow).toContain('<td class="num">4</td>');
    expect(firstRow).toContain('<td class="num">500</td>');
    expect(firstRow).toMatch(/class="err small">[^<]*500/);

    const otherEvent = await page(
      operator,
      `/admin/deliveries?subscription_id=${subId}&event_type=submission.failed`,
    );
    expect(otherEvent.html).not.toContain(first);
    expect(otherEvent.html).toContain('No delivery matches.');
    const future = new Date(Date.now() + 3_600_000).toISOString().slice(0, 16);
    expect(
      (await page(operator, `/admin/deliveries?subscription_id=${subId}&since=${future}`)).html,
    ).not.toContain(first);
    const delivered = await page(operator, `/admin/deliveries?subscription_id=${subId}&status=delivered`);
    expect(delivered.html).not.toContain(first);

    const seq = (
      await server.deps.db.query('SELECT seq::text AS seq FROM webhook_deliveries WHERE id = $1', [second])
    ).rows[0].seq as string;
    const older = await page(
      operator,
      `/admin/deliveries?subscription_id=${subId}&cursor=${encodeSeqCursor(seq)}`,
    );
    expect(older.html).toContain(first);
    expect(older.html).not.toContain(`value="${second}"`);
  });

  test('one delivery shows every attempt: status code, latency, error, response excerpt', async () => {
    const res = await page(operator, `/admin/deliveries/${first}`);
    expect(res.status).toBe(200);
    const attempts = res.html.split('<li class="attempt"').slice(1);
    expect(attempts).toHaveLength(4);
    for (const [i, a] of attempts.entries()) {
      expect(a).toContain(`data-attempt="${i + 1}"`);
      expect(a).toContain('<dd class="status-code">500</dd>');
      expect(a).toMatch(/<dt>Latency<\/dt><dd>\d+ ms<\/dd>/);
      expect(a).toMatch(/class="attempt-error">[^<]*500/);
      expect(a).toContain(
        'receiver exploded: TypeError: cannot read properties of undefined (reading &quot;score&quot;)',
      );
    }
    expect(res.html).toContain(`action="/admin/deliveries/${first}/replay"`);
    for (const missing of [`whd_${'0'.repeat(32)}`, 'not-a-delivery', `${first}x`]) {
      const r = await page(operator, `/admin/deliveries/${missing}`);
      expect([r.status, r.html.includes('Error 404')]).toEqual([404, true]);
    }
  });

  test('bad input is an HTML error page and changes nothing', async () => {
    const before = await stateOf(first);
    const cases: [string, Record<string, string | string[]>, number][] = [
      ['/admin/deliveries/replay', {}, 400],
      ['/admin/deliveries/replay', { delivery_ids: ['whd_nope'] }, 400],
      ['/admin/deliveries/replay', { delivery_ids: [first, `whd_${'0'.repeat(32)}`] }, 404],
      [`/admin/webhooks/${subId}/replay-dead-letters`, { since: 'yesterday' }, 400],
      [`/admin/webhooks/${subId}/replay-dead-letters`, { since: '2026-13-45T99:00' }, 400],
      [`/admin/webhooks/${subId}/replay-dead-letters`, {}, 400],
      [`/admin/webhooks/${randomUUID()}/replay-dead-letters`, { since: '2020-01-01T00:00' }, 404],
      [`/admin/webhooks/not-a-uuid/replay-dead-letters`, { since: '2020-01-01T00:00' }, 404],
      [`/admin/deliveries/whd_${'0'.repeat(32)}/replay`, {}, 404],
    ];
    for (const [path, form, status] of cases) {
      const res = await post(operator, path, form);
      const html = await res.text();
      expect({ path, form, status: res.status, type: res.headers.get('content-type') }).toEqual({
        path,
        form,
        status,
        type: 'text/html; charset=utf-8',
      });
      expect(html).toContain(`Error ${status}`);
      expect(html).toContain('href="/"');
    }
    for (const query of [
      'since=yesterday',
      'status=failed',
      'subscription_id=42',
      'event_type=nope',
      'cursor=eyJ4Ijox',
    ]) {
      const res = await page(operator, `/admin/deliveries?${query}`);
      expect({ query, status: res.status }).toEqual({ query, status: 400 });
      expect(res.html).toContain('Error 400');
    }
    expect(await stateOf(first)).toEqual(before);
    expect(await audit(first)).toEqual([]);
    expect(await audit(subId)).toEqual([]);
  });

  test('a form without the CSRF token or from another origin is refused and changes nothing', async () => {
    const before = await stateOf(first);
    const noToken = await operator.web.fetch(`/admin/deliveries/${first}/replay`, {
      method: 'POST',
      form: { _csrf: 'forged' },
    });
    expect(noToken.status).toBe(403);
    const otherOrigin = await post(
      operator,
      `/admin/deliveries/${first}/replay`,
      {},
      { origin: 'https://evil.example' },
    );
    expect(otherOrigin.status).toBe(403);
    expect(await stateOf(first)).toEqual(before);
    expect(await audit(first)).toEqual([]);
  });

  test('support fixes the receiver, replays one, the selected, and the dead letters since a time; each is audited', async () => {
    receiver.setDefault({ status: 204 });
    const one = await post(operator, `/admin/deliveries/${first}/replay`, {});
    expect([one.status, one.headers.get('location')]).toEqual([
      303,
      `/admin/deliveries/${first}?done=replayed`,
    ]);
    expect(await audit(first)).toEqual([
      expect.objectContaining({
        actor: EMBEDDED_OPERATOR_SUBJECT,
        action: 'delivery.replay',
        target_type: 'delivery',
        detail: expect.objectContaining({
          subscription_id: subId,
          previous_status: 'dead_letter',
          replay: 1,
        }),
      }),
    ]);
    const shown = await page(operator, `/admin/deliveries/${first}?done=replayed`);
    expect(shown.html).toContain('Replay started (replay 1)');

    const selected = await post(operator, '/admin/deliveries/replay', { delivery_ids: [second] });
    expect(selected.status).toBe(200);
    const outcome = await selected.text();
    expect(outcome).toContain('Replay started for 1 delivery');
    expect(outcome).toContain(`href="/admin/deliveries/${second}"`);

    // Both replays finish before the receiver breaks again for the next dead letter.
    for (const id of [first, second])
      await eventually(async () => (await deliveryRow(server.deps.db, id)).status === 'delivered', 30_000);
    const third = await deadLetterAfterBreaking();
    const since = new Date(Date.now() - 3_600_000).toISOString().slice(0, 16);
    const bulk = await post(operator, `/admin/webhooks/${subId}/replay-dead-letters`, { since });
    expect(bulk.status).toBe(200);
    expect(await bulk.text()).toContain(`href="/admin/deliveries/${third}"`);

    for (const id of [third])
      await eventually(async () => (await deliveryRow(server.deps.db, id)).status === 'delivered', 30_000);
    const detail = await page(operator, `/admin/deliveries/${third}`);
    expect(detail.html).toContain('Replay 1');
    expect(detail.html).toContain('<dd class="status-code">204</dd>');

    const trail = await audit(subId);
    expect(trail).toEqual([
      expect.objectContaining({
        actor: EMBEDDED_OPERATOR_SUBJECT,
        action: 'delivery.replay_bulk',
        detail: expect.objectContaining({
          selection: 'dead_letters_since',
          since: `${since}:00.000Z`,
          delivery_ids: [third],
        }),
      }),
      expect.objectContaining({
        actor: EMBEDDED_OPERATOR_SUBJECT,
        action: 'delivery.replay_bulk',
        detail: expect.objectContaining({ selection: 'selected', delivery_ids: [second] }),
      }),
    ]);
  }, 90_000);
});

/** The receiver fails again until the next dead letter exists, then answers 204 again. */
async function deadLetterAfterBreaking(): Promise<string> {
  receiver.setDefault({ status: 500, body: BROKEN });
  const id = await deadLetter();
  receiver.setDefault({ status: 204 });
  return id;
}

describe('subscribers: /me/webhooks (their own only)', () => {
  let deliveryId: string;
  let strangerSub: string;

  beforeAll(async () => {
    receiver.setDefault({ status: 500, body: BROKEN });
    deliveryId = await deadLetter();
    strangerSub = (
      await createWebhook(server, stranger.jwt, { url: receiver.url, events: ['submission.failed'] })
    ).id;
    subscriptions.push(strangerSub);
  }, 60_000);

  test("the list shows one's own subscriptions only; the header links it", async () => {
    const mine = await page(owner, '/me/webhooks');
    expect(mine.status).toBe(200);
    expect(mine.html).toContain(`href="/me/webhooks/${subId}"`);
    expect(mine.html).not.toContain(strangerSub);
    expect(mine.html).toContain('<a href="/me/webhooks">Webhooks</a>');
    expect((await page(stranger, '/me/webhooks')).html).not.toContain(subId);
  });

  test("another's subscription or delivery is the 404 page (operators' too), and their forms change nothing", async () => {
    const before = await stateOf(deliveryId);
    for (const who of [stranger, operator]) {
      for (const path of [`/me/webhooks/${subId}`, `/me/webhooks/${subId}/deliveries/${deliveryId}`]) {
        const res = await page(who, path);
        expect([res.status, res.html.includes('Error 404')]).toEqual([404, true]);
        expect(res.html).not.toContain(receiver.url);
        expect(res.html).not.toContain(BROKEN);
      }
      for (const path of [
        `/me/webhooks/${subId}/deliveries/${deliveryId}/replay`,
        `/me/webhooks/${subId}/test`,
        `/me/webhooks/${subId}/enable`,
      ]) {
        const res = await post(who, path, {});
        expect([res.status, (await res.text()).includes('Error 404')]).toEqual([404, true]);
      }
    }
    // Their own subscription with another's delivery id: 404 too.
    const crossed = await page(stranger, `/me/webhooks/${strangerSub}/deliveries/${deliveryId}`);
    expect([crossed.status, crossed.html.includes(BROKEN)]).toEqual([404, false]);
    const crossedReplay = await post(
      stranger,
      `/me/webhooks/${strangerSub}/deliveries/${deliveryId}/replay`,
      {},
    );
    expect(crossedReplay.status).toBe(404);
    expect(await stateOf(deliveryId)).toEqual(before);
    expect(await audit(deliveryId)).toEqual([]);
    expect(receiver.requests.some((r) => r.rawBody.includes('webhook.test'))).toBe(false);
  });

  test('the subscriber sees the deliveries and every attempt, sends a test event and replays (audited as them)', async () => {
    const sub = await page(owner, `/me/webhooks/${subId}?status=dead_letter`);
    expect(sub.status).toBe(200);
    expect(sub.html).toContain(`href="/me/webhooks/${subId}/deliveries/${deliveryId}"`);
    const detail = await page(owner, `/me/webhooks/${subId}/deliveries/${deliveryId}`);
    expect(detail.html.split('<li class="attempt"')).toHaveLength(5);
    expect(detail.html).toContain('<dd class="status-code">500</dd>');
    expect(detail.html).toContain('receiver exploded');

    receiver.setDefault({ status: 202, body: 'thanks' });
    const tested = await post(owner, `/me/webhooks/${subId}/test`, {});
    expect(tested.status).toBe(200);
    expect(await tested.text()).toMatch(/Test event \S+ delivered: your endpoint answered 202/);
    expect(receiver.requests.at(-1)!.rawBody).toContain('"event_type":"webhook.test"');

    const replay = await post(owner, `/me/webhooks/${subId}/deliveries/${deliveryId}/replay`, {});
    expect([replay.status, replay.headers.get('location')]).toEqual([
      303,
      `/me/webhooks/${subId}/deliveries/${deliveryId}?done=replayed`,
    ]);
    await eventually(
      async () => (await deliveryRow(server.deps.db, deliveryId)).status === 'delivered',
      30_000,
    );
    expect(await audit(deliveryId)).toEqual([
      expect.objectContaining({ actor: owner.subject, action: 'delivery.replay', target_id: deliveryId }),
    ]);
    const after = await page(owner, `/me/webhooks/${subId}/deliveries/${deliveryId}`);
    expect(after.html).toContain('<dd class="status-code">202</dd>');
  }, 60_000);

  test('a disabled subscription is re-enabled from its page; a CSRF-less form changes nothing', async () => {
    const row = await subscriptionRow(server.deps.db, subId);
    await disableSubscription(server.deps.db, subId, row.enable_generation, 'test: too many failures', 10);
    const shown = await page(owner, `/me/webhooks/${subId}`);
    expect(shown.html).toContain(`action="/me/webhooks/${subId}/enable"`);
    expect(shown.html).not.toContain(`action="/me/webhooks/${subId}/test"`);

    const forged = await owner.web.fetch(`/me/webhooks/${subId}/enable`, {
      method: 'POST',
      form: { _csrf: 'x' },
    });
    expect(forged.status).toBe(403);
    expect((await subscriptionRow(server.deps.db, subId)).status).toBe('disabled');
    // Replaying to a disabled subscription is refused with a page, and nothing starts.
    const refused = await post(owner, `/me/webhooks/${subId}/deliveries/${deliveryId}/replay`, {});
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('Error 400');

    const res = await post(owner, `/me/webhooks/${subId}/enable`, {});
    expect([res.status, res.headers.get('location')]).toEqual([303, `/me/webhooks/${subId}?done=enabled`]);
    expect(await subscriptionRow(server.deps.db, subId)).toMatchObject({
      status: 'active',
      failure_count: 0,
    });
    expect((await page(owner, `/me/webhooks/${subId}?done=enabled`)).html).toContain('Re-enabled');
  });

  test('re-enabling with "also replay" re-sends the latest dead letters in the same post (one delivery.replay_bulk)', async () => {
    const row = await subscriptionRow(server.deps.db, subId);
    await disableSubscription(server.deps.db, subId, row.enable_generation, 'test: down again', 10);
    const shown = await page(owner, `/me/webhooks/${subId}`);
    expect(shown.html).toContain('name="replay_dead_letters" value="yes" checked');
    const before = (await audit(subId)).filter(
      (a: { action: string }) => a.action === 'delivery.replay_bulk',
    ).length;
    const res = await post(owner, `/me/webhooks/${subId}/enable`, { replay_dead_letters: 'yes' });
    expect(res.status).toBe(200);
    expect(await res.text()).toMatch(
      /Re-enabled: deliveries resume; (replay started for the \d+ dead letters?|there was no dead letter)/,
    );
    expect((await subscriptionRow(server.deps.db, subId)).status).toBe('active');
    const bulk = (await audit(subId)).filter((a: { action: string }) => a.action === 'delivery.replay_bulk');
    expect(bulk).toHaveLength(before + 1);
    expect(bulk[0]).toMatchObject({ actor: owner.subject }); // newest first
    // Active now: the page offers the bulk replay on its own too.
    const again = await post(owner, `/me/webhooks/${subId}/replay-dead-letters`, {});
    expect(again.status).toBe(200);
    expect(await again.text()).toContain('Dead letters: ');
  });
});

describe('subscribers: creating a webhook from /me/webhooks', () => {
  let maker: Person;
  let makerId: string;
  const subscriptionsOf = async (userId: string) =>
    (
      await server.deps.db.query<{ id: string; url: string; events: string[] }>(
        'SELECT id, url, events FROM webhook_subscriptions WHERE owner_user_id = $1',
        [userId],
      )
    ).rows;

  beforeAll(async () => {
    maker = await person(`web|maker-${randomUUID().slice(0, 8)}`);
    makerId = await userIdOf(server.deps.db, maker.subject);
  });

  test('bad input and a CSRF-less form are refused with the error page and create nothing', async () => {
    const cases: [Record<string, string | string[]>, number, RegExp][] = [
      [{ url: 'not a url', events: 'result.finalized' }, 400, /body\.url|url/],
      [{ url: receiver.url }, 400, /choose at least one event/],
      [{ url: receiver.url, events: ['result.finalized', 'no.such_event'] }, 400, /no\.such_event/],
      [
        { url: 'http://93.184.216.34/hook', events: 'result.finalized' },
        400,
        /http is only allowed to loopback/,
      ],
    ];
    for (const [form, status, message] of cases) {
      const res = await post(maker, '/me/webhooks', form);
      const html = await res.text();
      expect({ form, status: res.status }).toEqual({ form, status });
      expect(html).toMatch(/<h1>Form not accepted<\/h1>\s*<p>Nothing was changed\.<\/p>/);
      expect(html).toMatch(message);
      expect(html).toContain('Sign out</button>');
    }
    const forged = await maker.web.fetch('/me/webhooks', {
      method: 'POST',
      form: { _csrf: 'x', url: receiver.url, events: 'result.finalized' },
    });
    expect(forged.status).toBe(403);
    expect(await subscriptionsOf(makerId)).toEqual([]);
  });

  test('a valid form creates it; the secret is shown once and signs its deliveries', async () => {
    receiver.setDefault({ status: 200, body: 'ok' });
    const res = await post(maker, '/me/webhooks', {
      url: receiver.url,
      events: ['result.finalized', 'submission.failed'],
    });
    expect(res.status).toBe(200);
    const html = await res.text();
    const secret = /<code id="shown-secret">(whsec_[A-Za-z0-9_-]{43})<\/code>/.exec(html)?.[1];
    expect(secret).toBeDefined();
    expect(html).toContain('it is kept encrypted, to sign deliveries');
    const [created] = await subscriptionsOf(makerId);
    subscriptions.push(created.id);
    expect(created).toMatchObject({ url: receiver.url, events: ['result.finalized', 'submission.failed'] });
    expect(html).toContain(`href="/me/webhooks/${created.id}"`);
    // Shown once: the list shows the subscription, never the secret again.
    const again = await page(maker, '/me/webhooks');
    expect(again.html).toContain(`href="/me/webhooks/${created.id}"`);
    expect(again.html).not.toContain(secret!);

    const eventId = await emitResultFinalized(server.deps.db, makerId, 50);
    const deliveryId = await eventually(async () => {
      const rows = await server.deps.db.query<{ id: string; status: string }>(
        'SELECT id, status FROM webhook_deliveries WHERE event_id = $1 AND subscription_id = $2',
        [eventId, created.id],
      );
      return rows.rows[0]?.status === 'delivered' ? rows.rows[0].id : undefined;
    }, 30_000);
    const received = receiver.requests.find((r) => r.headers['x-svc-delivery-id'] === deliveryId);
    expect(received).toBeDefined();
    expect(verifySvcSignature(secret!, received!.rawBody, String(received!.headers['x-svc-signature']))).toBe(
      true,
    );
  }, 60_000);
});
