/**
 * The arena's pure decisions (unit-tested in test/unit/domain/matches/rules.test.ts): match
 * settings and their defaults, placement of a bout, rating updates (OpenSkill, Weng-Lin
 * Plackett-Luce), and the matchmaker's grouping. No I/O here. Who may: policy.ts.
 */
import type * as OpenSkill from 'openskill';
import { validationError } from '../../errors';
import { findGame } from '../../judging/games/catalog';
import { mayMeetInMatchmaking } from './policy';

// ---- match settings -----------------------------------------------------------------------------

/** The formats whose agents meet in matches (every other format stays solo). */
export const MATCH_FORMATS = ['head_to_head', 'game'] as const;
export type MatchFormat = (typeof MATCH_FORMATS)[number];

export function isMatchFormat(format: string): format is MatchFormat {
  return (MATCH_FORMATS as readonly string[]).includes(format);
}

/** DESIGN "Matches between agents": the challenge's `match` object, every field present. */
export interface MatchSettings {
  players: number;
  every_minutes: number;
  rematch_after_minutes: number;
  max_per_pair_per_day: number;
  max_per_agent_per_hour: number;
  rated: boolean;
}

export const MATCH_SETTINGS_DEFAULTS: MatchSettings = {
  players: 2,
  every_minutes: 10,
  rematch_after_minutes: 60,
  max_per_pair_per_day: 6,
  max_per_agent_per_hour: 6,
  rated: true,
};

/** Inclusive ranges of the numeric settings (the API's schema uses the same numbers). */
export const MATCH_SETTINGS_RANGES = {
  players: [2, 8],
  every_minutes: [1, 1440],
  rematch_after_minutes: [0, 10080],
  max_per_pair_per_day: [1, 100],
  max_per_agent_per_hour: [1, 60],
} as const satisfies Record<Exclude<keyof MatchSettings, 'rated'>, readonly [number, number]>;

/** A bout's length when the challenge sets no time_limit_minutes (docs/decisions/arena.md). */
export const DEFAULT_BOUT_MINUTES = 10;

/** Submissions judged this long after the bout's end still count (DESIGN: 10 minutes). */
export const JUDGING_GRACE_MS = 10 * 60_000;

/**
 * A match's absolute deadline (DESIGN, "Whatever a program writes is data"): this much after a
 * bout's judging grace ends, or after a game match's wall cap counted from its slots' grant.
 */
export const MATCH_DEADLINE_SLACK_MS = 2 * 60_000;

/** How long after its start a bout of `boutMs` must be over: its length + the judging grace + the slack. */
export function boutDeadlineMs(boutMs: number): number {
  return boutMs + JUDGING_GRACE_MS + MATCH_DEADLINE_SLACK_MS;
}

/** How long after its slots' grant a game match of this wall cap must be over. */
export function gameDeadlineMs(wallCapMs: number): number {
  return wallCapMs + MATCH_DEADLINE_SLACK_MS;
}

/** Ratings are provisional until this many rated matches. */
export const PROVISIONAL_MATCHES = 5;

/**
 * The match settings a challenge ends up with after a create or an edit: match formats require
 * `match` (each field defaults; an edit merges into the stored settings), solo formats refuse it;
 * `format` cannot change once the challenge was published. Throws 400 VALIDATION_ERROR.
 */
export function resolveMatchSettings(input: {
  format: string;
  match: Partial<MatchSettings> | null | undefined;
  stored?: { format: string; match?: Record<string, unknown> | null; published: boolean };
}): MatchSettings | null {
  const { format, match, stored } = input;
  if (stored && stored.published && format !== stored.format)
    throw validationError(
      `body.format: format cannot change once the challenge was published (it is ${stored.format})`,
    );
  if (!isMatchFormat(format)) {
    if (match) throw validationError(`body.match: only head_to_head and game challenges take match settings`);
    return null;
  }
  const base =
    stored && stored.match && isMatchFormat(stored.format) ? (stored.match as Partial<MatchSettings>) : null;
  if (!match && !base) throw validationError(`body.match: required for ${format} challenges`);
  return { ...MATCH_SETTINGS_DEFAULTS, ...(base ?? {}), ...(match ?? {}) };
}

/**
 * DESIGN "Games": `format: "game"` requires `judge.kind: "game"` and `match.players` within the
 * game's range; a `game` judge outside a game challenge is fine (its own validation only).
 * Throws 400 VALIDATION_ERROR.
 */
export function checkGameChallenge(input: {
  format: string;
  judge: unknown;
  match: Partial<MatchSettings> | Record<string, unknown> | null | undefined;
}): void {
  if (input.format !== 'game') return;
  const judge = (input.judge ?? {}) as { kind?: unknown; game?: unknown };
  if (judge.kind !== 'game')
    throw validationError('body.judge: a game challenge needs a judge of kind "game"');
  const game = typeof judge.game === 'string' ? findGame(judge.game) : undefined;
  if (!game) return; // the judge's own schema names the unknown game
  const players = matchSettingsOf({ match: (input.match ?? null) as Record<string, unknown> | null }).players;
  if (players < game.players.min || players > game.players.max)
    throw validationError(
      `body.match.players: ${game.name} is played by ${game.players.min} to ${game.players.max} players`,
    );
}

/** The stored settings of a match challenge, every field present (defaults fill gaps). */
export function matchSettingsOf(challenge: { match?: Record<string, unknown> | null }): MatchSettings {
  return { ...MATCH_SETTINGS_DEFAULTS, ...((challenge.match ?? {}) as Partial<MatchSettings>) };
}

export function boutMinutes(challenge: { time_limit_minutes: number | null }): number {
  return challenge.time_limit_minutes ?? DEFAULT_BOUT_MINUTES;
}

/**
 * A bout is over before its end once every participant opened a session and none is open now (each
 * came, played and left). Its workflow's look and the session close's nudge decide by this one rule.
 */
export function everyoneLeftBout(sessions: { opened: boolean; open_now: boolean }[]): boolean {
  return sessions.length > 0 && sessions.every((s) => s.opened && !s.open_now);
}

// ---- placement ----------------------------------------------------------------------------------

export type MatchOutcome = 'win' | 'loss' | 'draw' | 'forfeit';

export interface BoutScore {
  agentId: string;
  /** The best judged score within the rules (made before the end, judged within the grace), or null. */
  best: { score: number; submissionId: string } | null;
}

export interface Placement {
  agentId: string;
  rank: number | null;
  score: number | null;
  submissionId: string | null;
  outcome: MatchOutcome;
}

/**
 * Places a bout: higher score first; equal scores share a rank (competition ranking: 1, 1, 3) and
 * are draws; no judged score → forfeit, ranked last (shared). Everyone forfeiting → void (ranks null).
 */
export function placeBout(scores: BoutScore[]): { status: 'complete' | 'void'; placements: Placement[] } {
  const scored = scores.filter((s) => s.best !== null);
  if (scored.length === 0) {
    return {
      status: 'void',
      placements: scores.map((s) => ({
        agentId: s.agentId,
        rank: null,
        score: null,
        submissionId: null,
        outcome: 'forfeit',
      })),
    };
  }
  const placements = scores.map((s): Placement => {
    if (!s.best)
      return {
        agentId: s.agentId,
        rank: scored.length + 1,
        score: null,
        submissionId: null,
        outcome: 'forfeit',
      };
    const score = s.best.score;
    const rank = 1 + scored.filter((o) => o.best!.score > score).length;
    const shared = scored.some((o) => o.agentId !== s.agentId && o.best!.score === score);
    return {
      agentId: s.agentId,
      rank,
      score,
      submissionId: s.best.submissionId,
      outcome: shared ? 'draw' : rank === 1 ? 'win' : 'loss',
    };
  });
  return { status: 'complete', placements };
}

/**
 * Places a game match (DESIGN "Games": the outcome is the sum of the game rewards): a higher total
 * first; equal totals share a rank and are draws (competition ranking); the score is the total.
 * A participant without a program to play is a forfeit, last.
 */
export function placeGame(
  totals: { agentId: string; total: number | null; submissionId: string | null }[],
): Placement[] {
  const played = totals.filter((t) => t.total !== null);
  return totals.map((t): Placement => {
    if (t.total === null)
      return {
        agentId: t.agentId,
        rank: played.length + 1,
        score: null,
        submissionId: null,
        outcome: 'forfeit',
      };
    const total = t.total;
    const rank = 1 + played.filter((o) => o.total! > total).length;
    const shared = played.some((o) => o.agentId !== t.agentId && o.total === total);
    return {
      agentId: t.agentId,
      rank,
      score: total,
      submissionId: t.submissionId,
      outcome: shared ? 'draw' : rank === 1 ? 'win' : 'loss',
    };
  });
}

// ---- ratings ------------------------------------------------------------------------------------

export interface Skill {
  mu: number;
  sigma: number;
}
export interface RatingView extends Skill {
  ordinal: number;
}

export const INITIAL_SKILL: Skill = { mu: 25, sigma: 25 / 3 };

/** openskill's `ordinal` with its defaults (Z 3, α 1, target 0): μ − 3σ, proven equal in rules.test.ts. */
export function ratingView(skill: Skill): RatingView {
  return { mu: skill.mu, sigma: skill.sigma, ordinal: skill.mu - 3 * skill.sigma };
}

let openskill: typeof OpenSkill | undefined;
/**
 * openskill (with ramda under it) takes ~0.3 s to load and only the rating writer needs it (the
 * worker, when a rated match completes): every API process and test file loaded it for nothing.
 */
function openskillLib(): typeof OpenSkill {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use, on purpose
  return (openskill ??= require('openskill') as typeof OpenSkill);
}

/**
 * Loads the rating library now: the worker (the rating writer's process) calls it at start-up, so
 * the first rated match's transaction (which holds its weight class's lock) does not pay the load.
 */
export function loadRatingLibrary(): void {
  openskillLib();
}

/**
 * One rated match's update (Plackett-Luce, μ0 25, σ0 25/3): each participant's skill before and its
 * rank (a forfeit is last place), the skills after, in the same order.
 */
export function rateMatch(players: { skill: Skill; rank: number }[]): RatingView[] {
  const { rate, rating } = openskillLib();
  const teams = players.map((p) => [rating({ mu: p.skill.mu, sigma: p.skill.sigma })]);
  const rated = rate(teams, { rank: players.map((p) => p.rank) });
  return rated.map(([r]) => ratingView({ mu: r.mu, sigma: r.sigma }));
}

/** The rank a placement counts with in the rating: a forfeit is last place. */
export function ratingRank(
  p: { rank: number | null; outcome: MatchOutcome | null },
  participants: number,
): number {
  return p.outcome === 'forfeit' || p.rank === null ? participants : p.rank;
}

export function isProvisional(ratedMatches: number): boolean {
  return ratedMatches < PROVISIONAL_MATCHES;
}

// ---- matchmaking --------------------------------------------------------------------------------

export interface MatchCandidate {
  agentId: string;
  ordinal: number;
  provisional: boolean;
  /** Matches this agent was scheduled in within the last hour. */
  matchesLastHour: number;
  /** The agent's owner: agents of one owner are never grouped (policy.ts). */
  ownerUserId: string;
}

export interface PairHistory {
  a: string;
  b: string;
  /** Matches between the two within the last 24 h. */
  countLastDay: number;
  /** When they last met (ms since the epoch). */
  lastMetAtMs: number;
}

export interface RoundPlan {
  groups: string[][];
  waiting: { agent_id: string; reason: 'hourly_cap' | 'no_opponent' }[];
}

/** Half-width of the jitter added to ordinals before grouping (ordinal points). */
export const GROUPING_JITTER = 1;

const pairKey = (a: string, b: string) => (a < b ? `${a}|${b}` : `${b}|${a}`);

/** A deterministic number in [0, 1) from a seed and a name (FNV-1a, then a mulberry32 step). */
export function seededUnit(seed: string, name: string): number {
  let h = 0x811c9dc5;
  for (const ch of `${seed}:${name}`) {
    h ^= ch.charCodeAt(0);
    h = Math.imul(h, 0x01000193);
  }
  let t = (h += 0x6d2b79f5);
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

/**
 * The greedy pass can leave pairable agents waiting: with a1, a2 (one owner), b1, b2 (another) and
 * c1, c2 (a third) it may group a1-b1 and a2-b2, and c1 and c2 may not meet. Each waiting agent u
 * may take the place of a grouped member m (u allowed with the rest of m's group) when m then
 * forms a new group with other waiting agents; members nearest u in key are tried first. Repairs
 * never make a rematch (`allowed` is the no-rematch rule). Mutates groups and grouped.
 */
function repairLeftovers(
  byKey: { agentId: string; key: number }[],
  groups: string[][],
  grouped: Set<string>,
  players: number,
  allowed: (a: string, b: string) => boolean,
): void {
  const keyOf = new Map(byKey.map((c) => [c.agentId, c.key]));
  const fits = (member: string, group: string[]) => group.every((g) => allowed(g, member));
  let repaired = true;
  while (repaired) {
    repaired = false;
    const left = byKey.filter((c) => !grouped.has(c.agentId)).map((c) => c.agentId);
    if (left.length < players - 1 || groups.length === 0) return;
    for (const u of left) {
      const ku = keyOf.get(u)!;
      const members = groups
        .flatMap((group, gi) => group.map((m) => ({ m, gi })))
        .sort(
          (x, y) => Math.abs(keyOf.get(x.m)! - ku) - Math.abs(keyOf.get(y.m)! - ku) || (x.m < y.m ? -1 : 1),
        );
      for (const { m, gi } of members) {
        const rest = groups[gi].filter((g) => g !== m);
        if (!fits(u, rest)) continue;
        const fresh = [m];
        const nearM = left
          .filter((v) => v !== u)
          .sort(
            (x, y) =>
              Math.abs(keyOf.get(x)! - keyOf.get(m)!) - Math.abs(keyOf.get(y)! - keyOf.get(m)!) ||
              (x < y ? -1 : 1),
          );
        for (const v of nearM) if (fresh.length < players && fits(v, fresh)) fresh.push(v);
        if (fresh.length < players) continue;
        groups[gi] = groups[gi].map((g) => (g === m ? u : g));
        groups.push(fresh);
        for (const id of [u, ...fresh]) grouped.add(id);
        repaired = true;
        break;
      }
      if (repaired) break;
    }
  }
}

/**
 * One matchmaking round: agents at their hourly cap wait; the others are grouped by nearest
 * (jittered) ordinal, provisional agents seeding groups first; a pair at its daily cap never
 * meets; a pair that met within the rematch window meets only when no other group can be formed
 * for that agent; agents of one owner never meet (policy.ts: no rating farmed by self-play), not
 * even as each other's only opponent; a waiting agent may then displace a grouped one who can
 * group with other waiting agents (repairLeftovers). Deterministic for a given seed.
 */
export function planRound(input: {
  candidates: MatchCandidate[];
  pairs: PairHistory[];
  settings: Pick<
    MatchSettings,
    'players' | 'rematch_after_minutes' | 'max_per_pair_per_day' | 'max_per_agent_per_hour'
  >;
  nowMs: number;
  seed: string;
}): RoundPlan {
  const { settings, nowMs, seed } = input;
  const waiting: RoundPlan['waiting'] = [];
  const pairs = new Map(input.pairs.map((p) => [pairKey(p.a, p.b), p]));
  const ownerOf = new Map(input.candidates.map((c) => [c.agentId, { owner_user_id: c.ownerUserId }]));
  const pool = input.candidates
    .filter((c) => {
      if (c.matchesLastHour < settings.max_per_agent_per_hour) return true;
      waiting.push({ agent_id: c.agentId, reason: 'hourly_cap' });
      return false;
    })
    .map((c) => ({ ...c, key: c.ordinal + (seededUnit(seed, c.agentId) * 2 - 1) * GROUPING_JITTER }));
  const byKey = [...pool].sort((x, y) => x.key - y.key || (x.agentId < y.agentId ? -1 : 1));
  const seeds = [...byKey.filter((c) => c.provisional), ...byKey.filter((c) => !c.provisional)];
  const grouped = new Set<string>();
  const groups: string[][] = [];

  const allowed = (a: string, b: string, allowRematch: boolean): boolean => {
    if (!mayMeetInMatchmaking(ownerOf.get(a)!, ownerOf.get(b)!)) return false;
    const history = pairs.get(pairKey(a, b));
    if (!history) return true;
    if (history.countLastDay >= settings.max_per_pair_per_day) return false;
    const recent = nowMs - history.lastMetAtMs < settings.rematch_after_minutes * 60_000;
    return allowRematch || !recent;
  };

  for (const seedAgent of seeds) {
    if (grouped.has(seedAgent.agentId)) continue;
    const nearest = byKey
      .filter((c) => c.agentId !== seedAgent.agentId && !grouped.has(c.agentId))
      .sort(
        (x, y) =>
          Math.abs(x.key - seedAgent.key) - Math.abs(y.key - seedAgent.key) ||
          (x.agentId < y.agentId ? -1 : 1),
      );
    let group: string[] | null = null;
    for (const allowRematch of [false, true]) {
      const members = [seedAgent.agentId];
      for (const c of nearest) {
        if (members.length === settings.players) break;
        if (members.every((m) => allowed(m, c.agentId, allowRematch))) members.push(c.agentId);
      }
      if (members.length === settings.players) {
        group = members;
        break;
      }
    }
    if (!group) continue;
    for (const m of group) grouped.add(m);
    groups.push(group);
  }
  repairLeftovers(byKey, groups, grouped, settings.players, (a, b) => allowed(a, b, false));
  for (const c of byKey)
    if (!grouped.has(c.agentId)) waiting.push({ agent_id: c.agentId, reason: 'no_opponent' });
  return { groups, waiting };
}
