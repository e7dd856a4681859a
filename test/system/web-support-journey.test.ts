/**
 * Support's journey of issue 23 in real Chromium: a receiver (a real loopback HTTP server) fails
 * with 500 so its deliveries dead-letter; support signs in, sees the dead letters with each
 * attempt's status code and response excerpt, the receiver is fixed, support replays the
 * subscription's dead letters since a time and the deliveries become delivered; the replay is in
 * the audit trail. Then the subscriber sees the same for their own subscription under
 * /me/webhooks, sends a test event and replays. Screenshots at 1280 and 390 px; axe on every page.
 */
import type { Browser } from 'playwright-core';
import { allRoutes } from '../../src/api/routes';
import { mintSessionJwt } from '../../src/auth/jwt';
import { EMBEDDED_OPERATOR_SUBJECT } from '../../src/auth/embedded-oidc-client';
import { axeViolations, checkTwoWidths, launchChromium, person, signInOnPage } from '../helpers/browser';
import { eventually, newAdmin, type TestUser } from '../helpers/factories';
import { startTestServer, type TestServer } from '../helpers/server';
import {
  createWebhook,
  deliveryRow,
  deadLetteredDelivery,
  emitResultFinalized,
  startReceiver,
  userIdOf,
  type TestReceiver,
} from '../helpers/webhook-factories';

const run = Math.random().toString(36).slice(2, 8);
const BROKEN = 'TypeError: Cannot read properties of undefined (reading "final_score") at handler.js:14';

let server: TestServer;
let browser: Browser;
let receiver: TestReceiver;
let apiAdmin: TestUser;
const subscriber = `test|subscriber-${run}`;
let subscriberId: string;
let subId: string;

beforeAll(async () => {
  server = await startTestServer({ RATE_LIMIT_DISABLED: '1' });
  browser = await launchChromium();
  apiAdmin = await newAdmin(server);
  receiver = await startReceiver(`/hooks/${run}`);
  receiver.setDefault({ status: 500, body: BROKEN });
  // The subscriber made the subscription with the API (their JWT is the same person as their web session).
  const jwt = await mintSessionJwt(server.config.AUTH_JWT_SECRET, { sub: subscriber, name: `Sam ${run}` });
  subId = (await createWebhook(server, jwt, { url: receiver.url, events: ['result.finalized'] })).id;
  subscriberId = await userIdOf(server.deps.db, subscriber);
}, 90_000);

afterAll(async () => {
  await server?.deps.db.query(`UPDATE webhook_subscriptions SET status = 'inactive' WHERE id = $1`, [subId]);
  await browser?.close();
  await receiver?.close();
  await server?.close();
});

/** A result.finalized for the subscriber; resolves with its delivery once it is dead-lettered. */
const deadLetter = async () =>
  deadLetteredDelivery(server.deps.db, await emitResultFinalized(server.deps.db, subscriberId, 64.25));

const delivered = (id: string) =>
  eventually(async () => (await deliveryRow(server.deps.db, id)).status === 'delivered', 30_000);

test('support fixes a failing receiver and replays its dead letters; the subscriber sees theirs, tests and replays', async () => {
  const violations: string[] = [];
  const first = await deadLetter();
  const second = await deadLetter();

  // ---- support ----------------------------------------------------------------------------------
  const support = await person(browser);
  await signInOnPage(
    support.page,
    server.baseUrl,
    EMBEDDED_OPERATOR_SUBJECT,
    '/admin/deliveries?status=dead_letter',
  );
  // Other suites dead-letter deliveries in parallel and the list is newest first: support narrows
  // the dead letters to the failing subscription with the filter form.
  await support.page.fill('#f-sub', subId);
  await Promise.all([
    support.page.waitForURL(/subscription_id=/),
    support.page.click('form.filters button:has-text("Filter")'),
  ]);
  expect(new URL(support.page.url()).searchParams.get('status')).toBe('dead_letter');
  for (const id of [first, second])
    await support.page.waitForSelector(`#deliveries-table a:has-text("${id}")`);
  const firstRow = support.page.locator('#deliveries-table tr', { hasText: first });
  expect(await firstRow.locator('td').nth(4).textContent()).toBe('dead letter');
  expect(await firstRow.locator('td').nth(5).textContent()).toBe('4');
  expect(await firstRow.locator('td').nth(6).textContent()).toBe('500');
  await checkTwoWidths(support.page, 'support-deliveries');
  violations.push(...(await axeViolations(browser, support.context, support.page)));

  // The delivery: each attempt's status code and response excerpt.
  await support.page.click(`#deliveries-table a:has-text("${first}")`);
  await support.page.waitForURL(`${server.baseUrl}/admin/deliveries/${first}`);
  expect(await support.page.locator('li.attempt .status-code').allTextContents()).toEqual([
    '500',
    '500',
    '500',
    '500',
  ]);
  expect(await support.page.locator('li.attempt .response-excerpt').allTextContents()).toEqual(
    Array(4).fill(BROKEN),
  );
  await checkTwoWidths(support.page, 'support-delivery-dead');
  violations.push(...(await axeViolations(browser, support.context, support.page)));

  // The receiver is fixed; support replays the subscription's dead letters since a time.
  receiver.setDefault({ status: 200, body: '{"received":true}' });
  await support.page.click(`a:has-text("The subscription's deliveries")`);
  await support.page.waitForURL(`${server.baseUrl}/admin/deliveries?subscription_id=${subId}`);
  await checkTwoWidths(support.page, 'support-subscription');
  violations.push(...(await axeViolations(browser, support.context, support.page)));
  const since = new Date(Date.now() - 3_600_000).toISOString().slice(0, 19);
  await support.page.fill('#replay-since', since);
  await support.page.click('button:has-text("Replay dead letters")');
  await support.page.waitForSelector('h1:has-text("Dead letters replayed")');
  expect(await support.page.textContent('p.outcome')).toContain('Replay started for 2 deliveries');
  await checkTwoWidths(support.page, 'support-replayed');
  violations.push(...(await axeViolations(browser, support.context, support.page, { from: 'html' })));

  await delivered(first);
  await delivered(second);
  await support.page.click(`#replayed a:has-text("${first}")`);
  await support.page.waitForURL(`${server.baseUrl}/admin/deliveries/${first}`);
  expect(await support.page.textContent('#delivery-status')).toBe('delivered');
  expect(
    await support.page.locator('ol[aria-label="Attempts of replay 1"] .status-code').allTextContents(),
  ).toEqual(['200']);
  await checkTwoWidths(support.page, 'support-delivery-delivered');
  violations.push(...(await axeViolations(browser, support.context, support.page)));

  // The audit trail shows the replay: the console's page when this branch has it, and the API.
  const trail = await server.request('GET', `/api/v1/admin/audit?target_id=${subId}`, { auth: apiAdmin.jwt });
  expect(trail.body.data).toEqual([
    expect.objectContaining({
      actor: EMBEDDED_OPERATOR_SUBJECT,
      action: 'delivery.replay_bulk',
      target_type: 'webhook_subscription',
      target_id: subId,
      detail: expect.objectContaining({ selection: 'dead_letters_since', since: `${since}.000Z`, count: 2 }),
    }),
  ]);
  if (allRoutes().some((r) => r.method === 'get' && r.path === '/admin/audit')) {
    await support.page.goto(`${server.baseUrl}/admin/audit`);
    expect(await support.page.textContent('main')).toContain(subId);
    violations.push(...(await axeViolations(browser, support.context, support.page)));
  }

  // ---- the subscriber -----------------------------------------------------------------------------
  // Their receiver breaks again: a new dead letter.
  receiver.setDefault({ status: 500, body: BROKEN });
  const third = await deadLetter();

  const sam = await person(browser);
  await signInOnPage(sam.page, server.baseUrl, subscriber, '/me/agents');
  await sam.page.click('header.site a:has-text("Webhooks")');
  await sam.page.waitForURL(`${server.baseUrl}/me/webhooks`);
  await checkTwoWidths(sam.page, 'my-webhooks');
  violations.push(...(await axeViolations(browser, sam.context, sam.page)));
  await sam.page.click(`a:has-text("${receiver.url}")`);
  await sam.page.waitForURL(`${server.baseUrl}/me/webhooks/${subId}`);
  const rows = sam.page.locator('#deliveries-table tbody tr');
  expect(await rows.count()).toBe(3);
  expect(await rows.first().textContent()).toContain(third);
  expect(await rows.first().textContent()).toContain('dead letter');
  await checkTwoWidths(sam.page, 'my-webhook');
  violations.push(...(await axeViolations(browser, sam.context, sam.page)));

  await sam.page.click(`#deliveries-table a:has-text("${third}")`);
  await sam.page.waitForURL(`${server.baseUrl}/me/webhooks/${subId}/deliveries/${third}`);
  expect(await sam.page.locator('li.attempt .status-code').allTextContents()).toEqual([
    '500',
    '500',
    '500',
    '500',
  ]);
  expect(await sam.page.locator('li.attempt .response-excerpt').first().textContent()).toBe(BROKEN);
  await checkTwoWidths(sam.page, 'my-webhook-delivery-dead');
  violations.push(...(await axeViolations(browser, sam.context, sam.page)));

  // Fixed on their side: a test event reaches it, then the replay.
  receiver.setDefault({ status: 204 });
  await sam.page.click('a:has-text("All deliveries of this webhook")');
  await sam.page.click('button:has-text("Send a test event")');
  await sam.page.waitForSelector('p.outcome');
  expect(await sam.page.textContent('p.outcome')).toMatch(
    /^Test event \S+ delivered: your endpoint answered 204/,
  );
  expect(receiver.requests.at(-1)!.rawBody).toContain('"event_type":"webhook.test"');
  await checkTwoWidths(sam.page, 'my-webhook-tested');
  violations.push(...(await axeViolations(browser, sam.context, sam.page, { from: 'html' })));

  await sam.page.goto(`${server.baseUrl}/me/webhooks/${subId}/deliveries/${third}`);
  await sam.page.click('button:has-text("Replay this delivery")');
  await sam.page.waitForURL(`${server.baseUrl}/me/webhooks/${subId}/deliveries/${third}?done=replayed`);
  expect(await sam.page.textContent('p.outcome')).toContain('Replay started (replay 1)');
  await delivered(third);
  await sam.page.reload();
  expect(await sam.page.textContent('#delivery-status')).toBe('delivered');
  expect(
    await sam.page.locator('ol[aria-label="Attempts of replay 1"] .status-code').allTextContents(),
  ).toEqual(['204']);
  await checkTwoWidths(sam.page, 'my-webhook-delivery-replayed');
  violations.push(...(await axeViolations(browser, sam.context, sam.page)));

  const own = await server.request('GET', `/api/v1/admin/audit?target_id=${third}`, { auth: apiAdmin.jwt });
  expect(own.body.data).toEqual([
    expect.objectContaining({ actor: subscriber, action: 'delivery.replay', target_id: third }),
  ]);

  expect(violations).toEqual([]);
  expect([...support.problems, ...sam.problems]).toEqual([]);
  await support.context.close();
  await sam.context.close();
}, 240_000);
