/**
 * The arena on the real stack (DESIGN "Matches between agents"): head_to_head challenges, the
 * matchmaker pairing two connected agents, bouts with placements, forfeits, draws, voids,
 * exhibitions, ratings applied once each in completion order, and the API's 400/403/404 cases.
 * The arena's minute is 1 s in tests (ARENA_MINUTE_MS in test/setup/test-env.ts): every_minutes
 * and time_limit_minutes below are seconds here.
 */
import { randomUUID } from 'node:crypto';
import { eventually, newUser, type TestUser } from '../helpers/factories';
import { newConnectorAgent, type ConnectorAgent } from '../helpers/connector-factories';
import { expectError, type TestServer } from '../helpers/server';
import { challengeBody } from '../helpers/challenge-factories';
import { submitJudgedAndClose } from '../helpers/submission-factories';
import { withTransaction } from '../../src/db/pool';
import { findChallengeById } from '../../src/db/queries/challenges';
import { scheduleMatch, startScheduledMatches } from '../../src/domain/matches/schedule';
import { startServerAndAdmin } from '../helpers/server-and-admin';

let server: TestServer;
let admin: TestUser;

beforeAll(async () => ({ server, admin } = await startServerAndAdmin()));
afterAll(async () => {
  await server?.close();
});

const JUDGE = {
  kind: 'rubric',
  criteria: [
    { name: 'answer', weight: 3, check: { type: 'contains', value: '42' } },
    { name: 'polite', weight: 1, check: { type: 'contains', value: 'please' } },
  ],
};

async function matchChallenge(
  overrides: Record<string, unknown> = {},
  match: Record<string, unknown> = {},
): Promise<{ id: string; weightClass: string }> {
  const weightClass = `wc-${randomUUID().slice(0, 8)}`;
  const res = await server.request('POST', '/api/v1/admin/challenges', {
    auth: admin.jwt,
    body: challengeBody({
      format: 'head_to_head',
      weight_class_id: weightClass,
      judge: JUDGE,
      time_limit_minutes: 60,
      match: { rematch_after_minutes: 0, ...match },
      ...overrides,
    }),
  });
  expect(res.status).toBe(201);
  const published = await server.request('POST', `/api/v1/admin/challenges/${res.body.data.id}/publish`, {
    auth: admin.jwt,
  });
  expect(published.status).toBe(200);
  return { id: res.body.data.id, weightClass };
}

async function enter(agent: ConnectorAgent, challengeId: string): Promise<void> {
  const res = await server.request('POST', `/api/v1/challenges/${challengeId}/entries`, {
    auth: agent.user.jwt,
    body: { agent_id: agent.agentId },
  });
  expect(res.status).toBe(201);
  expect(res.body.data.status).toBe('waiting');
}

async function heartbeat(agent: ConnectorAgent): Promise<void> {
  const res = await server.request('POST', '/api/v1/agents/ping', { agentKey: agent.key, body: {} });
  expect(res.status).toBe(200);
}

async function entrants(challengeId: string, n: number): Promise<ConnectorAgent[]> {
  const agents: ConnectorAgent[] = [];
  for (let i = 0; i < n; i++) {
    const agent = await newConnectorAgent(server, `arena-${i}-${randomUUID().slice(0, 6)}`);
    await enter(agent, challengeId);
    agents.push(agent);
  }
  return agents;
}

async function exhibition(challengeId: string, agents: ConnectorAgent[], rated = false): Promise<any> {
  const res = await server.request('POST', `/api/v1/admin/challenges/${challengeId}/matches`, {
    auth: admin.jwt,
    body: { agent_ids: agents.map((a) => a.agentId), rated },
  });
  expect(res.status).toBe(201);
  return res.body.data;
}

async function matchNow(id: string): Promise<any> {
  const res = await server.request('GET', `/api/v1/matches/${id}`);
  expect(res.status).toBe(200);
  return res.body.data;
}

/** Waits (reading the database, not spending the API's anonymous budget) for a status, then reads the match. */
async function untilStatus(id: string, statuses: string[], timeoutMs = 60_000): Promise<any> {
  await eventually(
    async () => {
      const res = await server.deps.db.query<{ status: string }>('SELECT status FROM matches WHERE id = $1', [
        id,
      ]);
      return statuses.includes(res.rows[0]?.status) ? true : undefined;
    },
    timeoutMs,
    200,
  );
  return matchNow(id);
}

/** Opens the agent's bout session, submits `content`, waits for the judgement, closes the session. */
async function play(agent: ConnectorAgent, challengeId: string, content: string | null): Promise<void> {
  const opened = await server.request('POST', `/api/v1/challenges/${challengeId}/sessions`, {
    auth: agent.token,
  });
  expect(opened.status).toBe(201);
  const sessionId = opened.body.data.session_id;
  if (content !== null) return submitJudgedAndClose(server, agent.token, sessionId, content);
  const closed = await server.request('DELETE', `/api/v1/sessions/${sessionId}`, { auth: agent.token });
  expect(closed.status).toBe(200);
}

async function ratingUpdates(weightClass: string): Promise<{ match_id: string; completed_seq: string }[]> {
  const res = await server.deps.db.query<{ match_id: string; completed_seq: string }>(
    'SELECT match_id, completed_seq FROM rating_updates WHERE weight_class_id = $1 ORDER BY applied_at, completed_seq',
    [weightClass],
  );
  return res.rows;
}

describe('match challenges in the admin API and the public view', () => {
  test('head_to_head needs match settings (defaults fill them); format is fixed once published', async () => {
    const missing = await server.request('POST', '/api/v1/admin/challenges', {
      auth: admin.jwt,
      body: challengeBody({ format: 'head_to_head' }),
    });
    expectError(missing, 400, 'VALIDATION_ERROR', /match/);
    const solo = await server.request('POST', '/api/v1/admin/challenges', {
      auth: admin.jwt,
      body: challengeBody({ match: { players: 2 } }),
    });
    expectError(solo, 400, 'VALIDATION_ERROR', /match/);
    const outOfRange = await server.request('POST', '/api/v1/admin/challenges', {
      auth: admin.jwt,
      body: challengeBody({ format: 'head_to_head', match: { players: 9 } }),
    });
    expectError(outOfRange, 400, 'VALIDATION_ERROR');

    const { id } = await matchChallenge({}, { every_minutes: 600 });
    const pub = await server.request('GET', `/api/v1/challenges/${id}`);
    expect(pub.status).toBe(200);
    expect(pub.body.data.format).toBe('head_to_head');
    expect(pub.body.data.match).toEqual({
      players: 2,
      every_minutes: 600,
      rematch_after_minutes: 0,
      max_per_pair_per_day: 6,
      max_per_agent_per_hour: 6,
      rated: true,
    });
    const edited = await server.request('PATCH', `/api/v1/admin/challenges/${id}`, {
      auth: admin.jwt,
      body: { match: { max_per_pair_per_day: 3 } },
    });
    expect(edited.status).toBe(200);
    expect(edited.body.data.match).toMatchObject({ every_minutes: 600, max_per_pair_per_day: 3 });
    const formatChange = await server.request('PATCH', `/api/v1/admin/challenges/${id}`, {
      auth: admin.jwt,
      body: { format: 'solo' },
    });
    expectError(formatChange, 400, 'VALIDATION_ERROR', /format/);

    const soloView = await server.request('GET', `/api/v1/challenges/${(await matchlessSolo()).id}`);
    expect(soloView.body.data.match).toBeNull();
  });

  async function matchlessSolo() {
    const res = await server.request('POST', '/api/v1/admin/challenges', {
      auth: admin.jwt,
      body: challengeBody(),
    });
    await server.request('POST', `/api/v1/admin/challenges/${res.body.data.id}/publish`, { auth: admin.jwt });
    return res.body.data;
  }

  test('a ladder entry waits: never assigned, no session without a running match', async () => {
    const { id } = await matchChallenge({}, { every_minutes: 600 });
    const [agent] = await entrants(id, 1);
    const assigned = await server.request('GET', '/api/v1/challenges/assigned', { agentKey: agent.key });
    expect(assigned.status).toBe(200);
    expect(assigned.body.challenges.map((c: any) => c.challenge.id)).not.toContain(id);
    const session = await server.request('POST', `/api/v1/challenges/${id}/sessions`, { auth: agent.token });
    expectError(session, 400, 'CHALLENGE_NOT_ENTERABLE', /no match is running/);
    const challenge = await server.request('GET', `/api/v1/challenges/${id}`);
    expect(challenge.body.data.entry_count).toBe(1);
  });
});

describe('the matchmaker', () => {
  test('pairs two connected agents; both get the assignment, submit, and the match completes with placements and one rating update each', async () => {
    // One match per agent per hour, so this test sees exactly one.
    const { id, weightClass } = await matchChallenge({}, { every_minutes: 1, max_per_agent_per_hour: 1 });
    const [a, b] = await entrants(id, 2);
    // An entrant who is not online is never matched.
    const [offline] = await entrants(id, 1);
    await heartbeat(a);
    await heartbeat(b);

    const match = await eventually(
      async () => {
        const res = await server.request('GET', `/api/v1/challenges/${id}/matches?status=running`, {
          auth: admin.jwt,
        });
        return res.body.data.length === 1 ? res.body.data[0] : undefined;
      },
      60_000,
      500,
    );
    expect(match.participants.map((p: any) => p.agent_id).sort()).toEqual([a.agentId, b.agentId].sort());
    expect(match.participants.map((p: any) => p.seat).sort()).toEqual([1, 2]);
    expect(match).toMatchObject({
      kind: 'bout',
      rated: true,
      weight_class_id: weightClass,
      status: 'running',
    });
    expect(match.participants.every((p: any) => p.score === null && p.outcome === null)).toBe(true);

    for (const [me, other] of [
      [a, b],
      [b, a],
    ]) {
      const assigned = await server.request('GET', '/api/v1/challenges/assigned', { agentKey: me.key });
      const item = assigned.body.challenges.find((c: any) => c.challenge.id === id);
      expect(item.match).toEqual({
        id: match.id,
        ends_at: match.ends_at,
        opponents: [{ agent_id: other.agentId, agent_name: expect.any(String) }],
      });
    }
    const offlineAssigned = await server.request('GET', '/api/v1/challenges/assigned', {
      agentKey: offline.key,
    });
    expect(offlineAssigned.body.challenges.find((c: any) => c.challenge.id === id)).toBeUndefined();

    await play(a, id, 'The answer is 42, please.');
    await play(b, id, 'The answer is 41.');
    const done = await untilStatus(match.id, ['complete', 'void']);
    expect(done.status).toBe('complete');
    const byAgent = new Map(done.participants.map((p: any) => [p.agent_id, p]));
    expect(byAgent.get(a.agentId)).toMatchObject({ rank: 1, outcome: 'win', score: 100 });
    expect(byAgent.get(b.agentId)).toMatchObject({ rank: 2, outcome: 'loss', score: 0 });
    expect(done.result_id).toEqual(expect.any(String));

    // The rating update applies once, and is recorded on the match.
    await eventually(
      async () => ((await ratingUpdates(weightClass)).length > 0 ? true : undefined),
      20_000,
      200,
    );
    const withRatings = await matchNow(match.id);
    const winner = withRatings.participants.find((p: any) => p.agent_id === a.agentId);
    expect(winner.rating_before).toEqual({ mu: 25, sigma: 25 / 3, ordinal: expect.closeTo(0, 6) });
    expect(winner.rating_after.mu).toBeGreaterThan(25);
    expect(await ratingUpdates(weightClass)).toEqual([
      { match_id: match.id, completed_seq: expect.any(String) },
    ]);

    const ratings = await server.request('GET', `/api/v1/ratings?weight_class_id=${weightClass}`);
    expect(ratings.status).toBe(200);
    expect(
      ratings.body.data.map((r: any) => [r.rank, r.agent_id, r.matches, r.wins, r.losses, r.provisional]),
    ).toEqual([
      [1, a.agentId, 1, 1, 0, true],
      [2, b.agentId, 1, 0, 1, true],
    ]);
    expect(ratings.body.data[0].mu).toBeCloseTo(winner.rating_after.mu, 9);

    // The match result by result id and by match id, for any credential with result:read.
    const reader = await newConnectorAgent(server);
    for (const ref of [done.result_id, match.id]) {
      const result = await server.request('GET', `/api/v1/results/${ref}`, { auth: reader.token });
      expect(result.status).toBe(200);
      expect(result.body.data).toEqual({
        id: done.result_id,
        kind: 'match',
        match_id: match.id,
        challenge_id: id,
        result_state: 'scored',
        placements: [
          { agent_id: a.agentId, rank: 1, score: 100, outcome: 'win' },
          { agent_id: b.agentId, rank: 2, score: 0, outcome: 'loss' },
        ],
        judged_at: done.completed_at,
      });
    }
    expectError(await server.request('GET', `/api/v1/results/${done.result_id}`), 401, 'UNAUTHORIZED');

    // The leaderboard ranks the entrants by ordinal, with their record in this challenge.
    const board = await server.request('GET', `/api/v1/leaderboards/${id}`);
    expect(board.status).toBe(200);
    // The unrated entrant (ordinal 0) sits between the winner and the loser.
    expect(board.body.data.map((r: any) => [r.agent_id, r.matches, r.wins, r.losses, r.provisional])).toEqual(
      [
        [a.agentId, 1, 1, 0, true],
        [offline.agentId, 0, 0, 0, true],
        [b.agentId, 1, 0, 1, true],
      ],
    );
    expect(board.body.data[0].rating.ordinal).toBeCloseTo(winner.rating_after.ordinal, 9);

    // The matchmaker's last round is visible to operators; the hourly cap keeps both waiting now.
    // (A round taken while the match was still finishing has neither groups nor waiting agents: in a
    // running match is not eligible at all. Wait for the first round that sees both again.)
    const round = await eventually(
      async () => {
        const res = await server.request('GET', `/api/v1/admin/challenges/${id}/matchmaking`, {
          auth: admin.jwt,
        });
        const last = res.body.data;
        return last.round !== null && last.groups.length === 0 && last.waiting.length === 2
          ? last
          : undefined;
      },
      20_000,
      500,
    );
    expect(round.waiting.map((w: any) => w.reason)).toEqual(['hourly_cap', 'hourly_cap']);
    expectError(
      await server.request('GET', `/api/v1/admin/challenges/${id}/matchmaking`, { auth: a.token }),
      403,
      'FORBIDDEN',
    );

    // Both owners heard match.started and match.completed once each.
    const events = await server.deps.db.query<{ event_type: string; owner_user_id: string }>(
      "SELECT event_type, owner_user_id FROM outbox_events WHERE payload->>'match_id' = $1 ORDER BY event_type",
      [match.id],
    );
    expect(events.rows.filter((e) => e.event_type === 'match.started')).toHaveLength(2);
    expect(events.rows.filter((e) => e.event_type === 'match.completed')).toHaveLength(2);
    expect(new Set(events.rows.map((e) => e.owner_user_id)).size).toBe(2);
  });
});

describe('idle rounds', () => {
  test('a match challenge nobody can play records its first idle round only; rounds keep counting', async () => {
    const { id } = await matchChallenge({}, { every_minutes: 1 });
    const rounds = async () =>
      (
        await server.deps.db.query<{ round_no: number; eligible: number }>(
          `SELECT round_no, jsonb_array_length(summary->'eligible') AS eligible
             FROM matchmaking_rounds WHERE challenge_id = $1 ORDER BY round_no`,
          [id],
        )
      ).rows;
    // The matchmaker's own history says how many rounds it ran (a minute is 1 s in tests).
    const history = (await server.deps.temporal()).workflow.getHandle(`matchmaker-${id}`);
    const roundsRun = async () =>
      (await history.fetchHistory()).events?.filter((e) => e.activityTaskCompletedEventAttributes).length ??
      0;
    await eventually(async () => ((await roundsRun()) >= 4 ? true : undefined), 60_000, 300);
    expect(await rounds()).toEqual([{ round_no: 1, eligible: 0 }]);

    // Someone to match: the next round is recorded, numbered after the unrecorded idle ones.
    const [agent] = await entrants(id, 1);
    await heartbeat(agent);
    const recorded = await eventually(
      async () => {
        const rows = await rounds();
        return rows.length === 2 ? rows : undefined;
      },
      60_000,
      300,
    );
    expect(recorded[1].eligible).toBe(1);
    expect(recorded[1].round_no).toBeGreaterThanOrEqual(4);
    await server.request('POST', `/api/v1/admin/challenges/${id}/quarantine`, {
      auth: admin.jwt,
      body: { reason: 'test over' },
    });
  });
});

describe('anti-farming', () => {
  test('a deleted agent is never matched: not eligible to the matchmaker, no exhibition, a match scheduled before its deletion is void', async () => {
    const { id } = await matchChallenge({}, { every_minutes: 1 });
    const [alive, gone] = await entrants(id, 2);
    const deleted = await server.request('DELETE', `/api/v1/agents/${gone.agentId}`, { auth: gone.user.jwt });
    expect(deleted.status).toBe(200);
    // Deleted seconds after its last heartbeat: still "online" by last_seen_at, its ladder entry
    // still waiting (the deletion revoked its key, so the heartbeat is written directly).
    await server.deps.db.query('UPDATE agents SET last_seen_at = now() WHERE id = $1', [gone.agentId]);
    await heartbeat(alive);

    // Two rounds after the deletion: only the live agent is eligible, and it waits alone.
    const rounds = new Set<number>();
    await eventually(
      async () => {
        const res = await server.request('GET', `/api/v1/admin/challenges/${id}/matchmaking`, {
          auth: admin.jwt,
        });
        const last = res.body.data;
        if (last.round === null) return undefined;
        expect(last.eligible.map((e: any) => e.agent_id)).toEqual([alive.agentId]);
        expect(last.groups).toEqual([]);
        expect(last.waiting).toEqual([{ agent_id: alive.agentId, reason: 'no_opponent' }]);
        rounds.add(last.round);
        return rounds.size >= 2 ? true : undefined;
      },
      60_000,
      300,
    );
    expect(
      (await server.deps.db.query('SELECT 1 FROM match_participants WHERE agent_id = $1', [gone.agentId]))
        .rows,
    ).toEqual([]);

    expectError(
      await server.request('POST', `/api/v1/admin/challenges/${id}/matches`, {
        auth: admin.jwt,
        body: { agent_ids: [alive.agentId, gone.agentId] },
      }),
      400,
      'VALIDATION_ERROR',
      new RegExp(`${gone.agentId}.*not entered`),
    );

    // A match scheduled with the agent before its deletion (the row written, its workflow not yet
    // started) is void at its start: it never runs and is never rated.
    const challenge = (await findChallengeById(server.deps.db, id))!;
    const scheduled = await withTransaction(server.deps.db, (tx) =>
      scheduleMatch(tx, challenge, [alive.agentId, gone.agentId], { rated: true, origin: 'matchmaker' }),
    );
    await startScheduledMatches(server.deps, [
      { id: scheduled.id, challengeId: id, agentIds: [alive.agentId, gone.agentId] },
    ]);
    const voided = await untilStatus(scheduled.id, ['running', 'complete', 'void']);
    expect(voided).toMatchObject({ status: 'void', reason: `agent ${gone.agentId} was deleted` });
    expect(voided.started_at).toBeNull();
    expect(
      (await server.deps.db.query('SELECT 1 FROM rating_updates WHERE match_id = $1', [scheduled.id])).rows,
    ).toEqual([]);
  });
});

describe('bouts', () => {
  test('a forfeit: the agent without a judged submission is last; the bout ends at ends_at', async () => {
    const { id } = await matchChallenge({ time_limit_minutes: 15 }, { every_minutes: 1440 });
    const [a, b] = await entrants(id, 2);
    const match = await exhibition(id, [a, b], true);
    await untilStatus(match.id, ['running']);
    await play(a, id, 'The answer is 42.');
    const done = await untilStatus(match.id, ['complete', 'void']);
    expect(done.status).toBe('complete');
    const byAgent = new Map(done.participants.map((p: any) => [p.agent_id, p]));
    expect(byAgent.get(a.agentId)).toMatchObject({ rank: 1, outcome: 'win', score: 75 });
    expect(byAgent.get(b.agentId)).toMatchObject({ rank: 2, outcome: 'forfeit', score: null });
    expect(Date.parse(done.completed_at)).toBeGreaterThanOrEqual(Date.parse(done.ends_at));
    // The forfeiting agent's bout entry timed out.
    const entry = await server.deps.db.query(
      'SELECT status FROM entries WHERE match_id = $1 AND agent_id = $2',
      [match.id, b.agentId],
    );
    expect(entry.rows[0].status).toBe('timed_out');
  });

  test('a draw: equal scores share rank 1', async () => {
    const { id, weightClass } = await matchChallenge({}, { every_minutes: 1440 });
    const [a, b] = await entrants(id, 2);
    const match = await exhibition(id, [a, b], true);
    await untilStatus(match.id, ['running']);
    await play(a, id, '42 please');
    await play(b, id, 'please, 42');
    const done = await untilStatus(match.id, ['complete', 'void']);
    expect(done.participants.map((p: any) => [p.rank, p.outcome, p.score])).toEqual([
      [1, 'draw', 100],
      [1, 'draw', 100],
    ]);
    await eventually(async () => ((await ratingUpdates(weightClass)).length === 1 ? true : undefined));
  });

  test('everyone forfeiting makes the match void and unrated', async () => {
    const { id, weightClass } = await matchChallenge({ time_limit_minutes: 2 }, { every_minutes: 1440 });
    const [a, b] = await entrants(id, 2);
    const match = await exhibition(id, [a, b], true);
    const done = await untilStatus(match.id, ['complete', 'void']);
    expect(done.status).toBe('void');
    expect(done.participants.map((p: any) => p.outcome)).toEqual(['forfeit', 'forfeit']);
    const result = await server.request('GET', `/api/v1/results/${done.result_id}`, { auth: a.token });
    expect(result.body.data).toMatchObject({ kind: 'match', result_state: 'void' });
    expect(await ratingUpdates(weightClass)).toEqual([]);
  });

  test('rated matches of one weight class apply their ratings in completion order, once each', async () => {
    const weightClass = `wc-${randomUUID().slice(0, 8)}`;
    const first = await matchChallenge({ weight_class_id: weightClass }, { every_minutes: 1440 });
    const second = await matchChallenge({ weight_class_id: weightClass }, { every_minutes: 1440 });
    const [a, b] = await entrants(first.id, 2);
    const [c, d] = await entrants(second.id, 2);
    const m1 = await exhibition(first.id, [a, b], true);
    const m2 = await exhibition(second.id, [c, d], true);
    await untilStatus(m1.id, ['running']);
    await untilStatus(m2.id, ['running']);
    // The second match finishes first.
    await play(c, second.id, '42');
    await play(d, second.id, 'no');
    await untilStatus(m2.id, ['complete']);
    await play(a, first.id, '42 please');
    await play(b, first.id, 'please');
    await untilStatus(m1.id, ['complete']);
    const applied = await eventually(async () => {
      const rows = await ratingUpdates(weightClass);
      return rows.length === 2 ? rows : undefined;
    });
    expect(applied.map((r) => r.match_id)).toEqual([m2.id, m1.id]);
    expect(BigInt(applied[0].completed_seq) < BigInt(applied[1].completed_seq)).toBe(true);
    const ratings = await server.request('GET', `/api/v1/ratings?weight_class_id=${weightClass}`);
    expect(ratings.body.data).toHaveLength(4);
    expect(ratings.body.data.every((r: any) => r.matches === 1)).toBe(true);
  });
});

describe('operators: exhibitions and voids', () => {
  test('an exhibition starts at once (unrated by default), is audited, and can be voided once', async () => {
    const { id } = await matchChallenge({}, { every_minutes: 1440 });
    const [a, b, c] = await entrants(id, 3);
    const stranger = await newConnectorAgent(server);

    expectError(
      await server.request('POST', `/api/v1/admin/challenges/${id}/matches`, {
        auth: admin.jwt,
        body: { agent_ids: [a.agentId, stranger.agentId] },
      }),
      400,
      'VALIDATION_ERROR',
      new RegExp(stranger.agentId),
    );
    expectError(
      await server.request('POST', `/api/v1/admin/challenges/${id}/matches`, {
        auth: a.token,
        body: { agent_ids: [a.agentId, b.agentId] },
      }),
      403,
      'FORBIDDEN',
    );

    const match = await exhibition(id, [a, b]);
    expect(match).toMatchObject({ rated: false, challenge_id: id });
    await untilStatus(match.id, ['running']);
    expectError(
      await server.request('POST', `/api/v1/admin/challenges/${id}/matches`, {
        auth: admin.jwt,
        body: { agent_ids: [c.agentId, b.agentId] },
      }),
      400,
      'VALIDATION_ERROR',
      new RegExp(`${b.agentId}.*running match`),
    );

    const voided = await server.request('POST', `/api/v1/admin/matches/${match.id}/void`, {
      auth: admin.jwt,
      body: { reason: 'wrong pairing' },
    });
    expect(voided.status).toBe(200);
    expect(voided.body.data).toMatchObject({ status: 'void', reason: 'wrong pairing' });
    expectError(
      await server.request('POST', `/api/v1/admin/matches/${match.id}/void`, {
        auth: admin.jwt,
        body: { reason: 'again' },
      }),
      409,
      'CONFLICT',
    );
    const audit = await server.request('GET', `/api/v1/admin/audit?target_id=${match.id}`, {
      auth: admin.jwt,
    });
    expect(audit.body.data.map((r: any) => r.action).sort()).toEqual(['match.create', 'match.void']);
    // No session can be opened once the match is void.
    expectError(
      await server.request('POST', `/api/v1/challenges/${id}/sessions`, { auth: a.token }),
      400,
      'CHALLENGE_NOT_ENTERABLE',
    );
    // The workflow sees the void and ends with it.
    const listed = (await server.request('GET', `/api/v1/agents/${a.agentId}/matches`, { auth: admin.jwt }))
      .body.data;
    expect(listed[0]).toMatchObject({ id: match.id, status: 'void' });
  });
});

describe('reads and errors', () => {
  test('404 for unknown ids, 400 without weight_class_id or with a bad cursor', async () => {
    expectError(await server.request('GET', `/api/v1/matches/${randomUUID()}`), 404, 'NOT_FOUND');
    expectError(await server.request('GET', `/api/v1/challenges/${randomUUID()}/matches`), 404, 'NOT_FOUND');
    expectError(await server.request('GET', '/api/v1/ratings'), 400, 'VALIDATION_ERROR');
    expectError(
      await server.request('GET', '/api/v1/ratings?weight_class_id=open&cursor=nope'),
      400,
      'VALIDATION_ERROR',
    );
    const user = await newUser(server);
    expectError(
      await server.request('POST', `/api/v1/admin/matches/${randomUUID()}/void`, {
        auth: user.jwt,
        body: { reason: 'x' },
      }),
      403,
      'FORBIDDEN',
    );
    expectError(
      await server.request('POST', `/api/v1/admin/matches/${randomUUID()}/void`, {
        auth: admin.jwt,
        body: { reason: 'x' },
      }),
      404,
      'NOT_FOUND',
    );
  });

  test("a challenge's matches page newest first", async () => {
    const { id } = await matchChallenge({ time_limit_minutes: 1 }, { every_minutes: 1440 });
    const [a, b] = await entrants(id, 2);
    const first = await exhibition(id, [a, b]);
    await untilStatus(first.id, ['complete', 'void']);
    const second = await exhibition(id, [a, b]);
    const page1 = await server.request('GET', `/api/v1/challenges/${id}/matches?limit=1`);
    expect(page1.body.data.map((m: any) => m.id)).toEqual([second.id]);
    expect(page1.body.pagination.has_more).toBe(true);
    const page2 = await server.request(
      'GET',
      `/api/v1/challenges/${id}/matches?limit=1&cursor=${page1.body.pagination.next_cursor}`,
    );
    expect(page2.body.data.map((m: any) => m.id)).toEqual([first.id]);
    const byAgent = await server.request(
      'GET',
      `/api/v1/challenges/${id}/matches?agent_id=${a.agentId}&status=void`,
    );
    expect(byAgent.body.data.map((m: any) => m.id)).toEqual([first.id]);
  });
});
