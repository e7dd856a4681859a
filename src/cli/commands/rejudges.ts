/**
 * Operators: rejudge a whole challenge after fixing its judge, and follow it (the console's
 * "Rejudge" button and progress page, DESIGN "Operators"): POST /api/v1/admin/challenges/{id}/rejudge,
 * GET /api/v1/admin/rejudges/{id}. With `--wait` the command returns when every run is done and
 * prints each submission's old → new score (and the held-out scores where the challenge has any).
 */
import type { RejudgeProgress } from '../../domain/submissions/bulk-rejudge';
import { formatScore } from '../../lib/score';
import { CliError, table, usageError, uuidPositional, type CliCommand, type CliContext } from '../framework';

/** The progress as the API serialises it (dates as strings). */
type Progress = Omit<RejudgeProgress, 'requested_at' | 'finished_at'> & {
  requested_at: string;
  finished_at: string | null;
};

const STATUSES = ['complete', 'failed'];
const POLL_MS = 500;
const DEFAULT_WAIT_SEC = 600;

const score = (s: number | null) => (s === null ? '—' : formatScore(s));

/** The progress in words: a status line, then one row per submission. */
export function describeRejudge(p: Progress): string {
  const head = `rejudge ${p.id} of challenge ${p.challenge_id}: ${p.status}, ${p.done} of ${p.count} judged (statuses ${p.statuses.join(', ')})`;
  if (p.items.length === 0) return head;
  const withPrivate = p.items.some((i) => i.old_private_score !== null || i.new_private_score !== null);
  const rows = p.items.map((i) => [
    i.submission_id,
    i.agent_name,
    score(i.old_score),
    i.done ? score(i.new_score) : '(judging)',
    ...(withPrivate ? [score(i.old_private_score), i.done ? score(i.new_private_score) : '(judging)'] : []),
  ]);
  const header = [
    'SUBMISSION',
    'AGENT',
    'OLD',
    'NEW',
    ...(withPrivate ? ['OLD PRIVATE', 'NEW PRIVATE'] : []),
  ];
  return `${head}\n${table(header, rows)}`;
}

async function follow(ctx: CliContext, id: string, timeoutSec: number): Promise<Progress> {
  const deadline = Date.now() + timeoutSec * 1000;
  let lastDone = -1;
  for (;;) {
    const { data } = await ctx.api<{ data: Progress }>('GET', `/api/v1/admin/rejudges/${id}`);
    if (data.done !== lastDone) ctx.err(`judged: ${data.done} of ${data.count}`);
    lastDone = data.done;
    if (data.status === 'done') return data;
    if (Date.now() > deadline)
      throw new CliError(`still running after ${timeoutSec} s; follow it with: rejudges get ${id}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

function statusList(value: unknown): string[] | undefined {
  if (value === undefined) return undefined;
  const list = String(value)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const wrong = list.find((s) => !STATUSES.includes(s));
  if (list.length === 0 || wrong !== undefined)
    throw usageError(
      `--status takes ${STATUSES.join(' and/or ')}, comma-separated${wrong ? ` (not "${wrong}")` : ''}`,
    );
  return list;
}

function waitSeconds(value: unknown): number {
  if (value === undefined) return DEFAULT_WAIT_SEC;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 86_400) throw usageError('--timeout is whole seconds, 1..86400');
  return n;
}

export const commands: CliCommand[] = [
  {
    name: 'rejudges start',
    summary: 'Operators: judge again every finished submission of a challenge (after fixing its judge)',
    usage: 'rejudges start <challengeId> [--status complete,failed] [--wait [--timeout SEC]] [--json]',
    options: {
      status: { type: 'string' },
      wait: { type: 'boolean' },
      timeout: { type: 'string' },
      json: { type: 'boolean' },
    },
    async run(args, ctx) {
      const challengeId = uuidPositional(args, 'challenge id');
      const status = statusList(args.values.status);
      const timeoutSec = waitSeconds(args.values.timeout);
      const { data } = await ctx.api<{ data: { rejudge_id: string; count: number } }>(
        'POST',
        `/api/v1/admin/challenges/${challengeId}/rejudge`,
        status ? { status } : {},
      );
      if (!args.values.wait) {
        ctx.out(
          args.values.json
            ? JSON.stringify(data, null, 2)
            : `rejudge ${data.rejudge_id} started: ${data.count} submission(s); follow it with: rejudges get ${data.rejudge_id}`,
        );
        return;
      }
      ctx.err(`rejudge ${data.rejudge_id} started: ${data.count} submission(s)`);
      const done = await follow(ctx, data.rejudge_id, timeoutSec);
      ctx.out(args.values.json ? JSON.stringify(done, null, 2) : describeRejudge(done));
    },
  },
  {
    name: 'rejudges get',
    summary: "Operators: a challenge rejudge's progress, each submission's old → new score",
    usage: 'rejudges get <rejudgeId> [--json]',
    options: { json: { type: 'boolean' } },
    async run(args, ctx) {
      const id = uuidPositional(args, 'rejudge id');
      const { data } = await ctx.api<{ data: Progress }>('GET', `/api/v1/admin/rejudges/${id}`);
      ctx.out(args.values.json ? JSON.stringify(data, null, 2) : describeRejudge(data));
    },
  },
];
