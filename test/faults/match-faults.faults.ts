/**
 * The arena's part of the fault run (issue 30; `npm run test:faults` runs every *.faults.ts): a
 * rated match between two agents survives a worker SIGKILL and a Temporal dev server restart (SIGKILL,
 * same SQLite file) in the middle of its bout, and completes with its placements and exactly one
 * rating update (one `rating_updates` row, each agent's rating counting one match, one
 * match.completed per owner). Real processes throughout: its own database
 * (challenges_faults_match), its own file-backed Temporal dev server (port 7256), worker and API;
 * the arena's minute is 1 s (ARENA_MINUTE_MS), so the 60-minute bout lasts 60 s.
 *
 * Alone: `npx jest -c jest.faults.config.js test/faults/match-faults.faults.ts`
 * (FAULTS_MATCH_DATABASE / FAULTS_MATCH_TEMPORAL_PORT to move it).
 */
import { rmSync } from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { BENCH_RUBRIC, newAgent, newUser, openSession } from '../../bench/lib/fixtures';
import { portOpen, ROOT, sleep } from '../../bench/lib/processes';
import { startStack, type Stack } from '../../bench/lib/stack';

const TEMPORAL_PORT = Number(process.env.FAULTS_MATCH_TEMPORAL_PORT ?? 7256);
const DATABASE = process.env.FAULTS_MATCH_DATABASE ?? 'challenges_faults_match';
const DATA_DIR = path.join(ROOT, '.data/faults-match');

let T0 = Date.now();
const out = (line: string) =>
  process.stdout.write(`[match faults +${((Date.now() - T0) / 1000).toFixed(1)}s] ${line}\n`);

jest.setTimeout(20 * 60_000);

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch {
      // The database or the API may be between restarts: look again.
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    // Each step waits on the one before it: a short poll keeps the run from idling between them.
    await sleep(50);
  }
}

describe('match fault run', () => {
  let stack: Stack | undefined;
  let db: Client | undefined;

  afterAll(async () => {
    await db?.end().catch(() => undefined);
    await stack?.stop();
  });

  test('a rated match survives a worker SIGKILL and a Temporal restart mid-bout with exactly one rating update', async () => {
    T0 = Date.now();
    if (await portOpen('127.0.0.1', TEMPORAL_PORT))
      throw new Error(
        `port ${TEMPORAL_PORT} is in use: the match fault run needs its own Temporal dev server there`,
      );
    const temporalDb = path.join(DATA_DIR, 'temporal.db');
    for (const suffix of ['', '-wal', '-shm']) rmSync(temporalDb + suffix, { force: true });
    rmSync(path.join(DATA_DIR, 'logs'), { recursive: true, force: true });
    stack = await startStack({
      label: 'faults-match',
      database: DATABASE,
      temporalPort: TEMPORAL_PORT,
      temporalDbFile: temporalDb,
      supervise: true,
      env: { LOG_LEVEL: 'info', ARENA_MINUTE_MS: '1000', ARENA_POLL_MS: '200' },
    });
    const s = stack;
    const api = s.client;
    db = new Client({ connectionString: s.databaseUrl });
    db.on('error', () => undefined);
    await db.connect();
    const q = async <R extends object>(sql: string, params: unknown[]) =>
      (await db!.query<R>(sql, params)).rows;
    out(`stack up: API ${s.apiUrl}, Temporal :${TEMPORAL_PORT}, database ${DATABASE}`);

    // ---- a rated exhibition between two agents of two owners (no matchmaker round interferes)
    const admin = await newUser('admin');
    const draft = await api.expect(201, 'POST', '/api/v1/admin/challenges', {
      auth: admin.jwt,
      body: {
        title: 'Match fault run',
        description: 'Answer the question.',
        category: 'faults',
        format: 'head_to_head',
        weight_class_id: 'faults',
        time_limit_minutes: 60,
        judge: BENCH_RUBRIC,
        match: { every_minutes: 1440, rematch_after_minutes: 0 },
      },
    });
    const challengeId: string = draft.data.id;
    await api.expect(200, 'POST', `/api/v1/admin/challenges/${challengeId}/publish`, { auth: admin.jwt });
    const [ownerA, ownerB] = [await newUser(), await newUser()];
    const a = await newAgent(api, ownerA, { name: 'faults-match-a' });
    const b = await newAgent(api, ownerB, { name: 'faults-match-b' });
    for (const agent of [a, b])
      await api.expect(201, 'POST', `/api/v1/challenges/${challengeId}/entries`, {
        auth: agent.user.jwt,
        body: { agent_id: agent.agentId },
      });
    const created = await api.expect(201, 'POST', `/api/v1/admin/challenges/${challengeId}/matches`, {
      auth: admin.jwt,
      body: { agent_ids: [a.agentId, b.agentId], rated: true },
    });
    const matchId: string = created.data.id;
    const status = async () =>
      (await q<{ status: string }>('SELECT status FROM matches WHERE id = $1', [matchId]))[0]?.status;
    await until('the match to run', async () => ((await status()) === 'running' ? true : undefined), 120_000);
    out(`match ${matchId} running`);

    // ---- both play: sessions open, one submission each (a: 100, b: 40)
    const sessions = {
      a: await openSession(api, a.tokens[0], challengeId),
      b: await openSession(api, b.tokens[0], challengeId),
    };
    const submit = async (token: string, sessionId: string, content: string) =>
      (
        await api.expect(201, 'POST', `/api/v1/sessions/${sessionId}/submissions`, {
          auth: token,
          body: { content },
        })
      ).data.id as string;
    const subA = await submit(a.tokens[0], sessions.a, 'The answer is 42.');

    // ---- mid-bout: SIGKILL the worker, then restart the Temporal server (same SQLite file)
    out('fault: SIGKILL worker (mid-bout)');
    await s.worker.kill('SIGKILL');
    await sleep(1000);
    await s.worker.start();
    const subB = await submit(b.tokens[0], sessions.b, 'The answer is unknown.');
    out('fault: restart Temporal dev server (SIGKILL, same SQLite file; mid-bout)');
    await s.temporal!.kill('SIGKILL');
    await sleep(1000);
    await s.temporal!.start();
    expect(await status()).toBe('running');

    await until(
      'both submissions judged',
      async () => {
        const rows = await q<{ status: string }>(
          'SELECT status FROM submissions WHERE id = ANY($1::uuid[])',
          [[subA, subB]],
        );
        return rows.length === 2 && rows.every((r) => r.status === 'complete') ? true : undefined;
      },
      300_000,
    );
    out('both submissions judged; closing the sessions (the bout ends once both are closed)');
    for (const [agent, sessionId] of [
      [a, sessions.a],
      [b, sessions.b],
    ] as const)
      await api.expect(200, 'DELETE', `/api/v1/sessions/${sessionId}`, { auth: agent.tokens[0] });
    // One more worker kill while the match settles and applies its rating.
    await until(
      'the bout to end',
      async () => {
        const rows = await q<{ bout_ended_at: Date | null }>(
          'SELECT bout_ended_at FROM matches WHERE id = $1',
          [matchId],
        );
        return rows[0]?.bout_ended_at ? true : undefined;
      },
      180_000,
    );
    out('fault: SIGKILL worker (bout ended, settling)');
    await s.worker.kill('SIGKILL');
    await sleep(1000);
    await s.worker.start();

    await until(
      'the match to complete',
      async () => ((await status()) === 'complete' ? true : undefined),
      300_000,
    );
    await until(
      'the rating update',
      async () =>
        (await q('SELECT 1 FROM rating_updates WHERE match_id = $1', [matchId])).length > 0
          ? true
          : undefined,
      120_000,
    );
    // A little longer, so that a late second application (if any) would be seen.
    await sleep(5000);

    // ---- verify: placements, exactly one rating update, one match counted per rating, one event per owner
    const match = (await api.expect(200, 'GET', `/api/v1/matches/${matchId}`)).data;
    const byAgent = new Map(match.participants.map((p: { agent_id: string }) => [p.agent_id, p]));
    expect(byAgent.get(a.agentId)).toMatchObject({ rank: 1, outcome: 'win', score: 100 });
    expect(byAgent.get(b.agentId)).toMatchObject({ rank: 2, outcome: 'loss', score: 40 });
    const updates = await q('SELECT match_id FROM rating_updates WHERE weight_class_id = $1', ['faults']);
    expect(updates).toEqual([{ match_id: matchId }]);
    const ratings = await q<{ agent_id: string; matches: number; wins: number; losses: number }>(
      'SELECT agent_id, matches, wins, losses FROM ratings WHERE weight_class_id = $1 ORDER BY wins DESC',
      ['faults'],
    );
    expect(ratings).toEqual([
      { agent_id: a.agentId, matches: 1, wins: 1, losses: 0 },
      { agent_id: b.agentId, matches: 1, wins: 0, losses: 1 },
    ]);
    const winner = byAgent.get(a.agentId) as { rating_before: { mu: number }; rating_after: { mu: number } };
    expect(winner.rating_before.mu).toBe(25);
    expect(winner.rating_after.mu).toBeGreaterThan(25);
    const events = await q<{ event_type: string; n: number }>(
      `SELECT event_type, count(*)::int AS n FROM outbox_events WHERE payload->>'match_id' = $1
        GROUP BY event_type ORDER BY event_type`,
      [matchId],
    );
    expect(events).toEqual([
      { event_type: 'match.completed', n: 2 },
      { event_type: 'match.started', n: 2 },
    ]);
    const crashes = [s.api, s.worker]
      .filter((p) => p.unexpectedExits > 0)
      .map((p) => `${p.name}: ${p.crashReports.join(' / ')}`);
    expect(crashes).toEqual([]);
    out(`SUMMARY match ${matchId} complete; 1 rating update; ${JSON.stringify(ratings)}`);
  });
});
