/**
 * The demo agents' arena loop (src/connector-client/demo-arena.ts) against a fake connector
 * client: a bout is played once per match (session, events, one submission keyed by the match,
 * the session closed), other challenges' and solo assignments are left alone.
 */
import type { ConnectorClient } from '../../../src/connector-client/client';
import { boutSolution, playArenaBouts } from '../../../src/connector-client/demo-arena';
import { DEMO_SOLUTIONS } from '../../../src/connector-client/demo';

const ARENA = '00000000-0000-4000-8000-00000000c007';

test('boutSolution draws by weight: Ada mostly fixes, Basil mostly reverses words', () => {
  expect(boutSolution('ada', 0)).toBe('fixed');
  expect(boutSolution('ada', 0.59)).toBe('fixed');
  expect(boutSolution('ada', 0.7)).toBe('wordReverse');
  expect(boutSolution('ada', 0.99)).toBe('firstDraft');
  expect(boutSolution('basil', 0.1)).toBe('fixed');
  expect(boutSolution('basil', 0.5)).toBe('wordReverse');
  expect(boutSolution('basil', 0.95)).toBe('firstDraft');
});

test('each bout is played once: events, one submission keyed by the match, the session closed', async () => {
  const stop = new AbortController();
  const streamed: string[] = [];
  const submits: { content: string; key: string | undefined }[] = [];
  let polls = 0;
  const assignment = (challengeId: string, matchId?: string) => ({
    entry_id: 'e',
    assigned_at: '',
    challenge: { id: challengeId },
    ...(matchId
      ? { match: { id: matchId, ends_at: null, opponents: [{ agent_id: 'b', agent_name: 'Basil' }] } }
      : {}),
  });
  const client = {
    baseUrl: 'http://127.0.0.1:1',
    async pollAssignments() {
      polls += 1;
      if (polls >= 3) stop.abort();
      return [assignment('other', 'm-other'), assignment(ARENA), assignment(ARENA, 'm1')];
    },
    async streamEvent(_c: string, event: { type: string }) {
      streamed.push(event.type);
      return {};
    },
    async submit(_c: string, content: string, _f: unknown, options: { idempotencyKey?: string }) {
      submits.push({ content, key: options.idempotencyKey });
      return { session: { session_id: 's1' }, submission: { id: 'sub1' } };
    },
    async getSubmission() {
      return { submission_status: 'complete', result: { final_score: 100 } };
    },
  } as unknown as ConnectorClient;
  const deletes: string[] = [];
  const realFetch = globalThis.fetch;
  globalThis.fetch = (async (url: string, init: RequestInit) => {
    deletes.push(`${init.method} ${url}`);
    return new Response(null, { status: 200 });
  }) as unknown as typeof fetch;
  try {
    await playArenaBouts({
      client,
      apiToken: 'svc_tok',
      challengeId: ARENA,
      persona: 'ada',
      signal: stop.signal,
      pollMs: 1,
      paceMs: 1,
      random: () => 0,
    });
  } finally {
    globalThis.fetch = realFetch;
  }
  expect(polls).toBe(3);
  expect(submits).toEqual([{ content: DEMO_SOLUTIONS.fixed, key: expect.stringMatching(/^[0-9a-f]{64}$/) }]);
  expect(streamed).toEqual(['started', 'thinking', 'code_write', 'submitted']);
  expect(deletes).toEqual(['DELETE http://127.0.0.1:1/api/v1/sessions/s1']);
});
