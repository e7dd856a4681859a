/**
 * Fixtures made through the public API (as a real client would): users (dev session JWTs),
 * agents, API tokens, challenges (operator API) and webhook subscriptions; and, for boards too
 * large to build request by request, one set-based seeding of a leaderboard.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mintSessionJwt } from '../../src/auth/jwt';
import { SCOPES } from '../../src/auth/scopes';
import type { Client } from 'pg';
import type { ApiClient } from './http';

export const DEV_JWT_SECRET = 'dev-secret-change-me';

export interface BenchUser {
  subject: string;
  jwt: string;
}

export async function newUser(
  role: 'user' | 'admin' = 'user',
  secret = DEV_JWT_SECRET,
  options: { subject?: string; issuer?: string; audience?: string } = {},
): Promise<BenchUser> {
  const subject = options.subject ?? `bench|${randomUUID()}`;
  return {
    subject,
    jwt: await mintSessionJwt(
      secret,
      { sub: subject, name: role === 'admin' ? 'Operator' : 'Bench User', role },
      '24h',
      { issuer: options.issuer, audience: options.audience },
    ),
  };
}

export interface BenchAgent {
  user: BenchUser;
  agentId: string;
  name: string;
  /** API tokens acting as this agent (several, so load stays inside 200/min or 30/min per token). */
  tokens: string[];
}

/** An agent of `user` with `tokenCount` API tokens (all scopes). Token creation is 10/hour per user. */
export async function newAgent(
  api: ApiClient,
  user: BenchUser,
  options: { name?: string; tokenCount?: number } = {},
): Promise<BenchAgent> {
  const name = options.name ?? `agent-${randomBytes(4).toString('hex')}`;
  const agent = await api.expect(201, 'POST', '/api/v1/agents', {
    auth: user.jwt,
    body: { name, model_name: 'bench-model' },
  });
  const tokens: string[] = [];
  for (let i = 0; i < (options.tokenCount ?? 1); i++) {
    const token = await api.expect(201, 'POST', '/api/v1/auth/tokens', {
      auth: user.jwt,
      body: { name: `bench token ${i}`, scopes: [...SCOPES], agent_id: agent.data.id },
    });
    tokens.push(token.data.token);
  }
  return { user, agentId: agent.data.id, name, tokens };
}

/** Rubric: 60 for containing "42", +20 for ≤ 200 characters, +20 for starting with "The". */
export const BENCH_RUBRIC = {
  kind: 'rubric',
  criteria: [
    { name: 'answer', weight: 3, check: { type: 'contains', value: '42' } },
    { name: 'concise', weight: 1, check: { type: 'length', max: 200 } },
    { name: 'style', weight: 1, check: { type: 'regex', pattern: '^The' } },
  ],
};

/** Creates and publishes a challenge through the operator API; returns its id. */
export async function newActiveChallenge(
  api: ApiClient,
  admin: BenchUser,
  overrides: Record<string, unknown> = {},
): Promise<string> {
  const draft = await api.expect(201, 'POST', '/api/v1/admin/challenges', {
    auth: admin.jwt,
    body: {
      title: `Bench challenge ${randomBytes(3).toString('hex')}`,
      description: 'Answer the question.',
      category: 'bench',
      format: 'solo',
      weight_class_id: 'open',
      time_limit_minutes: 240,
      max_submissions_per_session: 1000,
      max_submissions_per_day: null,
      judge: BENCH_RUBRIC,
      ...overrides,
    },
  });
  await api.expect(200, 'POST', `/api/v1/admin/challenges/${draft.data.id}/publish`, { auth: admin.jwt });
  return draft.data.id;
}

export const newIdempotencyKey = (): string => randomBytes(32).toString('hex');

/** Opens (or returns) the agent's session in a challenge. */
export async function openSession(api: ApiClient, token: string, challengeId: string): Promise<string> {
  const res = await api.expect([200, 201], 'POST', `/api/v1/challenges/${challengeId}/sessions`, {
    auth: token,
  });
  return res.data.session_id;
}

export async function createWebhook(
  api: ApiClient,
  auth: string,
  url: string,
  events: string[],
  secret: string,
): Promise<string> {
  const res = await api.expect(201, 'POST', '/api/v1/webhooks', { auth, body: { url, events, secret } });
  return res.data.id;
}

/** Content scoring between 0 and 100 under BENCH_RUBRIC, varied by `i`. */
export function submissionContent(i: number): string {
  switch (i % 4) {
    case 0:
      return `The answer is 42 (#${i})`; // 100
    case 1:
      return `answer: 42 (#${i})`; // 80
    case 2:
      return `The answer is unknown (#${i})`; // 40
    default:
      return `no idea (#${i}) ${'.'.repeat(220)}`; // 0
  }
}

/**
 * `count` API tokens with every scope, over as many fresh users as token creation's limit needs
 * (10 per user per hour); each user's first token creates its agent. For read benchmarks whose
 * load must stay inside 200 requests/min per token.
 */
export async function manyTokens(api: ApiClient, count: number, concurrency = 4): Promise<string[]> {
  const perUser = 10;
  const users = Math.ceil(count / perUser);
  const tokens: string[] = [];
  let next = 0;
  const work = async () => {
    while (next < users) {
      next += 1;
      const user = await newUser();
      const agent = await api.expect(201, 'POST', '/api/v1/agents', {
        auth: user.jwt,
        body: { name: `reader-${randomBytes(4).toString('hex')}` },
      });
      for (let i = 0; i < perUser && tokens.length < count; i++) {
        const res = await api.expect(201, 'POST', '/api/v1/auth/tokens', {
          auth: user.jwt,
          body: { name: `reader ${i}`, scopes: [...SCOPES], agent_id: agent.data.id },
        });
        tokens.push(res.data.token);
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, work));
  return tokens.slice(0, count);
}

/**
 * Seeds a board of `agents` agents of one owner into a challenge, in set-based statements: entry,
 * closed session, two submissions and results each (scores on a coarse grid, so many ties are
 * broken by time), and the leaderboard rows the judge maintains, computed for all agents at once.
 */
export async function seedLeaderboardBoard(
  db: Pick<Client, 'query'>,
  challengeId: string,
  ownerUserId: string,
  agents: number,
  namePrefix: string,
): Promise<void> {
  await db.query(
    `INSERT INTO agents (owner_user_id, name) SELECT $1, $3 || g FROM generate_series(1, $2) g`,
    [ownerUserId, agents, namePrefix],
  );
  await db.query(
    `INSERT INTO entries (challenge_id, agent_id, status) SELECT $1, id, 'judged' FROM agents WHERE owner_user_id = $2`,
    [challengeId, ownerUserId],
  );
  await db.query(
    `INSERT INTO sessions (challenge_id, agent_id, entry_id, status) SELECT challenge_id, agent_id, id, 'closed' FROM entries WHERE challenge_id = $1`,
    [challengeId],
  );
  await db.query(
    `INSERT INTO submissions (session_id, challenge_id, agent_id, content, status, submitted_at, workflow_started_at)
     SELECT s.id, s.challenge_id, s.agent_id, 'bench', 'complete', now() - random() * interval '7 days', now()
       FROM sessions s, generate_series(1, 2) WHERE s.challenge_id = $1`,
    [challengeId],
  );
  await db.query(
    `INSERT INTO results (submission_id, challenge_id, agent_id, run, final_score, result_state, judge, breakdown, submitted_at)
     SELECT id, challenge_id, agent_id, 0, round((random() * 40)::numeric) * 2.5, 'scored', 'rubric', '{}', submitted_at
       FROM submissions WHERE challenge_id = $1`,
    [challengeId],
  );
  // What the judge's per-agent refresh computes, for all agents at once.
  await db.query(
    `INSERT INTO leaderboard_entries (challenge_id, agent_id, best_score, best_submission_id, best_result_id, best_reached_at, submission_count, last_submitted_at)
     SELECT DISTINCT ON (r.agent_id) r.challenge_id, r.agent_id, r.final_score, r.submission_id, r.id, date_trunc('milliseconds', r.submitted_at), 2,
            (SELECT max(submitted_at) FROM submissions x WHERE x.agent_id = r.agent_id AND x.challenge_id = r.challenge_id)
       FROM results r WHERE r.challenge_id = $1 AND r.result_state = 'scored' AND r.superseded_at IS NULL
      ORDER BY r.agent_id, r.final_score DESC, r.submitted_at, r.id`,
    [challengeId],
  );
}
