/**
 * The demo agents in the arena (issue 30): `npm start` enters both demo agents in the seeded
 * head-to-head challenge, whose matchmaker pairs them every few minutes (they stay online through
 * the demo's heartbeats). Each agent watches its assignments; when one carries a `match`, it plays
 * that bout for real: opens the bout's session, streams a few events (spectators see them on the
 * match page, delayed), submits one of the demo solutions (judged by the challenge's tests),
 * streams the verdict and closes the session, so the bout ends as soon as both are done.
 * Which solution is a weighted draw per bout, so the ladder sees wins, losses and draws.
 */
import { sleep } from './backoff';
import { ConnectorClient, idempotencyKeyFor } from './client';
import { DEMO_SOLUTIONS, type DemoPersona } from './demo';
import type { RunnerLogger } from './runner';
import type { Assignment } from '../wire/connector';

type SolutionName = keyof typeof DEMO_SOLUTIONS;

/** How often each persona submits each solution (weights). Ada is usually right; Basil half the time. */
const STYLE: Record<DemoPersona, [SolutionName, number][]> = {
  ada: [
    ['fixed', 6],
    ['wordReverse', 2],
    ['firstDraft', 2],
  ],
  basil: [
    ['fixed', 4],
    ['wordReverse', 5],
    ['firstDraft', 1],
  ],
};

/** Pure: the solution a persona submits for a draw `r` in [0, 1). */
export function boutSolution(persona: DemoPersona, r: number): SolutionName {
  const weights = STYLE[persona];
  const total = weights.reduce((sum, [, w]) => sum + w, 0);
  let at = r * total;
  for (const [name, w] of weights) {
    if (at < w) return name;
    at -= w;
  }
  return weights[weights.length - 1][0];
}

export interface ArenaOptions {
  client: ConnectorClient;
  /** The API token (the same one the client submits with): closing the session needs it. */
  apiToken: string;
  challengeId: string;
  persona: DemoPersona;
  signal: AbortSignal;
  logger?: RunnerLogger;
  /** How often to look for a new bout (default 5 s). */
  pollMs?: number;
  /** Pause between a bout's steps (default 2.5 s: the stream budget is 30 events a minute). */
  paceMs?: number;
  random?: () => number;
}

async function playBout(
  options: ArenaOptions,
  match: NonNullable<Assignment['match']>,
  log: RunnerLogger,
): Promise<void> {
  const { client, challengeId, signal } = options;
  const pace = options.paceMs ?? 2_500;
  const opponent = match.opponents.map((o) => o.agent_name).join(', ') || 'nobody';
  const stream = (event: Parameters<ConnectorClient['streamEvent']>[1]) =>
    client.streamEvent(challengeId, event, { signal }).catch((err: Error) => {
      if (!signal.aborted) log('warn', 'arena event not streamed', { error: err.message });
    });
  const solution = boutSolution(options.persona, (options.random ?? Math.random)());
  const content = DEMO_SOLUTIONS[solution];
  log('info', `bout against ${opponent}`, { match_id: match.id, solution });

  await stream({ type: 'started', summary: `Bout against ${opponent}: reading the brief` });
  if (!(await sleep(pace, signal))) return;
  await stream({ type: 'thinking', summary: 'Reverse the string; mind the emoji test.' });
  if (!(await sleep(pace, signal))) return;
  await stream({
    type: 'code_write',
    filename: 'src/solution.ts',
    language: 'typescript',
    summary: 'Writing reverse()',
    snippet: content,
  });
  if (!(await sleep(pace, signal))) return;
  // One submission per bout: its idempotency key is the match's, so a retry never submits twice.
  const { session, submission } = await client.submit(
    challengeId,
    content,
    [{ path: 'src/solution.ts', content, language: 'typescript' }],
    { signal, idempotencyKey: idempotencyKeyFor('arena', match.id, options.persona) },
  );
  let state = await client.getSubmission(submission.id, { signal });
  while (state.submission_status !== 'complete' && state.submission_status !== 'failed') {
    if (!(await sleep(1_000, signal))) return;
    state = await client.getSubmission(submission.id, { signal });
  }
  const score = state.result?.final_score ?? null;
  await stream({ type: 'submitted', summary: `Judged: ${score ?? state.submission_status}` });
  // Closing the session tells the match this participant is done (the bout ends once both are).
  const res = await fetch(`${client.baseUrl}/api/v1/sessions/${encodeURIComponent(session.session_id)}`, {
    method: 'DELETE',
    headers: { authorization: `Bearer ${options.apiToken}` },
    signal,
  });
  await res.body?.cancel();
  log('info', `bout played (score ${score ?? '-'})`, {
    match_id: match.id,
    match_page: `${client.baseUrl}/matches/${match.id}`,
  });
}

/** Plays every bout the matchmaker gives this agent in the challenge, until the signal stops it. */
export async function playArenaBouts(options: ArenaOptions): Promise<void> {
  const log = options.logger ?? (() => undefined);
  const played = new Set<string>();
  do {
    try {
      const assignments = await options.client.pollAssignments({ signal: options.signal });
      for (const a of assignments) {
        if (a.challenge.id !== options.challengeId || !a.match || played.has(a.match.id)) continue;
        played.add(a.match.id);
        await playBout(options, a.match, log);
      }
    } catch (err) {
      if (!options.signal.aborted) log('warn', 'arena: bout not played', { error: (err as Error).message });
    }
  } while (await sleep(options.pollMs ?? 5_000, options.signal));
}
