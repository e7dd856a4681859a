import type { Logger } from 'pino';
import type { NotificationListener } from '../db/notification-listener';
import { LIVE_EVENTS_CHANNEL } from '../db/queries/live-events';
import { spectatorFeedReads } from '../lib/metrics';

/** One feed item as read from the database, before serialisation. */
export interface FeedSourceItem {
  /** Position in the feed (feed_seq, or the arrival id for operators); the SSE `id:`. */
  cursor: number;
  agentId: string;
  data: unknown;
}

/** A feed item serialised once, as the SSE message every stream writes. */
export interface FeedFrame {
  cursor: number;
  agentId: string;
  frame: string;
}

export interface FeedSpec {
  /** Streams share a feed by key: one per challenge and view in a process. */
  key: string;
  challengeId: string;
  /** Woken by the relay's NOTIFY (released view); otherwise the poll alone wakes it. */
  notified: boolean;
  /** Fallback poll of the whole feed (one per process and feed, whatever the number of streams). */
  pollMs: number;
  heartbeatMs: number;
  /** Where the feed starts when its first stream opens (the newest visible position). */
  currentCursor: () => Promise<number>;
  /** Every item after a cursor (no per-stream filter), oldest first, up to `limit`. */
  fetch: (after: number, limit: number) => Promise<FeedSourceItem[]>;
}

export interface FeedSubscriber {
  /** Items at or before this cursor are not delivered (the stream has them). */
  cursor: number;
  /** Only this agent's items (`?agent_id=`). */
  agentId?: string;
  /** False while the stream reads its backlog itself; the feed delivers to live streams only. */
  live: boolean;
  /** A batch of new frames, oldest first; `joined` is all of them concatenated. */
  deliver: (frames: FeedFrame[], joined: string) => void;
  heartbeat: (comment: string) => void;
}

/** Items per database read of a feed. */
export const FEED_PAGE = 200;
/** Newest frames kept per feed so that joining or resuming streams catch up from memory. */
export const FEED_RING_MAX = 2_000;

export function serialiseFrame(item: FeedSourceItem): FeedFrame {
  return {
    cursor: item.cursor,
    agentId: item.agentId,
    frame: `id: ${item.cursor}\ndata: ${JSON.stringify(item.data)}\n\n`,
  };
}

/**
 * One challenge's feed in this process, shared by all of its open streams: each released batch
 * is read from the database once, serialised once, and written to every live stream. Streams
 * whose cursor is behind the in-memory window read their backlog themselves, then go live.
 */
export class ChallengeFeed {
  readonly subscribers = new Set<FeedSubscriber>();
  /** Database reads of the feed (not of streams' own backlogs): tests and the benchmark count them. */
  reads = 0;
  /** The ring holds every frame after this cursor, up to `head`. */
  ringStartsAfter = 0;
  head = 0;
  private starting: Promise<void> | null = null;
  private ring: FeedFrame[] = [];
  private running = false;
  private again = false;
  private closed = false;
  private readonly poll: NodeJS.Timeout;
  private readonly heartbeatTimer: NodeJS.Timeout;

  constructor(
    readonly spec: FeedSpec,
    private readonly logger: Logger,
  ) {
    this.poll = setInterval(() => this.wake(), spec.pollMs);
    this.heartbeatTimer = setInterval(() => {
      const comment = `: heartbeat ${new Date().toISOString()}\n\n`;
      for (const subscriber of this.subscribers) subscriber.heartbeat(comment);
    }, spec.heartbeatMs);
  }

  /** Resolves once the feed knows where it starts (retried by the next caller after a failure). */
  start(): Promise<void> {
    this.starting ??= this.spec.currentCursor().then(
      (cursor) => {
        this.head = this.ringStartsAfter = cursor;
      },
      (err: unknown) => {
        this.starting = null;
        throw err;
      },
    );
    return this.starting;
  }

  /** The in-memory frames after `cursor` (complete only when cursor >= ringStartsAfter). */
  framesAfter(cursor: number): FeedFrame[] {
    let i = this.ring.length;
    while (i > 0 && this.ring[i - 1].cursor > cursor) i -= 1;
    return this.ring.slice(i);
  }

  /** Reads what is new (coalesced: a wake during a read makes one more read after it). */
  wake(): void {
    if (this.closed) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    void this.start()
      .then(async () => {
        do {
          this.again = false;
          await this.readNew();
        } while (this.again && !this.closed);
      })
      .catch((err: unknown) =>
        this.logger.warn({ err, feed: this.spec.key }, 'live feed read failed; the next wake retries'),
      )
      .finally(() => {
        this.running = false;
      });
  }

  private async readNew(): Promise<void> {
    for (;;) {
      const items = await this.spec.fetch(this.head, FEED_PAGE);
      this.reads += 1;
      spectatorFeedReads.inc();
      if (this.closed || items.length === 0) return;
      const frames = items.map(serialiseFrame);
      this.head = frames[frames.length - 1].cursor;
      this.ring.push(...frames);
      if (this.ring.length > FEED_RING_MAX) {
        const evicted = this.ring.splice(0, this.ring.length - FEED_RING_MAX);
        this.ringStartsAfter = evicted[evicted.length - 1].cursor;
      }
      const joined = frames.map((f) => f.frame).join('');
      for (const subscriber of this.subscribers) if (subscriber.live) subscriber.deliver(frames, joined);
      if (items.length < FEED_PAGE) return;
    }
  }

  close(): void {
    this.closed = true;
    clearInterval(this.poll);
    clearInterval(this.heartbeatTimer);
    this.ring = [];
  }
}

/**
 * The process's spectator fan-out: one feed per challenge (and view) with open streams, woken by
 * the relay's pg_notify through the process's shared LISTEN connection, or by its own slow poll
 * (notifications are only hints; a reconnect wakes every feed). A feed lives while it has
 * streams, so an idle API holds no timers and, shortly after, no LISTEN connection.
 */
export class LiveHub {
  private readonly feeds = new Map<string, ChallengeFeed>();
  private unlisten: (() => void) | null = null;
  private subscriberCount = 0;

  constructor(
    private readonly listener: NotificationListener,
    private readonly logger: Logger,
  ) {}

  get subscribers(): number {
    return this.subscriberCount;
  }

  get connected(): boolean {
    return this.listener.connected;
  }

  /** The open feed of `key` (tests and the benchmark read its counters). */
  feed(key: string): ChallengeFeed | undefined {
    return this.feeds.get(key);
  }

  /** Adds a stream to the feed of `spec.key` (opening the feed); returns the feed and a leave function. */
  join(spec: FeedSpec, subscriber: FeedSubscriber): { feed: ChallengeFeed; leave: () => void } {
    let feed = this.feeds.get(spec.key);
    if (!feed) {
      feed = new ChallengeFeed(spec, this.logger);
      this.feeds.set(spec.key, feed);
      feed.wake();
    }
    feed.subscribers.add(subscriber);
    this.subscriberCount += 1;
    this.listen();
    const joined = feed;
    let active = true;
    const leave = () => {
      if (!active) return;
      active = false;
      joined.subscribers.delete(subscriber);
      this.subscriberCount -= 1;
      if (joined.subscribers.size === 0 && this.feeds.get(spec.key) === joined) {
        joined.close();
        this.feeds.delete(spec.key);
      }
      if (this.subscriberCount === 0) this.unlistenNow();
    };
    return { feed, leave };
  }

  private listen(): void {
    if (this.unlisten) return;
    this.unlisten = this.listener.subscribe(LIVE_EVENTS_CHANNEL, {
      notify: (challengeId) => {
        for (const feed of this.feeds.values())
          if (feed.spec.notified && feed.spec.challengeId === challengeId) feed.wake();
      },
      // Releases may have been missed while the connection was down.
      resync: () => {
        for (const feed of this.feeds.values()) feed.wake();
      },
    });
  }

  private unlistenNow(): void {
    this.unlisten?.();
    this.unlisten = null;
  }
}
