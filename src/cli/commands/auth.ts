/**
 * Identity commands: development session JWTs and API tokens.
 *
 *   jwt mint --sub <id> [--name <name>] [--role admin|user] [--expires 12h]
 *   token create --scopes <s1,s2|all> [--name <name>] [--agent-id <uuid>] [--sandbox] [--expires-in-days <n>] [--sub <id>] [--json]
 *   token list [--sub <id>]
 *   token revoke <id> [--sub <id>]
 */
import { SCOPES, type Scope } from '../../auth/scope-list';
import {
  assertMintableFor,
  mintDevJwt,
  stringFlag,
  table,
  usageError,
  type CliArgs,
  type CliCommand,
  type CliContext,
} from '../framework';

function parseRole(value: string | undefined): 'user' | 'admin' {
  if (value === undefined) return 'user';
  if (value !== 'user' && value !== 'admin') throw usageError('--role must be admin or user');
  return value;
}

export function parseScopes(value: string): Scope[] {
  if (value.trim() === 'all') return [...SCOPES];
  const scopes = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (scopes.length === 0) throw usageError('--scopes needs at least one scope');
  const unknown = scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
  if (unknown.length > 0)
    throw usageError(`unknown scope(s): ${unknown.join(', ')}; known: ${SCOPES.join(', ')}`);
  return [...new Set(scopes)] as Scope[];
}

/** The session JWT a token command acts with: --sub mints one for that user (dev), else the context's. */
async function userJwt(args: CliArgs, ctx: CliContext): Promise<string> {
  const sub = stringFlag(args, 'sub');
  if (!sub) return ctx.adminJwt();
  assertMintableFor(ctx.baseUrl);
  return mintDevJwt(ctx.config, { sub, role: parseRole(stringFlag(args, 'role')) }, '15m');
}

const asUser = {
  sub: { type: 'string' },
  role: { type: 'string' },
} as const;

export const commands: CliCommand[] = [
  {
    name: 'jwt mint',
    summary: 'Print a development session JWT signed with AUTH_JWT_SECRET (refused in production)',
    usage: 'jwt mint --sub <user-id> [--name <display name>] [--role admin|user] [--expires 12h] [--json]',
    options: {
      json: { type: 'boolean' },
      sub: { type: 'string' },
      name: { type: 'string' },
      role: { type: 'string' },
      expires: { type: 'string' },
    },
    async run(args, ctx) {
      if (args.positionals.length > 0) throw usageError(`unexpected argument "${args.positionals[0]}"`);
      const sub = stringFlag(args, 'sub', true);
      if (sub.length > 255) throw usageError('--sub is at most 255 characters');
      const jwt = await mintDevJwt(
        ctx.config,
        { sub, name: stringFlag(args, 'name'), role: parseRole(stringFlag(args, 'role')) },
        stringFlag(args, 'expires') ?? '12h',
      );
      ctx.out(args.values.json ? JSON.stringify({ jwt }, null, 2) : jwt);
    },
  },
  {
    name: 'token create',
    summary: 'Create an API token through the API (POST /api/v1/auth/tokens); prints the plaintext once',
    usage:
      'token create --scopes <scope,scope|all> [--name <name>] [--agent-id <uuid>] [--sandbox] [--expires-in-days <n>] [--sub <user-id> [--role admin|user]] [--json]',
    options: {
      ...asUser,
      name: { type: 'string' },
      scopes: { type: 'string' },
      'agent-id': { type: 'string' },
      sandbox: { type: 'boolean' },
      'expires-in-days': { type: 'string' },
      json: { type: 'boolean' },
    },
    async run(args, ctx) {
      const scopes = parseScopes(stringFlag(args, 'scopes', true));
      const body: Record<string, unknown> = { name: stringFlag(args, 'name') ?? 'cli token', scopes };
      const days = stringFlag(args, 'expires-in-days');
      if (days !== undefined) {
        if (!/^[1-9]\d*$/.test(days)) throw usageError('--expires-in-days must be a positive integer');
        body.expires_in_days = Number(days);
      }
      const agentId = stringFlag(args, 'agent-id');
      if (agentId) body.agent_id = agentId;
      if (args.values.sandbox === true) body.sandbox = true;
      const created = await ctx.api<{ data: Record<string, unknown> & { token: string } }>(
        'POST',
        '/api/v1/auth/tokens',
        body,
        {
          auth: await userJwt(args, ctx),
        },
      );
      const t = created.data;
      if (args.values.json === true) {
        ctx.out(JSON.stringify(t, null, 2));
        return;
      }
      ctx.out(t.token);
      ctx.err(
        `created token ${String(t.id)} (${String(t.token_prefix)}…) for agent ${String(t.agent_id)}; scopes: ${scopes.join(', ')}; ` +
          `expires: ${t.expires_at ? String(t.expires_at) : 'never'}. The plaintext above is shown once.`,
      );
    },
  },
  {
    name: 'token list',
    summary: "List a user's non-revoked API tokens (never the plaintext)",
    usage: 'token list [--sub <user-id>] [--json]',
    options: { ...asUser, json: { type: 'boolean' } },
    async run(args, ctx) {
      const listed = await ctx.api<{ data: unknown[] }>('GET', '/api/v1/auth/tokens', undefined, {
        auth: await userJwt(args, ctx),
      });
      if (args.values.json) return ctx.out(JSON.stringify(listed.data, null, 2));
      const rows = listed.data as {
        id: string;
        name: string;
        token_prefix: string;
        agent_id: string;
        scopes: string[];
        expires_at: string | null;
      }[];
      ctx.out(
        rows.length
          ? table(
              ['ID', 'NAME', 'PREFIX', 'AGENT', 'EXPIRES', 'SCOPES'],
              rows.map((t) => [
                t.id,
                t.name,
                t.token_prefix,
                t.agent_id,
                t.expires_at ?? 'never',
                t.scopes.join(','),
              ]),
            )
          : 'no tokens',
      );
    },
  },
  {
    name: 'token revoke',
    summary: 'Revoke an API token by id',
    usage: 'token revoke <token-id> [--sub <user-id>] [--json]',
    options: { ...asUser, json: { type: 'boolean' } },
    async run(args, ctx) {
      const id = args.positionals[0];
      if (!id || args.positionals.length > 1) throw usageError('exactly one token id is required');
      const revoked = await ctx.api<{ data: { id: string; revoked_at: string } }>(
        'DELETE',
        `/api/v1/auth/tokens/${encodeURIComponent(id)}`,
        undefined,
        {
          auth: await userJwt(args, ctx),
        },
      );
      ctx.out(
        args.values.json
          ? JSON.stringify(revoked.data, null, 2)
          : `revoked ${revoked.data.id} at ${revoked.data.revoked_at}`,
      );
    },
  },
];
