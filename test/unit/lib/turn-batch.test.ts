import { batchPerTurn } from '../../../src/lib/turn-batch';

/** A fetch that records its calls and answers from a table that can change between turns. */
function recordingFetch(table: Map<string, number>) {
  const calls: string[][] = [];
  const fetch = async (keys: string[]) => {
    calls.push([...keys]);
    return new Map(keys.filter((k) => table.has(k)).map((k) => [k, table.get(k)!]));
  };
  return { calls, fetch };
}

test('lookups of one turn share one call with each key once; every caller gets its own answer', async () => {
  const { calls, fetch } = recordingFetch(
    new Map([
      ['a', 1],
      ['b', 2],
    ]),
  );
  const read = batchPerTurn(fetch, null);
  const answers = await Promise.all([read('a'), read('b'), read('a'), read('unknown')]);
  expect(answers).toEqual([1, 2, 1, null]);
  expect(calls).toEqual([['a', 'b', 'unknown']]);
});

test('the call starts after the turn in which the lookups were asked, so a change made before asking is seen', async () => {
  const table = new Map([['a', 1]]);
  const { calls, fetch } = recordingFetch(table);
  const read = batchPerTurn(fetch, null);
  const first = read('a');
  table.set('a', 2); // committed after the lookup was asked, before the turn ended: may be seen
  expect(await first).toBe(2);
  table.set('a', 3);
  expect(await read('a')).toBe(3); // a later turn: a call of its own
  expect(calls).toEqual([['a'], ['a']]);
});

test('a failed call fails every lookup of its turn, and the next turn calls again', async () => {
  let fail = true;
  const read = batchPerTurn(async (keys: string[]) => {
    if (fail) throw new Error('database unavailable');
    return new Map(keys.map((k) => [k, k.length]));
  }, 0);
  const results = await Promise.allSettled([read('x'), read('yy')]);
  expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
  fail = false;
  expect(await read('yy')).toBe(2);
});
