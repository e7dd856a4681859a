/**
 * The judging queue's rule (src/domain/judging-queue/order.ts; docs/decisions/judging.md, "One
 * queue for all judging work"), as a pure function, and over time with a simulated clock.
 */
import {
  QUEUE_PRIORITY,
  type QueueLimits,
  type QueueOwner,
  type QueuedWork,
  boundedSlots,
  grantableWork,
  matchQueueWork,
  queueOrder,
} from '../../../../src/domain/judging-queue/order';
import { runQueueWork } from '../../../../src/domain/submissions/admission';

let nextSeq = 1;
function work(owner: string | null, overrides: Partial<QueuedWork> = {}): QueuedWork {
  return {
    seq: nextSeq++,
    ownerUserId: owner,
    agentId: owner === null ? null : `${owner}-agent`,
    priority: 0,
    slots: 1,
    ...overrides,
  };
}
const limits = (overrides: Partial<QueueLimits> = {}): QueueLimits => ({
  capacity: 2,
  perUser: 4,
  perAgent: 2,
  ...overrides,
});
const owners = (list: QueuedWork[]) => list.map((w) => w.ownerUserId);

describe('queueOrder', () => {
  test('an owner with nothing else running or waiting goes before owners with more queued, whatever arrived first', () => {
    const running = [work('a'), work('b')];
    const waiting = [work('a'), work('b'), work('a'), work('b'), work('victim')];
    expect(owners(queueOrder(running, waiting).map((x) => x.work))).toEqual(['victim', 'a', 'b', 'a', 'b']);
  });

  test('with nothing running, a lone piece still goes before the first piece of an owner with more queued', () => {
    const waiting = [work('flood'), work('flood'), work('flood'), work('victim')];
    expect(owners(queueOrder([], waiting).map((x) => x.work))).toEqual(['victim', 'flood', 'flood', 'flood']);
  });

  test('first in, first out within an owner; round-robin between flooders', () => {
    const a1 = work('a');
    const a2 = work('a');
    const b1 = work('b');
    const a3 = work('a');
    const b2 = work('b');
    const order = queueOrder([], [a3, b2, a1, a2, b1]).map((x) => x.work);
    // a and b have the same load at each step; a has more queued, so b goes first at each penalty.
    expect(order).toEqual([b1, a1, b2, a2, a3]);
  });

  test('the penalty counts slots: an owner holding a 2-slot judging waits behind one holding 1 slot', () => {
    const running = [work('big', { slots: 2 }), work('small', { slots: 1 })];
    const bigNext = work('big');
    const smallNext = work('small');
    const order = queueOrder(running, [bigNext, smallNext]);
    expect(order.map((x) => [x.work.ownerUserId, x.penalty])).toEqual([
      ['small', 1],
      ['big', 2],
    ]);
  });

  test('rejudges (low priority, no owner) wait behind every normal piece, first in, first out among themselves', () => {
    const r1 = work(null, { priority: 1 });
    const r2 = work(null, { priority: 1 });
    const flood = [work('a'), work('a'), work('a')];
    const order = queueOrder([], [r1, ...flood, r2]).map((x) => x.work);
    expect(order).toEqual([...flood, r1, r2]);
  });
});

describe('grantableWork', () => {
  test("a private pass never takes the last free slot: a competitor's next submission never waits behind a private test", () => {
    const low = QUEUE_PRIORITY.low;
    const privatePass = () => work(null, { priority: low, keepsASlotFree: true });
    // Idle queue of 2: one private pass starts, the second waits though a slot is free.
    const [first, second] = [privatePass(), privatePass()];
    expect(grantableWork([], [first, second], limits())).toEqual([first]);
    // One private pass running: the free slot is kept for anyone's next submission...
    expect(grantableWork([first], [second], limits())).toEqual([]);
    const next = work('competitor');
    expect(grantableWork([first], [second, next], limits())).toEqual([next]);
    // ...and normal work holding a slot leaves none a private pass may take.
    expect(grantableWork([work('other')], [second], limits())).toEqual([]);
    // Other low-priority work behind it (a rejudge) is not held up by the skipped pass.
    const rejudge = work(null, { priority: low });
    expect(grantableWork([first], [second, rejudge], limits())).toEqual([rejudge]);
    // With one slot in all there is nothing to keep: it runs when the queue is idle.
    expect(grantableWork([], [second], limits({ capacity: 1 }))).toEqual([second]);
    // A pass that asked for more than all but one slot waits for an idle queue.
    const wide = work(null, { priority: low, keepsASlotFree: true, slots: 3 });
    expect(grantableWork([work('other')], [wide], limits({ capacity: 3 }))).toEqual([]);
    expect(grantableWork([], [wide], limits({ capacity: 3 }))).toEqual([wide]);
  });

  test('grants up to the free slots, in the queue order', () => {
    const running = [work('a'), work('b')];
    const victim = work('victim');
    const waiting = [work('a'), work('b'), victim];
    expect(grantableWork(running, waiting, limits({ capacity: 3 }))).toEqual([victim]);
    expect(grantableWork(running, waiting, limits({ capacity: 2 }))).toEqual([]);
  });

  test('caps count slots: a piece over its owner or agent cap is skipped, and does not hold up the others', () => {
    const running = [work('a', { slots: 2, agentId: 'a1' }), work('a', { slots: 1, agentId: 'a2' })];
    const overUser = work('a', { slots: 2, agentId: 'a3' });
    const overAgent = work('a', { slots: 1, agentId: 'a1' });
    const other = work('b');
    const granted = grantableWork(running, [overUser, overAgent, other], limits({ capacity: 10 }));
    expect(granted).toEqual([other]);
  });

  test('a piece that fits its caps but not the free slots stops the pass (not starved by smaller ones behind it)', () => {
    // b already holds a slot, so a's 2-slot piece (penalty 0) is ahead of b's next (penalty 1).
    const running = [work('b')];
    const big = work('a', { slots: 2 });
    const small = work('b');
    expect(queueOrder(running, [big, small]).map((x) => x.work)).toEqual([big, small]);
    expect(grantableWork(running, [big, small], limits({ capacity: 2 }))).toEqual([]);
    expect(grantableWork(running, [big, small], limits({ capacity: 3 }))).toEqual([big]);
  });

  test('slots asked for are bounded by the caps and the capacity', () => {
    expect(boundedSlots(4, limits({ capacity: 8, perAgent: 2 }), { owner: true, agent: true })).toBe(2);
    expect(
      boundedSlots(4, limits({ capacity: 3, perAgent: 8, perUser: 8 }), { owner: true, agent: true }),
    ).toBe(3);
    expect(boundedSlots(4, limits({ capacity: 0 }), { owner: false, agent: false })).toBe(1);
    expect(boundedSlots(3, limits({ capacity: 8, perAgent: 1 }), { owner: false, agent: false })).toBe(3);
  });
});

/**
 * The queue over time, with a simulated clock: work arrives, the queue grants it, it runs for its
 * length and frees its slots. Answers when each piece started.
 */
function simulate(
  arrivals: { at: number; work: QueuedWork; length: number }[],
  queueLimits: QueueLimits,
): Map<QueuedWork, number> {
  const started = new Map<QueuedWork, number>();
  const running: { work: QueuedWork; endsAt: number }[] = [];
  const waiting: QueuedWork[] = [];
  const lengthOf = new Map(arrivals.map((a) => [a.work, a.length]));
  const pending = [...arrivals].sort((x, y) => x.at - y.at);
  let clock = 0;
  while (pending.length > 0 || waiting.length > 0 || running.length > 0) {
    while (pending.length > 0 && pending[0].at <= clock) waiting.push(pending.shift()!.work);
    for (let i = running.length - 1; i >= 0; i--) if (running[i].endsAt <= clock) running.splice(i, 1);
    const granted = grantableWork(
      running.map((r) => r.work),
      waiting,
      queueLimits,
    );
    for (const piece of granted) {
      waiting.splice(waiting.indexOf(piece), 1);
      running.push({ work: piece, endsAt: clock + lengthOf.get(piece)! });
      started.set(piece, clock);
    }
    const next = Math.min(pending[0]?.at ?? Infinity, ...running.map((r) => r.endsAt));
    if (next === Infinity) break;
    clock = next;
  }
  return started;
}

test('simulated: a victim arriving after a flood of 8 sleepers from 2 owners starts at the first freed slot', () => {
  // Two owners, two agents each, two sleepers per agent: every one within its caps (agent 2, owner 4).
  const flood = Array.from({ length: 8 }, (_, i) => ({
    at: i * 0.01,
    work: work(`owner-${i % 2}`, { agentId: `agent-${i % 4}` }),
    length: 10,
  }));
  const victim = { at: 1, work: work('victim'), length: 0.6 };
  const started = simulate([...flood, victim], limits({ capacity: 2 }));
  const victimStart = started.get(victim.work)!;
  const floodBefore = flood.filter((f) => started.get(f.work)! < victimStart).length;
  expect(victimStart).toBe(10); // the first slot that frees
  expect(floodBefore).toBe(2); // only what was running when it arrived
  // The victim's wait is at most one flood judging; alone it would have waited nothing.
  expect(victimStart - victim.at).toBeLessThanOrEqual(10);
  // Every sleeper still ran, two at a time, one owner's then the other's.
  expect(started.size).toBe(9);
});

/**
 * Several owners per entry (issue 37 finding 4; DESIGN "Whatever a program writes is data",
 * Judging queue): a matchmaker's game match holds one slot per seat, each counted against that
 * seat's owner. The code before counted a game match against no owner: penalty 0 and nothing
 * queued, so every match sorted before every solo submission.
 */
describe('a queue entry with several owners (a game match, one slot per seat)', () => {
  const seat = (owner: string, agent: string): QueueOwner => ({
    ownerUserId: owner,
    agentId: agent,
    slots: 1,
  });
  const match = (...seats: QueueOwner[]): QueuedWork =>
    work(null, { agentId: null, slots: seats.length, owners: seats });

  test("a lone owner's solo submission goes before queued matches of owners with more, whatever arrived first", () => {
    // Three owners with two agents each, in three matches: every owner has two seats queued.
    const m1 = match(seat('a', 'a1'), seat('b', 'b1'));
    const m2 = match(seat('a', 'a2'), seat('c', 'c1'));
    const m3 = match(seat('b', 'b2'), seat('c', 'c2'));
    const victim = work('victim');
    expect(queueOrder([], [m1, m2, m3, victim]).map((x) => x.work)).toEqual([victim, m1, m2, m3]);
    // Two slots free: the victim takes one; the next match needs two and waits (not starved).
    expect(grantableWork([], [m1, m2, m3, victim], limits({ capacity: 2 }))).toEqual([victim]);
    // One match running: its owners hold a slot each, so the next matches wait behind the victim.
    expect(grantableWork([m1], [m2, m3, victim], limits({ capacity: 3 }))).toEqual([victim]);
  });

  test("a seat counts against its owner: that owner's next piece sorts behind the match, a fresh owner's ahead", () => {
    const m = match(seat('a', 'a1'), seat('b', 'b1'));
    const ofA = work('a');
    const fresh = work('c');
    const order = queueOrder([], [m, ofA, fresh]);
    expect(order.map((x) => [x.work, x.penalty])).toEqual([
      [fresh, 0],
      [m, 0],
      [ofA, 1],
    ]);
    // Running, the match's seats are held against a and b: a's next piece waits behind c's.
    const running = queueOrder([m], [ofA, work('b'), fresh]).map((x) => x.work.ownerUserId);
    expect(running).toEqual(['c', 'a', 'b']);
  });

  test('a match waits as long as its most loaded seat owner would', () => {
    const busy = [work('b'), work('b')];
    const m = match(seat('a', 'a1'), seat('b', 'b1'));
    const other = work('c');
    const order = queueOrder(busy, [m, other]);
    expect(order.map((x) => [x.work, x.penalty])).toEqual([
      [other, 0],
      [m, 2],
    ]);
  });

  test('caps count each seat against its owner and its agent; a match over one does not hold up the others', () => {
    const running = [work('a', { slots: 4, agentId: 'a9' })];
    const m = match(seat('a', 'a1'), seat('b', 'b1'));
    const other = work('c');
    expect(grantableWork(running, [m, other], limits({ capacity: 10 }))).toEqual([other]);
    const agentBusy = [work('d', { slots: 2, agentId: 'b1' })];
    expect(grantableWork(agentBusy, [m, other], limits({ capacity: 10 }))).toEqual([other]);
    expect(grantableWork([], [m, other], limits({ capacity: 10 }))).toEqual([other, m]);
  });

  test('ownerless work keeps its arrival order and priority: a low-priority piece waits behind every normal one', () => {
    const low = work(null, { priority: QUEUE_PRIORITY.low });
    const m = match(seat('a', 'a1'), seat('b', 'b1'));
    const solo = work('c');
    expect(queueOrder([], [low, m, solo]).map((x) => x.work)).toEqual([solo, m, low]);
  });

  test("whom a match's judging counts against: a matchmaker's per seat, an operator's exhibition none (low, like a rejudge)", () => {
    const seats = [
      { ownerUserId: 'a', agentId: 'a1' },
      { ownerUserId: 'b', agentId: 'b1' },
    ];
    expect(matchQueueWork('matchmaker', seats)).toEqual({
      priority: QUEUE_PRIORITY.normal,
      owners: [seat('a', 'a1'), seat('b', 'b1')],
    });
    expect(matchQueueWork('exhibition', seats)).toEqual({ priority: QUEUE_PRIORITY.low, owners: [] });
    expect(QUEUE_PRIORITY.low).toBeGreaterThan(QUEUE_PRIORITY.normal);
  });
});

/**
 * What test/system/judging-queue-order.test.ts proved with 150 s of real judging (two owners
 * flooding 8 sleepers of 5 s, a third owner's submission sent while the flood waits), proved here on
 * the order functions over time, for every capacity a machine may have and every moment the victim
 * may come; test/system/judging-queue-order.test.ts keeps one short run on the real queue.
 */
describe('the flood scenario, simulated for every capacity and arrival of the victim', () => {
  const FLOOD_LENGTH = 10;
  const cases = [1, 2, 3, 4].flatMap((capacity) =>
    [0.5, 3, FLOOD_LENGTH, FLOOD_LENGTH + 0.5].map((at) => [capacity, at] as const),
  );

  test.each(cases)('capacity %d, the victim arriving at %d', (capacity, victimAt) => {
    // Two owners, two agents each, two sleepers per agent: all within the caps (agent 2, owner 4).
    const flood = Array.from({ length: 8 }, (_, i) => ({
      at: i * 0.01,
      work: work(`owner-${i % 2}`, { agentId: `agent-${i % 4}` }),
      length: FLOOD_LENGTH,
    }));
    const victim = { at: victimAt, work: work('victim'), length: 0.5 };
    const started = simulate([...flood, victim], limits({ capacity }));
    // Every piece ran (the flood within its caps, the victim judged).
    expect(started.size).toBe(9);
    const victimStart = started.get(victim.work)!;
    const waitingWhenVictimCame = flood.filter((f) => started.get(f.work)! > victim.at);
    const grantedAheadOfVictim = waitingWhenVictimCame.filter((f) => started.get(f.work)! < victimStart);
    // None of the flood still waiting when the victim came went ahead of it...
    expect(grantedAheadOfVictim).toEqual([]);
    // ...and it took the first slot that freed (at once when one was free).
    const freeAt = [victim.at, ...flood.map((f) => started.get(f.work)! + f.length)]
      .filter((t) => t >= victim.at)
      .sort((x, y) => x - y);
    const runningAt = (t: number) =>
      flood.filter((f) => started.get(f.work)! <= t && started.get(f.work)! + f.length > t).length;
    const firstFree = freeAt.find((t) => runningAt(t) < capacity)!;
    expect(victimStart).toBe(firstFree);
  });

  test('once each flooder has a single piece left, nothing sets the victim apart: the tie goes to arrival', () => {
    const flood = Array.from({ length: 8 }, (_, i) => ({
      at: i * 0.01,
      work: work(`owner-${i % 2}`, { agentId: `agent-${i % 4}` }),
      length: FLOOD_LENGTH,
    }));
    // With 2 slots, at 21 six sleepers have started: one left per owner, as little queued as the victim.
    const victim = { at: 2 * FLOOD_LENGTH + 1, work: work('victim'), length: 0.5 };
    const started = simulate([...flood, victim], limits({ capacity: 2 }));
    const lastTwo = flood.filter((f) => started.get(f.work)! >= 3 * FLOOD_LENGTH);
    expect(lastTwo.map((f) => started.get(f.work)! < 4 * FLOOD_LENGTH)).toEqual([true, true]);
    expect(started.get(victim.work)).toBe(4 * FLOOD_LENGTH);
  });

  test('the scenario happens: with 2 slots, a victim arriving while the flood runs finds 6 sleepers waiting', () => {
    const flood = Array.from({ length: 8 }, (_, i) => ({
      at: i * 0.01,
      work: work(`owner-${i % 2}`, { agentId: `agent-${i % 4}` }),
      length: FLOOD_LENGTH,
    }));
    const victim = { at: 1, work: work('victim'), length: 0.5 };
    const started = simulate([...flood, victim], limits({ capacity: 2 }));
    expect(flood.filter((f) => started.get(f.work)! > victim.at)).toHaveLength(6);
    // First in, first out would have started all 8 before it: the fair order starts it third.
    const order = [...started.entries()].sort((x, y) => x[1] - y[1] || x[0].seq - y[0].seq);
    expect(order.findIndex(([w]) => w === victim.work)).toBe(2);
  });
});

describe("a submission run's queue entry", () => {
  const submission = { id: 's-1', owner_user_id: 'user-1', agent_id: 'agent-1' };
  const tests = { kind: 'tests', tests: [{}] };
  const program = (n: number) => ({ kind: 'program', tests: Array.from({ length: n }, () => ({})) });

  test('a first judging counts against its owner and agent, at normal priority', () => {
    expect(runQueueWork(submission, tests, { submissionId: 's-1', run: 0 }, 2)).toEqual({
      workKey: 'submission:s-1:0',
      kind: 'submission',
      priority: QUEUE_PRIORITY.normal,
      ownerUserId: 'user-1',
      agentId: 'agent-1',
      submissionId: 's-1',
      run: 0,
      slots: 1,
    });
  });

  test('a rejudge waits at low priority, counted against no owner and no agent', () => {
    expect(runQueueWork(submission, tests, { submissionId: 's-1', run: 3 }, 2)).toMatchObject({
      workKey: 'submission:s-1:3',
      kind: 'rejudge',
      priority: QUEUE_PRIORITY.low,
      ownerUserId: null,
      agentId: null,
    });
  });

  test('a program judging holds JUDGE_PROGRAM_SLOTS slots, never more than its tests, the capacity or the agent cap', () => {
    const held = (programSlots: number, testCount: number, queue: QueueLimits) =>
      boundedSlots(
        runQueueWork(submission, program(testCount), { submissionId: 's-1', run: 0 }, programSlots).slots,
        queue,
        { owner: true, agent: true },
      );
    for (const programSlots of [1, 2, 4])
      for (const testCount of [1, 3, 8])
        for (const capacity of [1, 2, 8])
          for (const perAgent of [1, 2, 8]) {
            const queue = limits({ capacity, perAgent, perUser: 8 });
            expect([
              programSlots,
              testCount,
              capacity,
              perAgent,
              held(programSlots, testCount, queue),
            ]).toEqual([
              programSlots,
              testCount,
              capacity,
              perAgent,
              Math.min(programSlots, testCount, capacity, perAgent),
            ]);
          }
  });
});
