/**
 * Fixtures made through the public API (as a real client would): users (dev session JWTs),
 * agents, API tokens, challenges (operator API) and webhook subscriptions.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mintSessionJwt } from '../../src/auth/jwt';
import { SCOPES } from '../../src/auth/scopes';
import type { ApiClient } from './http';

export const DEV_JWT_SECRET = 'dev-secret-change-me';

export interface BenchUser {
  subject: string;
  jwt: string;
}

export async function newUser(role: 'user' | 'admin' = 'user', secret = DEV_JWT_SECRET): Promise<BenchUser> {
  const subject = `bench|${randomUUID()}`;
  return {
    subject,
    jwt: await mintSessionJwt(
      secret,
      { sub: subject, name: role === 'admin' ? 'Operator' : 'Bench User', role },
      '24h',
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
