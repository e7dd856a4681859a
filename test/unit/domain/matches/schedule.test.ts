/**
 * startScheduledMatches (src/domain/matches/schedule.ts): a round's workflows start up to
 * START_CONCURRENCY at once, every start is tried even when one fails, and the first failure is
 * thrown after (the next round starts what is still scheduled).
 */
import type { Client } from '@temporalio/client';
import type { Config } from '../../../../src/config';
import { START_CONCURRENCY, startScheduledMatches } from '../../../../src/domain/matches/schedule';

function fakeTemporal(failing: Set<string>) {
  const started: string[] = [];
  let running = 0;
  let peak = 0;
  const client = {
    workflow: {
      async start(_type: string, options: { workflowId: string }) {
        running += 1;
        peak = Math.max(peak, running);
        await new Promise((r) => setTimeout(r, 5));
        running -= 1;
        if (failing.has(options.workflowId)) throw new Error(`cannot start ${options.workflowId}`);
        started.push(options.workflowId);
      },
    },
  } as unknown as Client;
  return { started, peak: () => peak, temporal: async () => client };
}

const config = { TEMPORAL_TASK_QUEUE: 'q' } as Config;
const matches = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ id: `m${i}`, challengeId: 'c', agentIds: ['a', 'b'] }));

test('starts every match, at most START_CONCURRENCY at once', async () => {
  const fake = fakeTemporal(new Set());
  const n = 3 * START_CONCURRENCY + 1;
  await startScheduledMatches({ config, temporal: fake.temporal }, matches(n));
  expect(fake.started.sort()).toEqual(
    matches(n)
      .map((m) => `match-${m.id}`)
      .sort(),
  );
  expect(fake.peak()).toBe(START_CONCURRENCY);
});

test('one failing start does not stop the others; its error is thrown after', async () => {
  const fake = fakeTemporal(new Set(['match-m3']));
  await expect(startScheduledMatches({ config, temporal: fake.temporal }, matches(10))).rejects.toThrow(
    'cannot start match-m3',
  );
  expect(fake.started).toHaveLength(9);
});

test('nothing to start: no call', async () => {
  const fake = fakeTemporal(new Set());
  await startScheduledMatches({ config, temporal: fake.temporal }, []);
  expect(fake.started).toEqual([]);
});
