import { Client } from 'pg';
import type { Logger } from 'pino';
import { LIVE_EVENTS_CHANNEL } from '../../db/queries/live-events';

type Listener = () => void;

/**
 * One LISTEN connection per API process (per database), shared by every open spectator stream.
 * The relay's release transaction sends pg_notify(live_events, challengeId) at commit; the hub
 * wakes the streams of that challenge, which then read the database themselves. The connection
 * opens with the first subscriber and closes a little after the last one leaves, so an idle API
 * holds nothing. Notifications are only a hint: streams also poll slowly, so a reconnect gap
 * loses nothing.
 */
export class LiveHub {
  private readonly listeners = new Map<string, Set<Listener>>();
  private client: Client | null = null;
  private connecting: Promise<void> | null = null;
  private closeTimer: NodeJS.Timeout | null = null;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private subscriberCount = 0;

  constructor(
    private readonly databaseUrl: string,
    private readonly logger: Logger,
    private readonly lingerMs = 5_000,
  ) {}

  get subscribers(): number {
    return this.subscriberCount;
  }

  get connected(): boolean {
    return this.client !== null;
  }

  subscribe(challengeId: string, listener: Listener): () => void {
    let set = this.listeners.get(challengeId);
    if (!set) this.listeners.set(challengeId, (set = new Set()));
    set.add(listener);
    this.subscriberCount += 1;
    if (this.closeTimer) {
      clearTimeout(this.closeTimer);
      this.closeTimer = null;
    }
    void this.ensureConnected();
    let active = true;
    return () => {
      if (!active) return;
      active = false;
      set!.delete(listener);
      if (set!.size === 0) this.listeners.delete(challengeId);
      this.subscriberCount -= 1;
      if (this.subscriberCount === 0) this.scheduleClose();
    };
  }

  private ensureConnected(): Promise<void> {
    if (this.client || this.connecting) return this.connecting ?? Promise.resolve();
    const client = new Client({ connectionString: this.databaseUrl, application_name: 'challenge-service-live-hub' });
    client.on('notification', (msg) => {
      if (msg.channel !== LIVE_EVENTS_CHANNEL || !msg.payload) return;
      for (const listener of this.listeners.get(msg.payload) ?? []) listener();
    });
    client.on('error', (err) => {
      this.logger.warn({ err }, 'live hub connection lost');
      this.drop(client);
      this.scheduleReconnect();
    });
    client.on('end', () => {
      if (this.client === client) {
        this.drop(client);
        this.scheduleReconnect();
      }
    });
    this.connecting = client
      .connect()
      .then(() => client.query(`LISTEN ${LIVE_EVENTS_CHANNEL}`))
      .then(() => {
        this.client = client;
        this.connecting = null;
        // Streams may have missed a release while the connection was down: wake them all.
        for (const set of this.listeners.values()) for (const listener of set) listener();
        if (this.subscriberCount === 0) this.scheduleClose();
      })
      .catch((err: unknown) => {
        this.logger.warn({ err }, 'live hub could not LISTEN; streams fall back to polling');
        this.connecting = null;
        void client.end().catch(() => undefined);
        this.scheduleReconnect();
      });
    return this.connecting;
  }

  private drop(client: Client): void {
    if (this.client === client) this.client = null;
    void client.end().catch(() => undefined);
  }

  private scheduleReconnect(): void {
    if (this.reconnectTimer || this.subscriberCount === 0) return;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      if (this.subscriberCount > 0) void this.ensureConnected();
    }, 1_000);
    this.reconnectTimer.unref();
  }

  private scheduleClose(): void {
    if (this.closeTimer) return;
    this.closeTimer = setTimeout(() => {
      this.closeTimer = null;
      if (this.subscriberCount > 0) return;
      const client = this.client;
      this.client = null;
      if (client) void client.end().catch(() => undefined);
    }, this.lingerMs);
    this.closeTimer.unref();
  }

  /** Closes the LISTEN connection now (process shutdown, tests). */
  async close(): Promise<void> {
    if (this.closeTimer) clearTimeout(this.closeTimer);
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.closeTimer = this.reconnectTimer = null;
    await this.connecting?.catch(() => undefined);
    const client = this.client;
    this.client = null;
    if (client) await client.end().catch(() => undefined);
  }
}

const hubs = new Map<string, LiveHub>();

/** The process's hub for a database. */
export function liveHubFor(databaseUrl: string, logger: Logger): LiveHub {
  let hub = hubs.get(databaseUrl);
  if (!hub) hubs.set(databaseUrl, (hub = new LiveHub(databaseUrl, logger)));
  return hub;
}
