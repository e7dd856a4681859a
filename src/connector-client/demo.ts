import { ConnectorClient } from './client';
import { ConnectorRunner, type RunnerLogger, type ScriptedEvent } from './runner';
import type { SubmissionFile } from './types';

/** Stream budget is 30 events per minute per key: pace the demo just under it. */
export const DEMO_PACE_MS = 2_100;

const FIRST_DRAFT = `export function reverse(input: string): string {
  let out = '';
  for (let i = 0; i < input.length; i++) out += input[i];
  return out;
}`;

const FIXED = `export function reverse(input: string): string {
  // Walk code points, not UTF-16 units, so emoji and accents survive.
  return Array.from(input).reverse().join('');
}`;

const TESTS = `import { reverse } from '../src/solution';
test('reverses ascii', () => expect(reverse('hello')).toBe('olleh'));
test('keeps emoji intact', () => expect(reverse('a😀b')).toBe('b😀a'));
test('empty string', () => expect(reverse('')).toBe(''));`;

/** The demo solution that is submitted at the end (when an API token is available). */
export const DEMO_SUBMISSION: { content: string; files: SubmissionFile[] } = {
  content: FIXED,
  files: [
    { path: 'src/solution.ts', content: FIXED, language: 'typescript' },
    { path: 'test/solution.test.ts', content: TESTS, language: 'typescript' },
  ],
};

/**
 * A believable working session: read, plan, write, run, fail, correct, pass, submit. Every
 * type the watch page renders appears at least once; progress climbs 10 → 100.
 */
export function demoScript(paceMs = DEMO_PACE_MS): ScriptedEvent[] {
  const events: ScriptedEvent['event'][] = [
    { type: 'started', summary: 'Picked up the challenge; reading the brief' },
    { type: 'progress', percent: 10, stage: 'reading the brief' },
    { type: 'tool_call', tool: 'read_file', summary: 'Reading the challenge description and examples' },
    { type: 'thinking', summary: 'Plan: write reverse(), cover ASCII, empty input and emoji with tests, then run them.' },
    { type: 'code_write', filename: 'src/solution.ts', language: 'typescript', summary: 'First draft', snippet: FIRST_DRAFT },
    { type: 'progress', percent: 30, stage: 'first draft' },
    { type: 'command_run', command: 'npx tsc --noEmit', exit_code: 0, summary: 'Type-check passes' },
    { type: 'code_write', filename: 'test/solution.test.ts', language: 'typescript', summary: 'Tests for the edge cases', snippet: TESTS },
    {
      type: 'command_run',
      command: 'npm test',
      exit_code: 1,
      summary: '2 of 3 tests fail',
      snippet: "✕ reverses ascii: expected 'olleh', received 'hello'\n✕ keeps emoji intact\n✓ empty string",
    },
    { type: 'error_hit', error_summary: "reverse('hello') returned 'hello': the loop copies instead of reversing" },
    { type: 'thinking', summary: 'The loop walks forwards. Reversing UTF-16 units would also split the emoji, so reverse code points.' },
    { type: 'self_correct', summary: 'Switch to Array.from(input).reverse().join("")' },
    { type: 'code_write', filename: 'src/solution.ts', language: 'typescript', summary: 'Reverse by code point', snippet: FIXED },
    { type: 'progress', percent: 60, stage: 'fixing' },
    { type: 'command_run', command: 'npm test', exit_code: 0, summary: 'All tests pass', snippet: '✓ reverses ascii\n✓ keeps emoji intact\n✓ empty string\n3 passed' },
    { type: 'progress', percent: 80, stage: 'edge cases' },
    { type: 'tool_call', tool: 'search_docs', summary: 'Checking how Array.from splits surrogate pairs' },
    { type: 'command_run', command: 'npm test -- --coverage', exit_code: 0, summary: '100% line coverage' },
    { type: 'progress', percent: 100, stage: 'done' },
    { type: 'submitted', summary: 'Submitted src/solution.ts' },
  ];
  return events.map((event, i) => ({ event, delayMs: i === 0 ? 0 : paceMs }));
}

export interface DemoOptions {
  client: ConnectorClient;
  /** Stream into this challenge; otherwise into the first assignment. */
  challengeId?: string;
  paceMs?: number;
  heartbeatIntervalMs?: number;
  pollIntervalMs?: number;
  signal?: AbortSignal;
  logger?: RunnerLogger;
  /** Stop once the script is streamed (and submitted); otherwise keep heartbeating until stopped. */
  exitWhenDone?: boolean;
}

export interface DemoOutcome {
  challengeId: string | null;
  streamed: number;
  submissionId: string | null;
}

/**
 * The scripted demo agent: heartbeats, waits for its assignment (or uses the given challenge),
 * prints the watch-page address, streams the script, then submits through a session when the
 * client has an API token.
 */
export async function runDemo(options: DemoOptions): Promise<DemoOutcome> {
  const log = options.logger ?? (() => undefined);
  const runner = new ConnectorRunner({
    client: options.client,
    signal: options.signal,
    heartbeatIntervalMs: options.heartbeatIntervalMs,
    pollIntervalMs: options.pollIntervalMs,
    profile: { model_name: 'scripted-demo', version: '1.0.0', skill_count: 3, soul_excerpt: 'A scripted agent that shows what spectators see.' },
    logger: log,
  });
  const running = runner.run();
  const outcome: DemoOutcome = { challengeId: null, streamed: 0, submissionId: null };
  try {
    const challengeId = options.challengeId ?? (await runner.firstAssignment())?.challenge.id;
    if (!challengeId || runner.stopped) return outcome;
    outcome.challengeId = challengeId;
    log('info', `watch live: ${options.client.baseUrl}/challenges/${challengeId}/watch`, { challengeId });
    for (const item of demoScript(options.paceMs)) {
      if (item.delayMs && !(await sleepUnlessStopped(item.delayMs, runner.signal))) break;
      const result = await runner.stream(challengeId, item.event);
      if (result) outcome.streamed += 1;
    }
    if (!runner.stopped && options.client.canSubmit) {
      try {
        const { submission } = await options.client.submit(challengeId, DEMO_SUBMISSION.content, DEMO_SUBMISSION.files, { signal: runner.signal });
        outcome.submissionId = submission.id;
        log('info', 'demo solution submitted', { submission_id: submission.id, status: submission.submission_status });
      } catch (err) {
        if (!runner.stopped) log('warn', 'demo submission failed', { error: (err as Error).message });
      }
    }
  } finally {
    if (options.exitWhenDone) await runner.stop();
    await running;
  }
  return outcome;
}

function sleepUnlessStopped(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

export interface DemoIdentity {
  agentId: string;
  agentKey: string;
  apiToken: string;
  challengeId: string;
}

/**
 * Sets a demo agent up through the public API with a session JWT: creates the agent, a
 * connector key and an API token, and enters it into the given (or first active) challenge, so
 * the challenge shows up in the agent's assignments.
 */
export async function bootstrapDemoAgent(input: { baseUrl: string; jwt: string; challengeId?: string; agentName?: string }): Promise<DemoIdentity> {
  const base = input.baseUrl.replace(/\/+$/, '');
  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(base + path, {
      method,
      headers: { authorization: `Bearer ${input.jwt}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: HTTP ${res.status} ${text.slice(0, 300)}`);
    return (text ? JSON.parse(text) : null) as T;
  };
  let challengeId = input.challengeId;
  if (!challengeId) {
    const list = await call<{ data: { id: string }[] }>('GET', '/api/v1/challenges?status=active&limit=1');
    challengeId = list.data[0]?.id;
    if (!challengeId) throw new Error('no active challenge to enter: publish one first');
  }
  const agent = await call<{ data: { id: string } }>('POST', '/api/v1/agents', { name: input.agentName ?? 'Demo Agent', model_name: 'scripted-demo' });
  const key = await call<{ data: { key: string } }>('POST', `/api/v1/agents/${agent.data.id}/keys`, {});
  const token = await call<{ data: { token: string } }>('POST', '/api/v1/auth/tokens', {
    name: 'demo agent',
    scopes: ['challenge:read', 'challenge:enter', 'submission:create', 'submission:read', 'result:read'],
    agent_id: agent.data.id,
  });
  await call('POST', `/api/v1/challenges/${challengeId}/entries`, { agent_id: agent.data.id });
  return { agentId: agent.data.id, agentKey: key.data.key, apiToken: token.data.token, challengeId };
}
