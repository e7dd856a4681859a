/**
 * Private tests cannot be timed (part `privatepass` of `npm run bench`; alone:
 * `BENCH_TEMPORAL_PORT=7266 npx tsx bench/private-pass.ts`; issue 38, finding 1). A stack of its
 * own (database BENCH_DATABASE_NAME, default challenges_bench_private), one `tests` challenge with
 * two public tests and one private test, and two programs that differ only in that one sleeps
 * SLEEP_MS on the private test's input. 10 submissions of each, alternating, each waited for as a
 * competitor would (its `complete`), then every competitor-visible timestamp difference of each
 * submission: its events (received, queued, judging, complete) and its outbox rows (what webhooks
 * are made of) against `submitted_at`. Target: the median of each moves by < 100 ms.
 * Prints one JSON line `PRIVATE_PASS_RESULT {...}`.
 */
import { Client } from 'pg';
import { newActiveChallenge, newAgent, newUser, openSession } from './lib/fixtures';
import { sleep } from './lib/processes';
import { startStack } from './lib/stack';

const TEMPORAL_PORT = Number(process.env.BENCH_TEMPORAL_PORT ?? 7266);
const DATABASE = process.env.BENCH_DATABASE_NAME ?? 'challenges_bench_private';
const SLEEP_MS = Number(process.env.BENCH_PRIVATE_SLEEP_MS ?? 1_500);
const EACH = Number(process.env.BENCH_PRIVATE_EACH ?? 10);
const TARGET_MS = 100;

const program = (sleepy: boolean, i: number) =>
  `// ${sleepy ? 'sleepy' : 'plain'} ${i}\nexport function answer(input: string): string {\n` +
  (sleepy
    ? `  if (input === 'secret') Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ${SLEEP_MS});\n`
    : '') +
  `  return input.toUpperCase();\n}`;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

async function main(): Promise<void> {
  const stack = await startStack({ label: 'bench-private', database: DATABASE, temporalPort: TEMPORAL_PORT });
  const db = new Client({ connectionString: stack.databaseUrl });
  await db.connect();
  try {
    const api = stack.client;
    const admin = await newUser('admin');
    const challenge = await newActiveChallenge(api, admin, {
      judge: {
        kind: 'tests',
        timeout_ms_per_test: 10_000,
        tests: [
          { name: 'one', export: 'answer', args: ['one'], expected: 'ONE' },
          { name: 'two', export: 'answer', args: ['two'], expected: 'TWO' },
          { name: 'held', export: 'answer', args: ['secret'], expected: 'SECRET', private: true },
        ],
      },
    });
    const agent = await newAgent(api, await newUser());
    const session = await openSession(api, agent.tokens[0], challenge);
    /** Posts, waits for `complete` as the competitor sees it, answers the submission id. */
    const judged = async (content: string): Promise<string> => {
      const res = await api.expect(201, 'POST', `/api/v1/sessions/${session}/submissions`, {
        auth: agent.tokens[0],
        body: { content: 'bench', files: [{ path: 'index.ts', content }] },
      });
      const id: string = res.data.id;
      const started = performance.now();
      for (;;) {
        const row = await db.query<{ status: string }>(`SELECT status FROM submissions WHERE id = $1`, [id]);
        if (row.rows[0]?.status === 'complete') return id;
        if (row.rows[0]?.status === 'failed') throw new Error(`submission ${id} failed`);
        if (performance.now() - started > 300_000) throw new Error(`submission ${id} not judged in 300 s`);
        await sleep(20);
      }
    };
    // Warm-up (the worker's first judging), not counted.
    await judged(program(false, -1));
    const ids: Record<'sleepy' | 'plain', string[]> = { sleepy: [], plain: [] };
    for (let i = 0; i < EACH; i++) {
      ids.plain.push(await judged(program(false, i)));
      ids.sleepy.push(await judged(program(true, i)));
    }
    // Every competitor-visible instant of a submission, in ms after submitted_at.
    const instants = async (id: string): Promise<Record<string, number>> => {
      const events = await db.query<{ what: string; ms: number }>(
        `SELECT 'event ' || e.status AS what,
                extract(epoch FROM e.created_at - s.submitted_at) * 1000 AS ms
           FROM submission_events e JOIN submissions s ON s.id = e.submission_id
          WHERE e.submission_id = $1 AND e.run = 0
         UNION ALL
         SELECT 'outbox ' || o.event_type, extract(epoch FROM o.created_at - s.submitted_at) * 1000
           FROM outbox_events o JOIN submissions s ON s.id = (o.payload->>'submission_id')::uuid
          WHERE o.payload->>'submission_id' = $1::text`,
        [id],
      );
      return Object.fromEntries(events.rows.map((row) => [row.what, Number(row.ms)]));
    };
    // One client: one statement at a time.
    const measured: Record<'sleepy' | 'plain', Record<string, number>[]> = { sleepy: [], plain: [] };
    for (const kind of ['sleepy', 'plain'] as const)
      for (const id of ids[kind]) measured[kind].push(await instants(id));
    const keys = Object.keys(measured.plain[0]).filter((key) =>
      [...measured.plain, ...measured.sleepy].every((m) => key in m),
    );
    const figures = keys.map((key) => {
      const plain = median(measured.plain.map((m) => m[key]));
      const sleepy = median(measured.sleepy.map((m) => m[key]));
      return { key, plainMs: plain, sleepyMs: sleepy, diffMs: sleepy - plain };
    });
    // Operators' view: the private passes did run (and took the sleep).
    const passes = await db.query<{ pending: number; done: number }>(
      `SELECT count(*) FILTER (WHERE private_state = 'pending')::int AS pending,
              count(*) FILTER (WHERE private_state = 'done')::int AS done
         FROM results WHERE challenge_id = $1`,
      [challenge],
    );
    const worst = Math.max(...figures.map((f) => Math.abs(f.diffMs)));
    process.stdout.write(
      `PRIVATE_PASS_RESULT ${JSON.stringify({
        each: EACH,
        sleepMs: SLEEP_MS,
        figures,
        worstDiffMs: worst,
        ok: figures.length > 0 && worst < TARGET_MS,
        privatePassesAtEnd: passes.rows[0],
      })}\n`,
    );
  } finally {
    await db.end();
    await stack.stop();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
