/**
 * A small command registry for the operator CLI (no framework): commands are plain objects,
 * grouped in modules under src/cli/commands/, registered in src/cli/index.ts.
 *
 * A command module exports `commands: CliCommand[]`:
 *
 *   export const commands: CliCommand[] = [{
 *     name: 'webhooks list',                       // one or more words
 *     summary: 'List webhook subscriptions',
 *     usage: 'webhooks list [--json]',
 *     options: { json: { type: 'boolean' } },      // node:util parseArgs options (strict)
 *     async run(args, ctx) {
 *       ctx.out(JSON.stringify((await ctx.api('GET', '/api/v1/webhooks')).data, null, 2));
 *     },
 *   }];
 *
 * Without `options`, arguments are parsed loosely (`--flag value`, `--flag=value`, `--switch`).
 * `run` returns an exit code (default 0) or throws CliError (1 = refused/failed, 2 = usage).
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { Config } from '../config';
import { suggest } from '../lib/suggest';

export { suggest };

export type CliOptions = NonNullable<ParseArgsConfig['options']>;
export type CliValue = string | boolean | Array<string | boolean> | undefined;

export interface CliArgs {
  /** Positional arguments after the command's name. */
  positionals: string[];
  /** Flags by name as typed (kebab-case), e.g. values['agent-id']. */
  values: Record<string, CliValue>;
}

export interface ApiCallOptions {
  /** Bearer credential for this call; default: ctx.adminJwt(). null sends none. */
  auth?: string | null;
  headers?: Record<string, string>;
  /** The body as text (a CSV download), not parsed as JSON; errors are reported the same way. */
  text?: boolean;
}

export interface CliContext {
  /** The service configuration (environment), loaded on first use. */
  readonly config: Config;
  env: NodeJS.ProcessEnv;
  /** API base URL: --base-url, else CCS_BASE_URL (alias API_BASE_URL), PUBLIC_BASE_URL, or http://HOST:PORT. */
  baseUrl: string;
  /** The folder the CLI runs in (submitted files keep their paths relative to it). */
  cwd(): string;
  /**
   * A session JWT with role admin for API calls: --jwt or API_JWT when given, else one minted
   * from AUTH_JWT_SECRET for the operator `cli|operator` (15 min; refused in production).
   */
  adminJwt(): Promise<string>;
  /**
   * A participant's credential: --token or CCS_TOKEN (an API token made on the web), else an
   * explicit --jwt / API_JWT. Never a minted one: a participant acts as themself.
   */
  token(): string;
  /** Whether --token or CCS_TOKEN was given. */
  readonly hasToken: boolean;
  /** Calls the API: the parsed body of a 2xx answer; anything else throws CliError (exit 1). */
  api<T = unknown>(method: string, path: string, body?: unknown, options?: ApiCallOptions): Promise<T>;
  /** stdout (results) and stderr (messages). */
  out(text: string): void;
  err(text: string): void;
}

export interface CliCommand {
  /** One or more words, e.g. 'jwt mint'; the longest name matching the leading arguments runs. */
  name: string;
  summary: string;
  /** Synopsis shown by `help <command>` and on usage errors. */
  usage: string;
  /** Strictly parsed flags (node:util parseArgs); omitted = loose parsing. */
  options?: CliOptions;
  /** With loose parsing: the flags the command knows (others are rejected with a suggestion). */
  flags?: readonly string[];
  run(args: CliArgs, ctx: CliContext): Promise<number | void>;
}

/** What src/cli/index.ts registers: a loader per command module. */
export type CliModuleLoader = () => Promise<{ commands: CliCommand[] }>;

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2 = 1,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

export const usageError = (message: string) => new CliError(message, 2);

/**
 * Takes the global options (--base-url, --jwt, --token, --json, -h/--help) out of argv wherever they stand (before or after the command's
 * name), so `--base-url X challenges list` and `challenges list --base-url X` mean the same.
 * Stops at `--`.
 */
export function extractGlobals(argv: string[]): { rest: string[]; globals: Record<string, CliValue> } {
  const rest: string[] = [];
  const globals: Record<string, CliValue> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      rest.push(...argv.slice(i));
      break;
    }
    if (arg === '-h' || arg === '--help') {
      globals.help = true;
      continue;
    }
    if (arg === '--json') {
      globals.json = true;
      continue;
    }
    const m = /^--(base-url|jwt|token)(?:=(.*))?$/s.exec(arg);
    if (!m) {
      rest.push(arg);
      continue;
    }
    const value = m[2] ?? argv[i + 1];
    if (m[2] === undefined) i += 1;
    if (value === undefined || value === '' || (m[2] === undefined && value.startsWith('--')))
      throw usageError(`--${m[1]} needs a value`);
    globals[m[1]] = value;
  }
  return { rest, globals };
}

/** Rejects flags the command does not know, naming the closest one (exit 2). */
function rejectUnknownFlags(rest: string[], known: readonly string[]): void {
  for (const arg of rest) {
    if (arg === '--') break;
    const long = /^--([^=]+)/.exec(arg);
    const name = long ? long[1] : /^-[A-Za-z]/.test(arg) ? arg.slice(1) : null;
    if (name === null || known.includes(name)) continue;
    const close = suggest(name, known);
    throw usageError(
      `unknown option ${long ? '--' : '-'}${name}${close ? `; did you mean --${close}?` : ''}`,
    );
  }
}

function isLoopback(baseUrl: string): boolean {
  try {
    const host = new URL(baseUrl).hostname.replace(/^\[|\]$/g, '');
    return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127\./.test(host);
  } catch {
    return false;
  }
}

/**
 * A minted development JWT is only ever sent to this machine: against another host it would act
 * on an instance the operator did not name (or fail there), so that needs an explicit --jwt.
 */
export function assertMintableFor(baseUrl: string): void {
  if (!isLoopback(baseUrl)) {
    throw new CliError(
      `refusing to mint a development JWT for ${baseUrl}, which is not this machine: pass --jwt (or API_JWT) with a JWT for that instance`,
    );
  }
}

export const DEV_OPERATOR_SUBJECT = 'cli|operator';

/** `12h`, `30m`, `7d`, `3600s`, `2w`: the spans jose accepts, kept to one simple form. */
export const EXPIRES_PATTERN = /^[1-9]\d*[smhdw]$/;

/**
 * Mints a development session JWT with the configured HS256 secret. Refused in production and
 * when an identity provider (AUTH_JWKS_URL) verifies JWTs, since the API would not accept it.
 */
export async function mintDevJwt(
  config: Config,
  claims: { sub: string; name?: string; role?: 'user' | 'admin' },
  expiresIn = '12h',
): Promise<string> {
  if (config.NODE_ENV === 'production') {
    throw new CliError(
      'refusing to mint a development JWT when NODE_ENV=production; use your identity provider (pass --jwt)',
    );
  }
  if (config.AUTH_JWKS_URL) {
    throw new CliError(
      'AUTH_JWKS_URL is set: the API verifies JWTs with the identity provider, so a minted JWT would be refused (pass --jwt)',
    );
  }
  if (!EXPIRES_PATTERN.test(expiresIn))
    throw usageError(`--expires must look like 30m, 12h or 7d (got "${expiresIn}")`);
  // Loaded here, not at start-up: most commands never mint (jose is the CLI's heaviest import).
  const { mintSessionJwt } = await import('../auth/jwt');
  return mintSessionJwt(
    config.AUTH_JWT_SECRET,
    { sub: claims.sub, name: claims.name, role: claims.role ?? 'user' },
    expiresIn,
    {
      issuer: config.AUTH_JWT_ISSUER,
      audience: config.AUTH_JWT_AUDIENCE,
    },
  );
}

/** `--a 1 --b=2 --c pos` → values {a:'1', b:'2', c:'pos'}; a flag followed by another flag (or nothing) is true. */
export function parseLoose(argv: string[]): CliArgs {
  const positionals: string[] = [];
  const values: Record<string, CliValue> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    const long = /^--([^=]+)(?:=(.*))?$/s.exec(arg);
    if (!long) {
      positionals.push(arg);
      continue;
    }
    const [, name, inline] = long;
    if (inline !== undefined) values[name] = inline;
    else if (i + 1 < argv.length && !argv[i + 1].startsWith('--')) values[name] = argv[++i];
    else values[name] = true;
  }
  return { positionals, values };
}

/** Longest registered name matching the leading words of argv. */
export function resolveCommand(
  commands: CliCommand[],
  argv: string[],
): { command: CliCommand; rest: string[] } | null {
  let best: { command: CliCommand; rest: string[] } | null = null;
  for (const command of commands) {
    const words = command.name.split(' ');
    if (
      words.every((w, i) => argv[i] === w) &&
      (!best || words.length > best.command.name.split(' ').length)
    ) {
      best = { command, rest: argv.slice(words.length) };
    }
  }
  return best;
}

function parseCommandArgs(command: CliCommand, rest: string[]): CliArgs {
  if (!command.options) {
    rejectUnknownFlags(rest, command.flags ?? []);
    return parseLoose(rest);
  }
  rejectUnknownFlags(rest, [
    ...Object.keys(command.options),
    ...Object.values(command.options).flatMap((o) => (o.short ? [o.short] : [])),
  ]);
  let parsed;
  try {
    parsed = parseArgs({ args: rest, options: command.options, allowPositionals: true, strict: true });
  } catch (err) {
    throw usageError((err as Error).message.replace(/\. To specify a positional argument.*$/s, ''));
  }
  return { positionals: parsed.positionals, values: { ...(parsed.values as Record<string, CliValue>) } };
}

export function helpText(commands: CliCommand[]): string {
  const width = Math.max(...commands.map((c) => c.name.length), 4) + 2;
  const lines = [...commands]
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((c) => `  ${c.name.padEnd(width)}${c.summary}`);
  return [
    'usage: npm run -s cli -- [global options] <command> [options]',
    '',
    'commands:',
    `  ${'help'.padEnd(width)}List commands, or show one command's usage: help <command>`,
    ...lines,
    '',
    'global options:',
    '  --base-url <url>   API address (default: CCS_BASE_URL (or API_BASE_URL), PUBLIC_BASE_URL or http://HOST:PORT)',
    '  --jwt <jwt>        session JWT for API calls (default: API_JWT, else a dev admin JWT minted from AUTH_JWT_SECRET,',
    '                     only for an API on this machine)',
    '  --token <token>    API token for the participant commands (default: CCS_TOKEN; make one on the web)',
    '  --json             print results as JSON',
    "  -h, --help         show a command's usage",
  ].join('\n');
}

export interface RunCliOptions {
  env?: NodeJS.ProcessEnv;
  /** Default: where the command was run (invocationDir). */
  cwd?: string;
  fetch?: typeof fetch;
  out?: (text: string) => void;
  err?: (text: string) => void;
}

/**
 * Where the person ran the command: `npm run cli` moves to the package's root and names the folder
 * it was called from in INIT_CWD, so `--file src/solution.ts` means the caller's file (and path).
 * Only for that script: INIT_CWD is inherited by everything an npm script starts, so a CLI that
 * another script (a bench, a test) spawns in a folder of its own reads from that folder.
 */
export const invocationDir = (env: NodeJS.ProcessEnv): string =>
  (env.npm_lifecycle_event === 'cli' && env.INIT_CWD) || process.cwd();

/** CCS_BASE_URL, or its older name API_BASE_URL (both CLIs read the same names: DESIGN). */
export const envBaseUrl = (env: NodeJS.ProcessEnv): string | undefined =>
  env.CCS_BASE_URL || env.API_BASE_URL || undefined;

function defaultBaseUrl(env: NodeJS.ProcessEnv, config: () => Config): string {
  const named = envBaseUrl(env);
  if (named) return named;
  const c = config();
  if (c.PUBLIC_BASE_URL) return c.PUBLIC_BASE_URL;
  const host = c.HOST === '0.0.0.0' || c.HOST === '::' ? '127.0.0.1' : c.HOST;
  return `http://${host.includes(':') ? `[${host}]` : host}:${c.PORT}`;
}

function errorText(status: number, body: unknown, text: string): string {
  const error = (body as { error?: unknown } | null)?.error;
  if (typeof error === 'string') return `${status}: ${error}`;
  if (error && typeof error === 'object') {
    const e = error as { code?: string; message?: string };
    return `${status} ${e.code ?? ''}: ${e.message ?? ''}`.replace(/ :/, ':');
  }
  return `${status}: ${text.slice(0, 500) || 'no body'}`;
}

/** Runs one CLI invocation; resolves to the process exit code. */
export async function runCli(
  argv: string[],
  commands: CliCommand[],
  options: RunCliOptions = {},
): Promise<number> {
  const env = options.env ?? process.env;
  const out = options.out ?? ((t: string) => process.stdout.write(t.endsWith('\n') ? t : `${t}\n`));
  const err = options.err ?? ((t: string) => process.stderr.write(t.endsWith('\n') ? t : `${t}\n`));
  const doFetch = options.fetch ?? fetch;

  const names = new Set<string>();
  for (const c of commands) {
    if (names.has(c.name) || c.name === 'help')
      throw new Error(`CLI command "${c.name}" is registered twice`);
    names.add(c.name);
  }

  let extracted: ReturnType<typeof extractGlobals>;
  try {
    extracted = extractGlobals(argv);
  } catch (e) {
    err(`error: ${(e as Error).message}`);
    return 2;
  }
  const { rest: commandArgv, globals } = extracted;

  if (commandArgv.length === 0 || commandArgv[0] === 'help') {
    const topic = commandArgv.slice(1).filter((a) => !a.startsWith('-'));
    if (topic.length > 0) {
      const found = resolveCommand(commands, topic);
      if (!found) {
        err(`unknown command "${topic.join(' ')}"; see: help`);
        return 2;
      }
      out(`${found.command.summary}\n\nusage: ${found.command.usage}`);
      return 0;
    }
    out(helpText(commands));
    return 0;
  }

  const found = resolveCommand(commands, commandArgv);
  if (!found) {
    const group = commands.filter((c) => c.name.split(' ')[0] === commandArgv[0]);
    const close = group.length
      ? undefined
      : (suggest(
          commandArgv.slice(0, 2).join(' '),
          commands.map((c) => c.name),
        ) ?? suggest(commandArgv[0], [...new Set(commands.map((c) => c.name.split(' ')[0]))]));
    err(
      `unknown command "${commandArgv.slice(0, 2).join(' ')}"${group.length ? `; did you mean: ${group.map((c) => c.name).join(', ')}` : close ? `; did you mean "${close}"?` : ''}; see: help`,
    );
    return 2;
  }
  const { command } = found;

  let config: Config | undefined;
  const getConfig = (): Config => {
    if (!config) {
      try {
        // Loaded on first use: commands that only call the API never pay for the config schema.
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        config = (require('../config') as typeof import('../config')).loadConfig(env);
      } catch (e) {
        throw new CliError((e as Error).message);
      }
    }
    return config;
  };

  try {
    if (globals.help) {
      out(`${command.summary}\n\nusage: ${command.usage}`);
      return 0;
    }
    const args = parseCommandArgs(command, found.rest);
    if (globals.json) args.values.json = true;
    const explicitJwt = (typeof globals.jwt === 'string' && globals.jwt) || env.API_JWT || undefined;
    const participantToken =
      (typeof globals.token === 'string' && globals.token) || env.CCS_TOKEN || undefined;
    let minted: Promise<string> | undefined;
    const baseUrlFlag = typeof globals['base-url'] === 'string' ? globals['base-url'] : undefined;
    let baseUrl: string | undefined;
    const ctx: CliContext = {
      get config() {
        return getConfig();
      },
      env,
      cwd: () => options.cwd ?? invocationDir(env),
      get baseUrl() {
        if (baseUrl === undefined) {
          baseUrl = (baseUrlFlag ?? defaultBaseUrl(env, getConfig)).replace(/\/+$/, '');
          // Say which instance a command acts on when the operator did not name one.
          if (!baseUrlFlag && !envBaseUrl(env))
            err(`using ${baseUrl} (the default; pass --base-url or set CCS_BASE_URL for another instance)`);
        }
        return baseUrl;
      },
      adminJwt() {
        if (explicitJwt) return Promise.resolve(explicitJwt);
        try {
          assertMintableFor(ctx.baseUrl);
        } catch (e) {
          return Promise.reject(e);
        }
        if (minted === undefined)
          // Never silently: the caller named no credential, so this acts as the development operator.
          err(
            `no CCS_TOKEN, --token or --jwt: acting as the development operator "${DEV_OPERATOR_SUBJECT}" (a JWT minted from AUTH_JWT_SECRET); set CCS_TOKEN to act as your agent`,
          );
        minted ??= mintDevJwt(
          getConfig(),
          { sub: DEV_OPERATOR_SUBJECT, name: 'CLI operator', role: 'admin' },
          '15m',
        );
        return minted;
      },
      hasToken: participantToken !== undefined,
      token() {
        const credential = participantToken ?? explicitJwt;
        if (!credential)
          throw new CliError(
            'this command needs an API token: pass --token or set CCS_TOKEN (make one on the web under /me)',
          );
        return credential;
      },
      async api(method, path, body, callOptions = {}) {
        const auth = callOptions.auth === undefined ? await ctx.adminJwt() : callOptions.auth;
        const headers: Record<string, string> = {
          accept: callOptions.text ? '*/*' : 'application/json',
          ...callOptions.headers,
        };
        if (auth) headers.authorization = `Bearer ${auth}`;
        if (body !== undefined) headers['content-type'] = 'application/json';
        let res: Response;
        try {
          res = await doFetch(`${ctx.baseUrl}${path}`, {
            method,
            headers,
            body: body === undefined ? undefined : JSON.stringify(body),
          });
        } catch (e) {
          throw new CliError(`cannot reach the API at ${ctx.baseUrl}: ${(e as Error).message}`);
        }
        const text = await res.text();
        if (res.ok && callOptions.text) return text as never;
        let parsed: unknown = text;
        try {
          parsed = text ? JSON.parse(text) : null;
        } catch {
          /* not JSON */
        }
        if (!res.ok) throw new CliError(`${method} ${path} failed: ${errorText(res.status, parsed, text)}`);
        return parsed as never;
      },
      out,
      err,
    };
    const code = await command.run(args, ctx);
    return typeof code === 'number' ? code : 0;
  } catch (e) {
    if (e instanceof CliError) {
      // One line: what was wrong and where the usage is, not the whole synopsis.
      err(`error: ${e.message}${e.exitCode === 2 ? ` (usage: help ${command.name})` : ''}`);
      return e.exitCode;
    }
    err(`error: ${(e as Error).message}`);
    return 1;
  }
}

/** Left-aligned columns under a header row, two spaces apart. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  return [header, ...rows]
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i]))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** An id as the API writes it (a UUID, any case). */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The positional argument at `index` as an id: absent or not a UUID is a usage error (exit 2). */
export function uuidPositional(args: CliArgs, what: string, index = 0): string {
  const value = args.positionals[index];
  if (!value) throw usageError(`${what} is required`);
  if (!UUID_PATTERN.test(value)) throw usageError(`"${value}" is not a ${what}`);
  return value;
}

/** Reads a string flag; `required` turns its absence into a usage error. */
export function stringFlag(args: CliArgs, name: string, required: true): string;
export function stringFlag(args: CliArgs, name: string, required?: false): string | undefined;
export function stringFlag(args: CliArgs, name: string, required = false): string | undefined {
  const value = args.values[name];
  if (typeof value === 'string' && value !== '') return value;
  if (required) throw usageError(`--${name} is required`);
  return undefined;
}

/**
 * Adapts a command group written as one function over loosely parsed arguments
 * (`{_: positionals, ...flags}`, `{baseUrl, adminJwt, print}` → `{exitCode}`), such as
 * src/cli/commands/challenges.ts, to a CliCommand named after the group.
 */
export function groupCommand(def: {
  name: string;
  summary: string;
  usage: string;
  /** Every flag the group's commands take (others are rejected with a suggestion). */
  flags: readonly string[];
  run: (
    args: { _: string[]; [flag: string]: unknown },
    ctx: {
      baseUrl: string;
      adminJwt: string;
      print?: (line: string) => void;
      printError?: (line: string) => void;
      cwd?: string;
    },
  ) => Promise<{ exitCode: number }>;
}): CliCommand {
  return {
    name: def.name,
    summary: def.summary,
    usage: def.usage.replace(/^usage:\s*/, ''),
    flags: [...def.flags, 'json'],
    async run(args, ctx) {
      const outcome = await def.run(
        { ...args.values, _: args.positionals },
        {
          baseUrl: ctx.baseUrl,
          adminJwt: await ctx.adminJwt(),
          print: ctx.out,
          printError: ctx.err,
          cwd: ctx.cwd(),
        },
      );
      return outcome.exitCode;
    },
  };
}
