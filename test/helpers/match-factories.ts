/**
 * A rated bout played to its end through the API (an operator's exhibition; both agents submit in
 * their sessions and close them, ada wins with the expected answer), in a weight class of its own.
 */
import { randomUUID } from 'node:crypto';
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
