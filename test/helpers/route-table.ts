/**
 * Helpers for suites that iterate the route table (bad-input properties, security suites):
 * enumerate routes, build a valid credential for every auth mode, send raw HTTP requests (no URL
 * normalisation, so `..`, `%00` and friends reach the server as written), check the error
 * envelope against the documented codes, and fingerprint the database.
 */
import http from 'node:http';
import type { Pool } from 'pg';
import { buildRouter } from '../../src/api/app';
import type { AppDeps } from '../../src/api/deps';
import { isPageRoute, type AnyRouteDef, type AuthMode } from '../../src/api/route';
import { allRoutes } from '../../src/api/routes';
import { newAdmin, newAgent, newAgentKey, type TestAgent, type TestUser } from './factories';
import type { TestServer } from './server';

export const ROUTES: AnyRouteDef[] = allRoutes();

export const routeLabel = (def: AnyRouteDef) =>
  `${def.method.toUpperCase()} ${def.path} (${def.operationId}, ${def.auth})`;

export function pathParamNames(def: AnyRouteDef): string[] {
  return [...def.path.matchAll(/:([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]);
}

/** The route's path with each `:param` replaced by `values[param]`, inserted as is (the caller encodes). */
export function fillPath(def: AnyRouteDef, values: Record<string, string>): string {
  return def.path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, (_m, name: string) => values[name] ?? '');
}

/** The route that will answer `method rawPath`: the same router the app builds, so the same precedence. */
const matcher = buildRouter(ROUTES, {} as AppDeps);
export function matchRoute(method: string, rawPath: string): AnyRouteDef | undefined {
  const layer = matcher
    .match(rawPath.split('?')[0], method.toUpperCase())
    .pathAndMethod.find((l) => l.methods.length > 0);
  return layer ? ROUTES.find((r) => r.operationId === layer.name) : undefined;
}

// ---- credentials ---------------------------------------------------------------------------------

export type CredentialKind = 'anonymous' | 'apiToken' | 'userJwt' | 'adminJwt' | 'agentKey';

/** Every credential kind that gets past authentication on a route of this auth mode. */
export function credentialKindsFor(auth: AuthMode): CredentialKind[] {
  switch (auth) {
    case 'public':
      return ['anonymous', 'apiToken', 'userJwt', 'adminJwt'];
    case 'bearer':
      return ['apiToken', 'userJwt', 'adminJwt'];
    case 'jwt':
      return ['userJwt', 'adminJwt'];
    case 'admin':
      return ['adminJwt'];
    case 'agentKey':
      return ['agentKey'];
    case 'webSession':
      // The session cookie, which no bearer credential stands in for (test/system/web-sign-in.test.ts).
      return [];
  }
}

export interface Credentials {
  /** A user with one agent; `agent.token` has every scope. */
  agent: TestAgent;
  admin: TestUser;
  agentKey: string;
}

export async function buildCredentials(server: TestServer): Promise<Credentials> {
  const agent = await newAgent(server);
  const admin = await newAdmin(server);
  const agentKey = await newAgentKey(server, agent, 720);
  // Provision the admin's user row now: a first use of a JWT creates it (see docs/decisions/security.md).
  await server.request('GET', '/api/v1/agents', { auth: admin.jwt });
  return { agent, admin, agentKey };
}

export function credentialHeaders(kind: CredentialKind, creds: Credentials): Record<string, string> {
  switch (kind) {
    case 'anonymous':
      return {};
    case 'apiToken':
      return { authorization: `Bearer ${creds.agent.token}` };
    case 'userJwt':
      return { authorization: `Bearer ${creds.agent.user.jwt}` };
    case 'adminJwt':
      return { authorization: `Bearer ${creds.admin.jwt}` };
    case 'agentKey':
      return { 'x-service-api-key': creds.agentKey };
  }
}

// ---- raw HTTP -------------------------------------------------------------------------------------

export interface RawRequest {
  method: string;
  /** Path and query exactly as sent (must only contain characters Node accepts in a request line). */
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Send the body chunked (no Content-Length). */
  chunked?: boolean;
  timeoutMs?: number;
}

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  /** Parsed JSON when the body is JSON, else undefined. */
  json: unknown;
  /** True when the answer was an event stream and was cut after its headers. */
  streamed: boolean;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });

export function rawRequest(baseUrl: string, req: RawRequest): Promise<RawResponse> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { ...req.headers };
    if (req.body !== undefined && !req.chunked) headers['content-length'] = Buffer.byteLength(req.body);
    const r = http.request(
      {
        host: url.hostname,
        port: url.port,
        method: req.method,
        path: req.path,
        headers,
        agent,
        timeout: req.timeoutMs ?? 30_000,
      },
      (res) => {
        if (String(res.headers['content-type'] ?? '').includes('text/event-stream')) {
          res.destroy();
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: '',
            json: undefined,
            streamed: true,
          });
          return;
        }
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          if (String(res.headers['content-type'] ?? '').includes('json')) {
            try {
              json = JSON.parse(text);
            } catch {
              json = undefined;
            }
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json, streamed: false });
        });
      },
    );
    r.on('timeout', () => r.destroy(new Error(`request timed out: ${req.method} ${req.path}`)));
    r.on('error', reject);
    if (req.body !== undefined) {
      if (req.chunked) {
        const buf = Buffer.isBuffer(req.body) ? req.body : Buffer.from(req.body);
        for (let i = 0; i < buf.length; i += 64 * 1024) r.write(buf.subarray(i, i + 64 * 1024));
      } else r.write(req.body);
    }
    r.end();
  });
}

export function closeRawAgent(): void {
  agent.destroy();
}

// ---- envelopes ------------------------------------------------------------------------------------

/**
 * Error codes a client may receive, with their HTTP status: the spec's table (section 7), the codes
 * DESIGN.md names for conditions the spec leaves unnamed, and docs/decisions.md's additions.
 * A 4xx with a code outside this table is a failure (an undocumented code).
 */
export const DOCUMENTED_ERROR_CODES: Record<string, number> = {
  // spec, section 7
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  VALIDATION_ERROR: 400,
  INVALID_JSON: 400,
  RATE_LIMITED: 429,
  CONFLICT: 409,
  INVALID_EVENT: 400,
  WEBHOOK_INACTIVE: 400,
  // DESIGN.md
  CHALLENGE_NOT_ENTERABLE: 400,
  SESSION_CLOSED: 400,
  TOKEN_LIMIT_REACHED: 400,
  BREAKDOWN_NOT_AVAILABLE: 404,
  TOKEN_ALREADY_REVOKED: 409,
  IDEMPOTENCY_KEY_REUSED: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  GONE: 410,
  // docs/decisions.md
  SUBMISSION_LIMIT_REACHED: 400,
  WEBHOOK_LIMIT_REACHED: 400,
};

const STACK_TRACE = /\bat [\w.<>]+ \(|node_modules|\.ts:\d+:\d+/;

/**
 * Problems with a response, for the route that answered it (`def` undefined: no route matched).
 * Never a 5xx; X-Request-ID and X-API-Version on every answer; errors in the route's envelope
 * (flat `{error: string}` on agentKey routes) with a documented 4xx code; no stack traces.
 */
export function responseProblems(def: AnyRouteDef | undefined, res: RawResponse, path?: string): string[] {
  const problems: string[] = [];
  const requestId = res.headers['x-request-id'];
  if (res.status >= 500) problems.push(`status ${res.status} (a 5xx)`);
  if (typeof requestId !== 'string' || !requestId) problems.push('no X-Request-ID header');
  if (res.headers['x-api-version'] !== '1') problems.push('no X-API-Version: 1 header');
  if (STACK_TRACE.test(res.text)) problems.push('the body looks like it carries a stack trace');
  if (res.status < 400) return problems;

  const type = String(res.headers['content-type'] ?? '');
  // HTML pages (the spectator watch page) answer their own 404 page.
  if (def?.internal && res.status === 404 && type.startsWith('text/html')) return problems;
  // Pages, the sign-in steps and the signed-in people's forms (every route outside /api/) answer
  // their errors as HTML pages with a way home (DESIGN.md "People signing in"), never the envelope.
  const outsideApi = def ? !def.path.startsWith('/api/') : path !== undefined && !path.startsWith('/api/');
  if ((def && (isPageRoute(def) || def.auth === 'webSession')) || outsideApi) {
    if (!type.startsWith('text/html')) problems.push(`page error with content-type ${JSON.stringify(type)}`);
    else if (!res.text.includes('href="/"')) problems.push('page error without a link home');
    return problems;
  }
  if (!type.includes('application/json')) problems.push(`error with content-type ${JSON.stringify(type)}`);
  const body = res.json as Record<string, unknown> | undefined;
  if (def?.auth === 'agentKey') {
    if (!body || typeof body.error !== 'string' || Object.keys(body).length !== 1) {
      problems.push(`agentKey route error is not the flat {error: string}: ${res.text.slice(0, 300)}`);
    }
    return problems;
  }
  const err = body?.error as Record<string, unknown> | undefined;
  if (!body || !err || typeof err !== 'object' || Object.keys(body).length !== 1) {
    problems.push(`error is not {error: {message, code, request_id}}: ${res.text.slice(0, 300)}`);
    return problems;
  }
  if (typeof err.message !== 'string' || !err.message) problems.push('error.message missing');
  if (err.request_id !== requestId)
    problems.push(`error.request_id ${String(err.request_id)} !== X-Request-ID ${String(requestId)}`);
  const code = String(err.code);
  if (!(code in DOCUMENTED_ERROR_CODES)) problems.push(`undocumented error code ${code}`);
  else if (DOCUMENTED_ERROR_CODES[code] !== res.status)
    problems.push(`code ${code} with status ${res.status} (documented: ${DOCUMENTED_ERROR_CODES[code]})`);
  return problems;
}

// ---- database fingerprint -------------------------------------------------------------------------

/**
 * What a rejected request may legitimately change, and so is left out of the fingerprint
 * (docs/decisions/security.md): the rate-limit counters (every request, accepted or not, is
 * counted) and the credentials' `last_used_at` (authentication succeeded before the rejection).
 */
export const FINGERPRINT_EXCLUDED_TABLES = ['rate_limits'];
export const FINGERPRINT_EXCLUDED_COLUMNS: Record<string, string[]> = {
  api_tokens: ['last_used_at'],
  agent_keys: ['last_used_at'],
  // Delivery bookkeeping moves whenever a broadcast event (below) reaches a subscription, at the
  // attempt's own pace (a retry a second or more later lands in some other request's window).
  webhook_subscriptions: ['last_delivery_at', 'last_failure_at', 'failure_count', 'updated_at'],
};

/**
 * challenge.* events are broadcast to every subscriber of the type, and only operators' successful
 * transitions emit them, so their deliveries are never the work of a rejected request. Left out
 * because another suite publishing a challenge would otherwise land in this suite's subscriptions.
 */
export const FINGERPRINT_ROW_FILTERS: Record<string, string> = {
  webhook_deliveries: "event_type NOT LIKE 'challenge.%'",
  webhook_attempts:
    "delivery_id NOT IN (SELECT id FROM webhook_deliveries WHERE event_type LIKE 'challenge.%')",
};

/** Per table: row count, checksum of every row, and checksum of the rows that mention a watched id. */
export type Fingerprint = Record<string, { rows: number; checksum: string; mine: string }>;

const UUID_RE = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

/**
 * Watches the database for changes, strictly and with attribution. Other suites may run at the same
 * time against the same database (the full run uses 2 jest workers), so besides the checksum of
 * every row (`checksum`) it keeps one of the rows that mention one of the watched ids (`mine`: the
 * suite's users, agents, challenges, sessions… — every uuid the suite has seen). A difference in
 * `checksum` alone is another suite's work; a difference in `mine` is ours. Run alone, the two agree.
 */
export class DbWatch {
  private readonly ids = new Set<string>();
  private sql?: string;
  /** Differences attributed to other suites (only possible when suites share the database). */
  foreignChanges = 0;

  /**
   * @param since the oldest transaction id whose rows can matter (`DbWatch.currentXid` before the
   * suite made its fixtures): rows written earlier mention no id the suite can watch, so they are
   * skipped by a cheap `xmin` test instead of being hashed at every check. Without it, every row.
   */
  constructor(
    private readonly db: Pool,
    private readonly since?: string,
  ) {}

  /**
   * The oldest transaction still running now: every row written from here on, by an insert or an
   * update, carries an `xmin` at least this (32-bit; a test database never wraps around).
   */
  static async currentXid(db: Pool): Promise<string> {
    const res = await db.query<{ xid: string }>(
      'SELECT (pg_snapshot_xmin(pg_current_snapshot())::text::bigint % 4294967296)::text AS xid',
    );
    return res.rows[0].xid;
  }

  /** Adds ids to watch (uuids found in the given strings). Take a new baseline afterwards. */
  watch(...texts: unknown[]): void {
    for (const text of texts) {
      const s = typeof text === 'string' ? text : JSON.stringify(text ?? null);
      for (const m of s.toLowerCase().matchAll(new RegExp(UUID_RE, 'g'))) this.ids.add(m[0]);
    }
  }

  private async buildSql(): Promise<string> {
    const tables = await this.db.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables
        WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`,
    );
    return tables.rows
      .map((t) => t.table_name)
      .filter((t) => !FINGERPRINT_EXCLUDED_TABLES.includes(t))
      .map((t) => {
        const filters = [
          ...(this.since ? [`t.xmin::text::bigint >= ${BigInt(this.since)}`] : []),
          ...(FINGERPRINT_ROW_FILTERS[t] ? [`(${FINGERPRINT_ROW_FILTERS[t]})`] : []),
        ];
        const excluded = (FINGERPRINT_EXCLUDED_COLUMNS[t] ?? []).map((c) => `'${c}'`).join(', ');
        const row = excluded ? `(to_jsonb(t) - ARRAY[${excluded}]::text[])::text` : 'to_jsonb(t)::text';
        return `SELECT '${t}' AS name, count(*)::int AS rows,
                       coalesce(md5(string_agg(h, '' ORDER BY h)), '') AS checksum,
                       coalesce(md5(string_agg(h, '' ORDER BY h) FILTER (WHERE mine)), '') AS mine
                  FROM (SELECT md5(x) AS h,
                               ARRAY(SELECT (regexp_matches(x, '${UUID_RE}', 'g'))[1]) && $1::text[] AS mine
                          FROM (SELECT ${row} AS x FROM "${t}" t${filters.length ? ` WHERE ${filters.join(' AND ')}` : ''}) r) s`;
      })
      .join('\nUNION ALL\n');
  }

  async fingerprint(): Promise<Fingerprint> {
    this.sql ??= await this.buildSql();
    const res = await this.db.query<{ name: string; rows: number; checksum: string; mine: string }>(
      this.sql,
      [[...this.ids]],
    );
    return Object.fromEntries(
      res.rows.map((r) => [r.name, { rows: r.rows, checksum: r.checksum, mine: r.mine }]),
    );
  }

  /**
   * Tables whose watched rows differ ("name: rows a → b"); empty when equal. Differences only in
   * rows that mention none of the watched ids are counted in `foreignChanges` and not reported.
   */
  diff(before: Fingerprint, after: Fingerprint): string[] {
    const names = [...new Set([...Object.keys(before), ...Object.keys(after)])];
    if (names.every((n) => before[n]?.checksum === after[n]?.checksum)) return [];
    const mine = names.filter((n) => before[n]?.mine !== after[n]?.mine);
    if (mine.length === 0) this.foreignChanges += 1;
    return mine.map((n) => `${n}: ${before[n]?.rows ?? 0} → ${after[n]?.rows ?? 0} rows (content changed)`);
  }

  /** Work the worker still has to do for the watched rows. */
  private async pendingWork(): Promise<Record<string, number>> {
    const mine = `ARRAY(SELECT (regexp_matches(to_jsonb(t)::text, '${UUID_RE}', 'g'))[1]) && $1::text[]`;
    const res = await this.db.query<Record<string, number>>(
      `SELECT (SELECT count(*) FROM outbox_events t WHERE dispatched_at IS NULL AND ${mine})::int AS outbox,
              (SELECT count(*) FROM submissions t WHERE status NOT IN ('complete', 'failed') AND ${mine})::int AS submissions,
              (SELECT count(*) FROM webhook_deliveries t WHERE status IN ('pending', 'retrying') AND ${mine})::int AS deliveries,
              (SELECT count(*) FROM live_events t WHERE feed_seq IS NULL AND sandbox = false AND ${mine})::int AS live_events,
              -- the sweeper closes open sessions that lapsed or whose challenge stopped being active
              (SELECT count(*) FROM sessions t JOIN challenges c ON c.id = t.challenge_id
                WHERE t.status = 'open' AND (c.status <> 'active' OR c.ends_at <= now() OR t.expires_at <= now()) AND ${mine})::int AS lapsed_sessions,
              -- the lifecycle workflow completes an active challenge whose end has come
              (SELECT count(*) FROM challenges t WHERE status = 'active' AND ends_at <= now() AND ended_event_at IS NULL AND ${mine})::int AS ending_challenges`,
      [[...this.ids]],
    );
    return res.rows[0];
  }

  /**
   * Waits until the worker has nothing left to do for the watched rows and their fingerprint holds
   * still for `stableMs` (after an accepted request that started workflows, before a new baseline).
   */
  async quiesce(options: { timeoutMs?: number; stableMs?: number } = {}): Promise<Fingerprint> {
    const deadline = Date.now() + (options.timeoutMs ?? 30_000);
    let last = await this.fingerprint();
    let lastPending: Record<string, number> = {};
    while (Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, options.stableMs ?? 300));
      lastPending = await this.pendingWork();
      const now = await this.fingerprint();
      const settled = Object.keys(now).every((n) => now[n].mine === last[n]?.mine);
      if (Object.values(lastPending).every((n) => n === 0) && settled) return now;
      last = now;
    }
    throw new Error(`the database did not settle: pending ${JSON.stringify(lastPending)}`);
  }
}

// ---- change journal -------------------------------------------------------------------------------

/** One row change the journal saw: its table, the operation, and the row (shortened). */
export interface JournalEntry {
  id: number;
  table: string;
  op: string;
  row: string;
}

/**
 * Every row change in a database of the suite's own (test/helpers/scratch-database.ts), recorded by
 * triggers: after each request one indexed read says whether anything changed and where, instead
 * of a checksum of every table. The exclusions are the fingerprint's (docs/decisions/security.md):
 * the rate-limit counters are not journalled, and an update that changes only an excluded column
 * (`last_used_at`) is not a change. A rolled-back transaction rolls its journal rows back with it.
 * Install it once, after the migrations and before the fixtures.
 */
export class ChangeJournal {
  private seen = 0;

  constructor(private readonly db: Pool) {}

  async install(): Promise<void> {
    await this.db.query(`
      CREATE TABLE IF NOT EXISTS test_change_journal (
        id bigserial PRIMARY KEY, table_name text NOT NULL, op text NOT NULL, row_text text);
      CREATE OR REPLACE FUNCTION test_change_journal() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'UPDATE' AND (to_jsonb(OLD) - coalesce(TG_ARGV, '{}')) = (to_jsonb(NEW) - coalesce(TG_ARGV, '{}')) THEN
          RETURN NULL;
        END IF;
        INSERT INTO test_change_journal (table_name, op, row_text) VALUES (TG_TABLE_NAME, TG_OP,
          left(CASE TG_OP WHEN 'DELETE' THEN to_jsonb(OLD)::text WHEN 'TRUNCATE' THEN NULL
                          ELSE to_jsonb(NEW)::text END, 300));
        RETURN NULL;
      END $$;`);
    const tables = await this.db.query<{ name: string; partitioned: boolean }>(
      `SELECT c.relname AS name, c.relkind = 'p' AS partitioned FROM pg_class c
         JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition
          AND c.relname <> 'test_change_journal'`,
    );
    for (const { name } of tables.rows) {
      if (FINGERPRINT_EXCLUDED_TABLES.includes(name)) continue;
      const excluded = (FINGERPRINT_EXCLUDED_COLUMNS[name] ?? []).map((c) => `'${c}'`).join(', ');
      await this.db.query(
        `CREATE TRIGGER test_change_journal AFTER INSERT OR UPDATE OR DELETE ON "${name}"
           FOR EACH ROW EXECUTE FUNCTION test_change_journal(${excluded});
         CREATE TRIGGER test_change_journal_truncate AFTER TRUNCATE ON "${name}"
           FOR EACH STATEMENT EXECUTE FUNCTION test_change_journal();`,
      );
    }
    this.seen = await this.last();
  }

  private async last(): Promise<number> {
    const res = await this.db.query<{ id: string | null }>('SELECT max(id) AS id FROM test_change_journal');
    return Number(res.rows[0].id ?? 0);
  }

  /**
   * The net changes since the last call (or since install), oldest first; the empty list when none.
   * Net, as the fingerprint it replaces was: a row inserted and deleted again within the window (an
   * Idempotency-Key reserved, then released when the request is refused) changed nothing.
   */
  async changes(): Promise<JournalEntry[]> {
    const res = await this.db.query<{ id: string; table_name: string; op: string; row_text: string | null }>(
      'SELECT id, table_name, op, row_text FROM test_change_journal WHERE id > $1 ORDER BY id LIMIT 1000',
      [this.seen],
    );
    if (res.rows.length === 0) return [];
    this.seen = await this.last();
    const entries = res.rows.map((r) => ({
      id: Number(r.id),
      table: r.table_name,
      op: r.op,
      row: r.row_text ?? '',
    }));
    const cancelled = new Set<number>();
    entries.forEach((del, i) => {
      if (del.op !== 'DELETE') return;
      const insert = entries.findIndex(
        (e, j) =>
          j < i && !cancelled.has(j) && e.op === 'INSERT' && e.table === del.table && e.row === del.row,
      );
      if (insert >= 0) cancelled.add(insert).add(i);
    });
    return entries.filter((_, i) => !cancelled.has(i)).slice(0, 20);
  }
}
