import { sleep } from './backoff';
import { ConnectorClient } from './client';
import { ConnectorRunner, type RunnerLogger, type ScriptedEvent } from './runner';
import type { Breakdown, SubmissionFile, SubmissionState } from '../wire/connector';

/** Stream budget is 30 events per minute per key: pace the demo just under it. */
export const DEMO_PACE_MS = 2_100;

/** Copies instead of reversing: the judge's "hello" and emoji tests fail. */
const FIRST_DRAFT = `export function reverse(input: string): string {
  let out = '';
  for (let i = 0; i < input.length; i++) out += input[i];
  return out;
}`;

const FIXED = `export function reverse(input: string): string {
  // Walk code points, not UTF-16 units, so emoji survive.
  return Array.from(input).reverse().join('');
}`;

/** Reverses the order of words, not characters (a misread brief): only some tests pass. */
const WORD_REVERSE = `export function reverse(input: string): string {
  return input.split(' ').reverse().join(' ');
}`;

/** The demo's three solutions (the arena's bouts pick among them): 0, 60 and 100 with the seeded tests. */
export const DEMO_SOLUTIONS = { firstDraft: FIRST_DRAFT, wordReverse: WORD_REVERSE, fixed: FIXED } as const;

const file = (content: string) => [{ path: 'src/solution.ts', content, language: 'typescript' }];

export type DemoPersona = 'ada' | 'basil';

export const DEMO_AGENT_NAMES: Record<DemoPersona, string> = {
  ada: 'Ada (self-correcting)',
  basil: 'Basil (quick draft)',
};

/** A step of a demo: an event to stream, or a real submission whose judged result is then streamed. */
export type DemoStep =
  (ScriptedEvent & { submit?: undefined }) | { delayMs?: number; submit: DemoSubmission };

export interface DemoSubmission {
  content: string;
  files: SubmissionFile[];
  label: string;
}

/**
 * The demo agents' plans. Every claim about a score comes from the judge: after each `submit`
 * step, runDemo waits for the real result and streams it (error_hit below 100, tool_call "judge"
 * at 100). Ada submits a first draft that the tests judge fails, reads the breakdown, corrects
 * herself and wins; Basil submits once, a partial answer.
 */
export function demoPlan(persona: DemoPersona = 'ada', paceMs = DEMO_PACE_MS): DemoStep[] {
  const steps: (DemoSubmission | ScriptedEvent['event'])[] =
    persona === 'ada'
      ? [
          { type: 'started', summary: 'Picked up the challenge; reading the brief' },
          { type: 'progress', percent: 10, stage: 'reading the brief' },
          {
            type: 'tool_call',
            tool: 'read_file',
            summary: 'Reading the challenge description and the visible tests',
          },
          {
            type: 'thinking',
            summary: 'Plan: write reverse(), submit early, and let the judge tell me what is missing.',
          },
          {
            type: 'code_write',
            filename: 'src/solution.ts',
            language: 'typescript',
            summary: 'First draft',
            snippet: FIRST_DRAFT,
          },
          { type: 'progress', percent: 30, stage: 'first draft' },
          { type: 'command_run', command: 'npx tsc --noEmit', exit_code: 0, summary: 'Type-check passes' },
          { content: FIRST_DRAFT, files: file(FIRST_DRAFT), label: 'first draft' },
          {
            type: 'thinking',
            summary:
              'The loop walks forwards, so it copies. Reversing UTF-16 units would also split emoji: reverse code points.',
          },
          { type: 'self_correct', summary: 'Switch to Array.from(input).reverse().join("")' },
          {
            type: 'code_write',
            filename: 'src/solution.ts',
            language: 'typescript',
            summary: 'Reverse by code point',
            snippet: FIXED,
          },
          { type: 'progress', percent: 70, stage: 'fixing' },
          { content: FIXED, files: file(FIXED), label: 'fixed version' },
          { type: 'progress', percent: 100, stage: 'done' },
          { type: 'submitted', summary: 'Final answer: src/solution.ts (reverse by code point)' },
        ]
      : [
          { type: 'started', summary: 'Picked up the challenge' },
          { type: 'progress', percent: 20, stage: 'reading' },
          { type: 'thinking', summary: 'Reverse... the words? Splitting on spaces should do it.' },
          {
            type: 'code_write',
            filename: 'src/solution.ts',
            language: 'typescript',
            summary: 'Quick draft',
            snippet: WORD_REVERSE,
          },
          { type: 'progress', percent: 60, stage: 'submitting' },
          { content: WORD_REVERSE, files: file(WORD_REVERSE), label: 'quick draft' },
          { type: 'progress', percent: 100, stage: 'done' },
          { type: 'submitted', summary: 'Submitted the quick draft' },
        ];
  return steps.map((step, i) => {
    const delayMs = i === 0 ? 0 : paceMs;
    return 'content' in step ? { submit: step, delayMs } : { event: step, delayMs };
  });
}

/** The streamed events of a plan (without the judged results, which only a real run knows). */
export function demoScript(paceMs = DEMO_PACE_MS, persona: DemoPersona = 'ada'): ScriptedEvent[] {
  return demoPlan(persona, paceMs).filter((s): s is ScriptedEvent & { submit?: undefined } => !s.submit);
}

/** The demo's final solution (Ada's). */
export const DEMO_SUBMISSION: { content: string; files: SubmissionFile[] } = {
  content: FIXED,
  files: file(FIXED),
};

/** The judge's verdict as a live event: what spectators read is what the leaderboard counts. */
export function judgedEvent(
  label: string,
  state: SubmissionState,
  breakdown: Breakdown | null,
): ScriptedEvent['event'] {
  if (state.submission_status === 'failed' || !state.result)
    return {
      type: 'error_hit',
      error_summary: `Judge could not score the ${label}: ${state.failure_reason ?? 'judging failed'}`,
    };
  const criteria = breakdown?.criteria ?? [];
  const passed = criteria.filter((c) => c.passed).length;
  const failed = criteria.filter((c) => !c.passed).map((c) => c.name);
  const score = state.result.final_score.toFixed(2);
  const counts = criteria.length ? `${passed} of ${criteria.length} visible checks pass, ` : '';
  if (state.result.final_score >= 100)
    return { type: 'tool_call', tool: 'judge', summary: `Judged ${label}: ${counts}score ${score}` };
  return {
    type: 'error_hit',
    error_summary: `Judged ${label}: ${counts}score ${score}${failed.length ? `; failing: ${failed.join(', ')}` : ''}`,
  };
}

export interface DemoOptions {
  client: ConnectorClient;
  /** Stream into this challenge; otherwise into the first assignment. */
  challengeId?: string;
  persona?: DemoPersona;
  paceMs?: number;
  heartbeatIntervalMs?: number;
  pollIntervalMs?: number;
  /** How often to look at a submission while it is judged (default 1 s). */
  judgePollMs?: number;
  signal?: AbortSignal;
  logger?: RunnerLogger;
  /** Stop once the script is streamed (and submitted); otherwise keep heartbeating until stopped. */
  exitWhenDone?: boolean;
}

export interface DemoOutcome {
  challengeId: string | null;
  streamed: number;
  /** The last submission made (null without an API token). */
  submissionId: string | null;
  submissions: { id: string; label: string; status: string; score: number | null }[];
}

/** Polls a submission until it is complete or failed (or the run stops). */
async function judged(
  client: ConnectorClient,
  id: string,
  pollMs: number,
  signal: AbortSignal,
): Promise<SubmissionState | null> {
  for (;;) {
    const state = await client.getSubmission(id, { signal });
    if (state.submission_status === 'complete' || state.submission_status === 'failed') return state;
    if (!(await sleep(pollMs, signal))) return null;
  }
}

/**
 * The scripted demo agent: heartbeats, waits for its assignment (or uses the given challenge),
 * prints the watch-page address, then follows its plan: streams each event and, with an API
 * token, makes each submission for real and streams the judged result.
 */
export async function runDemo(options: DemoOptions): Promise<DemoOutcome> {
  const log = options.logger ?? (() => undefined);
  const persona = options.persona ?? 'ada';
  const runner = new ConnectorRunner({
    client: options.client,
    signal: options.signal,
    heartbeatIntervalMs: options.heartbeatIntervalMs,
    pollIntervalMs: options.pollIntervalMs,
    profile: {
      model_name: 'scripted-demo',
      version: '1.0.0',
      skill_count: 3,
      soul_excerpt: 'A scripted agent that shows what spectators see.',
    },
    logger: log,
  });
  const running = runner.run();
  const outcome: DemoOutcome = { challengeId: null, streamed: 0, submissionId: null, submissions: [] };
  try {
    const challengeId = options.challengeId ?? (await runner.firstAssignment())?.challenge.id;
    if (!challengeId || runner.stopped) return outcome;
    outcome.challengeId = challengeId;
    log('info', `watch live: ${options.client.baseUrl}/challenges/${challengeId}/watch`, { challengeId });
    const stream = async (event: ScriptedEvent['event']) => {
      if (await runner.stream(challengeId, event)) outcome.streamed += 1;
    };
    for (const step of demoPlan(persona, options.paceMs)) {
      if (step.delayMs && !(await sleep(step.delayMs, runner.signal))) break;
      if (!step.submit) {
        await stream(step.event);
        continue;
      }
      if (!options.client.canSubmit) continue;
      try {
        const { submission } = await options.client.submit(
          challengeId,
          step.submit.content,
          step.submit.files,
          { signal: runner.signal },
        );
        outcome.submissionId = submission.id;
        log('info', `submitted the ${step.submit.label}`, { submission_id: submission.id });
        const state = await judged(options.client, submission.id, options.judgePollMs ?? 1000, runner.signal);
        if (!state) break;
        const breakdown = state.result
          ? await options.client.getBreakdown(submission.id, { signal: runner.signal }).catch(() => null)
          : null;
        outcome.submissions.push({
          id: submission.id,
          label: step.submit.label,
          status: state.submission_status,
          score: state.result?.final_score ?? null,
        });
        log('info', `judged the ${step.submit.label}`, {
          submission_id: submission.id,
          status: state.submission_status,
          score: state.result?.final_score ?? null,
        });
        await stream(judgedEvent(step.submit.label, state, breakdown));
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

export interface DemoIdentity {
  agentId: string;
  agentKey: string;
  apiToken: string;
  challengeId: string;
}

/**
 * Sets a demo agent up through the public API with a session JWT: finds or creates the agent, a
 * connector key and an API token, and enters it into the given (or first active) challenge, so
 * the challenge shows up in the agent's assignments.
 */
export async function bootstrapDemoAgent(input: {
  baseUrl: string;
  jwt: string;
  challengeId?: string;
  agentName?: string;
}): Promise<DemoIdentity> {
  const base = input.baseUrl.replace(/\/+$/, '');
  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(base + path, {
      method,
      headers: {
        authorization: `Bearer ${input.jwt}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
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
  // Reuse this user's agent of that name (the seed's, or an earlier run's): `npm start` twice on
  // one database keeps one pair of demo agents.
  const name = input.agentName ?? 'Demo Agent';
  const mine = await call<{ data: { id: string; name: string }[] }>('GET', '/api/v1/agents');
  const agent = mine.data.some((a) => a.name === name)
    ? { data: mine.data.find((a) => a.name === name)! }
    : await call<{ data: { id: string } }>('POST', '/api/v1/agents', { name, model_name: 'scripted-demo' });
  const key = await call<{ data: { key: string } }>('POST', `/api/v1/agents/${agent.data.id}/keys`, {});
  const token = await call<{ data: { token: string } }>('POST', '/api/v1/auth/tokens', {
    name: 'demo agent',
    scopes: ['challenge:read', 'challenge:enter', 'submission:create', 'submission:read', 'result:read'],
    agent_id: agent.data.id,
  });
  await call('POST', `/api/v1/challenges/${challengeId}/entries`, { agent_id: agent.data.id });
  return { agentId: agent.data.id, agentKey: key.data.key, apiToken: token.data.token, challengeId };
}
