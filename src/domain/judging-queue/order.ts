/**
 * The judging queue's rule (docs/decisions/judging.md, "One queue for all judging work";
 * docs/decisions/judging-queue.md for entries of several owners), as a pure function of the
 * queue's rows: which waiting work gets sandbox slots now. No clock, no database:
 * src/domain/judging-queue/queue.ts feeds it the live rows inside the queue's lock.
 *
 * - Priority first: normal work (submissions, dry runs, matchmakers' games) before low
 *   (rejudges, operators' exhibitions, anything counted against no owner in the background).
 * - Then DOMjudge's fair rule: an owner's waiting work is penalised by what that owner already
 *   holds or has queued ahead of it. The k-th waiting piece of an owner sorts by the slots the
 *   owner has running plus the slots of its k−1 waiting pieces ahead; ties go to the work whose
 *   owners have less in the queue overall, then to arrival. So a piece of an owner with nothing
 *   else running or waiting (penalty 0) starts before the waiting work of owners with more
 *   queued, whatever arrived first, and a flood is served round-robin between the flooders.
 * - A piece may count against several owners (a matchmaker's game match: one slot per seat, each
 *   against that seat's owner). It sorts by its most loaded owner's penalty (per seat, DOMjudge's
 *   rule would start it when its last seat's turn comes), its tie by its owners' queued slots
 *   together, and each seat counts ahead of its owner's later pieces and against its caps.
 * - Within an owner, first in, first out. Work counted against no owner (rejudges, operators'
 *   dry runs and exhibitions) has penalty 0 and keeps its arrival order within its priority.
 * - A private pass never takes the last free slot (when there are two or more): the next
 *   submission of its competitor, or of anyone, never waits behind a private test.
 * - Caps count slots: a piece is skipped while one of its owners or agents would go over its cap
 *   (it does not hold up anyone else); the first piece that fits its caps but not the free slots
 *   stops the pass, so a piece of several slots is not starved by smaller ones behind it.
 */
import { findGame } from '../../judging/games/catalog';

/**
 * The queue's priority classes; smaller is served first. `low` is below every owner-counted
 * entry: rejudges, operators' exhibitions, and background passes counted against no owner.
 */
export const QUEUE_PRIORITY = { normal: 0, low: 1 } as const;

/** One owner's share of a piece of work (a seat of a game match): the slots counted against it. */
export interface QueueOwner {
  ownerUserId: string;
  agentId: string | null;
  slots: number;
}

export interface QueuedWork {
  /** Arrival order (the row's serial id): smaller arrived first. */
  seq: number;
  /** The user the work counts against; null for work counted against no owner or several. */
  ownerUserId: string | null;
  agentId: string | null;
  /** QUEUE_PRIORITY: 0 normal, larger is later (1: rejudges, exhibitions). */
  priority: number;
  /** Sandbox slots the work runs in while it holds them. */
  slots: number;
  /** Work of several owners (a game match's seats); when given, it replaces ownerUserId/agentId. */
  owners?: readonly QueueOwner[];
  /**
   * Never takes the queue's last free slot (a private pass): a competitor's next submission must
   * not wait for a private test (DESIGN, "Fifth-round extensions"). With one slot in all there is
   * nothing to keep, and it waits only for the queue's normal work, as before.
   */
  keepsASlotFree?: boolean;
}

export interface QueueLimits {
  /** Sandbox slots of all workers together (JUDGE_QUEUE_SLOTS or the live workers' sum). */
  capacity: number;
  /** Slots one owner's work may hold at once. */
  perUser: number;
  /** Slots one agent's work may hold at once. */
  perAgent: number;
}

function add(map: Map<string, number>, key: string | null, slots: number): void {
  if (key !== null) map.set(key, (map.get(key) ?? 0) + slots);
}

/** Whom a piece counts against, with the slots of each: per owner, and per agent. */
function countedAgainst(work: QueuedWork): { users: Map<string, number>; agents: Map<string, number> } {
  const users = new Map<string, number>();
  const agents = new Map<string, number>();
  if (work.owners && work.owners.length > 0) {
    for (const owner of work.owners) {
      add(users, owner.ownerUserId, owner.slots);
      add(agents, owner.agentId, owner.slots);
    }
  } else {
    add(users, work.ownerUserId, work.slots);
    add(agents, work.agentId, work.slots);
  }
  return { users, agents };
}

function addAll(into: Map<string, number>, from: Map<string, number>): void {
  for (const [key, slots] of from) add(into, key, slots);
}

/**
 * The waiting work in the order the queue serves it (see the rule above), with the penalty each
 * piece sorted by.
 */
export function queueOrder(
  running: readonly QueuedWork[],
  waiting: readonly QueuedWork[],
): { work: QueuedWork; penalty: number }[] {
  const held = new Map<string, number>();
  const total = new Map<string, number>();
  for (const work of running) {
    const { users } = countedAgainst(work);
    addAll(held, users);
    addAll(total, users);
  }
  for (const work of waiting) addAll(total, countedAgainst(work).users);
  const ahead = new Map<string, number>();
  const keyed = [...waiting]
    .sort((a, b) => a.seq - b.seq)
    .map((work) => {
      const { users } = countedAgainst(work);
      let penalty = 0;
      let ownerTotal = 0;
      for (const owner of users.keys()) {
        penalty = Math.max(penalty, (held.get(owner) ?? 0) + (ahead.get(owner) ?? 0));
        ownerTotal += total.get(owner) ?? 0;
      }
      addAll(ahead, users);
      return { work, penalty, ownerTotal };
    });
  keyed.sort(
    (a, b) =>
      a.work.priority - b.work.priority ||
      a.penalty - b.penalty ||
      a.ownerTotal - b.ownerTotal ||
      a.work.seq - b.work.seq,
  );
  return keyed.map(({ work, penalty }) => ({ work, penalty }));
}

/** The waiting work that gets its slots now, in grant order. */
export function grantableWork(
  running: readonly QueuedWork[],
  waiting: readonly QueuedWork[],
  limits: QueueLimits,
): QueuedWork[] {
  let free = limits.capacity - running.reduce((sum, work) => sum + work.slots, 0);
  const byUser = new Map<string, number>();
  const byAgent = new Map<string, number>();
  for (const work of running) {
    const { users, agents } = countedAgainst(work);
    addAll(byUser, users);
    addAll(byAgent, agents);
  }
  const over = (counted: Map<string, number>, holding: Map<string, number>, cap: number) =>
    [...counted].some(([key, slots]) => (holding.get(key) ?? 0) + slots > cap);
  const granted: QueuedWork[] = [];
  for (const { work } of queueOrder(running, waiting)) {
    if (free <= 0) break;
    const { users, agents } = countedAgainst(work);
    if (over(users, byUser, limits.perUser) || over(agents, byAgent, limits.perAgent)) continue;
    // Skipped like a cap (low priority: nothing but other low work is behind it). A piece that
    // asked for more than all but one slot (the capacity shrank since) waits for an idle queue.
    const keep = work.keepsASlotFree && limits.capacity > 1;
    if (keep && free < Math.min(work.slots, limits.capacity - 1) + 1) continue;
    if (work.slots > free) break;
    granted.push(work);
    free -= work.slots;
    addAll(byUser, users);
    addAll(byAgent, agents);
  }
  return granted;
}

/**
 * The slots a piece of work asks for, bounded so that it can ever be granted: never more than
 * the owner's and the agent's caps (for owned work) nor the queue's capacity, never less than one.
 */
export function boundedSlots(
  wanted: number,
  limits: QueueLimits,
  counted: { owner: boolean; agent: boolean },
): number {
  let slots = Math.min(wanted, Math.max(1, limits.capacity));
  if (counted.owner) slots = Math.min(slots, limits.perUser);
  if (counted.agent) slots = Math.min(slots, limits.perAgent);
  return Math.max(1, Math.floor(slots));
}

/**
 * Whom a game match's judging counts against (DESIGN "Whatever a program writes is data", Judging
 * queue): a matchmaker's match one slot per seat, each against that seat's owner and agent, at
 * normal priority; an operator's exhibition against no owner, at low priority like a rejudge (it
 * is the operator's, and must not go before competitors' own work).
 */
export function matchQueueWork(
  origin: 'matchmaker' | 'exhibition',
  seats: readonly { ownerUserId: string; agentId: string }[],
): { priority: number; owners: QueueOwner[] } {
  if (origin !== 'matchmaker') return { priority: QUEUE_PRIORITY.low, owners: [] };
  return {
    priority: QUEUE_PRIORITY.normal,
    owners: seats.map((seat) => ({ ownerUserId: seat.ownerUserId, agentId: seat.agentId, slots: 1 })),
  };
}

/**
 * The sandbox slots a judging of this config runs in: a `tests` judging one (its tests run one
 * after another), a `program` judging JUDGE_PROGRAM_SLOTS but never more than it has tests (its
 * tests run that many at once); judges without sandboxes none.
 */
function gameSeats(game: unknown): number {
  return (typeof game === 'string' ? findGame(game)?.players.min : undefined) ?? 2;
}

export function slotsForJudge(judge: unknown, programSlots: number): number {
  const config = (judge ?? {}) as { kind?: unknown; tests?: unknown };
  if (config.kind === 'tests') return 1;
  // A game holds one slot per player: its self-play validation seats the game's fewest players.
  if (config.kind === 'game') return gameSeats((config as { game?: unknown }).game);
  if (config.kind === 'program') {
    const tests = Array.isArray(config.tests) ? config.tests.length : 1;
    return Math.max(1, Math.min(programSlots, tests));
  }
  return 0;
}
