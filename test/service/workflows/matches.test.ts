/**
 * The arena's workflows (match, matchmaker) in a Temporal test environment
 * (test/helpers/workflow-env.ts) over scripted steps typed against the real ones. A bout's end,
 * its poll interval, a match's deadline and the time to the next round all come from the steps
 * (the database and configuration), so the tests give milliseconds. A game's deadline and a play
 * step failing for good are test/service/workflows/match-deadline.test.ts; the database side of every step
 * is the integration tier's (matches, game-matches, match-deadline).
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { BoutSteps } from '../../../src/domain/matches/bout';
import type { MatchStartSteps } from '../../../src/domain/matches/start';
import type { SettleSteps } from '../../../src/domain/matches/settle';
import type { MatchDeadlineSteps } from '../../../src/domain/matches/deadline';
import type { MatchmakingSteps } from '../../../src/domain/matches/matchmaking';
import type { GameMatchSteps } from '../../../src/domain/matches/game';
import {
  MATCH_CURRENT_SHAPE_PATCH,
  MATCH_NUDGE_SIGNAL,
  MATCH_VOID_SIGNAL,
  type MatchSnapshot,
  type SettleOutcome,
} from '../../../src/domain/matches/contract';
import { MatchStatusKey } from '../../../src/temporal-client/search-attributes';
import { startWorkflowKit, until, type WorkflowKit } from '../../helpers/workflow-env';

jest.setTimeout(120_000);

/** One scripted match: what its steps answer, and what they were asked. */
interface Match {
  kind: 'bout' | 'game' | 'missing';
  endsAt: number;
  /** The bout ends this long after it starts (set by matchStart). */
  endsIn?: number;
  deadlineAt: number | null;
  pollMs: number;
  /** The bout is over once this is true (or its end passed). */
  over: boolean;
  unsettledLooks: number;
  settleFails?: boolean;
  /** A game's play step: completes, or plays until cancelled. */
  play?: 'complete' | 'forever';
  calls: { step: string; at: number; taskQueue: string; input?: unknown }[];
  cancelled: number;
  /** Runs once during the next look, after its answer is taken (what happens while the bout looks). */
  duringLook?: () => Promise<void>;
}
const matches = new Map<string, Match>();
const ratings: string[] = [];
const rounds = new Map<string, { round: number; runId: string }[]>();
const stopAt = new Map<string, number>();

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
function note(matchId: string, step: string, input?: unknown) {
  matches
    .get(matchId)!
    .calls.push({ step, at: Date.now(), taskQueue: Context.current().info.taskQueue, input });
  return matches.get(matchId)!;
}
function look(m: Match, status: MatchSnapshot['status'] = 'running'): MatchSnapshot {
  return {
    status,
    kind: m.kind === 'game' ? 'game' : 'bout',
    endsAt: iso(m.endsAt),
    deadlineAt: m.kind === 'game' ? null : iso(m.deadlineAt),
    boutOver: m.over || Date.now() >= m.endsAt,
    pollMs: m.pollMs,
    weightClassId: 'wc-1',
    rated: true,
  };
}
const settled = (status: SettleOutcome['status']): SettleOutcome => ({
  settled: true,
  status,
  pollMs: 50,
  rated: true,
  weightClassId: 'wc-1',
});

const activities: MatchStartSteps &
  BoutSteps &
  SettleSteps &
  MatchDeadlineSteps &
  Pick<GameMatchSteps, 'waitForGameMatchSlots' | 'playGameMatchGames' | 'releaseGameMatchSlots'> &
  MatchmakingSteps = {
  async matchStart({ matchId }) {
    const m = note(matchId, 'matchStart');
    if (m.endsIn !== undefined) m.endsAt = Date.now() + m.endsIn;
    if (m.kind === 'missing') return { ...look(m), status: 'missing' };
    return look(m);
  },
  async matchLook({ matchId }) {
    const m = note(matchId, 'matchLook');
    const answer = look(m);
    const during = m.duringLook;
    m.duringLook = undefined;
    if (during) await during();
    return answer;
  },
  async matchLookOrFinish({ matchId }) {
    const m = note(matchId, 'matchLookOrFinish');
    const answer = look(m);
    const during = m.duringLook;
    m.duringLook = undefined;
    if (during) await during();
    if (!answer.boutOver) return { look: answer, settle: null, ratingsApplied: false };
    if (m.settleFails) throw ApplicationFailure.nonRetryable('settlement refused', 'TypeError');
    if (m.unsettledLooks-- > 0)
      return { look: answer, settle: { ...settled('running'), settled: false }, ratingsApplied: false };
    ratings.push('wc-1');
    return { look: answer, settle: settled('complete'), ratingsApplied: true };
  },
  async matchEndBout({ matchId }) {
    return look(note(matchId, 'matchEndBout'));
  },
  async matchSettle({ matchId }) {
    const m = note(matchId, 'matchSettle');
    if (m.settleFails) throw ApplicationFailure.nonRetryable('settlement refused', 'TypeError');
    if (m.unsettledLooks-- > 0) return { ...settled('running'), settled: false };
    return settled('complete');
  },
  async matchApplyRatings({ weightClassId }) {
    ratings.push(weightClassId);
    return { applied: 2 };
  },
  async matchVoidWithReason({ matchId, reason }) {
    note(matchId, 'matchVoidWithReason', reason);
    return { status: 'void' };
  },
  async waitForGameMatchSlots({ matchId }) {
    note(matchId, 'waitForGameMatchSlots');
    return { slots: 2, deadlineAt: iso(matches.get(matchId)!.deadlineAt) };
  },
  async playGameMatchGames({ matchId }) {
    const m = note(matchId, 'playGameMatchGames');
    if (m.play === 'complete') return settled('complete');
    const ctx = Context.current();
    try {
      for (;;) {
        ctx.heartbeat();
        await ctx.sleep(50);
      }
    } catch (err) {
      m.cancelled += 1;
      throw err;
    }
  },
  async releaseGameMatchSlots({ matchId }) {
    note(matchId, 'releaseGameMatchSlots');
  },
  async matchmakingRound({ challengeId, round }) {
    const list = rounds.get(challengeId) ?? [];
    rounds.set(challengeId, list);
    list.push({ round, runId: Context.current().info.workflowExecution?.runId ?? '' });
    return { stop: round >= (stopAt.get(challengeId) ?? Infinity), nextInMs: 20, matchIds: [] };
  },
};

let kit: WorkflowKit;
beforeAll(async () => {
  kit = await startWorkflowKit(activities);
}, 180_000);
afterAll(() => kit?.close());

async function startMatch(script: Partial<Match>) {
  const matchId = kit.id('m');
  const m: Match = {
    kind: 'bout',
    endsAt: Date.now() + 300,
    deadlineAt: Date.now() + 60_000,
    pollMs: 100,
    over: false,
    unsettledLooks: 0,
    calls: [],
    cancelled: 0,
    ...script,
  };
  matches.set(matchId, m);
  const handle = await kit.client.workflow.start('matchWorkflow', {
    taskQueue: kit.taskQueue,
    workflowId: `match-${matchId}`,
    args: [{ matchId }],
  });
  const steps = () => m.calls.map((c) => c.step);
  return { matchId, m, handle, steps };
}

describe('matchWorkflow', () => {
  test('a bout: looks every pollMs until its end, the look that finds it over ends, settles and rates it; settles again until settled', async () => {
    const { m, handle, steps } = await startMatch({ endsIn: 300, unsettledLooks: 1 });
    expect(await handle.result()).toBe('complete');
    const names = steps();
    expect(names[0]).toBe('matchStart');
    expect(names.slice(-2)).toEqual(['matchLookOrFinish', 'matchSettle']);
    expect(names.filter((s) => s === 'matchLookOrFinish').length).toBeGreaterThanOrEqual(1);
    // The bout was finished no sooner than its end.
    expect(m.calls.filter((c) => c.step === 'matchLookOrFinish').at(-1)!.at).toBeGreaterThanOrEqual(m.endsAt);
    expect(ratings).toContain('wc-1');
    expect((await handle.describe()).typedSearchAttributes.get(MatchStatusKey)).toBe('complete');
  });

  test('a nudge wakes a bout waiting on a long poll (everyone left early): one step finishes it', async () => {
    const { m, handle, steps } = await startMatch({ endsAt: Date.now() + 3_600_000, pollMs: 600_000 });
    // Waiting on its poll (the look's timer is started in the same task as the deadline's).
    await until(async () => (await handle.fetchHistory()).events!.some((e) => e.timerStartedEventAttributes));
    m.over = true;
    const before = ratings.length;
    await handle.signal(MATCH_NUDGE_SIGNAL);
    expect(await handle.result()).toBe('complete');
    expect(steps()).toEqual(['matchStart', 'matchLookOrFinish']);
    // Rated once, by the step (the workflow does not apply the class's ratings again).
    expect(ratings.length - before).toBe(1);
  });

  test('a nudge that comes while the bout looks ends the next wait (both participants left at once)', async () => {
    const { m, handle, steps } = await startMatch({ endsAt: Date.now() + 3_600_000, pollMs: 600_000 });
    await until(async () => (await handle.fetchHistory()).events!.some((e) => e.timerStartedEventAttributes));
    // The first one's nudge starts a look; the second one leaves while it runs.
    m.duringLook = async () => {
      m.over = true;
      await handle.signal(MATCH_NUDGE_SIGNAL);
    };
    await handle.signal(MATCH_NUDGE_SIGNAL);
    expect(await handle.result()).toBe('complete');
    expect(steps()).toEqual(['matchStart', 'matchLookOrFinish', 'matchLookOrFinish']);
  }, 30_000);

  // Issue 42: the settlement waiting for a submission's judging slept its whole poll.
  test('a nudge wakes a bout waiting for its judging after its end (a submission judged)', async () => {
    const { m, handle, steps } = await startMatch({
      endsAt: Date.now() + 3_600_000,
      pollMs: 600_000,
      over: true,
      unsettledLooks: 1,
    });
    await until(() => steps().includes('matchLookOrFinish'));
    await until(async () => (await handle.fetchHistory()).events!.some((e) => e.timerStartedEventAttributes));
    expect(m.calls.length).toBe(2);
    await handle.signal(MATCH_NUDGE_SIGNAL);
    expect(await handle.result()).toBe('complete');
    expect(steps()).toEqual(['matchStart', 'matchLookOrFinish', 'matchSettle']);
    expect(ratings).toContain('wc-1');
  }, 30_000);

  test('a bout past its deadline is voided by the service with that reason', async () => {
    const deadlineAt = Date.now() + 500;
    const { m, handle } = await startMatch({ endsAt: Date.now() + 3_600_000, deadlineAt });
    expect(await handle.result()).toBe('void');
    const voids = m.calls.filter((c) => c.step === 'matchVoidWithReason');
    expect(voids).toEqual([
      expect.objectContaining({ input: expect.stringMatching(/went past its deadline/) }),
    ]);
    expect(voids[0]!.at).toBeGreaterThanOrEqual(deadlineAt);
  });

  // MATCH_LOCAL_STEPS_PATCH: the match's own steps are markers in the workflow tasks that ran them;
  // only game play and its slots are scheduled activities (histories before it: fixtures, replayed).
  test("a match's own steps run as local activities; game play and its slots stay remote", async () => {
    const scheduledAndLocal = async (handle: { fetchHistory(): Promise<{ events?: unknown[] | null }> }) => {
      const events = ((await handle.fetchHistory()).events ?? []) as {
        activityTaskScheduledEventAttributes?: { activityType?: { name?: string } } | null;
        markerRecordedEventAttributes?: { markerName?: string } | null;
      }[];
      return {
        scheduled: events
          .map((e) => e.activityTaskScheduledEventAttributes?.activityType?.name)
          .filter((n): n is string => !!n),
        local: events.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity')
          .length,
      };
    };
    const bout = await startMatch({ over: true });
    expect(await bout.handle.result()).toBe('complete');
    const boutHistory = await scheduledAndLocal(bout.handle);
    expect(boutHistory.scheduled).toEqual([]);
    expect(boutHistory.local).toBe(bout.steps().length);
    const game = await startMatch({ kind: 'game', play: 'complete' });
    expect(await game.handle.result()).toBe('complete');
    expect((await scheduledAndLocal(game.handle)).scheduled).toEqual([
      'waitForGameMatchSlots',
      'playGameMatchGames',
    ]);
  });

  // MATCH_CURRENT_SHAPE_PATCH: each patch a run takes is a marker and a TemporalChangeVersion upsert;
  // a run started now takes them all with one (older runs: the fixtures, replayed).
  test('a run started now records one patch marker, for the current shape', async () => {
    const patchIds = async (handle: { fetchHistory(): Promise<{ events?: unknown[] | null }> }) =>
      (
        ((await handle.fetchHistory()).events ?? []) as {
          markerRecordedEventAttributes?: {
            markerName?: string | null;
            details?: Record<string, { payloads?: { data?: Uint8Array | null }[] | null }> | null;
          } | null;
        }[]
      )
        .map((e) => e.markerRecordedEventAttributes)
        .filter((m) => m?.markerName === 'core_patch')
        .map(
          (m) => JSON.parse(Buffer.from(m!.details!['patch-data']!.payloads![0]!.data!).toString('utf8')).id,
        );
    const bout = await startMatch({ over: true });
    expect(await bout.handle.result()).toBe('complete');
    expect(await patchIds(bout.handle)).toEqual([MATCH_CURRENT_SHAPE_PATCH]);
    const game = await startMatch({ kind: 'game', play: 'complete' });
    expect(await game.handle.result()).toBe('complete');
    expect(await patchIds(game.handle)).toEqual([MATCH_CURRENT_SHAPE_PATCH]);
  });

  test('a step failing for good voids the match with the failure', async () => {
    const { m, handle } = await startMatch({ over: true, settleFails: true });
    expect(await handle.result()).toBe('void');
    expect(m.calls.filter((c) => c.step === 'matchVoidWithReason').map((c) => c.input)).toEqual([
      'the match could not be played: settlement refused',
    ]);
  });

  test('a game: waits for its slots, plays on the judging task queue, applies ratings', async () => {
    const { m, handle, steps } = await startMatch({ kind: 'game', play: 'complete' });
    expect(await handle.result()).toBe('complete');
    expect(steps()).toEqual(['matchStart', 'waitForGameMatchSlots', 'playGameMatchGames']);
    expect(m.calls[2]!.taskQueue).toBe(`${kit.taskQueue}-judging`);
  });

  test('a void signal cancels a game being played and gives its slots back', async () => {
    const { m, handle, steps } = await startMatch({ kind: 'game', play: 'forever' });
    await until(() => steps().includes('playGameMatchGames'));
    await handle.signal(MATCH_VOID_SIGNAL);
    expect(await handle.result()).toBe('void');
    expect(m.cancelled).toBe(1);
    expect(steps().at(-1)).toBe('releaseGameMatchSlots');
  });

  test('a match the database does not hold ends as missing', async () => {
    const { handle } = await startMatch({ kind: 'missing' });
    expect(await handle.result()).toBe('missing');
  });
});

describe('matchmakerWorkflow', () => {
  test('numbers its rounds from the input, one every nextInMs, until a round says stop', async () => {
    const challengeId = kit.id('challenge');
    stopAt.set(challengeId, 8);
    const result = await kit.client.workflow.execute('matchmakerWorkflow', {
      taskQueue: kit.taskQueue,
      workflowId: `matchmaker-${challengeId}`,
      args: [{ challengeId, round: 7 }],
    });
    expect(result).toBe('stopped');
    expect(rounds.get(challengeId)!.map((r) => r.round)).toEqual([7, 8]);
  });

  test('continues as new after roundsPerRun rounds, carrying the next round number', async () => {
    const challengeId = kit.id('challenge');
    stopAt.set(challengeId, 3);
    const handle = await kit.client.workflow.start('matchmakerWorkflow', {
      taskQueue: kit.taskQueue,
      workflowId: `matchmaker-${challengeId}`,
      args: [{ challengeId, round: 1, roundsPerRun: 2 }],
    });
    expect(await handle.result()).toBe('stopped');
    const made = rounds.get(challengeId)!;
    expect(made.map((r) => r.round)).toEqual([1, 2, 3]);
    // Two runs: rounds 1–2, then 3.
    expect(new Set(made.map((r) => r.runId)).size).toBe(2);
    expect(made[2]!.runId).not.toBe(handle.firstExecutionRunId);
  });
});
