/**
 * The judging queue's rule (docs/decisions/judging.md, "One queue for all judging work"), as a
 * pure function of the queue's rows: which waiting work gets sandbox slots now. No clock, no
 * database: src/domain/judging-queue/queue.ts feeds it the live rows inside the queue's lock.
 *
 * - Priority first: normal work (submissions, dry runs, games) before low (rejudges).
 * - Then DOMjudge's fair rule: an owner's waiting work is penalised by what that owner already
 *   holds or has queued ahead of it. The k-th waiting piece of an owner sorts by the slots the
 *   owner has running plus the slots of its k−1 waiting pieces ahead; ties go to the owner with
 *   less in the queue overall, then to arrival. So a piece of an owner with nothing else running
 *   or waiting (penalty 0) starts before the waiting work of owners with more queued, whatever
 *   arrived first, and a flood is served round-robin between the flooders.
 * - Within an owner, first in, first out. Work counted against no owner (rejudges, operators'
 *   dry runs) has penalty 0 and keeps its arrival order.
 * - Caps count slots: a piece is skipped while its owner or agent would go over its cap (it does
 *   not hold up anyone else); the first piece that fits its caps but not the free slots stops the
 *   pass, so a piece of several slots is not starved by smaller ones behind it.
 */
import { findGame } from '../../judging/games/catalog';

export interface QueuedWork {
  /** Arrival order (the row's serial id): smaller arrived first. */
  seq: number;
  /** The user the work counts against; null for work counted against no owner. */
  ownerUserId: string | null;
  agentId: string | null;
  /** 0 normal, larger is later (1: rejudges). */
  priority: number;
  /** Sandbox slots the work runs in while it holds them. */
  slots: number;
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
    add(held, work.ownerUserId, work.slots);
    add(total, work.ownerUserId, work.slots);
  }
  for (const work of waiting) add(total, work.ownerUserId, work.slots);
  const ahead = new Map<string, number>();
  const keyed = [...waiting]
    .sort((a, b) => a.seq - b.seq)
    .map((work) => {
      const owner = work.ownerUserId;
      const penalty = owner === null ? 0 : (held.get(owner) ?? 0) + (ahead.get(owner) ?? 0);
      add(ahead, owner, work.slots);
      return { work, penalty, ownerTotal: owner === null ? 0 : (total.get(owner) ?? 0) };
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
    add(byUser, work.ownerUserId, work.slots);
    add(byAgent, work.agentId, work.slots);
  }
  const granted: QueuedWork[] = [];
  for (const { work } of queueOrder(running, waiting)) {
    if (free <= 0) break;
    const overUser =
      work.ownerUserId !== null && (byUser.get(work.ownerUserId) ?? 0) + work.slots > limits.perUser;
    const overAgent =
      work.agentId !== null && (byAgent.get(work.agentId) ?? 0) + work.slots > limits.perAgent;
    if (overUser || overAgent) continue;
    if (work.slots > free) break;
    granted.push(work);
    free -= work.slots;
    add(byUser, work.ownerUserId, work.slots);
    add(byAgent, work.agentId, work.slots);
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
