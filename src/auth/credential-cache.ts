import type { NotificationListener } from '../db/notification-listener';
import { CREDENTIAL_CHANGES_CHANNEL } from '../db/queries/api-tokens';

/** At most this many credentials are remembered; the whole cache is dropped when full. */
const MAX_ENTRIES = 20_000;

/**
 * Credential rows by secret hash, per process, so an authenticated request makes no database
 * round trip for its credential. Kept correct by PostgreSQL: triggers NOTIFY on every change
 * that matters (revocation, expiry, scopes, a user's role; migration 1050) and the entry is
 * dropped at once. The cache is only used while this process is LISTENing: a lost connection
 * empties it and reads go to the database until the listener is back. The TTL bounds how long a
 * notification that never came (a change made around the triggers) could go unnoticed.
 * Only live credentials are cached: unknown or revoked ones are always read afresh.
 */
export class CredentialCache<Row = unknown> {
  private readonly entries = new Map<string, { row: Row; cachedAt: number }>();
  /** Bumped by every invalidation: a read that began before one must not store what it read. */
  private generation = 0;
  private unsubscribe: (() => void) | null = null;

  constructor(
    private readonly listener: NotificationListener | null,
    private readonly ttlMs: number,
  ) {}

  /** Subscribes to credential changes (no-op when the cache is disabled). */
  start(): void {
    if (!this.listener || this.ttlMs <= 0 || this.unsubscribe) return;
    this.unsubscribe = this.listener.subscribe(CREDENTIAL_CHANGES_CHANNEL, {
      notify: (payload) => this.invalidate(payload),
      resync: () => this.invalidate('*'),
    });
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
    this.invalidate('*');
  }

  get size(): number {
    return this.entries.size;
  }

  /** A secret hash, or `*` (everything: a role changed, or notifications may have been missed). */
  invalidate(payload: string): void {
    this.generation += 1;
    if (payload === '*') this.entries.clear();
    else this.entries.delete(payload);
  }

  private usable(): boolean {
    return this.unsubscribe !== null && this.listener!.isListening(CREDENTIAL_CHANGES_CHANNEL);
  }

  /** The cached row for `hash`, else `load()`'s, remembered when `cacheable` says so. */
  async lookup<R extends Row>(
    hash: string,
    load: () => Promise<R | null>,
    cacheable: (row: R) => boolean,
  ): Promise<R | null> {
    if (!this.usable()) return load();
    const hit = this.entries.get(hash);
    if (hit && Date.now() - hit.cachedAt < this.ttlMs) return hit.row as R;
    const generation = this.generation;
    const row = await load();
    if (row && cacheable(row) && generation === this.generation && this.usable()) {
      if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
      this.entries.set(hash, { row, cachedAt: Date.now() });
    }
    return row;
  }
}
