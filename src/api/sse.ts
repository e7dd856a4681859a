import type Koa from 'koa';
import type { Logger } from 'pino';
import { spectatorStreamsEvicted, spectatorStreamsOpen } from '../lib/metrics';
import { ApiError } from './errors';
import {
  FEED_PAGE,
  serialiseFrame,
  type FeedFrame,
  type FeedSpec,
  type FeedSubscriber,
  type LiveHub,
} from '../runtime/live-hub';

export interface SseStreamOptions {
  ctx: Koa.Context;
  hub: LiveHub;
  logger: Logger;
  /** The shared feed this stream follows (one per challenge and view in the process). */
  feed: FeedSpec;
  /** Only this agent's events. */
  agentId?: string;
  /** Only these agents' events (a match's participants). */
  agentIds?: ReadonlySet<string>;
  /** Send items after this cursor first (the backlog), then new ones as they appear. */
  startAfter: number;
  /** A client that takes nothing for this long is dropped (it resumes with Last-Event-ID). */
  stallTimeoutMs: number;
  /** Reconnect delay suggested to EventSource clients. */
  retryMs?: number;
}

let openStreams = 0;
let evictedStreams = 0;
/** Open spectator streams in this process. */
export const openSseStreams = (): number => openStreams;
/** Streams dropped for not reading (since the process started). */
export const evictedSseStreams = (): number => evictedStreams;
export const MAX_SSE_STREAMS_PER_PROCESS = 6_000;

const openStreamsByClient = new Map<string, number>();
/**
 * Takes one of `cap` stream slots of a client address, synchronously (so concurrent opens cannot
 * overshoot); returns the release, or null when every slot is taken. Counted per API process.
 */
export function reserveClientStreamSlot(client: string, cap: number): (() => void) | null {
  const open = openStreamsByClient.get(client) ?? 0;
  if (open >= cap) return null;
  openStreamsByClient.set(client, open + 1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    const left = (openStreamsByClient.get(client) ?? 1) - 1;
    if (left <= 0) openStreamsByClient.delete(client);
    else openStreamsByClient.set(client, left);
  };
}

/**
 * Serves one Server-Sent Events connection until the client goes away.
 *
 * A stream is either *live* (the shared feed writes each new batch to it, already serialised,
 * without waiting) or *catching up* (it copies what it misses at its own pace: from the feed's
 * in-memory window, or from the database when it is further behind). A live stream whose socket
 * refuses more becomes catching-up instead of queueing: what this process holds for a stream is
 * at most one batch beyond the socket's buffer, and a slow client never holds up the feed or the
 * other streams. One that takes nothing for `stallTimeoutMs` is dropped; it resumes with
 * Last-Event-ID.
 */
export async function runSseStream(options: SseStreamOptions): Promise<void> {
  const { ctx, hub, logger, agentId } = options;
  const { req, res } = ctx;
  ctx.respond = false;
  ctx.status = 200;
  req.socket.setTimeout(0);
  req.socket.setNoDelay(true);
  req.socket.setKeepAlive(true);
  res.writeHead(200, {
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-cache, no-transform',
    Connection: 'keep-alive',
    'X-Accel-Buffering': 'no',
  });

  openStreams += 1;
  spectatorStreamsOpen.set(openStreams);
  let closed = false;
  const closedSignal = new Promise<void>((resolve) => {
    const onClose = () => {
      closed = true;
      resolve();
    };
    req.once('close', onClose);
    res.once('close', onClose);
    res.once('error', onClose);
  });

  const wanted = (frame: FeedFrame) =>
    frame.cursor > subscriber.cursor &&
    (!agentId || frame.agentId === agentId) &&
    (!options.agentIds || options.agentIds.has(frame.agentId));
  /** Writes frames (advancing the cursor past `upTo`); false when the socket wants a pause. */
  const write = (frames: FeedFrame[], upTo: number, joined?: string): boolean => {
    const chunk =
      joined ??
      frames
        .filter(wanted)
        .map((f) => f.frame)
        .join('');
    subscriber.cursor = Math.max(subscriber.cursor, upTo);
    return chunk === '' || closed ? true : res.write(chunk);
  };
  /** Waits until the socket takes what it has; drops the client when that takes too long. */
  const drained = async (): Promise<boolean> => {
    let timer: NodeJS.Timeout | undefined;
    let onDrain: (() => void) | undefined;
    const outcome = await Promise.race([
      new Promise<'drained'>((resolve) => res.once('drain', (onDrain = () => resolve('drained')))),
      closedSignal.then(() => 'closed' as const),
      new Promise<'stalled'>(
        (resolve) => (timer = setTimeout(() => resolve('stalled'), options.stallTimeoutMs)),
      ),
    ]);
    clearTimeout(timer);
    if (onDrain) res.off('drain', onDrain);
    if (outcome === 'stalled' && !closed) {
      evictedStreams += 1;
      spectatorStreamsEvicted.inc();
      closed = true;
      res.destroy();
    }
    return outcome === 'drained' && !closed;
  };

  const subscriber: FeedSubscriber = {
    cursor: options.startAfter,
    agentId,
    live: false,
    deliver(frames, joined) {
      if (closed || !subscriber.live) return;
      const whole = !agentId && !options.agentIds && frames[0].cursor > subscriber.cursor;
      if (!write(frames, frames[frames.length - 1].cursor, whole ? joined : undefined)) {
        subscriber.live = false;
        void drained().then(async (ok) => {
          if (ok) await catchUp();
        });
      }
    },
    heartbeat(comment) {
      if (subscriber.live && !closed) res.write(comment);
    },
  };
  const { feed, leave } = hub.join(options.feed, subscriber);

  /** Copies what the stream misses, a page at a time at the client's pace, then goes live. */
  const catchUp = async (): Promise<void> => {
    try {
      while (!closed) {
        let flushed: boolean;
        if (subscriber.cursor >= feed.ringStartsAfter) {
          const frames = feed.framesAfter(subscriber.cursor);
          if (frames.length === 0) {
            subscriber.live = true; // in the same synchronous step as the check: no frame falls between
            return;
          }
          const page = frames.slice(0, FEED_PAGE);
          flushed = write(page, page[page.length - 1].cursor);
        } else {
          // Behind the window: the whole feed from the database (filtered here, so the cursor always
          // advances and the window is reached).
          const items = await feed.spec.fetch(subscriber.cursor, FEED_PAGE);
          if (closed) return;
          if (items.length === 0) {
            // Nothing visible after the cursor (a gap up to where the feed started): the window's frames are all newer.
            subscriber.cursor = Math.max(subscriber.cursor, feed.ringStartsAfter);
            continue;
          }
          const frames = items.map(serialiseFrame);
          flushed = write(frames, frames[frames.length - 1].cursor);
        }
        if (!flushed && !(await drained())) return;
      }
    } catch (err) {
      logger.warn({ err, challengeId: options.feed.challengeId }, 'spectator stream ended by an error');
      res.destroy();
    }
  };

  try {
    res.write(`retry: ${options.retryMs ?? 3000}\n: connected\n\n`);
    await feed.start();
    await catchUp();
    await closedSignal;
  } catch (err) {
    logger.warn({ err, challengeId: options.feed.challengeId }, 'spectator stream ended by an error');
  } finally {
    closed = true;
    leave();
    openStreams -= 1;
    spectatorStreamsOpen.set(openStreams);
    if (!res.writableEnded && !res.destroyed) res.end();
  }
}

/** How long a client refused for its per-address stream cap is asked to wait. */
const CLIENT_SLOT_RETRY_AFTER_SEC = 30;

/**
 * Admits one spectator stream (a challenge's or a match's): 503 when the process holds its cap,
 * 429 when this client address holds `cap`; else the slot, to release when the stream ends.
 */
export function admitSpectatorStream(client: string, cap: number): () => void {
  if (openSseStreams() >= MAX_SSE_STREAMS_PER_PROCESS) {
    throw new ApiError('SERVICE_UNAVAILABLE', 'too many open streams; retry shortly', { 'Retry-After': '5' });
  }
  const releaseSlot = reserveClientStreamSlot(client, cap);
  if (!releaseSlot) {
    throw new ApiError(
      'RATE_LIMITED',
      `at most ${cap} spectator streams may be open from one client address; close one first`,
      { 'Retry-After': String(CLIENT_SLOT_RETRY_AFTER_SEC) },
    );
  }
  return releaseSlot;
}
