import { planFirstAttemptBatches } from '../../../../src/domain/webhooks/dispatch';

const deliveries = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ id: `whd_${String(i).padStart(32, '0')}` }));

describe('planFirstAttemptBatches', () => {
  test('a pass with no delivery or a single one makes no batch (its own workflow)', () => {
    expect(planFirstAttemptBatches([], 50)).toEqual([]);
    expect(planFirstAttemptBatches(deliveries(1), 50)).toEqual([]);
  });

  test('groups in creation order, at most batchMax each, named after the first member', () => {
    const ds = deliveries(120);
    const batches = planFirstAttemptBatches(ds, 50);
    expect(batches.map((b) => b.deliveryIds.length)).toEqual([50, 50, 20]);
    expect(batches.map((b) => b.batchWorkflowId)).toEqual(
      [0, 50, 100].map((i) => `webhook-delivery-batch-${ds[i]!.id}`),
    );
    expect(batches.flatMap((b) => b.deliveryIds)).toEqual(ds.map((d) => d.id));
  });

  test('a remainder of one stays out of any batch; batchMax 1 turns batching off', () => {
    const ds = deliveries(101);
    const batches = planFirstAttemptBatches(ds, 50);
    expect(batches.map((b) => b.deliveryIds.length)).toEqual([50, 50]);
    expect(batches.flatMap((b) => b.deliveryIds)).not.toContain(ds[100]!.id);
    expect(planFirstAttemptBatches(ds, 1)).toEqual([]);
  });
});
