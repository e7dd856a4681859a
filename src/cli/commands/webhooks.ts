/**
 * Support commands for webhooks, over the HTTP API with an operator (admin) session JWT.
 *
 *   webhooks deliveries <subscriptionId> [--status pending|retrying|delivered|dead_letter]
 *   webhooks replay <deliveryId>
 *   webhooks replay-dead-letters <subscriptionId> --since <ISO date-time | 30m | 12h | 7d>
 *
 * A replay re-sends the same delivery id and body bytes as a new attempt series; the subscription
 * must be active (re-enable a disabled one first with PATCH /api/v1/webhooks/{id} {"active": true}).
 */
import { table, usageError, type CliArgs, type CliCommand } from '../framework';

const DELIVERY_ID = /^whd_[0-9a-f]{32}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
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
    summary: "List a subscription's last 20 deliveries with their status (support)",
    usage: 'webhooks deliveries <subscriptionId> [--status pending|retrying|delivered|dead_letter] [--json]',
    options: { status: { type: 'string' }, json: { type: 'boolean' } },
    async run(args, ctx) {
      const id = positional(args, 0, 'subscription id', UUID);
      const status = args.values.status;
      if (status !== undefined && (typeof status !== 'string' || !DELIVERY_STATUSES.includes(status))) {
        throw usageError(`--status must be one of ${DELIVERY_STATUSES.join(', ')}`);
      }
      const res = await ctx.api<{ data: Delivery[] }>(
        'GET',
        `/api/v1/webhooks/${id}/deliveries${status ? `?status=${status}` : ''}`,
      );
      if (args.values.json) ctx.out(JSON.stringify(res.data, null, 2));
      else ctx.out(res.data.length ? deliveryTable(res.data) : 'no deliveries');
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
    summary: 'Re-send every dead-lettered delivery of a subscription created since a time',
    usage: 'webhooks replay-dead-letters <subscriptionId> --since <ISO date-time | 30m | 12h | 7d> [--json]',
    options: { since: { type: 'string' }, json: { type: 'boolean' } },
    async run(args, ctx) {
      const id = positional(args, 0, 'subscription id', UUID);
      if (typeof args.values.since !== 'string') throw usageError('--since is required');
      const since = parseSince(args.values.since);
      const res = await ctx.api<{ data: { replayed: number; delivery_ids: string[]; truncated: boolean } }>(
        'POST',
        `/api/v1/admin/webhooks/${id}/replay-dead-letters`,
        { since: since.toISOString() },
      );
      if (args.values.json) {
        ctx.out(JSON.stringify(res.data, null, 2));
        return;
      }
      ctx.out(`replayed ${res.data.replayed} dead letter(s) created since ${since.toISOString()}`);
      for (const d of res.data.delivery_ids) ctx.out(`  ${d}`);
      if (res.data.truncated) ctx.out('more remain: run again (each call replays at most 500)');
    },
  },
];
