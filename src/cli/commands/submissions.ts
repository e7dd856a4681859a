/**
 * Operator commands for submissions, results and leaderboards.
 *
 *   submissions list [--agent-id A] [--challenge-id C] [--status S] [--limit N] [--cursor X] [--json]
 *                                                    (an operator's JWT: every owner's; a user's: their agents')
 *   submissions get <submissionId> [--json]          status, result and status transitions (admin view)
 *   submissions breakdown <submissionId> [--json]    the admin breakdown (hidden criteria included)
 *   submissions rejudge <submissionId>               start a new judge run (result superseded, leaderboard follows)
 *   submissions sweep                                one sweeper pass now: start missing workflows, close lapsed sessions
 *   leaderboard show <challengeId> [--limit N] [--csv]
 *
 * All but `sweep` go through the HTTP API with an operator JWT; `sweep` talks to PostgreSQL and
 * Temporal directly with the service configuration (the same code the sweeper workflow runs).
 */
import { formatScore } from '../../lib/score';
import { table, usageError, uuidPositional, type CliCommand } from '../framework';

/** The JWT's role claim, read without verifying (the API verifies; this only picks the route). */
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

interface SubmissionDetail {
  id: string;
  challenge_id: string;
  agent_id: string;
  submission_status: string;
  failure_reason: string | null;
  rejudge_count: number;
  result: { id: string; final_score: number; result_state: string } | null;
  events: { run: number; status: string; message: string; created_at: string }[];
}

interface HistoryItem {
  id: string;
  agent_name?: string;
  agent_id?: string;
  challenge_title?: string;
  challenge_id?: string;
  submission_status: string;
  submitted_at: string;
  result: { final_score: number } | null;
}

export const commands: CliCommand[] = [
  {
    name: 'submissions list',
    summary:
      "Submissions newest first: yours (with --token: your agent's; with a JWT: your agents'); --all, or an operator's JWT without --token: every owner's",
    usage:
      'submissions list [--all] [--agent-id <id>] [--challenge-id <id>] [--status received|queued|judging|complete|failed] [--limit N] [--cursor C] [--json]',
    options: {
      all: { type: 'boolean' },
      'agent-id': { type: 'string' },
      'challenge-id': { type: 'string' },
      status: { type: 'string' },
      limit: { type: 'string' },
      cursor: { type: 'string' },
      json: { type: 'boolean' },
    },
    async run(args, ctx) {
      if (args.positionals.length) throw usageError(`unexpected argument "${args.positionals[0]}"`);
      const query = new URLSearchParams();
      for (const [flag, param] of [
        ['agent-id', 'agent_id'],
        ['challenge-id', 'challenge_id'],
        ['status', 'status'],
        ['limit', 'limit'],
        ['cursor', 'cursor'],
      ] as const) {
        const value = args.values[flag];
        if (typeof value === 'string') query.set(param, value);
      }
      const qs = query.toString();
      // Every owner's (GET /api/v1/admin/submissions, DESIGN.md "Operators and support") with --all,
      // or when an operator's JWT is the credential; otherwise the caller's own: the participant's
      // token when one is given.
      const everyOwner = args.values.all || (!ctx.hasToken && isOperatorJwt(await ctx.adminJwt()));
      const route = everyOwner ? '/api/v1/admin/submissions' : '/api/v1/submissions';
      const page = await ctx.api<{ data: HistoryItem[]; pagination: { next_cursor: string | null } }>(
        'GET',
        `${route}${qs ? `?${qs}` : ''}`,
        undefined,
        ctx.hasToken && !everyOwner ? { auth: ctx.token() } : {},
      );
      if (args.values.json) return ctx.out(JSON.stringify(page, null, 2));
      if (page.data.length === 0) ctx.out('no submissions');
      else
        ctx.out(
          table(
            ['SUBMITTED', 'ID', 'STATUS', 'SCORE', 'AGENT', 'CHALLENGE'],
            page.data.map((s) => [
              s.submitted_at,
              s.id,
              s.submission_status,
              s.result ? formatScore(s.result.final_score) : '-',
              s.agent_name ?? s.agent_id ?? '-',
              s.challenge_title ?? s.challenge_id ?? '-',
            ]),
          ),
        );
      if (page.pagination.next_cursor) ctx.err(`more: --cursor ${page.pagination.next_cursor}`);
    },
  },
  {
    name: 'submissions get',
    summary: 'Show a submission: status, current result and every status transition',
    usage: 'submissions get <submissionId> [--json]',
    options: { json: { type: 'boolean' } },
    async run(args, ctx) {
      const id = uuidPositional(args, 'submission id');
      const { data } = await ctx.api<{ data: SubmissionDetail }>('GET', `/api/v1/submissions/${id}`);
      if (args.values.json) return ctx.out(JSON.stringify(data, null, 2));
      ctx.out(
        [
          `${data.id}  ${data.submission_status}${data.failure_reason ? ` (${data.failure_reason})` : ''}`,
          `challenge ${data.challenge_id}  agent ${data.agent_id}  rejudges ${data.rejudge_count}`,
          data.result
            ? `result ${data.result.id}: ${data.result.final_score} (${data.result.result_state})`
            : 'no result',
          ...data.events.map((e) => `  ${e.created_at}  run ${e.run}  ${e.status.padEnd(8)}  ${e.message}`),
        ].join('\n'),
      );
    },
  },
  {
    name: 'submissions breakdown',
    summary: "Show a submission's breakdown as operators see it (hidden criteria and tests included)",
    usage: 'submissions breakdown <submissionId> [--json]',
    options: { json: { type: 'boolean' } },
    async run(args, ctx) {
      const id = uuidPositional(args, 'submission id');
      const { data } = await ctx.api<{
        data: {
          final_score: number;
          result_state: string;
          summary?: string;
          criteria: { name: string; score: number; passed?: boolean; hidden?: boolean; feedback?: string }[];
        };
      }>('GET', `/api/v1/submissions/${id}/breakdown`);
      if (args.values.json) return ctx.out(JSON.stringify(data, null, 2));
      ctx.out(
        [
          `${data.final_score} (${data.result_state})${data.summary ? `: ${data.summary}` : ''}`,
          ...data.criteria.map(
            (c) =>
              `  ${c.passed ? 'pass' : 'fail'}  ${String(c.score).padStart(6)}  ${c.name}${c.hidden ? ' [hidden]' : ''}${c.feedback ? ` - ${c.feedback}` : ''}`,
          ),
        ].join('\n'),
      );
    },
  },
  {
    name: 'submissions rejudge',
    summary: 'Judge a complete or failed submission again (the new result supersedes the old)',
    usage: 'submissions rejudge <submissionId> [--json]',
    options: { json: { type: 'boolean' } },
    async run(args, ctx) {
      const id = uuidPositional(args, 'submission id');
      const { data } = await ctx.api<{
        data: { run: number; workflow_id: string; workflow_started: boolean };
      }>('POST', `/api/v1/admin/submissions/${id}/rejudge`);
      ctx.out(
        args.values.json
          ? JSON.stringify(data, null, 2)
          : `rejudge run ${data.run} queued (workflow ${data.workflow_id}${data.workflow_started ? '' : ', started by the sweeper shortly'})`,
      );
    },
  },
  {
    name: 'submissions sweep',
    summary:
      'Run one sweeper pass now: start missing workflows, close lapsed sessions, fail runs whose workflow ended unfinished',
    usage: 'submissions sweep [--json]',
    options: { json: { type: 'boolean' } },
    async run(args, ctx) {
      const [{ createPool }, { lazyTemporalClient }, { createLogger }, { sweepOnce }] = await Promise.all([
        import('../../db/pool'),
        import('../../temporal-client/client'),
        import('../../lib/logger'),
        import('../../domain/submissions/sweeper'),
      ]);
      const config = ctx.config;
      const db = createPool(config.DATABASE_URL, 2);
      const temporal = lazyTemporalClient(config);
      try {
        const report = await sweepOnce(
          { db, config, temporal: temporal.get, logger: createLogger('warn', 'cli') },
          1000,
          { checkStalled: true },
        );
        ctx.out(
          args.values.json
            ? JSON.stringify(report, null, 2)
            : `workflows started: ${report.workflowsStarted}; sessions closed: ${report.sessionsClosed}; stalled runs failed: ${report.stalledFailed}; web sessions deleted: ${report.webSessionsDeleted}`,
        );
      } finally {
        await temporal.close();
        await db.end();
      }
    },
  },
  {
    name: 'leaderboard show',
    summary: "Print a challenge's leaderboard (first page, or the whole board as CSV)",
    usage: 'leaderboard show <challengeId> [--limit N] [--csv | --json]',
    options: { limit: { type: 'string' }, csv: { type: 'boolean' }, json: { type: 'boolean' } },
    async run(args, ctx) {
      const id = uuidPositional(args, 'challenge id');
      if (args.values.csv) {
        const csv = await ctx.api<string>('GET', `/api/v1/leaderboards/${id}/export.csv`, undefined, {
          auth: null,
          text: true,
        });
        return ctx.out(csv);
      }
      const limit = typeof args.values.limit === 'string' ? args.values.limit : '50';
      if (!/^\d+$/.test(limit)) throw usageError('--limit must be a number (1..100)');
      const { data } = await ctx.api<{
        data: { rank: number; agent_name: string; best_score: number; submission_count: number }[];
      }>('GET', `/api/v1/leaderboards/${id}?limit=${limit}`);
      if (args.values.json) return ctx.out(JSON.stringify(data, null, 2));
      ctx.out(
        data.length
          ? table(
              ['RANK', 'SCORE', 'SUBMISSIONS', 'AGENT'],
              data.map((e) => [
                String(e.rank),
                String(e.best_score),
                String(e.submission_count),
                e.agent_name,
              ]),
            )
          : 'no ranked agents yet',
      );
    },
  },
];
