import { type JudgeConfigInput, runJudge } from '../../../src/judging';
import { JudgingSlots, configureSandboxRuntime } from '../../../src/judging/sandbox/sandbox-runtime';

describe('judging slots', () => {
  it('hands out at most `size` distinct slots and serves waiters first come, first served', async () => {
    const slots = new JudgingSlots(2);
    const a = await slots.acquire();
    const b = await slots.acquire();
    expect(new Set([a.index, b.index])).toEqual(new Set([0, 1]));
    const order: string[] = [];
    const c = slots.acquire().then((slot) => (order.push('c'), slot));
    const d = slots.acquire().then((slot) => (order.push('d'), slot));
    expect(slots.inUse).toBe(2);
    a.release();
    a.release(); // a second release of the same permit changes nothing
    const third = await c;
    expect(third.index).toBe(a.index);
    b.release();
    expect((await d).index).toBe(b.index);
    expect(order).toEqual(['c', 'd']);
    third.release();
    expect(slots.inUse).toBe(1);
  });

  it('drops a waiter whose judging is cancelled', async () => {
    const slots = new JudgingSlots(1);
    const held = await slots.acquire();
    const controller = new AbortController();
    const waiting = slots.acquire(controller.signal);
    controller.abort(new Error('cancelled'));
    await expect(waiting).rejects.toThrow('cancelled');
    held.release();
    expect(slots.inUse).toBe(0);
  });
});

describe('JUDGE_SANDBOX=unsafe-process (development only)', () => {
  it('runs without the OS wall, says so in the outcome, and warns for every judging', async () => {
    const warnings: number[] = [];
    const report = await configureSandboxRuntime({
      mode: 'unsafe-process',
      slots: 1,
      onUnsafeRun: () => warnings.push(1),
    });
    expect(report).toMatchObject({ isolation: 'unsafe-process', slots: 1 });
    const judge: JudgeConfigInput = {
      kind: 'tests',
      tests: [{ name: 'adds', export: 'add', args: [1, 2], expected: 3 }],
    };
    const submission = { content: '', files: [{ path: 'a.js', content: 'exports.add = (a, b) => a + b;' }] };
    const first = await runJudge(judge, submission);
    const second = await runJudge(judge, submission);
    expect([first.score, second.score]).toEqual([100, 100]);
    expect(first.details?.sandbox).toBe('unsafe-process');
    expect(warnings).toHaveLength(2);
  });
});
