/**
 * A rated bout played to its end through the API (an operator's exhibition; both agents submit in
 * their sessions and close them, ada wins with the expected answer), in a weight class of its own.
 */
import { randomUUID } from 'node:crypto';
import { findGame } from '../../src/judging/games/catalog';
import { playMatch } from '../../src/judging/games/match';
import { firstLegal } from '../fakes/players';
import { challengeBody } from './challenge-factories';
import { newConnectorAgent, type ConnectorAgent } from './connector-factories';
import { eventually, type TestUser } from './factories';
import type { TestServer } from './server';
import { submitJudgedAndClose } from './submission-factories';

export interface PlayedBout {
  challengeId: string;
  weightClassId: string;
  matchId: string;
  ada: ConnectorAgent;
  bob: ConnectorAgent;
  /** When the match completed (the database's clock, the one the pages' hold counts from). */
  completedAt: Date;
}

async function matchRow(
  server: TestServer,
  id: string,
): Promise<{ status: string; completed_at: Date | null }> {
  const res = await server.deps.db.query<{ status: string; completed_at: Date | null }>(
    'SELECT status, completed_at FROM matches WHERE id = $1',
    [id],
  );
  return res.rows[0];
}

/** A published head_to_head challenge whose matchmaker stays idle (only exhibitions run). */
export async function boutChallenge(server: TestServer, admin: TestUser, title: string) {
  const weightClassId = `wc-${randomUUID().slice(0, 8)}`;
  const res = await server.request('POST', '/api/v1/admin/challenges', {
    auth: admin.jwt,
    body: challengeBody({
      title,
      format: 'head_to_head',
      weight_class_id: weightClassId,
      judge: {
        kind: 'rubric',
        criteria: [{ name: 'answer', weight: 1, check: { type: 'contains', value: '42' } }],
      },
      // The arena's minute is 1 s in tests: the bout ends earlier, once both sessions close.
      time_limit_minutes: 600,
      match: { every_minutes: 1440 },
    }),
  });
  if (res.status !== 201) throw new Error(`challenge: ${res.status} ${res.text}`);
  const published = await server.request('POST', `/api/v1/admin/challenges/${res.body.data.id}/publish`, {
    auth: admin.jwt,
  });
  if (published.status !== 200) throw new Error(`publish: ${published.status} ${published.text}`);
  return { challengeId: res.body.data.id as string, weightClassId };
}

async function entrant(server: TestServer, challengeId: string, name: string): Promise<ConnectorAgent> {
  const agent = await newConnectorAgent(server, `${name}-${randomUUID().slice(0, 4)}`);
  const res = await server.request('POST', `/api/v1/challenges/${challengeId}/entries`, {
    auth: agent.user.jwt,
    body: { agent_id: agent.agentId },
  });
  if (res.status !== 201) throw new Error(`entry: ${res.status} ${res.text}`);
  return agent;
}

async function openSession(server: TestServer, agent: ConnectorAgent, challengeId: string): Promise<string> {
  const opened = await server.request('POST', `/api/v1/challenges/${challengeId}/sessions`, {
    auth: agent.token,
  });
  if (opened.status !== 201) throw new Error(`session: ${opened.status} ${opened.text}`);
  return opened.body.data.session_id;
}

/**
 * Plays the bout to its end and waits until its rating update is applied, so the stored ratings
 * already hold the result when this returns.
 */
export async function playRatedBout(server: TestServer, admin: TestUser, title: string): Promise<PlayedBout> {
  const { challengeId, weightClassId } = await boutChallenge(server, admin, title);
  const ada = await entrant(server, challengeId, 'ada');
  const bob = await entrant(server, challengeId, 'bob');
  const created = await server.request('POST', `/api/v1/admin/challenges/${challengeId}/matches`, {
    auth: admin.jwt,
    body: { agent_ids: [ada.agentId, bob.agentId], rated: true },
  });
  if (created.status !== 201) throw new Error(`exhibition: ${created.status} ${created.text}`);
  const matchId: string = created.body.data.id;
  await eventually(async () => (await matchRow(server, matchId)).status === 'running', 60_000, 200);
  const adaSession = await openSession(server, ada, challengeId);
  const bobSession = await openSession(server, bob, challengeId);
  await submitJudgedAndClose(server, ada.token, adaSession, 'The answer is 42.');
  await submitJudgedAndClose(server, bob.token, bobSession, 'No idea.');
  await eventually(
    async () => {
      const applied = await server.deps.db.query('SELECT 1 FROM rating_updates WHERE match_id = $1', [
        matchId,
      ]);
      return applied.rows.length === 1;
    },
    60_000,
    100,
  );
  const { status, completed_at: completedAt } = await matchRow(server, matchId);
  if (status !== 'complete' || !completedAt) throw new Error(`match ${matchId} is ${status}`);
  return { challengeId, weightClassId, matchId, ada, bob, completedAt };
}

export interface StoredSeat {
  agentId: string;
  outcome: 'win' | 'loss';
  /** Rating ordinals before and after; a match is rated when every seat has both. */
  before?: number;
  after?: number;
  stderr?: string;
}

/**
 * A finished match written as the arena writes one (its row, seats, ratings and the owners'
 * stderr), for pages to show without playing it: what a page does with a match, not how one ends.
 */
export async function storedMatch(
  server: TestServer,
  input: {
    challengeId: string;
    weightClass: string;
    kind: 'game' | 'bout';
    startedAt: Date;
    completedAt: Date;
    seats: StoredSeat[];
  },
): Promise<string> {
  const db = server.deps.db;
  const rated = input.seats.every((s) => s.before !== undefined && s.after !== undefined);
  const match = await db.query<{ id: string }>(
    `INSERT INTO matches (challenge_id, weight_class_id, kind, status, rated, origin, started_at, ends_at,
                          bout_ended_at, completed_at, result_id, completed_seq)
     VALUES ($1, $2, $3, 'complete', $4, 'exhibition', $5, $5::timestamptz + interval '12 minutes', $6, $6,
             gen_random_uuid(), nextval('match_completed_seq')) RETURNING id`,
    [input.challengeId, input.weightClass, input.kind, rated, input.startedAt, input.completedAt],
  );
  const matchId = match.rows[0].id;
  const rating = (o: number | undefined) =>
    o === undefined ? null : JSON.stringify({ mu: o + 25, sigma: 8.1, ordinal: o });
  for (const [i, s] of input.seats.entries()) {
    await db.query(
      `INSERT INTO match_participants (match_id, agent_id, seat, owner_user_id, score, rank, outcome, rating_before, rating_after)
       SELECT $1, a.id, $3, a.owner_user_id, $4, $5, $6, $7, $8 FROM agents a WHERE a.id = $2`,
      [
        matchId,
        s.agentId,
        i + 1,
        s.outcome === 'win' ? 1 : 0,
        s.outcome === 'win' ? 1 : 2,
        s.outcome,
        rating(s.before),
        rating(s.after),
      ],
    );
    if (s.stderr !== undefined)
      await db.query('INSERT INTO match_logs (match_id, agent_id, games) VALUES ($1, $2, $3)', [
        matchId,
        s.agentId,
        JSON.stringify([{ game: 1, seat: i + 1, stderr: s.stderr, fault: null }]),
      ]);
  }
  return matchId;
}

/** A connect-four replay for a stored match, played by the reducer itself and stored as the arena stores one. */
export async function storeReplay(server: TestServer, matchId: string, agentIds: string[]): Promise<void> {
  const engine = findGame('connect-four')!;
  const result = await playMatch({
    engine,
    matchId,
    participants: agentIds,
    seeds: [11],
    limits: { turnMs: 1000, bankMs: 1000, maxTurns: engine.defaultMaxTurns },
    players: (order) => order.map(() => firstLegal()),
  });
  await server.deps.db.query('INSERT INTO match_replays (match_id, game, replay) VALUES ($1, $2, $3)', [
    matchId,
    'connect-four',
    JSON.stringify(result.replay),
  ]);
}
