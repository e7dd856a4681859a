/**
 * Sandboxes launched ahead of the runs that will use them, so that launching (cgroup, bwrap's
 * namespaces and mounts, Node's boot) is off a run's critical path. Each sandbox is single-use:
 * a run takes one, and the pool launches its replacement in the background.
 *
 * Sandboxes are kept per key (everything that shapes the process: script or command, binds,
 * flags, limits). A run whose key has no warm sandbox takes one still launching for that key
 * (it started earlier than a cold launch would) or is launched cold, and the pool starts keeping
 * that key warm; when the pool is full, the oldest sandbox of another key makes room. A run that
 * says no run of its key follows (`refill: false`, the last test of a program) launches no
 * replacement. Capacity 0 (the default) keeps nothing: every launch is cold.
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

interface Parked<T> {
  key: string;
  item: T;
}

/** A refill under way; a run may claim it before it lands. */
interface Launching<T> {
  key: string;
  claimed: boolean;
  item: Promise<T>;
}

export class WarmPool<T, S> {
  private capacity = 0;
  private readonly parked: Parked<T>[] = [];
  private readonly launching: Launching<T>[] = [];
  private closed = false;
  private readonly landed = new Set<() => void>();

  constructor(private readonly hooks: PoolHooks<T, S>) {}

  setCapacity(count: number): void {
    this.capacity = Math.max(0, count);
    this.closed = false;
    while (this.parked.length > this.capacity) this.hooks.discard(this.parked.shift()!.item);
  }

  /** Sandboxes parked now, for `key` or in all (tests and benchmarks look; runs take). */
  parkedCount(key?: string): number {
    return this.parked.filter((entry) => key === undefined || entry.key === key).length;
  }

  /**
   * A warm sandbox for `key` when one is parked, else one launching for it, else a cold launch.
   * With `refill` (the default) a replacement is launched for the next run of the key.
   */
  take(key: string, spec: S, options: { refill?: boolean } = {}): Promise<T> {
    const found = this.takeParked(key);
    const pending =
      found === undefined
        ? this.launching.find((launch) => launch.key === key && !launch.claimed)
        : undefined;
    if (pending !== undefined) pending.claimed = true;
    let taken: Promise<T>;
    if (found !== undefined) {
      this.hooks.unpark(found);
      taken = Promise.resolve(found);
    } else if (pending !== undefined) {
      taken = this.handOver(pending, spec);
    } else {
      taken = this.hooks.launch(spec);
    }
    // Launched after the run's own sandbox, which is on its critical path.
    if (options.refill ?? true) this.refill(key, spec);
    return taken;
  }

  /**
   * The sandbox a run claimed while it was launching. One that failed (or died) in the background
   * is launched again for the run, which reports a failure then.
   */
  private async handOver(pending: Launching<T>, spec: S): Promise<T> {
    const item = await pending.item.catch(() => undefined);
    if (item !== undefined && this.hooks.isAlive(item)) return item;
    if (item !== undefined) this.hooks.discard(item);
    return this.hooks.launch(spec);
  }

  private takeParked(key: string): T | undefined {
    for (let i = 0; i < this.parked.length; i++) {
      const entry = this.parked[i];
      if (entry.key !== key) continue;
      this.parked.splice(i, 1);
      i -= 1;
      if (this.hooks.isAlive(entry.item)) return entry.item;
      this.hooks.discard(entry.item);
    }
    return undefined;
  }

  private refill(key: string, spec: S): void {
    if (this.closed || this.capacity === 0) return;
    const waiting = () => this.parked.length + this.launching.filter((launch) => !launch.claimed).length;
    if (waiting() >= this.capacity) {
      const other = this.parked.findIndex((entry) => entry.key !== key);
      if (other < 0) return;
      this.hooks.discard(this.parked.splice(other, 1)[0].item);
    }
    const pending: Launching<T> = { key, claimed: false, item: this.hooks.launch(spec) };
    this.launching.push(pending);
    const land = () => {
      this.launching.splice(this.launching.indexOf(pending), 1);
      if (this.launching.length > 0) return;
      for (const resolve of this.landed) resolve();
      this.landed.clear();
    };
    pending.item.then(
      (item) => {
        land();
        if (pending.claimed) return; // handed to the run that claimed it
        if (this.closed || this.parked.length >= this.capacity) {
          this.hooks.discard(item);
          return;
        }
        this.hooks.park(item);
        this.parked.push({ key, item });
      },
      () => {
        // A launch that failed here will fail (and be reported) for the run that asks for it.
        land();
      },
    );
  }

  /** Resolves once no launch is under way (every refill parked or handed over). */
  idle(): Promise<void> {
    if (this.launching.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.landed.add(resolve));
  }

  /** Discards every parked sandbox; launches under way are discarded when they land. */
  close(): void {
    this.closed = true;
    for (const entry of this.parked.splice(0)) this.hooks.discard(entry.item);
  }
}
