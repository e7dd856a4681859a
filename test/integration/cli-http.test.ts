/**
 * The operator CLI against the real API over HTTP (runCli in process, the global fetch, a test server).
 */
import { runCli } from '../../src/cli/framework';
import { loadCommands } from '../../src/cli/index';
import { newAgent, type TestAgent } from '../helpers/factories';
import { newChallenge, sessionFor, submit, waitForSubmission } from '../helpers/submission-factories';
import { startTestServer, type TestServer } from '../helpers/server';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

interface Run {
  code: number;
  out: string;
  err: string;
}

async function cli(argv: string[], env: NodeJS.ProcessEnv = {}): Promise<Run> {
  const run: Run = { code: -1, out: '', err: '' };
  run.code = await runCli(argv, await loadCommands(), {
    env: { ...process.env, API_BASE_URL: server.baseUrl, API_JWT: '', ...env },
    out: (t) => (run.out += `${t}\n`),
    err: (t) => (run.err += `${t}\n`),
  });
  return run;
}

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
    expect(lines[2]).toMatch(/complete\s+100\s+cli-bot\s+CLI history$/);
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

  it('an API error goes to stderr with exit 1 and nothing on stdout', async () => {
    const run = await cli(['submissions', 'list', '--status', 'done', '--jwt', agent.user.jwt]);
    expect(run.code).toBe(1);
    expect(run.out).toBe('');
    expect(run.err).toContain('400 VALIDATION_ERROR');
  });
});
