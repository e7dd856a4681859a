/**
 * `matches list|get|watch|create|void` and `ratings` (src/cli/commands/matches.ts) against a fake API: which
 * route each view calls with which credential (participant token, operator JWT), and what it prints.
 */
import { runCli } from '../../../src/cli/framework';
import { loadCommands } from '../../../src/cli/index';
import { ratingChange } from '../../../src/cli/commands/matches';

const SECRET = 'unit-test-secret-of-enough-length';
const ENV = {
  NODE_ENV: 'development',
  AUTH_JWT_SECRET: SECRET,
  API_BASE_URL: 'http://127.0.0.1:3999',
  AUTH_TRUST_ROLE_CLAIM: '1',
} as NodeJS.ProcessEnv;

const A = '11111111-1111-4111-8111-111111111111';
const B = '22222222-2222-4222-8222-222222222222';
const M = '33333333-3333-4333-8333-333333333333';
const C = '44444444-4444-4444-8444-444444444444';

function match(status: string, withRatings = true) {
  const done = status === 'complete';
  return {
    id: M,
    challenge_id: C,
    weight_class_id: 'open',
    kind: 'bout',
    status,
    rated: true,
    reason: null,
    participants: [
      {
        agent_id: A,
        agent_name: 'alpha',
        seat: 1,
        submission_id: null,
        score: done ? 100 : null,
        rank: done ? 1 : null,
        outcome: done ? 'win' : null,
        rating_before: done && withRatings ? { mu: 25, sigma: 8.333, ordinal: 0.001 } : null,
        rating_after: done && withRatings ? { mu: 27.6, sigma: 8.1, ordinal: 3.3 } : null,
      },
      {
        agent_id: B,
        agent_name: 'beta',
        seat: 2,
        submission_id: null,
        score: done ? 0 : null,
        rank: done ? 2 : null,
        outcome: done ? 'loss' : null,
        rating_before: done && withRatings ? { mu: 25, sigma: 8.333, ordinal: 0.001 } : null,
        rating_after: done && withRatings ? { mu: 22.4, sigma: 8.1, ordinal: -1.9 } : null,
      },
    ],
    scheduled_at: '2026-01-01T00:00:00.000Z',
    started_at: '2026-01-01T00:00:00.100Z',
    ends_at: '2026-01-01T00:10:00.000Z',
    completed_at: done ? '2026-01-01T00:10:01.000Z' : null,
    result_id: done ? '55555555-5555-4555-8555-555555555555' : null,
  };
}

interface Call {
  url: string;
  method: string;
  auth: string | undefined;
  body?: unknown;
}

async function cli(argv: string[], respond: (url: string) => unknown, env: NodeJS.ProcessEnv = ENV) {
  const calls: Call[] = [];
  let out = '';
  let err = '';
  const fakeFetch = (async (url: string, init: RequestInit) => {
    const headers = init.headers as Record<string, string>;
    calls.push({
      url,
      method: String(init.method),
      auth: headers.authorization,
      ...(typeof init.body === 'string' ? { body: JSON.parse(init.body) } : {}),
    });
    const body = respond(url);
    if (body instanceof Response) return body;
    return new Response(JSON.stringify(body), { status: 200 });
  }) as unknown as typeof fetch;
  const code = await runCli(argv, await loadCommands(), {
    env,
    fetch: fakeFetch,
    out: (t) => (out += `${t}\n`),
    err: (t) => (err += `${t}\n`),
  });
  return { code, out, err, calls };
}

const paths = (calls: Call[]) => calls.map((c) => c.url.replace('http://127.0.0.1:3999', ''));

describe('matches list', () => {
  test("with a token and no challenge: the token's agent's matches, with a YOU column", async () => {
    const run = await cli(['matches', 'list', '--token', 'svc_tok'], (url) =>
      url.endsWith('/api/v1/agents')
        ? { data: [{ id: A, name: 'alpha' }] }
        : { data: [match('complete'), match('running')], pagination: { next_cursor: 'next1' } },
    );
    expect(run.code).toBe(0);
    expect(paths(run.calls)).toEqual(['/api/v1/agents', `/api/v1/agents/${A}/matches`]);
    expect(run.calls.every((c) => c.auth === 'Bearer svc_tok')).toBe(true);
    const lines = run.out.trim().split('\n');
    expect(lines[0]).toMatch(/^SCHEDULED\s+ID\s+STATUS\s+RATED\s+PARTICIPANTS\s+YOU$/);
    expect(lines[1]).toContain('alpha (win 100.00) vs beta (loss 0.00)');
    expect(lines[1]).toMatch(/win \+3\.30$/);
    expect(lines[2]).toMatch(/running\s+yes\s+alpha vs beta\s+playing$/);
    expect(run.err).toContain('more: --cursor next1');
  });

  test("a challenge's matches with filters, as the operator (minted JWT) by default", async () => {
    const run = await cli(
      ['matches', 'list', C, '--status', 'running', '--agent-id', B, '--limit', '5'],
      () => ({
        data: [],
        pagination: { next_cursor: null },
      }),
    );
    expect(run.code).toBe(0);
    expect(paths(run.calls)).toEqual([
      `/api/v1/challenges/${C}/matches?status=running&agent_id=${B}&limit=5`,
    ]);
    expect(run.calls[0].auth).toMatch(/^Bearer ey/);
    expect(run.out.trim()).toBe('no matches');
  });

  test('usage errors: nothing named, a bad status, a bad id', async () => {
    const none = await cli(['matches', 'list'], () => ({}));
    expect(none.code).toBe(2);
    expect(none.err).toMatch(/challenge id or --agent-id/);
    expect((await cli(['matches', 'list', C, '--status', 'done'], () => ({}))).code).toBe(2);
    expect((await cli(['matches', 'list', 'not-a-uuid'], () => ({}))).code).toBe(2);
  });
});

describe('matches get and watch', () => {
  test('get prints the participants side by side with the rating change', async () => {
    const run = await cli(['matches', 'get', M], () => ({ data: match('complete') }));
    expect(run.code).toBe(0);
    expect(paths(run.calls)).toEqual([`/api/v1/matches/${M}`]);
    expect(run.out).toContain(`${M}  complete  bout  rated`);
    expect(run.out).toMatch(/SEAT\s+AGENT\s+RANK\s+OUTCOME\s+SCORE\s+RATING BEFORE\s+RATING AFTER\s+CHANGE/);
    expect(run.out).toMatch(
      /1\s+alpha\s+1\s+win\s+100\.00\s+0\.00 \(μ 25\.00 σ 8\.33\)\s+3\.30 \(μ 27\.60 σ 8\.10\)\s+\+3\.30/,
    );
    expect(run.out).toMatch(/2\s+beta\s+2\s+loss\s+0\.00\s+.*-1\.90/);
  });

  test('a running match says its scores come once it is complete', async () => {
    const run = await cli(['matches', 'get', M, '--json'], () => ({ data: match('running') }));
    expect(JSON.parse(run.out).status).toBe('running');
    const text = await cli(['matches', 'get', M], () => ({ data: match('running') }));
    expect(text.out).toContain('appear once the match is complete');
  });

  test('watch follows the status until complete and the rating update, then prints the match', async () => {
    const answers = [match('scheduled'), match('running'), match('complete', false), match('complete')];
    let i = 0;
    const run = await cli(['matches', 'watch', M], () => ({
      data: answers[Math.min(i++, answers.length - 1)],
    }));
    expect(run.code).toBe(0);
    expect(run.err).toMatch(
      /status: scheduled\n.*status: running \(bout ends 2026-01-01T00:10:00.000Z\)\n.*status: complete\nwaiting for the rating update/s,
    );
    expect(run.out).toContain('+3.30');
    expect(run.calls).toHaveLength(4);
  }, 20_000);

  test('watch gives up after --timeout with exit 1', async () => {
    const run = await cli(['matches', 'watch', M, '--timeout', '1'], () => ({ data: match('running') }));
    expect(run.code).toBe(1);
    expect(run.err).toMatch(/still running after 1 s; look later: matches get/);
  }, 20_000);
});

describe('matches create and void (operators)', () => {
  test('create posts the exhibition with the named agents as the operator and prints the match', async () => {
    const run = await cli(['matches', 'create', C, '--agent-id', A, '--agent-id', B, '--rated'], () => ({
      data: match('scheduled'),
    }));
    expect(run.code).toBe(0);
    expect(run.calls).toEqual([
      expect.objectContaining({
        url: `http://127.0.0.1:3999/api/v1/admin/challenges/${C}/matches`,
        method: 'POST',
        body: { agent_ids: [A, B], rated: true },
      }),
    ]);
    expect(run.calls[0].auth).toMatch(/^Bearer ey/);
    expect(run.out).toContain(`${M}  scheduled  bout  rated`);
    expect(run.err).toContain(`matches watch ${M}`);
  });

  test('create: unrated by default; fewer than two agents or a bad id is a usage error, nothing sent', async () => {
    const unrated = await cli(['matches', 'create', C, '--agent-id', A, '--agent-id', B, '--json'], () => ({
      data: match('scheduled'),
    }));
    expect(unrated.calls[0].body).toEqual({ agent_ids: [A, B], rated: false });
    expect(JSON.parse(unrated.out).id).toBe(M);
    for (const argv of [
      ['matches', 'create', C, '--agent-id', A],
      ['matches', 'create', C, '--agent-id', A, '--agent-id', 'nope'],
      ['matches', 'create', '--agent-id', A, '--agent-id', B],
    ]) {
      const run = await cli(argv, () => ({}));
      expect({ argv, code: run.code, calls: run.calls.length }).toEqual({ argv, code: 2, calls: 0 });
    }
  });

  test('void posts the reason and prints the void match; the reason is required; a 409 is said, exit 1', async () => {
    const run = await cli(['matches', 'void', M, '--reason', 'agent crashed'], () => ({
      data: { ...match('void'), reason: 'agent crashed' },
    }));
    expect(run.code).toBe(0);
    expect(run.calls).toEqual([
      expect.objectContaining({
        url: `http://127.0.0.1:3999/api/v1/admin/matches/${M}/void`,
        method: 'POST',
        body: { reason: 'agent crashed' },
      }),
    ]);
    expect(run.out).toContain(`${M}  void (agent crashed)`);
    const noReason = await cli(['matches', 'void', M], () => ({}));
    expect(noReason.code).toBe(2);
    expect(noReason.err).toContain('--reason');
    expect(noReason.calls).toHaveLength(0);
    const done = await cli(
      ['matches', 'void', M, '--reason', 'late'],
      () =>
        new Response(
          JSON.stringify({ error: { code: 'CONFLICT', message: 'the match is already complete' } }),
          {
            status: 409,
          },
        ),
    );
    expect(done.code).toBe(1);
    expect(done.err).toContain('already complete');
  });
});

describe('ratings', () => {
  const rows = {
    data: [
      {
        rank: 1,
        agent_id: A,
        agent_name: 'alpha',
        mu: 27.6,
        sigma: 8.1,
        ordinal: 3.3,
        matches: 1,
        wins: 1,
        draws: 0,
        losses: 0,
        provisional: true,
        last_match_at: null,
      },
      {
        rank: 2,
        agent_id: B,
        agent_name: 'beta',
        mu: 22.4,
        sigma: 8.1,
        ordinal: -1.9,
        matches: 1,
        wins: 0,
        draws: 0,
        losses: 1,
        provisional: true,
        last_match_at: null,
      },
    ],
    pagination: { next_cursor: null },
  };

  test("participant view: the token's agent is marked and placed", async () => {
    const run = await cli(['ratings', '--weight-class', 'open', '--token', 'svc_tok'], (url) =>
      url.endsWith('/api/v1/agents') ? { data: [{ id: B, name: 'beta' }] } : rows,
    );
    expect(run.code).toBe(0);
    expect(paths(run.calls)).toEqual(['/api/v1/ratings?weight_class_id=open', '/api/v1/agents']);
    expect(run.out).toMatch(/\*\s+2\s+beta\s+-1\.90/);
    expect(run.out).toContain('you (beta): rank 2, ordinal -1.90, provisional (1 of 5 rated matches)');
  });

  test("operator view: --challenge-id reads the weight class and adds the matchmaker's last round", async () => {
    const run = await cli(['ratings', '--challenge-id', C], (url) => {
      if (url.endsWith(`/challenges/${C}`)) return { data: { weight_class_id: 'heavy' } };
      if (url.includes('/matchmaking'))
        return {
          data: {
            round: 7,
            ran_at: '2026-01-01T00:00:00.000Z',
            eligible: [{ agent_id: A }, { agent_id: B }],
            groups: [],
            waiting: [
              { agent_id: A, reason: 'hourly_cap' },
              { agent_id: B, reason: 'hourly_cap' },
            ],
            match_ids: [],
          },
        };
      return rows;
    });
    expect(run.code).toBe(0);
    expect(paths(run.calls)).toEqual([
      `/api/v1/challenges/${C}`,
      '/api/v1/ratings?weight_class_id=heavy',
      `/api/v1/admin/challenges/${C}/matchmaking`,
    ]);
    expect(run.out).toContain('weight class heavy');
    expect(run.out).toContain('matchmaker: round 7 at 2026-01-01T00:00:00.000Z');
    expect(run.out).toContain(`waiting: ${A} (hourly_cap)`);
  });

  test('a weight class or a challenge is required', async () => {
    const run = await cli(['ratings'], () => rows);
    expect(run.code).toBe(2);
    expect(run.err).toMatch(/--weight-class or --challenge-id is required/);
  });

  test('ratingChange: signed ordinal difference, or - before the update', () => {
    expect(ratingChange({ mu: 1, sigma: 1, ordinal: 1 }, { mu: 1, sigma: 1, ordinal: 0.5 })).toBe('-0.50');
    expect(ratingChange(null, null)).toBe('-');
  });
});
