import { randomUUID } from 'node:crypto';
import { newAgent, newAgentKey, type TestAgent } from './factories';
import type { TestServer } from './server';

export const RUBRIC_JUDGE = {
  kind: 'rubric',
  criteria: [{ name: 'len', weight: 1, check: { type: 'length', min: 1 } }],
};

/** Inserts a challenge row directly (the connector suites do not depend on the admin routes). */
export async function insertChallenge(
  server: TestServer,
  options: {
    status?: 'draft' | 'active' | 'complete' | 'archived';
    title?: string;
    timeLimitMinutes?: number | null;
  } = {},
): Promise<string> {
  const res = await server.deps.db.query<{ id: string }>(
    `INSERT INTO challenges (title, description, category, format, weight_class_id, status, time_limit_minutes, starts_at, ends_at, judge)
     VALUES ($1, $2, 'coding', 'solo', 'open', $3, $4, now() - interval '1 hour', now() + interval '1 day', $5) RETURNING id`,
    [
      options.title ?? `Connector challenge ${randomUUID().slice(0, 8)}`,
      'Write a function that reverses a string.',
      options.status ?? 'active',
      options.timeLimitMinutes === undefined ? 60 : options.timeLimitMinutes,
      JSON.stringify(RUBRIC_JUDGE),
    ],
  );
  return res.rows[0].id;
}

export async function insertEntry(
  server: TestServer,
  challengeId: string,
  agentId: string,
  options: { status?: string; sandbox?: boolean } = {},
): Promise<string> {
  const res = await server.deps.db.query<{ id: string }>(
    'INSERT INTO entries (challenge_id, agent_id, status, sandbox) VALUES ($1, $2, $3, $4) RETURNING id',
    [challengeId, agentId, options.status ?? 'assigned', options.sandbox ?? false],
  );
  return res.rows[0].id;
}

export async function entryStatus(
  server: TestServer,
  challengeId: string,
  agentId: string,
): Promise<string | undefined> {
  const res = await server.deps.db.query<{ status: string }>(
    'SELECT status FROM entries WHERE challenge_id = $1 AND agent_id = $2',
    [challengeId, agentId],
  );
  return res.rows[0]?.status;
}

export interface ConnectorAgent extends TestAgent {
  key: string;
}

/** A user, an agent with an API token, and a connector key for it. */
export async function newConnectorAgent(server: TestServer, name?: string): Promise<ConnectorAgent> {
  const agent = await newAgent(server, { name });
  const key = await newAgentKey(server, agent);
  return { ...agent, key };
}

/** A connector agent entered (status assigned unless given) in a fresh active challenge. */
export async function enteredAgent(
  server: TestServer,
  options: { challengeId?: string; status?: string; name?: string } = {},
): Promise<ConnectorAgent & { challengeId: string; entryId: string }> {
  const challengeId = options.challengeId ?? (await insertChallenge(server));
  const agent = await newConnectorAgent(server, options.name);
  const entryId = await insertEntry(server, challengeId, agent.agentId, { status: options.status });
  return { ...agent, challengeId, entryId };
}

/**
 * The live event types as the interface spec lists them (section 4), copied from the spec rather
 * than imported, so the tests check the implementation's list (src/wire/connector.ts) against it.
 * `timed_out` ends an agent's stream, so tests post it last or on an agent of its own.
 */
export const SPEC_LIVE_EVENT_TYPES = [
  'started',
  'thinking',
  'tool_call',
  'code_write',
  'command_run',
  'error_hit',
  'self_correct',
  'progress',
  'submitted',
  'timed_out',
];

export function liveEvent(type: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { type, timestamp: new Date().toISOString(), ...extra };
}

/** Posts one event with the agent's key. */
export function postEvent(
  server: TestServer,
  agent: { key: string; agentId: string },
  challengeId: string,
  event: Record<string, unknown>,
) {
  return server.request('POST', '/api/v1/events/stream', {
    agentKey: agent.key,
    body: { challengeId, agentId: agent.agentId, event },
  });
}

/** Reads a Server-Sent Events response until `until` says stop (or the timeout), then aborts. */
export async function readSse(
  url: string,
  options: {
    headers?: Record<string, string>;
    until: (messages: SseMessage[], raw: string) => boolean;
    timeoutMs?: number;
  },
): Promise<{ status: number; headers: Headers; messages: SseMessage[]; raw: string }> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), options.timeoutMs ?? 15_000);
  const res = await fetch(url, {
    headers: { accept: 'text/event-stream', ...options.headers },
    signal: controller.signal,
  });
  const messages: SseMessage[] = [];
  let raw = '';
  try {
    if (!res.body || res.status !== 200) {
      raw = await res.text();
      return { status: res.status, headers: res.headers, messages, raw };
    }
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    while (!options.until(messages, raw)) {
      const { value, done } = await reader.read();
      if (done) break;
      const chunk = decoder.decode(value, { stream: true });
      raw += chunk;
      buffer += chunk;
      let idx;
      while ((idx = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, idx);
        buffer = buffer.slice(idx + 2);
        const msg = parseSseBlock(block);
        if (msg) messages.push(msg);
      }
    }
  } catch (err) {
    if (!controller.signal.aborted) throw err;
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
  return { status: res.status, headers: res.headers, messages, raw };
}

export interface SseMessage {
  id?: string;
  event?: string;
  data: string;
}

function parseSseBlock(block: string): SseMessage | null {
  const msg: SseMessage = { data: '' };
  let hasData = false;
  for (const line of block.split('\n')) {
    if (line.startsWith(':') || line === '') continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'id') msg.id = value;
    else if (field === 'event') msg.event = value;
    else if (field === 'data') {
      msg.data = hasData ? `${msg.data}\n${value}` : value;
      hasData = true;
    }
  }
  return hasData ? msg : null;
}
