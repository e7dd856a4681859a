/**
 * The arena from the CLI (DESIGN "Matches between agents"; docs/decisions/arena.md):
 *
 *   matches list [<challengeId>] [--agent-id <id>] [--status S] [--limit N] [--cursor C] [--json]
 *   matches get <matchId> [--json]
 *   matches watch <matchId> [--timeout <s>] [--json]
 *   matches create <challengeId> --agent-id <id> --agent-id <id>… [--rated] [--json]   (operators)
 *   matches void <matchId> --reason <text> [--json]                                    (operators)
 *   ratings (--weight-class <id> | --challenge-id <id>) [--limit N] [--cursor C] [--json]
 *
 * Participant view (--token / CCS_TOKEN): `matches list` without a challenge lists your agent's
 * matches with your outcome and rating change in a YOU column; `ratings` marks your agent's row
 * and says where it stands. Operator view (an operator's JWT, no token): matches of draft
 * challenges too, and `ratings --challenge-id` adds the matchmaker's last round (who was
 * eligible, the groups, who waited and why). Everyone else reads the public views. Only node
 * built-ins and the framework are imported: the CLI must start fast (bench/cli-startup.ts).
 */
import type { RatingView } from '../../domain/matches/rules';
import type { MatchView, RatingRowView } from '../../domain/matches/views';
import { formatScore } from '../../lib/score';
import {
  CliError,
  table,
  usageError,
  UUID_PATTERN,
  type CliArgs,
  type CliCommand,
  type CliContext,
} from '../framework';

const STATUSES = ['scheduled', 'running', 'complete', 'void'];
const TERMINAL = new Set(['complete', 'void']);

// The API's shapes, as the domain builds them (the CLI reads what the API serialises).
type Rating = RatingView;
type RatingRow = RatingRowView;

interface Page<T> {
  data: T[];
  pagination: { next_cursor: string | null };
}

interface MatchmakingRound {
  round: number | null;
  ran_at: string | null;
  eligible: { agent_id: string; ordinal: number; provisional: boolean }[];
  groups: string[][];
  waiting: { agent_id: string; reason: string }[];
  match_ids: string[];
}

function uuidAt(args: CliArgs, what: string, required: true): string;
function uuidAt(args: CliArgs, what: string, required: false): string | undefined;
function uuidAt(args: CliArgs, what: string, required: boolean): string | undefined {
  const value = args.positionals[0];
  if (args.positionals.length > 1) throw usageError(`unexpected argument "${args.positionals[1]}"`);
  if (!value) {
    if (required) throw usageError(`${what} is required`);
    return undefined;
  }
  if (!UUID_PATTERN.test(value)) throw usageError(`"${value}" is not a ${what}`);
  return value;
}

function uuidFlag(args: CliArgs, name: string): string | undefined {
  const value = args.values[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !UUID_PATTERN.test(value))
    throw usageError(`--${name} must be an id (a UUID)`);
  return value;
}

function pageQuery(args: CliArgs, extra: Record<string, string | undefined> = {}): string {
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) query.set(k, v);
  const limit = args.values.limit;
  if (limit !== undefined) {
    if (typeof limit !== 'string' || !/^[1-9]\d{0,2}$/.test(limit) || Number(limit) > 100)
      throw usageError('--limit must be a whole number from 1 to 100');
    query.set('limit', limit);
  }
  if (typeof args.values.cursor === 'string') query.set('cursor', args.values.cursor);
  const qs = query.toString();
  return qs ? `?${qs}` : '';
}

/** The JWT's role claim, read without verifying (the API verifies; this only picks the view). */
function isOperatorJwt(jwt: string): boolean {
  try {
    const claims = JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString('utf8')) as {
      role?: unknown;
    };
    return claims.role === 'admin';
  } catch {
    return false;
  }
}

/**
 * Who reads: a participant (--token / CCS_TOKEN), an operator (a JWT with role admin: --jwt,
 * API_JWT or the minted development one, without a token), or the public. A user's JWT reads
 * the public views (its role is not admin).
 */
async function viewer(
  ctx: CliContext,
): Promise<{ kind: 'participant' | 'operator' | 'public'; auth: string | null }> {
  if (ctx.hasToken) return { kind: 'participant', auth: ctx.token() };
  let jwt: string;
  try {
    jwt = await ctx.adminJwt();
  } catch (err) {
    // No JWT given and none can be minted (production, another host): the public view.
    if (err instanceof CliError) return { kind: 'public', auth: null };
    throw err;
  }
  return isOperatorJwt(jwt) ? { kind: 'operator', auth: jwt } : { kind: 'public', auth: jwt };
}

/** The agent an API token acts as (GET /api/v1/agents lists exactly that one). */
async function tokenAgent(ctx: CliContext, auth: string): Promise<{ id: string; name: string }> {
  const { data } = await ctx.api<{ data: { id: string; name: string }[] }>(
    'GET',
    '/api/v1/agents',
    undefined,
    {
      auth,
    },
  );
  if (data.length !== 1)
    throw new CliError(
      'this command needs an API token (it acts as one agent): pass --token or set CCS_TOKEN',
    );
  return data[0];
}

const fixed = (n: number) => n.toFixed(2);
const ratingText = (r: Rating | null) =>
  r ? `${fixed(r.ordinal)} (μ ${fixed(r.mu)} σ ${fixed(r.sigma)})` : '-';

/** `+1.23` / `-0.50`: the ordinal's change, or '-' before the rating applied. */
export function ratingChange(before: Rating | null, after: Rating | null): string {
  if (!before || !after) return '-';
  const d = after.ordinal - before.ordinal;
  return `${d >= 0 ? '+' : ''}${fixed(d)}`;
}

function participantsText(m: MatchView): string {
  return m.participants
    .map((p) =>
      p.outcome
        ? `${p.agent_name} (${p.outcome}${p.score === null ? '' : ` ${formatScore(p.score)}`})`
        : p.agent_name,
    )
    .join(' vs ');
}

/** A match as text: its header lines and the participants side by side in a table. */
export function matchLines(m: MatchView): string[] {
  const lines = [
    `${m.id}  ${m.status}${m.reason ? ` (${m.reason})` : ''}  ${m.kind}  ${m.rated ? 'rated' : 'unrated'}`,
    `challenge ${m.challenge_id}  weight class ${m.weight_class_id}`,
    `scheduled ${m.scheduled_at}` +
      (m.started_at ? `  started ${m.started_at}` : '') +
      (m.ends_at ? `  ends ${m.ends_at}` : '') +
      (m.completed_at ? `  completed ${m.completed_at}` : ''),
  ];
  if (m.result_id) lines.push(`result ${m.result_id}`);
  lines.push(
    table(
      ['SEAT', 'AGENT', 'RANK', 'OUTCOME', 'SCORE', 'RATING BEFORE', 'RATING AFTER', 'CHANGE'],
      m.participants.map((p) => [
        String(p.seat),
        p.agent_name,
        p.rank === null ? '-' : String(p.rank),
        p.outcome ?? '-',
        p.score === null ? '-' : formatScore(p.score),
        ratingText(p.rating_before),
        ratingText(p.rating_after),
        ratingChange(p.rating_before, p.rating_after),
      ]),
    ),
  );
  if (!TERMINAL.has(m.status))
    lines.push('(scores, outcomes and rating changes appear once the match is complete)');
  return lines;
}

function timeoutFlag(args: CliArgs): number {
  const raw = args.values.timeout;
  if (raw === undefined) return 3600;
  if (typeof raw !== 'string' || !/^[1-9]\d{0,5}$/.test(raw))
    throw usageError('--timeout must be a whole number of seconds (1..999999)');
  return Number(raw);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const commands: CliCommand[] = [
  {
    name: 'matches list',
    summary:
      "Matches newest first: a challenge's (operators: drafts too), --agent-id's, or with --token and no challenge your agent's (your outcome and rating change)",
    usage:
      'matches list [<challengeId>] [--agent-id <id>] [--status scheduled|running|complete|void] [--limit N] [--cursor C] [--json]',
    options: {
      'agent-id': { type: 'string' },
      status: { type: 'string' },
      limit: { type: 'string' },
      cursor: { type: 'string' },
      json: { type: 'boolean' },
    },
    async run(args, ctx) {
      const challengeId = uuidAt(args, 'challenge id', false);
      let agentId = uuidFlag(args, 'agent-id');
      const status = args.values.status;
      if (status !== undefined && (typeof status !== 'string' || !STATUSES.includes(status)))
        throw usageError(`--status must be one of ${STATUSES.join(', ')}`);
      const who = await viewer(ctx);
      let mine: string | undefined;
      if (who.kind === 'participant') {
        mine = (await tokenAgent(ctx, who.auth!)).id;
        if (!challengeId && !agentId) agentId = mine;
      }
      if (!challengeId && !agentId)
        throw usageError('name a challenge id or --agent-id (or pass --token to list your agent’s matches)');
      const route = challengeId
        ? `/api/v1/challenges/${challengeId}/matches${pageQuery(args, { status: status as string | undefined, agent_id: agentId })}`
        : `/api/v1/agents/${agentId}/matches${pageQuery(args, { status: status as string | undefined })}`;
      const page = await ctx.api<Page<MatchView>>('GET', route, undefined, { auth: who.auth });
      if (args.values.json) return ctx.out(JSON.stringify(page, null, 2));
      if (page.data.length === 0) ctx.out('no matches');
      else {
        const header = ['SCHEDULED', 'ID', 'STATUS', 'RATED', 'PARTICIPANTS'];
        const you = (m: MatchView) => {
          const p = m.participants.find((x) => x.agent_id === mine);
          if (!p) return '-';
          const change = ratingChange(p.rating_before, p.rating_after);
          return `${p.outcome ?? (TERMINAL.has(m.status) ? '-' : 'playing')}${change === '-' ? '' : ` ${change}`}`;
        };
        ctx.out(
          table(
            mine ? [...header, 'YOU'] : header,
            page.data.map((m) => [
              m.scheduled_at,
              m.id,
              m.status,
              m.rated ? 'yes' : 'no',
              participantsText(m),
              ...(mine ? [you(m)] : []),
            ]),
          ),
        );
      }
      if (page.pagination.next_cursor) ctx.err(`more: --cursor ${page.pagination.next_cursor}`);
    },
  },
  {
    name: 'matches get',
    summary: 'A match: its participants side by side (seat, rank, outcome, score, rating before and after)',
    usage: 'matches get <matchId> [--json]',
    options: { json: { type: 'boolean' } },
    async run(args, ctx) {
      const id = uuidAt(args, 'match id', true);
      const who = await viewer(ctx);
      const { data } = await ctx.api<{ data: MatchView }>('GET', `/api/v1/matches/${id}`, undefined, {
        auth: who.auth,
      });
      if (args.values.json) return ctx.out(JSON.stringify(data, null, 2));
      ctx.out(matchLines(data).join('\n'));
    },
  },
  {
    name: 'matches watch',
    summary:
      'Follow a match until it is complete or void (status changes on stderr), then print it with the placements and rating changes',
    usage: 'matches watch <matchId> [--timeout <s>] [--json]',
    options: { timeout: { type: 'string' }, json: { type: 'boolean' } },
    async run(args, ctx) {
      const id = uuidAt(args, 'match id', true);
      const timeout = timeoutFlag(args);
      const deadline = Date.now() + timeout * 1000;
      const who = await viewer(ctx);
      let last = '';
      let announcedEnd = false;
      for (let delay = 500; ; delay = Math.min(delay * 2, 5000)) {
        const { data } = await ctx.api<{ data: MatchView }>('GET', `/api/v1/matches/${id}`, undefined, {
          auth: who.auth,
        });
        if (data.status !== last) {
          ctx.err(
            `status: ${data.status}` +
              (data.status === 'running' && data.ends_at ? ` (bout ends ${data.ends_at})` : '') +
              (data.reason ? ` (${data.reason})` : ''),
          );
          last = data.status;
        }
        // Ratings apply right after completion (a single writer per weight class): wait for them briefly.
        const ratingsPending =
          data.status === 'complete' && data.rated && data.participants.some((p) => p.rating_after === null);
        if (TERMINAL.has(data.status) && (!ratingsPending || Date.now() > deadline)) {
          if (args.values.json) ctx.out(JSON.stringify(data, null, 2));
          else ctx.out(matchLines(data).join('\n'));
          return 0;
        }
        if (ratingsPending && !announcedEnd) {
          ctx.err('waiting for the rating update');
          announcedEnd = true;
        }
        if (Date.now() > deadline)
          throw new CliError(`still ${data.status} after ${timeout} s; look later: matches get ${id}`);
        await sleep(delay);
      }
    },
  },
  {
    name: 'matches create',
    summary:
      'Operators: start an exhibition match now between entered agents (unrated unless --rated; repeat --agent-id, 2 to 8)',
    usage:
      'matches create <challengeId> --agent-id <id> --agent-id <id> [--agent-id <id>…] [--rated] [--json]\n' +
      'The agents must be entered in the challenge and not in a running match; a rated exhibition\n' +
      'may not name two agents of one owner. Follow it with: matches watch <matchId>.',
    options: {
      'agent-id': { type: 'string', multiple: true },
      rated: { type: 'boolean' },
      json: { type: 'boolean' },
    },
    async run(args, ctx) {
      const challengeId = uuidAt(args, 'challenge id', true);
      const raw = args.values['agent-id'];
      const agentIds = raw === undefined ? [] : Array.isArray(raw) ? raw.map(String) : [String(raw)];
      if (agentIds.length < 2 || agentIds.length > 8)
        throw usageError('name 2 to 8 agents, each with --agent-id <id>');
      const wrong = agentIds.find((a) => !UUID_PATTERN.test(a));
      if (wrong !== undefined) throw usageError(`--agent-id "${wrong}" is not an id (a UUID)`);
      const { data } = await ctx.api<{ data: MatchView }>(
        'POST',
        `/api/v1/admin/challenges/${challengeId}/matches`,
        { agent_ids: agentIds, rated: args.values.rated === true },
      );
      if (args.values.json) return ctx.out(JSON.stringify(data, null, 2));
      ctx.out(matchLines(data).join('\n'));
      ctx.err(`follow it: matches watch ${data.id}`);
    },
  },
  {
    name: 'matches void',
    summary: 'Operators: void a scheduled or running match with a reason (unrated; its sessions close)',
    usage:
      'matches void <matchId> --reason <text> [--json]\n' +
      'A match already complete or void is refused (409). The reason is shown with the match.',
    options: { reason: { type: 'string' }, json: { type: 'boolean' } },
    async run(args, ctx) {
      const id = uuidAt(args, 'match id', true);
      const reason = args.values.reason;
      if (typeof reason !== 'string' || reason.trim() === '')
        throw usageError('--reason <text> is required (why the match is void)');
      const { data } = await ctx.api<{ data: MatchView }>('POST', `/api/v1/admin/matches/${id}/void`, {
        reason,
      });
      if (args.values.json) return ctx.out(JSON.stringify(data, null, 2));
      ctx.out(matchLines(data).join('\n'));
    },
  },
  {
    name: 'ratings',
    summary:
      "A weight class's ratings by ordinal (μ − 3σ): with --token your agent's row is marked; an operator with --challenge-id also sees the matchmaker's last round",
    usage: 'ratings (--weight-class <id> | --challenge-id <id>) [--limit N] [--cursor C] [--json]',
    options: {
      'weight-class': { type: 'string' },
      'challenge-id': { type: 'string' },
      limit: { type: 'string' },
      cursor: { type: 'string' },
      json: { type: 'boolean' },
    },
    async run(args, ctx) {
      if (args.positionals.length) throw usageError(`unexpected argument "${args.positionals[0]}"`);
      const challengeId = uuidFlag(args, 'challenge-id');
      let weightClass =
        typeof args.values['weight-class'] === 'string' ? args.values['weight-class'] : undefined;
      if (!weightClass && !challengeId) throw usageError('--weight-class or --challenge-id is required');
      const who = await viewer(ctx);
      if (!weightClass) {
        const { data } = await ctx.api<{ data: { weight_class_id: string } }>(
          'GET',
          `/api/v1/challenges/${challengeId}`,
          undefined,
          { auth: who.auth },
        );
        weightClass = data.weight_class_id;
      }
      const page = await ctx.api<Page<RatingRow>>(
        'GET',
        `/api/v1/ratings${pageQuery(args, { weight_class_id: weightClass })}`,
        undefined,
        { auth: who.auth },
      );
      const mine = who.kind === 'participant' ? await tokenAgent(ctx, who.auth!) : undefined;
      const round =
        who.kind === 'operator' && challengeId
          ? (
              await ctx.api<{ data: MatchmakingRound }>(
                'GET',
                `/api/v1/admin/challenges/${challengeId}/matchmaking`,
                undefined,
                { auth: who.auth },
              )
            ).data
          : undefined;
      if (args.values.json)
        return ctx.out(
          JSON.stringify(
            { weight_class_id: weightClass, ...page, ...(round ? { matchmaking: round } : {}) },
            null,
            2,
          ),
        );
      const lines: string[] = [`weight class ${weightClass}`];
      if (page.data.length === 0) lines.push('no rated agents yet');
      else
        lines.push(
          table(
            ['', 'RANK', 'AGENT', 'ORDINAL', 'MU', 'SIGMA', 'MATCHES', 'W-D-L', 'PROVISIONAL'],
            page.data.map((r) => [
              r.agent_id === mine?.id ? '*' : '',
              String(r.rank),
              r.agent_name,
              fixed(r.ordinal),
              fixed(r.mu),
              fixed(r.sigma),
              String(r.matches),
              `${r.wins}-${r.draws}-${r.losses}`,
              r.provisional ? 'yes' : 'no',
            ]),
          ),
        );
      if (mine) {
        const row = page.data.find((r) => r.agent_id === mine.id);
        lines.push(
          row
            ? `you (${mine.name}): rank ${row.rank}, ordinal ${fixed(row.ordinal)}${row.provisional ? `, provisional (${row.matches} of 5 rated matches)` : ''}`
            : `you (${mine.name}): not on this page (unrated until your first rated match)`,
        );
      }
      if (round) {
        lines.push(
          '',
          `matchmaker: ${round.round === null ? 'no round yet' : `round ${round.round} at ${round.ran_at}`}`,
        );
        if (round.round !== null) {
          lines.push(`  eligible: ${round.eligible.length}`);
          for (const g of round.groups) lines.push(`  group: ${g.join(' vs ')}`);
          for (const w of round.waiting) lines.push(`  waiting: ${w.agent_id} (${w.reason})`);
          if (round.match_ids.length) lines.push(`  matches: ${round.match_ids.join(', ')}`);
        }
      }
      ctx.out(lines.join('\n'));
      if (page.pagination.next_cursor) ctx.err(`more: --cursor ${page.pagination.next_cursor}`);
    },
  },
];
