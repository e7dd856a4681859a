/**
 * Support commands for webhooks, over the HTTP API with an operator (admin) session JWT.
 *
 *   webhooks deliveries [<subscriptionId>] [--status pending|retrying|delivered|dead_letter] [--since T]
 *                                       (without an id: across every subscription, newest first)
 *   webhooks delivery <deliveryId>     one delivery with each attempt's status, latency, error, response
 *                                       (the old form `<subscriptionId> <deliveryId>` still works)
 *   webhooks replay <deliveryId>
 *   webhooks enable <subscriptionId> [--replay-dead-letters]   re-enable a disabled one (and replay at once
 *                                       what was dead-lettered while it was down)
 *   webhooks replay-dead-letters <subscriptionId> [--since <ISO date-time | 30m | 12h | 7d>]
 *                                       (without --since: the latest run of dead letters)
 *   webhooks listen [--forward-to URL] [--events e1,e2] [--sub user | --jwt JWT]   (local receiver, like stripe listen)
 *
 * A replay re-sends the same delivery id and body bytes as a new attempt series; the subscription
 * must be active (re-enable a disabled one first with PATCH /api/v1/webhooks/{id} {"active": true}).
 */
import {
  assertMintableFor,
  mintDevJwt,
  stringFlag,
  table,
  usageError,
  UUID_PATTERN,
  type CliArgs,
  type CliCommand,
  type CliContext,
} from '../framework';

const DELIVERY_ID = /^whd_[0-9a-f]{32}$/;
const DELIVERY_STATUSES = ['pending', 'retrying', 'delivered', 'dead_letter'];

function positional(args: CliArgs, index: number, what: string, pattern: RegExp): string {
  const value = args.positionals[index];
  if (!value) throw usageError(`${what} is required`);
  if (!pattern.test(value)) throw usageError(`"${value}" is not a ${what}`);
  return value;
}

/** `--since` as an ISO date-time, or a span back from now: 30m, 12h, 7d, 2w. */
export function parseSince(value: string, now = Date.now()): Date {
  const span = /^([1-9]\d*)([smhdw])$/.exec(value);
  if (span) {
    const unit = { s: 1e3, m: 60e3, h: 3600e3, d: 86400e3, w: 604800e3 }[
      span[2] as 's' | 'm' | 'h' | 'd' | 'w'
    ];
    return new Date(now - Number(span[1]) * unit);
  }
  const date = new Date(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(date.getTime())) {
    throw usageError(`--since must be an ISO date-time or a span like 12h or 7d (got "${value}")`);
  }
  return date;
}

interface Delivery {
  id: string;
  event_type: string;
  status: string;
  replay_count: number;
  attempt_count: number;
  last_status_code: number | null;
  last_error: string | null;
  created_at: string;
}

interface Attempt {
  replay: number;
  attempt_number: number;
  status_code: number | null;
  latency_ms: number;
  error: string | null;
  response_excerpt: string | null;
  attempted_at: string;
}

const deliveryTable = (rows: Delivery[]) =>
  table(
    ['ID', 'EVENT', 'STATUS', 'REPLAYS', 'ATTEMPTS', 'LAST HTTP', 'CREATED', 'LAST ERROR'],
    rows.map((d) => [
      d.id,
      d.event_type,
      d.status,
      String(d.replay_count),
      String(d.attempt_count),
      d.last_status_code === null ? '-' : String(d.last_status_code),
      d.created_at,
      d.last_error ?? '',
    ]),
  );

export const commands: CliCommand[] = [
  {
    name: 'webhooks deliveries',
    summary:
      "List a subscription's last 20 deliveries, or without an id the latest across every subscription (support)",
    usage:
      'webhooks deliveries [<subscriptionId>] [--status pending|retrying|delivered|dead_letter] [--since <ISO | 12h>] [--json]',
    options: { status: { type: 'string' }, since: { type: 'string' }, json: { type: 'boolean' } },
    async run(args, ctx) {
      const id =
        args.positionals[0] === undefined ? null : positional(args, 0, 'subscription id', UUID_PATTERN);
      const status = args.values.status;
      if (status !== undefined && (typeof status !== 'string' || !DELIVERY_STATUSES.includes(status))) {
        throw usageError(`--status must be one of ${DELIVERY_STATUSES.join(', ')}`);
      }
      const query = new URLSearchParams();
      if (status) query.set('status', status);
      if (typeof args.values.since === 'string') {
        if (id) throw usageError('--since applies to the listing across subscriptions (no subscription id)');
        query.set('since', parseSince(args.values.since).toISOString());
      }
      const qs = query.toString() ? `?${query}` : '';
      const res = await ctx.api<{ data: (Delivery & { subscription_id: string })[] }>(
        'GET',
        id ? `/api/v1/webhooks/${id}/deliveries${qs}` : `/api/v1/admin/webhooks/deliveries${qs}`,
      );
      if (args.values.json) ctx.out(JSON.stringify(res.data, null, 2));
      else ctx.out(res.data.length ? deliveryTable(res.data) : 'no deliveries');
    },
  },
  {
    name: 'webhooks delivery',
    summary: 'Show one delivery with every attempt: status code, latency, error and the response excerpt',
    usage: 'webhooks delivery <deliveryId> [--json]',
    options: { json: { type: 'boolean' } },
    async run(args, ctx) {
      // The delivery id alone is enough; the old two-argument form (subscription id first) still works.
      const twoArgs = args.positionals.length > 1;
      const id = twoArgs ? positional(args, 0, 'subscription id', UUID_PATTERN) : null;
      const deliveryId = positional(args, twoArgs ? 1 : 0, 'delivery id (whd_...)', DELIVERY_ID);
      const { data } = await ctx.api<{ data: Delivery & { attempts: Attempt[] } }>(
        'GET',
        id ? `/api/v1/webhooks/${id}/deliveries/${deliveryId}` : `/api/v1/webhook-deliveries/${deliveryId}`,
      );
      if (args.values.json) return void ctx.out(JSON.stringify(data, null, 2));
      ctx.out(`${data.id}  ${data.event_type}  ${data.status}  (replays ${data.replay_count})`);
      for (const a of data.attempts)
        ctx.out(
          `  replay ${a.replay} attempt ${a.attempt_number}  ${a.attempted_at}  ${a.status_code ?? '-'}  ${a.latency_ms} ms` +
            `${a.error ? `  ${a.error}` : ''}${a.response_excerpt ? `\n    ${a.response_excerpt.slice(0, 200)}` : ''}`,
        );
    },
  },
  {
    name: 'webhooks replay',
    summary: 'Re-send one delivery (same delivery id and body) as a new attempt series',
    usage: 'webhooks replay <deliveryId>',
    options: { json: { type: 'boolean' } },
    async run(args, ctx) {
      const id = positional(args, 0, 'delivery id (whd_...)', DELIVERY_ID);
      const res = await ctx.api<{ data: Delivery }>('POST', `/api/v1/admin/webhooks/deliveries/${id}/replay`);
      ctx.out(
        args.values.json
          ? JSON.stringify(res.data, null, 2)
          : `replay ${res.data.replay_count} of ${res.data.id} started (${res.data.status})`,
      );
    },
  },
  {
    name: 'webhooks replay-dead-letters',
    summary:
      "Re-send at once a subscription's dead letters: the latest run (what failed while the endpoint was down), or every one created since a time",
    usage:
      'webhooks replay-dead-letters <subscriptionId> [--since <ISO date-time | 30m | 12h | 7d>] [--json]',
    options: { since: { type: 'string' }, json: { type: 'boolean' } },
    async run(args, ctx) {
      const id = positional(args, 0, 'subscription id', UUID_PATTERN);
      const since = typeof args.values.since === 'string' ? parseSince(args.values.since) : null;
      await replayDeadLettersOf(ctx, id, since, Boolean(args.values.json));
    },
  },
  {
    name: 'webhooks enable',
    summary:
      'Re-enable a disabled subscription; with --replay-dead-letters, also re-send at once what was dead-lettered while it was down',
    usage: 'webhooks enable <subscriptionId> [--replay-dead-letters] [--json]',
    options: { 'replay-dead-letters': { type: 'boolean' }, json: { type: 'boolean' } },
    async run(args, ctx) {
      const id = positional(args, 0, 'subscription id', UUID_PATTERN);
      const res = await ctx.api<{ data: { id: string; status: string; url: string } }>(
        'PATCH',
        `/api/v1/webhooks/${id}`,
        { active: true },
      );
      if (args.values.json && !args.values['replay-dead-letters'])
        return void ctx.out(JSON.stringify(res.data, null, 2));
      if (!args.values.json) ctx.out(`subscription ${res.data.id} is ${res.data.status} (${res.data.url})`);
      if (args.values['replay-dead-letters'])
        await replayDeadLettersOf(ctx, id, null, Boolean(args.values.json));
      else if (!args.values.json)
        ctx.out(`replay what was dead-lettered meanwhile: webhooks replay-dead-letters ${id}`);
    },
  },
];

async function replayDeadLettersOf(ctx: CliContext, id: string, since: Date | null, json: boolean) {
  const res = await ctx.api<{
    data: { replayed: number; delivery_ids: string[]; truncated: boolean; since: string | null };
  }>('POST', `/api/v1/webhooks/${id}/replay-dead-letters`, since ? { since: since.toISOString() } : {});
  if (json) return void ctx.out(JSON.stringify(res.data, null, 2));
  const from = since
    ? `created since ${since.toISOString()}`
    : res.data.since
      ? `of the latest run (from ${res.data.since})`
      : 'to replay (none)';
  ctx.out(`replayed ${res.data.replayed} dead letter(s) ${from}`);
  for (const d of res.data.delivery_ids) ctx.out(`  ${d}`);
  if (res.data.truncated) ctx.out('more remain: run again (each call replays at most 500)');
}

/** Headers a forwarded delivery keeps (signatures and ids; hop-by-hop ones are dropped). */
const FORWARDED_HEADERS = [
  'content-type',
  'user-agent',
  'x-svc-signature',
  'x-svc-delivery-id',
  'x-svc-event',
  'x-svc-event-version',
  'webhook-id',
  'webhook-timestamp',
  'webhook-signature',
];

/**
 * `webhooks listen` (like `stripe listen`): runs a receiver on 127.0.0.1, subscribes it, prints
 * each delivery with its signature checked, forwards it when asked, and removes the subscription
 * (with its deliveries) on Ctrl-C, so runs do not pile up inactive subscriptions. Needs an API that accepts loopback receivers (WEBHOOK_ALLOW_PRIVATE=1,
 * which `npm start` sets). Exported for tests: `until` ends it like Ctrl-C does.
 */
export async function listen(args: CliArgs, ctx: CliContext, until?: Promise<unknown>): Promise<void> {
  const [{ createServer }, { randomBytes }, { verifySvcSignature }, { EVENT_TYPES }] = await Promise.all([
    import('node:http'),
    import('node:crypto'),
    import('../../webhook-transport/signatures'),
    import('../../events/types'),
  ]);
  const events = (stringFlag(args, 'events') ?? EVENT_TYPES.join(','))
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  const unknown = events.filter((e) => !(EVENT_TYPES as readonly string[]).includes(e));
  if (unknown.length)
    throw usageError(`unknown event type(s): ${unknown.join(', ')}; known: ${EVENT_TYPES.join(', ')}`);
  const forwardTo = stringFlag(args, 'forward-to');
  if (forwardTo && !/^https?:\/\//.test(forwardTo)) throw usageError('--forward-to must be an http(s) URL');
  const portFlag = stringFlag(args, 'port') ?? '0';
  if (!/^\d{1,5}$/.test(portFlag) || Number(portFlag) > 65535)
    throw usageError('--port must be a port number');
  const auth = await userJwtFor(args, ctx);
  const secret = `whsec_listen_${randomBytes(24).toString('hex')}`;
  const json = Boolean(args.values.json);

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const header = (name: string) => String(req.headers[name] ?? '');
        const verified = verifySvcSignature(secret, raw, header('x-svc-signature'));
        let status = verified ? 200 : 401;
        let forwarded: string | null = null;
        if (verified && forwardTo) {
          try {
            const headers: Record<string, string> = {};
            for (const name of FORWARDED_HEADERS) if (req.headers[name]) headers[name] = header(name);
            const answer = await fetch(forwardTo, {
              method: 'POST',
              headers,
              body: raw,
              signal: AbortSignal.timeout(9_000),
            });
            status = answer.status;
            forwarded = `forwarded → ${answer.status}`;
          } catch (e) {
            status = 502;
            forwarded = `forward failed: ${(e as Error).message}`;
          }
        }
        res.writeHead(status, { 'content-type': 'text/plain' }).end(verified ? 'ok' : 'bad signature');
        const record = {
          received_at: new Date().toISOString(),
          delivery_id: header('x-svc-delivery-id'),
          event: header('x-svc-event'),
          signature: verified ? 'verified' : 'INVALID',
          ...(forwarded ? { forwarded } : {}),
          body: (() => {
            try {
              return JSON.parse(raw) as unknown;
            } catch {
              return raw;
            }
          })(),
        };
        if (json) ctx.out(JSON.stringify(record));
        else
          ctx.out(
            `${record.received_at}  ${record.event}  ${record.delivery_id}  signature ${record.signature}${forwarded ? `  ${forwarded}` : ''}\n${JSON.stringify(record.body, null, 2)}`,
          );
      })();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(Number(portFlag), '127.0.0.1', () => resolve());
  });
  const address = server.address() as { port: number };
  const url = `http://127.0.0.1:${address.port}/webhook`;
  let subscriptionId: string | null = null;
  try {
    const created = await ctx.api<{ data: { id: string } }>(
      'POST',
      '/api/v1/webhooks',
      { url, events, secret },
      { auth },
    );
    subscriptionId = created.data.id;
    ctx.err(
      `listening on ${url} (subscription ${subscriptionId}; events: ${events.join(', ')})${forwardTo ? `, forwarding to ${forwardTo}` : ''}. Ctrl-C to stop.`,
    );
    let onSignal = () => undefined as void;
    const stopped = new Promise<void>((resolve) => (onSignal = resolve));
    process.once('SIGINT', onSignal).once('SIGTERM', onSignal);
    try {
      await Promise.race([stopped, ...(until ? [until] : [])]);
    } finally {
      process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
    }
  } finally {
    if (subscriptionId) {
      // Removed outright with its deliveries: each run leaves no inactive subscription behind.
      await ctx.api('DELETE', `/api/v1/webhooks/${subscriptionId}?purge=true`, undefined, { auth }).then(
        () => ctx.err(`subscription ${subscriptionId} removed`),
        (e: Error) => ctx.err(`could not remove subscription ${subscriptionId}: ${e.message}`),
      );
    }
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
}

/** --sub mints a development JWT for that user (local API only); otherwise --jwt / API_JWT / the operator's. */
async function userJwtFor(args: CliArgs, ctx: CliContext): Promise<string> {
  const sub = stringFlag(args, 'sub');
  if (!sub) return ctx.adminJwt();
  assertMintableFor(ctx.baseUrl);
  return mintDevJwt(ctx.config, { sub }, '12h');
}

commands.push({
  name: 'webhooks listen',
  summary:
    'Receive webhooks locally (like stripe listen): subscribe a receiver on 127.0.0.1, print each delivery with its signature checked, optionally forward it; Ctrl-C removes the subscription',
  usage:
    'webhooks listen [--forward-to URL] [--events e1,e2] [--port N] [--sub <user-id> | --jwt <jwt>] [--json]',
  options: {
    'forward-to': { type: 'string' },
    events: { type: 'string' },
    port: { type: 'string' },
    sub: { type: 'string' },
    json: { type: 'boolean' },
  },
  run: (args, ctx) => listen(args, ctx),
});
