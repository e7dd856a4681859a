import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { decodeJwt } from 'jose';
import { createSessionJwtVerifier } from '../../../src/auth/jwt';
import { SCOPES } from '../../../src/auth/scopes';
import { parseScopes } from '../../../src/cli/commands/auth';
import {
  DEV_OPERATOR_SUBJECT,
  parseLoose,
  resolveCommand,
  runCli,
  type CliCommand,
} from '../../../src/cli/framework';
import { COMMAND_MODULES, commandWord, loadCommands } from '../../../src/cli/index';
import { loadConfig } from '../../../src/config';

const SECRET = 'unit-test-secret-of-enough-length';
const ENV = {
  NODE_ENV: 'development',
  AUTH_JWT_SECRET: SECRET,
  API_BASE_URL: 'http://127.0.0.1:3999',
  // The dev CLI's --role admin only counts where the API is told to trust it (scripts/run.sh does).
  AUTH_TRUST_ROLE_CLAIM: '1',
} as NodeJS.ProcessEnv;

interface Run {
  code: number;
  out: string;
  err: string;
  calls: Array<{ url: string; method: string; headers: Record<string, string>; body: unknown }>;
}

async function cli(
  argv: string[],
  options: { env?: NodeJS.ProcessEnv; respond?: (url: string, init: RequestInit) => Response } = {},
): Promise<Run> {
  const run: Run = { code: -1, out: '', err: '', calls: [] };
  const fakeFetch = (async (url: string, init: RequestInit) => {
    run.calls.push({
      url,
      method: String(init.method),
      headers: init.headers as Record<string, string>,
      body: init.body ? JSON.parse(String(init.body)) : undefined,
    });
    return options.respond ? options.respond(url, init) : new Response('{"data":{}}', { status: 200 });
  }) as unknown as typeof fetch;
  // Group modules written against the global fetch see the fake too.
  const realFetch = globalThis.fetch;
  globalThis.fetch = fakeFetch;
  try {
    run.code = await runCli(argv, await loadCommands(), {
      env: options.env ?? ENV,
      fetch: fakeFetch,
      out: (t) => (run.out += `${t}\n`),
      err: (t) => (run.err += `${t}\n`),
    });
  } finally {
    globalThis.fetch = realFetch;
  }
  return run;
}

const verify = (jwt: string, env: NodeJS.ProcessEnv = ENV) =>
  createSessionJwtVerifier(loadConfig(env)).verify(jwt);

describe('CLI parsing and registry', () => {
  test('every registered module loads; command names are unique and documented', async () => {
    const commands = await loadCommands();
    expect(COMMAND_MODULES.length).toBeGreaterThanOrEqual(1);
    const names = commands.map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toEqual(expect.arrayContaining(['jwt mint', 'token create', 'challenges']));
    for (const c of commands) {
      expect(c.summary.length).toBeGreaterThan(5);
      expect(c.usage).toContain(c.name.split(' ')[0]);
    }
  });

  test("each module's words are its commands' first words; a call loads only the modules of its word", async () => {
    for (const module of COMMAND_MODULES) {
      const { commands } = await module.load();
      expect([...new Set(commands.map((c) => c.name.split(' ')[0]))].sort()).toEqual(
        [...module.words].sort(),
      );
    }
    expect(commandWord(['--base-url', 'http://x', 'results', 'get', 'id'])).toBe('results');
    expect(commandWord(['help', 'submit'])).toBeUndefined();
    expect(commandWord(['--token'])).toBeUndefined();
    const forResults = (await loadCommands(COMMAND_MODULES, 'results')).map((c) => c.name);
    expect(forResults).toContain('results get');
    expect(forResults).not.toContain('play');
    // Two modules add `matches …` commands: both load.
    const forMatches = (await loadCommands(COMMAND_MODULES, 'matches')).map((c) => c.name);
    expect(forMatches).toEqual(expect.arrayContaining(['matches get', 'matches replay']));
    // A word no module has loads them all, so the error can suggest the nearest name.
    expect((await loadCommands(COMMAND_MODULES, 'sumbit')).length).toBe((await loadCommands()).length);
  });

  test('the longest matching name wins; loose parsing reads --flag value, --flag=value and switches', () => {
    const noop = async () => undefined;
    const commands: CliCommand[] = [
      { name: 'token', summary: 'group', usage: 'token', run: noop },
      { name: 'token create', summary: 'create', usage: 'token create', run: noop },
    ];
    expect(resolveCommand(commands, ['token', 'create', '--x'])).toMatchObject({
      command: { name: 'token create' },
      rest: ['--x'],
    });
    expect(resolveCommand(commands, ['token', 'list'])).toMatchObject({
      command: { name: 'token' },
      rest: ['list'],
    });
    expect(resolveCommand(commands, ['nope'])).toBeNull();
    expect(
      parseLoose([
        'list',
        '--status',
        'active',
        '--limit=5',
        '--dry-run',
        '--reason',
        'two words',
        'x',
        '--',
        '--raw',
      ]),
    ).toEqual({
      positionals: ['list', 'x', '--raw'],
      values: { status: 'active', limit: '5', 'dry-run': true, reason: 'two words' },
    });
  });

  test('help lists every command; help <command> shows its usage', async () => {
    const all = await cli(['help']);
    expect(all.code).toBe(0);
    for (const c of await loadCommands()) expect(all.out).toContain(c.name);
    const one = await cli(['help', 'jwt', 'mint']);
    expect(one.code).toBe(0);
    expect(one.out).toContain('usage: jwt mint --sub');
    expect((await cli([])).out).toContain('commands:');
    expect((await cli(['jwt', 'mint', '--help'])).out).toContain('usage: jwt mint');
  });

  test('unknown commands and flags are usage errors (exit 2)', async () => {
    const unknown = await cli(['frobnicate']);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain('unknown command');
    const partial = await cli(['token']);
    expect(partial.code).toBe(2);
    expect(partial.err).toContain('token create');
    const badFlag = await cli(['jwt', 'mint', '--sub', 'a', '--bogus']);
    expect(badFlag.code).toBe(2);
    expect(badFlag.err).toMatch(/bogus/);
    // One line, naming where the usage is, never the whole help.
    expect(badFlag.err.trim().split('\n')).toEqual(['error: unknown option --bogus (usage: help jwt mint)']);
    const typo = await cli(['jwt', 'mint', '--sbu', 'a']);
    expect(typo.err.trim()).toBe('error: unknown option --sbu; did you mean --sub? (usage: help jwt mint)');
    const missing = await cli(['jwt', 'mint']);
    expect(missing.code).toBe(2);
    expect(missing.err).toContain('--sub is required');
  });

  test('scopes: a comma list of known scopes, or all', () => {
    expect(parseScopes('challenge:read, submission:create,challenge:read')).toEqual([
      'challenge:read',
      'submission:create',
    ]);
    expect(parseScopes('all')).toEqual([...SCOPES]);
    expect(() => parseScopes('challenge:read,root')).toThrow(/unknown scope\(s\): root/);
    expect(() => parseScopes(',')).toThrow(/at least one/);
  });
});

describe('jwt mint', () => {
  test('prints only a JWT that the API verifier accepts, with the given claims and a 12 h default expiry', async () => {
    const run = await cli(['jwt', 'mint', '--sub', 'user-42', '--name', 'Ada', '--role', 'admin']);
    expect(run.code).toBe(0);
    const jwt = run.out.trim();
    expect(jwt.split('.')).toHaveLength(3);
    expect(await verify(jwt)).toEqual({ sub: 'user-42', name: 'Ada', role: 'admin' });
    const { exp, iat } = decodeJwt(jwt);
    expect(exp! - iat!).toBe(12 * 3600);
    expect(run.err).toBe('');
  });

  test('--expires and the default role', async () => {
    const run = await cli(['jwt', 'mint', '--sub', 'u', '--expires', '30m']);
    const claims = decodeJwt(run.out.trim());
    expect(claims.exp! - claims.iat!).toBe(1800);
    expect((await verify(run.out.trim())).role).toBe('user');
    expect((await cli(['jwt', 'mint', '--sub', 'u', '--expires', 'soon'])).code).toBe(2);
    expect((await cli(['jwt', 'mint', '--sub', 'u', '--role', 'root'])).code).toBe(2);
  });

  test('honours the configured issuer and audience; a JWT signed for another secret is refused', async () => {
    const env = { ...ENV, AUTH_JWT_ISSUER: 'https://issuer.test', AUTH_JWT_AUDIENCE: 'challenges' };
    const run = await cli(['jwt', 'mint', '--sub', 'u'], { env });
    expect(await verify(run.out.trim(), env)).toMatchObject({ sub: 'u' });
    await expect(
      verify(run.out.trim(), { ...env, AUTH_JWT_SECRET: 'some-other-secret-value' }),
    ).rejects.toThrow();
  });

  test('is refused in production and when an identity provider verifies JWTs', async () => {
    const production = {
      NODE_ENV: 'production',
      AUTH_JWT_SECRET: 'a-production-secret-value',
      WEBHOOK_SECRET_KEY: 'a-production-webhook-key',
    };
    const refused = await cli(['jwt', 'mint', '--sub', 'u'], { env: production as NodeJS.ProcessEnv });
    expect(refused.code).toBe(1);
    expect(refused.out).toBe('');
    expect(refused.err).toContain('production');
    const jwks = await cli(['jwt', 'mint', '--sub', 'u'], {
      env: { ...ENV, AUTH_JWKS_URL: 'https://idp.test/.well-known/jwks.json' },
    });
    expect(jwks.code).toBe(1);
    expect(jwks.err).toContain('AUTH_JWKS_URL');
  });
});

describe('token create', () => {
  const created = {
    data: {
      id: 't-1',
      name: 'ci',
      token: 'svc_sk_live_plaintext',
      token_prefix: 'svc_sk_live_plai',
      scopes: ['challenge:read'],
      agent_id: 'a-1',
      expires_at: null,
    },
  };

  test('calls POST /api/v1/auth/tokens with a session JWT and prints the plaintext alone on stdout', async () => {
    const run = await cli(
      [
        'token',
        'create',
        '--scopes',
        'challenge:read,submission:create',
        '--name',
        'ci',
        '--expires-in-days',
        '30',
        '--sandbox',
      ],
      {
        respond: () => new Response(JSON.stringify(created), { status: 201 }),
      },
    );
    expect(run.code).toBe(0);
    expect(run.out).toBe('svc_sk_live_plaintext\n');
    expect(run.err).toContain('t-1');
    expect(run.calls).toHaveLength(1);
    const call = run.calls[0];
    expect(call.method).toBe('POST');
    expect(call.url).toBe('http://127.0.0.1:3999/api/v1/auth/tokens');
    expect(call.body).toEqual({
      name: 'ci',
      scopes: ['challenge:read', 'submission:create'],
      expires_in_days: 30,
      sandbox: true,
    });
    // By default the operator's dev admin JWT.
    expect(await verify(call.headers.authorization.replace(/^Bearer /, ''))).toMatchObject({
      sub: DEV_OPERATOR_SUBJECT,
      role: 'admin',
    });
  });

  test('--sub acts as that user, --jwt passes a JWT through, --base-url targets another API, --json prints the record', async () => {
    const asUser = await cli(['token', 'create', '--scopes', 'all', '--sub', 'github|7', '--json'], {
      respond: () => new Response(JSON.stringify(created), { status: 201 }),
    });
    expect(asUser.code).toBe(0);
    expect(JSON.parse(asUser.out)).toEqual(created.data);
    expect(asUser.calls[0].body).toMatchObject({ scopes: [...SCOPES] });
    expect(await verify(asUser.calls[0].headers.authorization.slice(7))).toMatchObject({
      sub: 'github|7',
      role: 'user',
    });

    const passed = await cli(
      [
        'token',
        'create',
        '--scopes',
        'challenge:read',
        '--jwt',
        'given.jwt.value',
        '--base-url',
        'https://prod.example/',
      ],
      {
        respond: () => new Response(JSON.stringify(created), { status: 201 }),
      },
    );
    expect(passed.calls[0].headers.authorization).toBe('Bearer given.jwt.value');
    expect(passed.calls[0].url).toBe('https://prod.example/api/v1/auth/tokens');
  });

  test("an API refusal exits 1 with the API's code and message", async () => {
    const run = await cli(['token', 'create', '--scopes', 'challenge:read'], {
      respond: () =>
        new Response(
          JSON.stringify({
            error: {
              code: 'TOKEN_LIMIT_REACHED',
              message: 'at most 25 active API tokens',
              request_id: 'req_1',
            },
          }),
          { status: 400 },
        ),
    });
    expect(run.code).toBe(1);
    expect(run.out).toBe('');
    expect(run.err).toContain('400 TOKEN_LIMIT_REACHED: at most 25 active API tokens');
  });

  test('usage errors never call the API', async () => {
    const noScopes = await cli(['token', 'create']);
    expect(noScopes.code).toBe(2);
    expect(noScopes.calls).toHaveLength(0);
    const badDays = await cli(['token', 'create', '--scopes', 'challenge:read', '--expires-in-days', '-3']);
    expect(badDays.code).toBe(2);
    expect(badDays.calls).toHaveLength(0);
  });
});

describe('group modules', () => {
  test('challenges (adapted group command) gets the base URL, an admin JWT and loose flags', async () => {
    const run = await cli(['challenges', 'list', '--status', 'active', '--limit=5', '--json'], {
      respond: () =>
        new Response(
          JSON.stringify({ data: [], pagination: { total: 0, page: 1, limit: 5, has_more: false } }),
          { status: 200 },
        ),
    });
    expect(run.code).toBe(0);
    const url = new URL(run.calls[0].url);
    expect(`${url.origin}${url.pathname}`).toBe('http://127.0.0.1:3999/api/v1/admin/challenges');
    expect(Object.fromEntries(url.searchParams)).toEqual({ status: 'active', limit: '5' });
    expect(await verify(run.calls[0].headers.authorization.slice(7))).toMatchObject({ role: 'admin' });
    expect(JSON.parse(run.out)).toMatchObject({ data: [] });
  });
});

describe('files are read from where the person ran the command', () => {
  // `npm run -s cli -- submit … --file src/solution.ts` runs in the package's root; npm names the
  // caller's folder in INIT_CWD, and the file (and its path as the judge sees it) comes from there.
  test('submit reads src/solution.ts under INIT_CWD and sends it with that relative path', async () => {
    const project = await mkdtemp(path.join(os.tmpdir(), 'ccs-cli-project-'));
    await mkdir(path.join(project, 'src'));
    await writeFile(path.join(project, 'src', 'solution.ts'), 'export const reverse = (s: string) => s;\n');
    try {
      const run = await cli(
        [
          'submit',
          '00000000-0000-4000-8000-00000000c006',
          '--file',
          'src/solution.ts',
          '--token',
          'svc_sk_x',
        ],
        {
          env: { ...ENV, INIT_CWD: project, npm_lifecycle_event: 'cli' },
          respond: (url, init) => {
            const body = url.endsWith('/sessions')
              ? { data: { session_id: 's-1' } }
              : init.method === 'POST'
                ? { data: { id: 'sub-1', submission_status: 'pending' } }
                : {
                    data: {
                      judge_public: { kind: 'tests', languages: ['typescript'], entry: 'src/solution.ts' },
                    },
                  };
            return new Response(JSON.stringify(body), { status: init.method === 'POST' ? 201 : 200 });
          },
        },
      );
      // What is sent is listed (issue 40), under the path it is sent with.
      expect(run.err).toBe(
        'sending 1 file, all compiled as one program (entry: src/solution.ts):\n  src/solution.ts  (entry)\n',
      );
      expect(run.code).toBe(0);
      const submitted = run.calls.find((c) => c.url.endsWith('/sessions/s-1/submissions'));
      expect(submitted?.body).toMatchObject({
        files: [{ path: 'src/solution.ts', content: 'export const reverse = (s: string) => s;\n' }],
      });
    } finally {
      await rm(project, { recursive: true, force: true });
    }
  });

  test('submit --dir . from the project root sends every file at its path in the project and lists them', async () => {
    const project = await mkdtemp(path.join(os.tmpdir(), 'ccs-cli-project-'));
    await mkdir(path.join(project, 'lib'));
    await mkdir(path.join(project, '.git'));
    await mkdir(path.join(project, 'node_modules'));
    await writeFile(path.join(project, 'main.py'), 'from lib.adder import add\n');
    await writeFile(path.join(project, 'lib', 'adder.py'), 'def add(a, b): return a + b\n');
    await writeFile(path.join(project, '.git', 'HEAD'), 'ref: refs/heads/main\n');
    await writeFile(path.join(project, 'node_modules', 'x.js'), '');
    try {
      const run = await cli(
        ['submit', '00000000-0000-4000-8000-00000000c006', '--dir', '.', '--token', 'svc_sk_x'],
        {
          env: { ...ENV, INIT_CWD: project, npm_lifecycle_event: 'cli' },
          respond: (url, init) => {
            const body = url.endsWith('/sessions')
              ? { data: { session_id: 's-1' } }
              : init.method === 'POST'
                ? { data: { id: 'sub-1', submission_status: 'pending' } }
                : { data: { judge_public: { kind: 'program', languages: ['python'] } } };
            return new Response(JSON.stringify(body), { status: init.method === 'POST' ? 201 : 200 });
          },
        },
      );
      expect(run.code).toBe(0);
      expect(run.err).toBe(
        'sending 2 files from ., all compiled as one program (entry: main.py):\n  lib/adder.py\n  main.py  (entry)\n',
      );
      const submitted = run.calls.find((c) => c.url.endsWith('/sessions/s-1/submissions'));
      expect(submitted?.body).toEqual({
        content: '',
        files: [
          { path: 'lib/adder.py', content: 'def add(a, b): return a + b\n' },
          { path: 'main.py', content: 'from lib.adder import add\n' },
        ],
      });
    } finally {
      await rm(project, { recursive: true, force: true });
    }
  });

  test('an INIT_CWD inherited from another npm script is not where the person ran the CLI', async () => {
    const { invocationDir } = await import('../../../src/cli/framework');
    expect(invocationDir({ INIT_CWD: '/somewhere', npm_lifecycle_event: 'cli' })).toBe('/somewhere');
    expect(invocationDir({ INIT_CWD: '/somewhere', npm_lifecycle_event: 'bench' })).toBe(process.cwd());
    expect(invocationDir({})).toBe(process.cwd());
  });
});
