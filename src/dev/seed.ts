/**
 * Demo data: an operator and a few published challenges, one per judge kind that can run here.
 *
 *   tsx src/dev/seed.ts [--print-admin-jwt]     (runs migrations first; idempotent)
 *
 * Idempotent: challenges have fixed ids and are only created (and published) when missing, so an
 * operator's later edits, quarantines or retirements are never undone by a re-run.
 *
 * Judge kinds: rubric ("Say hello", "Sea haiku") and tests ("Reverse a string", where the demo
 * agents compete, "Implement add", "FizzBuzz", the upcoming weekend sprint, and the head-to-head
 * "Arena: reverse a string", where the demo agents meet every few minutes), and game ("Game: connect
 * four", where the demo agents' programs play each other). No `http` challenge is seeded: an http judge needs an external
 * grader service (POST {submission: {content, files}} → {score, feedback?, criteria?}) and none
 * ships with the service; create one with POST /api/v1/admin/challenges once you run a grader.
 */
import type { Pool } from 'pg';
import type { CreateChallengeBody } from '../api/schemas/challenges';
import { createChallengeBody } from '../api/schemas/challenges';
import { mintSessionJwt } from '../auth/jwt';
import { findChallengeById, updateChallenge } from '../db/queries/challenges';
import { upsertUserBySubject } from '../db/queries/users';
import { insertAgent, listAgentsByOwner, markAgentDeleted } from '../db/queries/agents';
import { DEMO_AGENT_NAMES, type DemoPersona } from '../connector-client/demo';
import { createChallenge, publishChallenge } from '../domain/challenges/lifecycle';
import { createLogger } from '../lib/logger';
import type { ServiceDeps } from '../service-deps';
import { storableText } from '../lib/storable-text';

export const DEMO_ADMIN_SUBJECT = 'demo|admin';

/** Fixed ids, so re-runs find what earlier runs created. */
export const DEMO_CHALLENGE_IDS = {
  sayHello: '00000000-0000-4000-8000-00000000c001',
  add: '00000000-0000-4000-8000-00000000c002',
  fizzbuzz: '00000000-0000-4000-8000-00000000c003',
  haiku: '00000000-0000-4000-8000-00000000c004',
  upcoming: '00000000-0000-4000-8000-00000000c005',
  reverse: '00000000-0000-4000-8000-00000000c006',
  arena: '00000000-0000-4000-8000-00000000c007',
  contest: '00000000-0000-4000-8000-00000000c008',
  game: '00000000-0000-4000-8000-00000000c009',
} as const;

const DAY_MS = 86_400_000;

/** The arena's and the game's matchmaking: a rated round every 3 minutes, caps loose enough for a demo. */
const DEMO_MATCH_SETTINGS = {
  players: 2,
  every_minutes: 3,
  rematch_after_minutes: 0,
  max_per_pair_per_day: 100,
  max_per_agent_per_hour: 20,
  rated: true,
};

/** The demo challenges (bodies of POST /api/v1/admin/challenges). */
export function demoChallenges(now: Date = new Date()): { id: string; body: unknown }[] {
  return [
    {
      id: DEMO_CHALLENGE_IDS.sayHello,
      body: {
        title: 'Say hello',
        description:
          'Greet the judges in one friendly sentence that starts with a capital letter and mentions "hello".',
        category: 'warm-up',
        format: 'text',
        weight_class_id: 'open',
        time_limit_minutes: 10,
        is_featured: true,
        is_daily: true,
        judge: {
          kind: 'rubric',
          criteria: [
            {
              name: 'says hello',
              weight: 3,
              check: { type: 'contains', value: 'hello', case_sensitive: false },
            },
            { name: 'starts with a capital', weight: 1, check: { type: 'regex', pattern: '^[A-Z]' } },
            { name: 'one short sentence', weight: 1, check: { type: 'length', min: 5, max: 140 } },
            {
              name: 'polite',
              weight: 1,
              hidden: true,
              check: { type: 'regex', pattern: '\\b(please|thanks|thank you|nice)\\b', flags: 'i' },
            },
          ],
        },
      },
    },
    {
      id: DEMO_CHALLENGE_IDS.add,
      body: {
        title: 'Implement add',
        description:
          'Submit a JavaScript or TypeScript file exporting `add(a, b)` that returns the sum of two numbers.',
        category: 'coding',
        format: 'code',
        weight_class_id: 'lightweight',
        time_limit_minutes: 15,
        judge: {
          kind: 'tests',
          tests: [
            { name: 'adds small numbers', export: 'add', args: [1, 2], expected: 3 },
            { name: 'adds negatives', export: 'add', args: [-4, 1], expected: -3 },
            { name: 'adds zero', export: 'add', args: [0, 0], expected: 0, hidden: true },
            {
              name: 'adds large numbers',
              export: 'add',
              args: [1_000_000, 2_500_000],
              expected: 3_500_000,
              hidden: true,
            },
          ],
        },
      },
    },
    {
      id: DEMO_CHALLENGE_IDS.fizzbuzz,
      body: {
        title: 'FizzBuzz',
        description:
          'Export `fizzbuzz(n)`: "Fizz" for multiples of 3, "Buzz" for multiples of 5, "FizzBuzz" for both, else n as a string.',
        category: 'coding',
        format: 'code',
        weight_class_id: 'lightweight',
        time_limit_minutes: 20,
        max_submissions_per_session: 5,
        judge: {
          kind: 'tests',
          timeout_ms_per_test: 1000,
          tests: [
            { name: 'three', export: 'fizzbuzz', args: [3], expected: 'Fizz' },
            { name: 'five', export: 'fizzbuzz', args: [5], expected: 'Buzz' },
            { name: 'fifteen', export: 'fizzbuzz', args: [15], expected: 'FizzBuzz' },
            { name: 'seven', export: 'fizzbuzz', args: [7], expected: '7', hidden: true },
            { name: 'ninety', export: 'fizzbuzz', args: [90], expected: 'FizzBuzz', hidden: true, weight: 2 },
          ],
        },
      },
    },
    {
      // Fair contests (issue 32): held-out tests count only in the private score, shown at the end;
      // competitors pick the submission that counts; the board freezes for the last hour.
      id: DEMO_CHALLENGE_IDS.contest,
      body: {
        title: 'Contest: sum of a list',
        description:
          'Export `sum(xs)` returning the sum of an array of numbers. Some tests are held out: they count only in the final board, revealed when the contest ends in a week. Select the submission you want judged on them; the public board freezes for the last hour. Ask if anything is unclear.',
        category: 'coding',
        format: 'code',
        weight_class_id: 'lightweight',
        time_limit_minutes: 30,
        ends_at: new Date(now.getTime() + 7 * DAY_MS).toISOString(),
        final_submissions: 1,
        freeze_minutes: 60,
        judge: {
          kind: 'tests',
          tests: [
            { name: 'three numbers', export: 'sum', args: [[1, 2, 3]], expected: 6 },
            { name: 'negatives', export: 'sum', args: [[-5, 2]], expected: -3 },
            { name: 'empty list', export: 'sum', args: [[]], expected: 0, hidden: true },
            {
              name: 'held out: long list',
              export: 'sum',
              args: [[10, 20, 30, 40, 50]],
              expected: 150,
              private: true,
            },
            {
              name: 'held out: fractions',
              export: 'sum',
              args: [[0.5, 0.25]],
              expected: 0.75,
              private: true,
            },
          ],
        },
      },
    },
    {
      id: DEMO_CHALLENGE_IDS.haiku,
      body: {
        title: 'Sea haiku',
        description: 'Write a three-line haiku about the sea.',
        category: 'writing',
        format: 'text',
        weight_class_id: 'open',
        time_limit_minutes: 10,
        prize_pool: 100,
        judge: {
          kind: 'rubric',
          criteria: [
            {
              name: 'three lines',
              weight: 2,
              check: { type: 'regex', pattern: '^[^\\n]+\\n[^\\n]+\\n[^\\n]+\\n?$' },
            },
            {
              name: 'mentions the sea',
              weight: 2,
              check: { type: 'regex', pattern: '\\b(sea|ocean|waves?|tide)\\b', flags: 'i' },
            },
            { name: 'brief', weight: 1, check: { type: 'length', max: 200 } },
          ],
        },
      },
    },
    {
      id: DEMO_CHALLENGE_IDS.upcoming,
      body: {
        title: 'Weekend sprint: reverse a string',
        description:
          'Export `reverse(s)` returning s reversed. Opens tomorrow for two days; entries are accepted before it starts.',
        category: 'coding',
        format: 'code',
        weight_class_id: 'lightweight',
        time_limit_minutes: 30,
        starts_at: new Date(now.getTime() + DAY_MS).toISOString(),
        ends_at: new Date(now.getTime() + 3 * DAY_MS).toISOString(),
        judge: {
          kind: 'tests',
          tests: [
            { name: 'word', export: 'reverse', args: ['abc'], expected: 'cba' },
            { name: 'empty', export: 'reverse', args: [''], expected: '' },
            { name: 'palindrome', export: 'reverse', args: ['level'], expected: 'level', hidden: true },
          ],
        },
      },
    },
    {
      // The arena (issue 30): the demo agents meet here head to head every few minutes; each bout
      // is judged by the same tests, the better score wins, ratings move on the ladder.
      id: DEMO_CHALLENGE_IDS.arena,
      body: {
        title: 'Arena: reverse a string, head to head',
        description:
          'Export `reverse(s)` from src/solution.ts. A head-to-head challenge: the matchmaker pairs connected agents every 3 minutes for a 2-minute bout; the better judged score wins and the weight class ladder (OpenSkill) moves. The demo agents meet here when you run `npm start`.',
        category: 'coding',
        format: 'head_to_head',
        weight_class_id: 'arena-demo',
        time_limit_minutes: 2,
        match: DEMO_MATCH_SETTINGS,
        judge: {
          kind: 'tests',
          entry: 'src/solution.ts',
          tests: [
            { name: 'reverses a word', export: 'reverse', args: ['hello'], expected: 'olleh' },
            { name: 'keeps spaces in place', export: 'reverse', args: ['a b c'], expected: 'c b a' },
            { name: 'keeps emoji intact', export: 'reverse', args: ['a😀b'], expected: 'b😀a' },
            { name: 'empty string', export: 'reverse', args: [''], expected: '' },
            { name: 'palindrome', export: 'reverse', args: ['level'], expected: 'level', hidden: true },
          ],
        },
      },
    },
    {
      // Games (issue 31): the demo agents each submit a program (src/connector-client/demo-game.ts);
      // the matchmaker plays their latest validated programs against each other every 3 minutes,
      // so /matches/{id} has a replay to watch without anyone writing a bot first.
      id: DEMO_CHALLENGE_IDS.game,
      body: {
        title: 'Game: connect four',
        description:
          'Submit a program (any of the eight languages) that plays Connect Four one turn at a time: a JSON line in, `{"action": column}` out (the rules: GET /api/v1/games/connect-four). Each submission is validated by a game against itself; every 3 minutes the matchmaker plays the latest validated programs against each other, two games with seats swapped, and the ladder moves. Try yours at home first: `npm run -s cli -- play --game connect-four boss main.py`. The demo agents play here when you run `npm start`.',
        category: 'games',
        format: 'game',
        weight_class_id: 'game-demo',
        time_limit_minutes: 60,
        max_submissions_per_session: 20,
        match: DEMO_MATCH_SETTINGS,
        judge: {
          kind: 'game',
          game: 'connect-four',
          turn_ms: 1000,
          bank_ms: 10000,
          memory_mb: 256,
          games_per_match: 2,
        },
      },
    },
    {
      // The demo agents (src/dev/demo-agent.ts) compete here: its tests really judge what they submit.
      // Last, so it is the newest featured challenge and leads the listing.
      id: DEMO_CHALLENGE_IDS.reverse,
      body: {
        title: 'Reverse a string',
        description:
          'Export `reverse(s)` from src/solution.ts (TypeScript or JavaScript): s reversed character by character, emoji included. The demo agents compete here when you run `npm start`.',
        category: 'coding',
        format: 'code',
        weight_class_id: 'lightweight',
        time_limit_minutes: 30,
        is_featured: true,
        judge: {
          kind: 'tests',
          entry: 'src/solution.ts',
          tests: [
            { name: 'reverses a word', export: 'reverse', args: ['hello'], expected: 'olleh' },
            { name: 'keeps spaces in place', export: 'reverse', args: ['a b c'], expected: 'c b a' },
            { name: 'keeps emoji intact', export: 'reverse', args: ['a😀b'], expected: 'b😀a' },
            { name: 'empty string', export: 'reverse', args: [''], expected: '' },
            { name: 'palindrome', export: 'reverse', args: ['level'], expected: 'level', hidden: true },
          ],
        },
      },
    },
  ];
}

export interface SeedOptions {
  /** With the service's dependencies (Temporal reachable), challenges are published like an operator would (events + lifecycle workflows). */
  deps?: ServiceDeps;
  log?: (line: string) => void;
}

export interface SeedSummary {
  adminUserId: string;
  created: string[];
  published: string[];
  /** The demo agents (one per persona), found or created. */
  demoAgents: Record<DemoPersona, string>;
}

/** The subject of a demo persona's user (src/dev/demo-agent.ts signs in as it). */
export const demoPersonaSubject = (persona: DemoPersona) => `demo|${persona}`;

/**
 * One agent per demo persona, owned by that persona's user: found by name when an earlier run
 * made it, else created; further live ones of that name (left by runs before this rule) are
 * deleted, so the pages never show "Basil (quick draft)" against "Basil (quick draft)".
 */
async function seedDemoAgents(db: Pool): Promise<Record<DemoPersona, string>> {
  const ids = {} as Record<DemoPersona, string>;
  for (const persona of Object.keys(DEMO_AGENT_NAMES) as DemoPersona[]) {
    const name = DEMO_AGENT_NAMES[persona];
    const user = await upsertUserBySubject(db, demoPersonaSubject(persona), storableText(name), 'user');
    const same = (await listAgentsByOwner(db, user.id)).filter((a) => a.name === name);
    const kept =
      same[0] ?? (await insertAgent(db, user.id, storableText(name), storableText('scripted-demo')));
    if (!kept) throw new Error(`could not create the demo agent ${name}`);
    for (const extra of same.slice(1)) await markAgentDeleted(db, extra.id);
    ids[persona] = kept.id;
  }
  return ids;
}

/**
 * Creates the demo operator and the demo challenges when missing. With `options.temporal`, new
 * challenges are published through the domain (challenge.published + lifecycle workflow); without
 * it they are activated directly (no events, no workflow; POST .../publish on them later plans it).
 */
export async function seedDemoData(db: Pool, options: SeedOptions = {}): Promise<SeedSummary> {
  const log = options.log ?? (() => undefined);
  const adminUser = await upsertUserBySubject(db, DEMO_ADMIN_SUBJECT, storableText('Demo Operator'), 'admin');
  const summary: SeedSummary = {
    adminUserId: adminUser.id,
    created: [],
    published: [],
    demoAgents: await seedDemoAgents(db),
  };
  const deps = options.deps ?? null;

  for (const demo of demoChallenges()) {
    const body: CreateChallengeBody = createChallengeBody.parse(demo.body);
    const inserted = await createChallenge(db, adminUser.id, body, demo.id);
    if (inserted) summary.created.push(demo.id);
    const row = inserted ?? (await findChallengeById(db, demo.id));
    // Publish what this seed created and never published (also finishes an interrupted earlier run).
    if (!row || row.status !== 'draft' || row.published_at || row.quarantined_at) continue;
    if (deps) {
      await publishChallenge(deps, { userId: adminUser.id }, demo.id);
    } else {
      await updateChallenge(db, demo.id, { status: 'active', published_at: new Date() });
    }
    summary.published.push(demo.id);
    log(`seeded "${row.title}" (${demo.id})`);
  }
  return summary;
}

async function main(): Promise<void> {
  const { loadConfig } = await import('../config');
  const { migrate } = await import('../db/migrate');
  const { createPool } = await import('../db/pool');
  const { lazyTemporalClient } = await import('../temporal-client/client');
  const config = loadConfig();
  if (config.NODE_ENV === 'production')
    throw new Error('refusing to seed demo data with NODE_ENV=production');
  await migrate(config.DATABASE_URL);
  const db = createPool(config.DATABASE_URL, 2);
  const temporal = lazyTemporalClient(config);
  try {
    const reachable = await Promise.race([
      temporal.get().then(
        () => true,
        () => false,
      ),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 6000).unref()),
    ]);
    if (!reachable)
      console.warn('Temporal is not reachable: challenges are activated without lifecycle workflows');
    const summary = await seedDemoData(db, {
      deps: reachable
        ? { config, db, logger: createLogger(config.LOG_LEVEL, 'seed'), temporal: temporal.get }
        : undefined,
      log: (line) => console.log(line),
    });
    console.log(
      `demo data: ${summary.created.length} challenge(s) created, ${summary.published.length} published; operator subject "${DEMO_ADMIN_SUBJECT}"`,
    );
    if (process.argv.includes('--print-admin-jwt')) {
      console.log(
        await mintSessionJwt(config.AUTH_JWT_SECRET, {
          sub: DEMO_ADMIN_SUBJECT,
          name: 'Demo Operator',
          role: 'admin',
        }),
      );
    }
  } finally {
    await temporal.close();
    await db.end();
  }
}

if (require.main === module) {
  main().catch((err) => {
    console.error('seed failed:', err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
