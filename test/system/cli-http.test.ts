/**
 * The operator CLI against the real API over HTTP (runCli in process, the global fetch, a test server).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { eventually, newAgent, type TestAgent } from '../helpers/factories';
import { newChallenge, sessionFor, submit, waitForSubmission } from '../helpers/submission-factories';
import { runCli } from '../../src/cli/framework';
import { loadCommands } from '../../src/cli/index';
import { cliInProcess, type CliRun } from '../helpers/cli';
import { startTestServer, type TestServer } from '../helpers/server';

let server: TestServer;
const cli = (argv: string[], env?: NodeJS.ProcessEnv) => cliInProcess(server)(argv, env);
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe('submissions list', () => {
  let agent: TestAgent;
  const ids: string[] = [];

  beforeAll(async () => {
    agent = await newAgent(server, { name: 'cli-bot' });
    const challenge = await newChallenge(server, { title: 'CLI history' });
    const session = await sessionFor(server, agent, challenge);
    for (const content of ['The answer is 42', 'nothing']) {
      const res = await submit(server, agent.token, session, { content });
      ids.push(res.body.data.id);
    }
    for (const id of ids) await waitForSubmission(server, agent.token, id);
  });

  it('prints a table with a header row, newest first', async () => {
    const run = await cli(['submissions', 'list', '--jwt', agent.user.jwt]);
    expect(run.code).toBe(0);
    const lines = run.out.trim().split('\n');
    expect(lines[0].split(/\s+/)).toEqual(['SUBMITTED', 'ID', 'STATUS', 'SCORE', 'AGENT', 'CHALLENGE']);
    expect(lines.slice(1).map((l) => l.split(/\s+/)[1])).toEqual([ids[1], ids[0]]);
    expect(lines[2]).toMatch(/complete\s+100\.00\s+cli-bot\s+CLI history$/); // the one score format
  });

  it('--json prints the API page; --limit pages with the cursor named on stderr', async () => {
    const first = await cli(['submissions', 'list', '--limit', '1', '--json', '--jwt', agent.user.jwt]);
    expect(first.code).toBe(0);
    const page = JSON.parse(first.out);
    expect(page.data.map((s: { id: string }) => s.id)).toEqual([ids[1]]);
    expect(page.pagination.next_cursor).toEqual(expect.any(String));
    const second = await cli([
      'submissions',
      'list',
      '--limit',
      '1',
      '--cursor',
      page.pagination.next_cursor,
      '--json',
      '--jwt',
      agent.user.jwt,
    ]);
    expect(JSON.parse(second.out).data.map((s: { id: string }) => s.id)).toEqual([ids[0]]);
  });

  it("with the operator's JWT (the default) --challenge-id lists every owner's submissions", async () => {
    const other = await newAgent(server, { name: 'cli-rival' });
    const challenge = await newChallenge(server, { title: 'CLI operators' });
    const mine = await submit(server, agent.token, await sessionFor(server, agent, challenge), {
      content: 'The answer is 42',
    });
    const theirs = await submit(server, other.token, await sessionFor(server, other, challenge), {
      content: 'The answer is 41',
    });
    const run = await cli(['submissions', 'list', '--challenge-id', challenge, '--json']);
    expect(run.code).toBe(0);
    expect(
      JSON.parse(run.out).data.map((s: { id: string; agent_name: string }) => [s.id, s.agent_name]),
    ).toEqual([
      [theirs.body.data.id, 'cli-rival'],
      [mine.body.data.id, 'cli-bot'],
    ]);
    // A user's JWT still lists only that user's agents.
    const own = await cli([
      'submissions',
      'list',
      '--challenge-id',
      challenge,
      '--json',
      '--jwt',
      other.user.jwt,
    ]);
    expect(JSON.parse(own.out).data.map((s: { id: string }) => s.id)).toEqual([theirs.body.data.id]);
  });

  it('an API error goes to stderr with exit 1 and nothing on stdout', async () => {
    const run = await cli(['submissions', 'list', '--status', 'done', '--jwt', agent.user.jwt]);
    expect(run.code).toBe(1);
    expect(run.out).toBe('');
    expect(run.err).toContain('400 VALIDATION_ERROR');
  });
});

describe('the operator CLI behaves', () => {
  const category = `cli-${Date.now().toString(36)}`;
  let challengeId: string;

  beforeAll(async () => {
    challengeId = await newChallenge(server, { title: 'CLI table' });
    await server.deps.db.query('UPDATE challenges SET category = $2 WHERE id = $1', [challengeId, category]);
  });

  it('takes global options before or after the command', async () => {
    const before = await cli([
      '--base-url',
      server.baseUrl,
      '--json',
      'challenges',
      'list',
      '--category',
      category,
    ]);
    const after = await cli([
      'challenges',
      'list',
      '--category',
      category,
      '--json',
      `--base-url=${server.baseUrl}`,
    ]);
    expect(before.code).toBe(0);
    expect(after.code).toBe(0);
    expect(JSON.parse(before.out).data.map((c: { id: string }) => c.id)).toEqual([challengeId]);
    expect(JSON.parse(after.out)).toEqual(JSON.parse(before.out));
  });

  it('prints tables with a header row unless --json', async () => {
    const run = await cli(['challenges', 'list', '--category', category]);
    expect(run.code).toBe(0);
    const [header, row, ...more] = run.out.trim().split('\n');
    expect(header.split(/\s{2,}/)).toEqual(['ID', 'STATUS', 'CATEGORY', 'FORMAT', 'ENTRIES', 'TITLE']);
    expect(row.split(/\s{2,}/)).toEqual([challengeId, 'active', category, 'solo', '0', 'CLI table']);
    expect(more).toEqual([]);
  });

  it.each([
    [['challenges', 'list', '--staus', 'active'], 'unknown option --staus; did you mean --status?'],
    [['submissions', 'list', '--limt', '1'], 'unknown option --limt; did you mean --limit?'],
    [['leaderboard', 'show', '--csvv'], 'unknown option --csvv; did you mean --csv?'],
    [['submisions', 'list'], 'did you mean "submissions list"?'],
  ])('rejects %j with exit 2, a suggestion on stderr and nothing on stdout', async (argv, message) => {
    const run = await cli(argv);
    expect(run.code).toBe(2);
    expect(run.err).toContain(message);
    expect(run.out).toBe('');
  });

  it('puts API errors on stderr (exit 1), data on stdout', async () => {
    const missing = await cli(['challenges', 'get', '7b0c1f7e-9a1e-4c55-8f50-4a3a3b1f0d11']);
    expect(missing.code).toBe(1);
    expect(missing.out).toBe('');
    expect(missing.err).toContain('404 NOT_FOUND');
  });

  it('names the default base URL on stderr, and is quiet about one given explicitly', async () => {
    const port = new URL(server.baseUrl).port;
    const byDefault = await cli(['challenges', 'list', '--category', category, '--json'], {
      API_BASE_URL: '',
      PUBLIC_BASE_URL: '',
      HOST: '127.0.0.1',
      PORT: port,
    });
    expect(byDefault.code).toBe(0);
    expect(byDefault.err).toContain(`using http://127.0.0.1:${port} (the default`);
    expect(JSON.parse(byDefault.out).data).toHaveLength(1);
    const explicit = await cli(['challenges', 'list', '--category', category, '--json']);
    // Quiet about the base URL; it still says that it acts as the development operator (issue 29).
    expect(explicit.err).not.toContain('using http');
    expect(explicit.err).toMatch(/^no CCS_TOKEN, --token or --jwt: acting as the development operator/);
  });

  it('never mints an admin JWT for another host', async () => {
    const run = await cli(['challenges', 'list', '--base-url', 'https://challenges.example.com']);
    expect(run.code).toBe(1);
    expect(run.err).toContain('refusing to mint a development JWT for https://challenges.example.com');
    expect(run.out).toBe('');
    const asUser = await cli([
      'token',
      'list',
      '--sub',
      'someone',
      '--base-url',
      'https://challenges.example.com',
    ]);
    expect(asUser.code).toBe(1);
    expect(asUser.err).toContain('refusing to mint');
  });
});

describe('webhooks listen', () => {
  it('subscribes a local receiver, prints verified deliveries, forwards them, and unsubscribes on Ctrl-C', async () => {
    const agent = await newAgent(server, { name: 'listen-bot' });
    const forwarded: { body: string; signature: string | undefined }[] = [];
    const target = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        forwarded.push({ body, signature: req.headers['x-svc-signature'] as string | undefined });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    const forwardTo = `http://127.0.0.1:${(target.address() as AddressInfo).port}/hook`;

    const run: CliRun = { code: -1, out: '', err: '' };
    const done = runCli(
      [
        'webhooks',
        'listen',
        '--jwt',
        agent.user.jwt,
        '--events',
        'submission.received,submission.completed',
        '--forward-to',
        forwardTo,
        '--json',
      ],
      await loadCommands(),
      {
        env: { ...process.env, API_BASE_URL: server.baseUrl, API_JWT: '' },
        out: (t) => (run.out += `${t}\n`),
        err: (t) => (run.err += `${t}\n`),
      },
    ).then((code) => (run.code = code));
    const subscriptionId = await eventually(async () => /subscription ([0-9a-f-]{36})/.exec(run.err)?.[1]);
    expect(run.err).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+\/webhook/);

    const challenge = await newChallenge(server);
    const submitted = await submit(server, agent.token, await sessionFor(server, agent, challenge), {
      content: 'The answer is 42',
    });
    const lines = await eventually(async () => {
      const parsed = run.out
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l));
      return parsed.some((l) => l.event === 'submission.completed') ? parsed : undefined;
    }, 30_000);
    const completed = lines.find((l) => l.event === 'submission.completed');
    expect(completed).toMatchObject({ signature: 'verified', forwarded: 'forwarded → 204' });
    expect(JSON.stringify(completed.body)).toContain(submitted.body.data.id);
    expect(lines.every((l) => l.signature === 'verified')).toBe(true);
    // The forward target got the same bytes with the signature, so it can verify them itself.
    expect(
      forwarded.some((f) => f.body.includes(submitted.body.data.id) && f.signature?.startsWith('sha256=')),
    ).toBe(true);

    process.emit('SIGINT');
    await done;
    expect(run.code).toBe(0);
    // Removed with its deliveries (issue 29): each run leaves no inactive subscription behind.
    expect(run.err).toContain(`subscription ${subscriptionId} removed`);
    const sub = await server.request('GET', `/api/v1/webhooks/${subscriptionId}`, { auth: agent.user.jwt });
    expect(sub.status).toBe(404);
    const listed = await server.request('GET', '/api/v1/webhooks', { auth: agent.user.jwt });
    expect(listed.body.data.map((s: { id: string }) => s.id)).not.toContain(subscriptionId);
    const left = await server.deps.db.query(
      'SELECT count(*)::int AS n FROM webhook_deliveries WHERE subscription_id = $1',
      [subscriptionId],
    );
    expect(left.rows[0].n).toBe(0);
    await new Promise((r) => target.close(r));
  }, 60_000);

  it('names the setting when the API refuses a loopback receiver', async () => {
    const strict = await startTestServer({ WEBHOOK_ALLOW_PRIVATE: '0' });
    try {
      const user = await newAgent(strict);
      const res = await strict.request('POST', '/api/v1/webhooks', {
        auth: user.user.jwt,
        body: {
          url: 'http://127.0.0.1:9/hook',
          events: ['submission.completed'],
          secret: 'a-long-enough-secret',
        },
      });
      expect(res.status).toBe(400);
      expect(res.body.error.message).toContain('WEBHOOK_ALLOW_PRIVATE=1');
    } finally {
      await strict.close();
    }
  });
});
