/**
 * Coalesces the lookups asked for during one event-loop turn into one call. The call starts at the
 * end of the turn, after every lookup in it was asked for, so each answer is at least as fresh as a
 * lookup of its own would have been (a write committed before a request arrived is seen by it);
 * concurrent requests just share the round trip.
 */
export function batchPerTurn<K, V>(
  fetchAll: (keys: K[]) => Promise<Map<K, V>>,
  missing: V,
): (key: K) => Promise<V> {
  let waiting: Map<K, { resolve: (v: V) => void; reject: (err: unknown) => void }[]> | null = null;

  const flush = (batch: NonNullable<typeof waiting>) => {
    fetchAll([...batch.keys()]).then(
      (found) => {
        for (const [key, callers] of batch) for (const c of callers) c.resolve(found.get(key) ?? missing);
      },
      (err: unknown) => {
        for (const callers of batch.values()) for (const c of callers) c.reject(err);
      },
    );
  };

  return (key) =>
    new Promise<V>((resolve, reject) => {
      if (!waiting) {
        const batch = (waiting = new Map());
        setImmediate(() => {
          waiting = null;
          flush(batch);
        });
      }
      const callers = waiting.get(key);
      if (callers) callers.push({ resolve, reject });
      else waiting.set(key, [{ resolve, reject }]);
    });
}
