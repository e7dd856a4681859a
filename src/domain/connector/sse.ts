import type Koa from 'koa';
import type { Logger } from 'pino';
import type { LiveHub } from './live-hub';

export interface SseItem {
  /** Written as the `id:` line; a reconnecting EventSource sends it back as Last-Event-ID. */
  cursor: number;
  data: unknown;
}

export interface SseStreamOptions {
  ctx: Koa.Context;
  hub: LiveHub;
  logger: Logger;
  challengeId: string;
  /** Send items after this cursor first (the backlog), then new ones as they appear. */
  startAfter: number;
  /** Reads up to `limit` items after a cursor, in cursor order. */
  fetchPage: (after: number, limit: number) => Promise<SseItem[]>;
  heartbeatMs: number;
  /** Fallback poll when no notification arrives (notifications are only hints). */
  pollMs: number;
  /** Reconnect delay suggested to EventSource clients. */
  retryMs?: number;
}

const PAGE = 200;
/** A client that does not read for this long is disconnected (it resumes with Last-Event-ID). */
const DRAIN_TIMEOUT_MS = 30_000;

let openStreams = 0;
/** Open spectator streams in this process. */
export const openSseStreams = (): number => openStreams;
export const MAX_SSE_STREAMS_PER_PROCESS = 2_000;

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
 * Serves one Server-Sent Events connection until the client goes away: backlog first, then
 * whatever becomes visible (woken by the hub or the fallback poll), with a heartbeat comment so
 * proxies keep the connection open. Every timer and subscription is released on close.
 */
export async function runSseStream(options: SseStreamOptions): Promise<void> {
  const { ctx, hub, logger } = options;
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
  let closed = false;
  let pending = true;
  let wake: (() => void) | null = null;
  const nudge = () => {
    pending = true;
    wake?.();
  };
  const onClose = () => {
    closed = true;
    wake?.();
  };
  req.on('close', onClose);
  res.on('close', onClose);
  res.on('error', onClose);

  const write = (chunk: string): boolean => (closed || res.writableEnded ? true : res.write(chunk));
  const unsubscribe = hub.subscribe(options.challengeId, nudge);
  const poll = setInterval(nudge, options.pollMs);
  const heartbeat = setInterval(() => write(`: heartbeat ${new Date().toISOString()}\n\n`), options.heartbeatMs);

  let cursor = options.startAfter;
  try {
    write(`retry: ${options.retryMs ?? 3000}\n: connected\n\n`);
    while (!closed) {
      if (!pending) {
        await new Promise<void>((resolve) => (wake = resolve));
        wake = null;
        continue;
      }
      pending = false;
      const items = await options.fetchPage(cursor, PAGE);
      let flushed = true;
      for (const item of items) {
        if (closed) break;
        flushed = write(`id: ${item.cursor}\ndata: ${JSON.stringify(item.data)}\n\n`);
        cursor = item.cursor;
      }
      if (items.length === PAGE) pending = true;
      if (!flushed && !closed) {
        const drained = await new Promise<boolean>((resolve) => {
          const timer = setTimeout(() => done(false), DRAIN_TIMEOUT_MS);
          const done = (ok: boolean) => {
            clearTimeout(timer);
            res.off('drain', onDrain);
            wake = null;
            resolve(ok);
          };
          const onDrain = () => done(true);
          res.on('drain', onDrain);
          // Only a close ends the wait early; a nudge just leaves `pending` set for later.
          wake = () => {
            if (closed) done(false);
          };
        });
        if (!drained) break;
      }
    }
  } catch (err) {
    logger.warn({ err, challengeId: options.challengeId }, 'spectator stream ended by an error');
  } finally {
    closed = true;
    clearInterval(poll);
    clearInterval(heartbeat);
    unsubscribe();
    req.off('close', onClose);
    res.off('close', onClose);
    res.off('error', onClose);
    openStreams -= 1;
    if (!res.writableEnded) res.end();
  }
}
