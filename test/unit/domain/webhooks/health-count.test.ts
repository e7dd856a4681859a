/**
 * The subscription-health workflow's count, one batch of outcomes at a time (contract.ts
 * countOutcomes): what the 10-in-a-row rule sees when outcomes of concurrent deliveries arrive
 * together. The workflow itself runs in test/service/workflows/webhooks.test.ts.
 */
import { countOutcomes, shouldDisableSubscription } from '../../../../src/domain/webhooks/contract';

const fail = (generation = 1) => ({ generation, success: false });
const ok = (generation = 1) => ({ generation, success: true });

test('ten failures then a success in one batch: the count ends at 0 but the batch reached 10', () => {
  const counted = countOutcomes(
    { failureCount: 0, generation: 1 },
    [...Array(10)].map(() => fail()).concat(ok()),
  );
  expect(counted).toEqual({ failureCount: 0, generation: 1, peak: 10, reEnabled: false });
  expect(shouldDisableSubscription(counted.peak)).toBe(true);
});

test('a batch continues the count it started from; a success resets it', () => {
  expect(countOutcomes({ failureCount: 8, generation: 1 }, [fail(), fail()])).toMatchObject({
    failureCount: 10,
    peak: 10,
  });
  expect(countOutcomes({ failureCount: 8, generation: 1 }, [fail(), ok(), fail()])).toMatchObject({
    failureCount: 1,
    peak: 9,
  });
});

test('outcomes of attempts made before a re-enable are ignored; a newer generation restarts the count', () => {
  expect(countOutcomes({ failureCount: 3, generation: 2 }, [fail(1), fail(1)])).toEqual({
    failureCount: 3,
    generation: 2,
    peak: 0,
    reEnabled: false,
  });
  // Ten failures of generation 1, then the re-enabled subscription's first failure: the re-enabled
  // one has failed once, not eleven times, and is not disabled for its predecessor's failures.
  const counted = countOutcomes({ failureCount: 0, generation: 1 }, [
    ...[...Array(10)].map(() => fail(1)),
    fail(2),
  ]);
  expect(counted).toEqual({ failureCount: 1, generation: 2, peak: 1, reEnabled: true });
  // Runs recorded before that rule replay the old decision (the workflow asks patched()).
  expect(
    countOutcomes({ failureCount: 0, generation: 1 }, [...[...Array(10)].map(() => fail(1)), fail(2)], {
      peakAcrossReEnable: true,
    }).peak,
  ).toBe(10);
});
