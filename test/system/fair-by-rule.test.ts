/**
 * Issue 38 over HTTP (DESIGN "Fifth-round extensions", "Whatever a program writes is data"): agents
 * of one owner never meet in a rated exhibition (an unrated one may); final selection exists on
 * solo formats only; `error_summary` and `tool` stay out of the public feed during a bout; the
 * public `entry_count` freezes with the board. Real stack; the arena's minute is 1 s here.
 */
import { randomUUID } from 'node:crypto';
import { createActive, inSeconds, challengeBody } from '../helpers/challenge-factories';
import { eventually, newAgent, newAgentKey, newUser, type TestUser } from '../helpers/factories';
import { liveEvent, postEvent, type ConnectorAgent } from '../helpers/connector-factories';
import { expectError, type TestServer } from '../helpers/server';
import { startServerAndAdmin } from '../helpers/server-and-admin';

let server: TestServer;
let admin: TestUser;
beforeAll(async () => ({ server, admin } = await startServerAndAdmin()));
afterAll(() => server?.close());

const JUDGE = {
  kind: 'rubric',
  criteria: [{ name: 'answer', weight: 1, check: { type: 'contains', value: '42' } }],
};

async function matchChallenge(): Promise<string> {
  const created = await server.request('POST', '/api/v1/admin/challenges', {
    auth: admin.jwt,
    body: challengeBody({
      format: 'head_to_head',
      weight_class_id: `wc-${randomUUID().slice(0, 8)}`,
      judge: JUDGE,
      time_limit_minutes: 600,
      // The matchmaker stays out of the way: a day between rounds.
      match: { every_minutes: 1440, rematch_after_minutes: 0 },
    }),
  });
  expect(created.status).toBe(201);
  const published = await server.request('POST', `/api/v1/admin/challenges/${created.body.data.id}/publish`, {
    auth: admin.jwt,
  });
  expect(published.status).toBe(200);
  return created.body.data.id;
}

async function connectorAgent(user?: TestUser): Promise<ConnectorAgent> {
  const agent = await newAgent(server, { user, name: `rule-${randomUUID().slice(0, 6)}` });
  return { ...agent, key: await newAgentKey(server, agent) };
}

async function enter(agent: ConnectorAgent, challengeId: string): Promise<void> {
  const res = await server.request('POST', `/api/v1/challenges/${challengeId}/entries`, {
    auth: agent.user.jwt,
    body: { agent_id: agent.agentId },
  });
  expect(res.status).toBe(201);
}

async function matchStatus(id: string): Promise<string | undefined> {
  const res = await server.deps.db.query<{ status: string }>('SELECT status FROM matches WHERE id = $1', [
    id,
  ]);
  return res.rows[0]?.status;
}

describe('agents of one owner never meet in a rated match (finding 2)', () => {
  test('a rated exhibition naming two of them is 400; an unrated one may', async () => {
    const challengeId = await matchChallenge();
    const owner = await newUser(server);
    const first = await connectorAgent(owner);
    const second = await connectorAgent(owner);
    await enter(first, challengeId);
    await enter(second, challengeId);

    expectError(
      await server.request('POST', `/api/v1/admin/challenges/${challengeId}/matches`, {
        auth: admin.jwt,
        body: { agent_ids: [first.agentId, second.agentId], rated: true },
      }),
      400,
      'VALIDATION_ERROR',
      /one owner/,
    );
    expect(
      (
        await server.deps.db.query(
          `SELECT 1 FROM match_participants p JOIN matches m ON m.id = p.match_id
            WHERE m.challenge_id = $1`,
          [challengeId],
        )
      ).rowCount,
    ).toBe(0);

    const unrated = await server.request('POST', `/api/v1/admin/challenges/${challengeId}/matches`, {
      auth: admin.jwt,
      body: { agent_ids: [first.agentId, second.agentId], rated: false },
    });
    expect(unrated.status).toBe(201);
    expect(unrated.body.data.rated).toBe(false);
    const voided = await server.request('POST', `/api/v1/admin/matches/${unrated.body.data.id}/void`, {
      auth: admin.jwt,
      body: { reason: 'test over' },
    });
    expect(voided.status).toBe(200);
  });
});

describe('during a bout (finding 5)', () => {
  let challengeId: string;
  let first: ConnectorAgent;
  let matchId: string;
  beforeAll(async () => {
    challengeId = await matchChallenge();
    first = await connectorAgent();
    const second = await connectorAgent();
    await enter(first, challengeId);
    await enter(second, challengeId);
    const created = await server.request('POST', `/api/v1/admin/challenges/${challengeId}/matches`, {
      auth: admin.jwt,
      body: { agent_ids: [first.agentId, second.agentId], rated: false },
    });
    expect(created.status).toBe(201);
    matchId = created.body.data.id;
    await eventually(async () => (await matchStatus(matchId)) === 'running', 60_000, 200);
  });

  test('final selection of a bout submission is 400 (solo formats only)', async () => {
    const opened = await server.request('POST', `/api/v1/challenges/${challengeId}/sessions`, {
      auth: first.token,
    });
    expect(opened.status).toBe(201);
    const sub = await server.request('POST', `/api/v1/sessions/${opened.body.data.session_id}/submissions`, {
      auth: first.token,
      body: { content: 'the answer is 42' },
    });
    expect(sub.status).toBe(201);
    expectError(
      await server.request('POST', `/api/v1/submissions/${sub.body.data.id}/select`, { auth: first.token }),
      400,
      'VALIDATION_ERROR',
      /head_to_head/,
    );
    const stored = await server.deps.db.query<{ selected_at: Date | null }>(
      'SELECT selected_at FROM submissions WHERE id = $1',
      [sub.body.data.id],
    );
    expect(stored.rows[0].selected_at).toBeNull();
  });

  test('the public feed carries no error text and no tool name while the bout runs', async () => {
    const sent = await postEvent(
      server,
      first,
      challengeId,
      liveEvent('error_hit', {
        summary: 'a test failed',
        error_summary: 'AssertionError: solve(3) returned 7',
        command: 'npm test',
      }),
    );
    expect(sent.status).toBe(200);
    const tool = await postEvent(
      server,
      first,
      challengeId,
      liveEvent('tool_call', { summary: 'looks something up', tool: 'web_search' }),
    );
    expect(tool.status).toBe(200);
    const during = await eventually(async () => {
      const res = await server.request(
        'GET',
        `/api/v1/challenges/${challengeId}/events?agent_id=${first.agentId}`,
      );
      return res.body.data.length === 2 ? res.body.data : undefined;
    }, 30_000);
    expect(during.map((i: any) => i.event)).toEqual([
      expect.objectContaining({ type: 'error_hit', summary: 'a test failed' }),
      expect.objectContaining({ type: 'tool_call', summary: 'looks something up' }),
    ]);
    for (const item of during) {
      expect(item.event).not.toHaveProperty('error_summary');
      expect(item.event).not.toHaveProperty('tool');
      expect(item.event).not.toHaveProperty('command');
    }
    // Nothing was deleted: once the bout is over, everyone reads them in full.
    const voided = await server.request('POST', `/api/v1/admin/matches/${matchId}/void`, {
      auth: admin.jwt,
      body: { reason: 'bout over' },
    });
    expect(voided.status).toBe(200);
    const after = await server.request(
      'GET',
      `/api/v1/challenges/${challengeId}/events?agent_id=${first.agentId}`,
    );
    expect(after.body.data.map((i: any) => i.event.error_summary ?? i.event.tool)).toEqual([
      'AssertionError: solve(3) returned 7',
      'web_search',
    ]);
  });
});

describe('the public entry_count freezes with the board (finding 5)', () => {
  test('an entry made during the freeze moves the count for operators only, until the freeze ends', async () => {
    const challenge = await createActive(server, { ends_at: inSeconds(3600) }, admin);
    const early = await connectorAgent();
    await enter(early, challenge.id);
    const count = async (auth?: string) => {
      const one = await server.request('GET', `/api/v1/challenges/${challenge.id}`, { auth });
      expect(one.status).toBe(200);
      const listed = await server.request(
        'GET',
        `/api/v1/challenges?category=${encodeURIComponent(challenge.category)}`,
        { auth },
      );
      expect(listed.body.data).toHaveLength(1);
      // The list and the challenge say the same.
      expect(listed.body.data[0].entry_count).toBe(one.body.data.entry_count);
      return one.body.data.entry_count as number;
    };
    expect(await count()).toBe(1);

    // The last 30 minutes of an end 30 minutes away: frozen from now on.
    const frozen = await server.request('PATCH', `/api/v1/admin/challenges/${challenge.id}`, {
      auth: admin.jwt,
      body: { ends_at: inSeconds(1800), freeze_minutes: 30 },
    });
    expect(frozen.status).toBe(200);
    const late = await connectorAgent();
    await enter(late, challenge.id);

    expect(await count()).toBe(1);
    expect(await count(late.token)).toBe(1);
    const page = await server.request('GET', `/challenges/${challenge.id}`);
    expect(page.text).toContain('1 entry');
    expect(await count(admin.jwt)).toBe(2);

    // The freeze ends (no freeze any more): the count is live again.
    const thawed = await server.request('PATCH', `/api/v1/admin/challenges/${challenge.id}`, {
      auth: admin.jwt,
      body: { freeze_minutes: 0 },
    });
    expect(thawed.status).toBe(200);
    expect(await count()).toBe(2);
  });
});
