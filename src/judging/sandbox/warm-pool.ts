/**
 * Sandboxes launched ahead of the runs that will use them, so that launching (cgroup, bwrap's
 * namespaces and mounts, Node's boot) is off a run's critical path. Each sandbox is single-use:
 * a run takes one, and the pool launches its replacement in the background.
 *
 * Sandboxes are kept per key (everything that shapes the process: script, flags, limits). A run
 * whose key has no warm sandbox is launched cold, and the pool starts keeping that key warm; when
 * the pool is full, the oldest sandbox of another key makes room. Capacity 0 (the default) keeps
 * nothing: every launch is cold.
 */

interface PoolHooks<T, S> {
  launch(spec: S): Promise<T>;
  /** Ends a sandbox that will not be used (evicted, died while parked, pool closed). */
  discard(item: T): void;
  isAlive(item: T): boolean;
  /** A parked sandbox must not keep the process alive; a taken one must. */
  park(item: T): void;
  unpark(item: T): void;
}

interface Entry<T> {
  key: string;
  item: T;
}

export class WarmPool<T, S> {
  private capacity = 0;
  private readonly parked: Entry<T>[] = [];
  private launching = 0;
  private closed = false;
  private readonly landed = new Set<() => void>();

  constructor(private readonly hooks: PoolHooks<T, S>) {}

  setCapacity(count: number): void {
    this.capacity = Math.max(0, count);
    this.closed = false;
    while (this.parked.length > this.capacity) this.hooks.discard(this.parked.shift()!.item);
  }

  /** A warm sandbox for `key` when one is parked, else a cold launch; either way one is refilled. */
  async take(key: string, spec: S): Promise<T> {
    let found: T | undefined;
    for (let i = 0; i < this.parked.length; i++) {
      const entry = this.parked[i];
      if (entry.key !== key) continue;
      this.parked.splice(i, 1);
      i -= 1;
      if (this.hooks.isAlive(entry.item)) {
        found = entry.item;
        break;
      }
      this.hooks.discard(entry.item);
    }
    this.refill(key, spec);
    if (found !== undefined) {
      this.hooks.unpark(found);
      return found;
    }
    return this.hooks.launch(spec);
  }

  private refill(key: string, spec: S): void {
    if (this.closed || this.capacity === 0) return;
    if (this.parked.length + this.launching >= this.capacity) {
      const other = this.parked.findIndex((entry) => entry.key !== key);
      if (other < 0) return;
      this.hooks.discard(this.parked.splice(other, 1)[0].item);
    }
    this.launching += 1;
    const landed = () => {
      this.launching -= 1;
      if (this.launching === 0) for (const resolve of this.landed) resolve();
      if (this.launching === 0) this.landed.clear();
    };
    this.hooks.launch(spec).then(
      (item) => {
        landed();
        if (this.closed || this.parked.length >= this.capacity) {
          this.hooks.discard(item);
          return;
        }
        this.hooks.park(item);
        this.parked.push({ key, item });
      },
      () => {
        // A launch that failed here will fail (and be reported) for the run that asks for it.
        landed();
      },
    );
  }

  /** Resolves once no launch is under way (every refill parked). */
  idle(): Promise<void> {
    if (this.launching === 0) return Promise.resolve();
    return new Promise((resolve) => this.landed.add(resolve));
  }

  /** Discards every parked sandbox; launches under way are discarded when they land. */
  close(): void {
    this.closed = true;
    for (const entry of this.parked.splice(0)) this.hooks.discard(entry.item);
  }
}
