import { randomUUID } from 'node:crypto';
import { mintSessionJwt } from '../../src/auth/jwt';
import { SCOPES, type Scope } from '../../src/auth/scopes';
import type { TestServer } from './server';

export const ALL_SCOPES: Scope[] = [...SCOPES];

export interface TestUser {
  subject: string;
  jwt: string;
}

export async function newUser(
  server: TestServer,
  role: 'user' | 'admin' = 'user',
  name = 'Test User',
): Promise<TestUser> {
  const subject = `test|${randomUUID()}`;
  const jwt = await mintSessionJwt(server.config.AUTH_JWT_SECRET, { sub: subject, name, role });
  return { subject, jwt };
}

export const newAdmin = (server: TestServer) => newUser(server, 'admin', 'Operator');

export interface TestAgent {
  user: TestUser;
  agentId: string;
  /** API token acting as this agent. */
  token: string;
  tokenId: string;
}

/** A user with one agent and an API token for it (all scopes unless given). */
export async function newAgent(
  server: TestServer,
  options: { scopes?: Scope[]; sandbox?: boolean; name?: string; user?: TestUser } = {},
): Promise<TestAgent> {
  const user = options.user ?? (await newUser(server));
  const agent = await server.request('POST', '/api/v1/agents', {
    auth: user.jwt,
    body: { name: options.name ?? `agent-${randomUUID().slice(0, 8)}`, model_name: 'test-model' },
  });
  if (agent.status !== 201) throw new Error(`create agent failed: ${agent.status} ${agent.text}`);
  const token = await server.request('POST', '/api/v1/auth/tokens', {
    auth: user.jwt,
    body: {
      name: 'test token',
      scopes: options.scopes ?? ALL_SCOPES,
      agent_id: agent.body.data.id,
      sandbox: options.sandbox ?? false,
    },
  });
  if (token.status !== 201) throw new Error(`create token failed: ${token.status} ${token.text}`);
  return { user, agentId: agent.body.data.id, token: token.body.data.token, tokenId: token.body.data.id };
}

/** A connector key (aa_...) for an agent. */
export async function newAgentKey(
  server: TestServer,
  agent: TestAgent,
  expiresInHours?: number,
): Promise<string> {
  const res = await server.request('POST', `/api/v1/agents/${agent.agentId}/keys`, {
    auth: agent.user.jwt,
    body: expiresInHours ? { expires_in_hours: expiresInHours } : {},
  });
  if (res.status !== 201) throw new Error(`create key failed: ${res.status} ${res.text}`);
  return res.body.data.key;
}

/**
 * Poll intervals that start at 100 ms and grow by a quarter to 1 s (~3 s of fast polls, then one a
 * second): a wait of minutes stays inside a caller's reads budget (200 a minute), so the requests a
 * test makes after it are not answered 429.
 */
export const backingOff = (attempt: number): number => Math.min(1_000, 100 * 1.25 ** attempt);

/**
 * Polls until `check` returns a value (not undefined/false), for asynchronous workflow effects.
 * `intervalMs` may be a function of the attempt number (0, 1, …): see `backingOff`.
 */
export async function eventually<T>(
  check: () => Promise<T | undefined | false>,
  timeoutMs = 20_000,
  intervalMs: number | ((attempt: number) => number) = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (let attempt = 0; Date.now() < deadline; attempt++) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value as T;
    } catch (err) {
      last = err;
    }
    const wait = typeof intervalMs === 'number' ? intervalMs : intervalMs(attempt);
    await new Promise((r) => setTimeout(r, wait));
  }
  throw new Error(`condition not met within ${timeoutMs} ms${last ? `: ${String(last)}` : ''}`);
}
