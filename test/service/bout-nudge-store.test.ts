/**
 * Which session close wakes a bout's workflow (workflow-start.ts `boutEveryoneLeft`) on
 * PostgreSQL: only the close after which every participant has opened and closed a session, the
 * rule the workflow's look applies (rules.ts `everyoneLeftBout`); an earlier close wakes nothing
 * (issue 42: each nudge is a workflow task and a look). A database of its own: a running match
 * without a workflow in the shared one would be voided by a worker's sweeper.
 */
import { insertBoutEntries } from '../../src/db/queries/entries';
import { boutEveryoneLeft } from '../../src/domain/matches/workflow-start';
import { seedChallenge, seedSubmission } from '../contracts/sql-seed';
import { scratchPool } from '../helpers/scratch-database';

const pool = scratchPool('bout_nudges');

async function newBout(players: number) {
  const challengeId = await seedChallenge(pool());
  const agents: string[] = [];
  for (let i = 0; i < players; i += 1) agents.push((await seedSubmission(pool(), challengeId)).agentId);
  const matchId = (
    await pool().query<{ id: string }>(
      `INSERT INTO matches (challenge_id, weight_class_id, kind, status, rated, origin, started_at, ends_at)
       VALUES ($1, 'open', 'bout', 'running', false, 'exhibition', now(), now() + interval '1 hour') RETURNING id`,
      [challengeId],
    )
  ).rows[0].id;
  await pool().query(
    `INSERT INTO match_participants (match_id, agent_id, seat, owner_user_id)
     SELECT $1, a.id, row_number() OVER (ORDER BY a.id), a.owner_user_id FROM agents a WHERE a.id = ANY($2::uuid[])`,
    [matchId, agents],
  );
  await insertBoutEntries(pool(), { matchId, challengeId, agentIds: agents });
  const entries = (
    await pool().query<{ id: string; agent_id: string }>(
      'SELECT id, agent_id FROM entries WHERE match_id = $1',
      [matchId],
    )
  ).rows;
  const entryOf = (agent: string) => entries.find((e) => e.agent_id === agent)!.id;
  const open = async (agent: string) =>
    (
      await pool().query<{ id: string }>(
        `INSERT INTO sessions (challenge_id, agent_id, entry_id, status) VALUES ($1, $2, $3, 'open') RETURNING id`,
        [challengeId, agent, entryOf(agent)],
      )
    ).rows[0].id;
  const close = (session: string) =>
    pool().query(`UPDATE sessions SET status = 'closed' WHERE id = $1`, [session]);
  return { matchId, agents, entryOf, open, close };
}

describe('the session close that wakes its bout', () => {
  test('only the close after which everyone has come and gone names the bout', async () => {
    const bout = await newBout(2);
    const [a, b] = bout.agents;
    const sessionA = await bout.open(a);
    expect(await boutEveryoneLeft(pool(), bout.entryOf(a))).toBeNull();
    await bout.close(sessionA);
    // b has not come yet: a's close ends nothing.
    expect(await boutEveryoneLeft(pool(), bout.entryOf(a))).toBeNull();
    const sessionB = await bout.open(b);
    expect(await boutEveryoneLeft(pool(), bout.entryOf(b))).toBeNull();
    await bout.close(sessionB);
    expect(await boutEveryoneLeft(pool(), bout.entryOf(b))).toBe(bout.matchId);
    // Whichever close is read last (two closing at once) sees both.
    expect(await boutEveryoneLeft(pool(), bout.entryOf(a))).toBe(bout.matchId);
  });

  test('a participant back in a new session keeps the bout on; an entry outside a bout names none', async () => {
    const bout = await newBout(2);
    const [a, b] = bout.agents;
    await bout.close(await bout.open(a));
    await bout.close(await bout.open(b));
    expect(await boutEveryoneLeft(pool(), bout.entryOf(a))).toBe(bout.matchId);
    await bout.open(a);
    expect(await boutEveryoneLeft(pool(), bout.entryOf(b))).toBeNull();
    const solo = await pool().query<{ id: string }>(
      `SELECT e.id FROM entries e WHERE e.match_id IS NULL AND e.agent_id = $1`,
      [a],
    );
    expect(solo.rows).toHaveLength(1);
    expect(await boutEveryoneLeft(pool(), solo.rows[0].id)).toBeNull();
  });
});
