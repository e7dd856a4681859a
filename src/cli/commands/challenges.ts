/**
 * Operator commands for challenges, over the HTTP API with an admin session JWT.
 *
 *   challenges list [--status S] [--category C] [--weight-class W] [--format F] [--page N] [--limit N]
 *   challenges get <id>
 *   challenges create --file challenge.json        (creates a draft; body of POST /admin/challenges)
 *   challenges update <id> --file patch.json       (body of PATCH /admin/challenges/{id})
 *   challenges publish <id>
 *   challenges quarantine <id> --reason "why"
 *   challenges retire <id>
 *
 * `challengeCommands(args, ctx)` takes already parsed arguments (`_` = positionals after the
 * group name, flags as properties) and returns an exit code: 0 ok, 1 the API refused, 2 usage.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { table } from '../framework';

export interface ParsedArgs {
  _: string[];
  [flag: string]: unknown;
}

export interface ChallengeCommandContext {
  /** e.g. http://127.0.0.1:3000 */
  baseUrl: string;
  /** A session JWT with role admin. */
  adminJwt: string;
  /** Output sink (default: console.log). */
  print?: (line: string) => void;
  /** Error sink (default: console.error). */
  printError?: (line: string) => void;
  /** Where relative --file paths start (default: the process's working directory). */
  cwd?: string;
}

export interface CommandOutcome {
  exitCode: 0 | 1 | 2;
  result?: unknown;
}

export const CHALLENGE_COMMANDS_USAGE = `usage:
  challenges list [--status draft|active|complete|archived] [--category C] [--weight-class W] [--format F] [--page N] [--limit N] [--json]
  challenges get <id> [--json]
  challenges create --file <challenge.json> [--json]
  challenges update <id> --file <patch.json> [--json]
  challenges publish <id> [--json]
  challenges quarantine <id> --reason <text> [--json]
  challenges retire <id> [--json]`;

/** Every flag the group takes (the CLI rejects others, suggesting the closest). */
export const CHALLENGE_FLAGS = [
  'status',
  'category',
  'weight-class',
  'format',
  'page',
  'limit',
  'file',
  'reason',
] as const;

interface ChallengeSummary {
  id: string;
  status: string;
  category: string;
  format: string;
  entry_count?: number;
  title: string;
}

function challengeTable(rows: ChallengeSummary[]): string {
  return table(
    ['ID', 'STATUS', 'CATEGORY', 'FORMAT', 'ENTRIES', 'TITLE'],
    rows.map((c) => [c.id, c.status, c.category, c.format, String(c.entry_count ?? 0), c.title]),
  );
}

class UsageError extends Error {}

function flag(args: ParsedArgs, ...names: string[]): string | undefined {
  for (const name of names) {
    const value = args[name];
    if (typeof value === 'string' && value !== '') return value;
    if (typeof value === 'number') return String(value);
  }
  return undefined;
}

function requireId(positionals: string[]): string {
  const id = positionals[1];
  if (!id) throw new UsageError(`${positionals[0]} needs a challenge id`);
  return encodeURIComponent(id);
}

async function readJsonFile(args: ParsedArgs, cwd: string): Promise<unknown> {
  const file = flag(args, 'file', 'f');
  if (!file) throw new UsageError('--file <path to JSON> is required');
  const text = await readFile(path.resolve(cwd, file), 'utf8');
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new UsageError(`${file} is not valid JSON: ${(err as Error).message}`);
  }
}

export async function challengeCommands(
  args: ParsedArgs,
  ctx: ChallengeCommandContext,
): Promise<CommandOutcome> {
  const print = ctx.print ?? ((line: string) => console.log(line));
  const printError = ctx.printError ?? ((line: string) => console.error(line));
  const positionals = args._[0] === 'challenges' ? args._.slice(1) : args._;
  const base = `${ctx.baseUrl.replace(/\/+$/, '')}/api/v1/admin/challenges`;

  const call = async (method: string, url: string, body?: unknown): Promise<CommandOutcome> => {
    const res = await fetch(url, {
      method,
      headers: {
        authorization: `Bearer ${ctx.adminJwt}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: { data?: unknown; pagination?: unknown; error?: { code?: string; message?: string } } | null =
      null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      /* not JSON */
    }
    if (!res.ok) {
      const err = parsed?.error;
      printError(`error: ${res.status} ${err?.code ?? ''}: ${err?.message ?? text}`.replace(/ :/, ':'));
      return { exitCode: 1, result: parsed };
    }
    if (args.json) {
      print(
        JSON.stringify(
          parsed?.pagination ? { data: parsed.data, pagination: parsed.pagination } : parsed?.data,
          null,
          2,
        ),
      );
    } else if (Array.isArray(parsed?.data)) {
      const p = parsed.pagination as { total?: number; page?: number; has_more?: boolean } | undefined;
      print(parsed.data.length ? challengeTable(parsed.data as ChallengeSummary[]) : 'no challenges');
      if (p?.has_more)
        printError(`page ${p.page} of ${p.total} challenges; next: --page ${(p.page ?? 1) + 1}`);
    } else if (parsed?.data) {
      print(challengeTable([parsed.data as ChallengeSummary]));
    }
    return { exitCode: 0, result: parsed?.data };
  };

  try {
    switch (positionals[0]) {
      case 'list': {
        const query = new URLSearchParams();
        const filters: [string, string | undefined][] = [
          ['status', flag(args, 'status')],
          ['category', flag(args, 'category')],
          ['weight_class', flag(args, 'weight-class', 'weight_class', 'weightClass')],
          ['format', flag(args, 'format')],
          ['page', flag(args, 'page')],
          ['limit', flag(args, 'limit')],
        ];
        for (const [key, value] of filters) if (value !== undefined) query.set(key, value);
        const qs = query.toString();
        return await call('GET', qs ? `${base}?${qs}` : base);
      }
      case 'get':
        return await call('GET', `${base}/${requireId(positionals)}`);
      case 'create':
        return await call('POST', base, await readJsonFile(args, ctx.cwd ?? process.cwd()));
      case 'update':
        return await call(
          'PATCH',
          `${base}/${requireId(positionals)}`,
          await readJsonFile(args, ctx.cwd ?? process.cwd()),
        );
      case 'publish':
      case 'retire':
        return await call('POST', `${base}/${requireId(positionals)}/${positionals[0]}`);
      case 'quarantine': {
        const id = requireId(positionals);
        const reason = flag(args, 'reason');
        if (!reason) throw new UsageError('quarantine needs --reason <text>');
        return await call('POST', `${base}/${id}/quarantine`, { reason });
      }
      default:
        throw new UsageError(
          positionals[0] ? `unknown command "${positionals[0]}"` : 'a command is required',
        );
    }
  } catch (err) {
    if (err instanceof UsageError) {
      printError(`error: ${err.message}\n${CHALLENGE_COMMANDS_USAGE}`);
      return { exitCode: 2 };
    }
    printError(`error: ${(err as Error).message}`);
    return { exitCode: 1 };
  }
}
