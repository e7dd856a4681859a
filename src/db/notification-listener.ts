import { Client } from 'pg';
import type { Logger } from 'pino';

export interface ChannelHandlers {
  /** A NOTIFY on the channel (payload as sent). */
  notify: (payload: string) => void;
  /**
   * The connection came (back) up: notifications sent while it was down are lost, so whatever
   * they would have told must be re-read or forgotten now.
   */
  resync: () => void;
}

/**
 * One LISTEN connection per process and database, shared by everything that waits for
 * PostgreSQL notifications (spectator streams and the credential cache in the API, the outbox
 * dispatcher in the worker); each process builds one at start and injects it: it opens with the first
 * subscriber, LISTENs on every subscribed channel, reconnects a second after a loss (then tells
 * every subscriber to resync), and closes a little after the last subscriber leaves, so an idle
 * process holds no connection.
 */
export class NotificationListener {
  private readonly channels = new Map<string, Set<ChannelHandlers>>();
  /** Channels LISTENed on the current connection. */
  private readonly listening = new Set<string>();
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

  /** True while a notification sent on `channel` now would reach this process. */
  isListening(channel: string): boolean {
    return this.client !== null && this.listening.has(channel);
  }

  subscribe(channel: string, handlers: ChannelHandlers): () => void {
    let set = this.channels.get(channel);
    if (!set) this.channels.set(channel, (set = new Set()));
    set.add(handlers);
    this.subscriberCount += 1;
    if (this.closeTimer) {
      clearTimeout(this.closeTimer);
      this.closeTimer = null;
    }
    if (this.client && !this.listening.has(channel)) void this.listen(this.client, channel);
    else void this.ensureConnected();
    let active = true;
    return () => {
      if (!active) return;
      active = false;
      set!.delete(handlers);
      if (set!.size === 0) this.channels.delete(channel);
      this.subscriberCount -= 1;
      if (this.subscriberCount === 0) this.scheduleClose();
    };
  }

  /** Resolves once connected (or failed to connect; then a reconnect is scheduled). */
  ensureConnected(): Promise<void> {
    if (this.client || this.connecting) return this.connecting ?? Promise.resolve();
    const client = new Client({
      connectionString: this.databaseUrl,
      application_name: 'challenge-service-listener',
    });
    client.on('notification', (msg) => {
      if (msg.payload === undefined) return;
      for (const handlers of this.channels.get(msg.channel) ?? []) handlers.notify(msg.payload);
    });
    client.on('error', (err) => {
      this.logger.warn({ err }, 'notification listener connection lost');
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
      .then(async () => {
        this.listening.clear();
        for (const channel of this.channels.keys()) await client.query(`LISTEN ${channel}`);
        for (const channel of this.channels.keys()) this.listening.add(channel);
        this.client = client;
        this.connecting = null;
        for (const set of this.channels.values()) for (const handlers of set) handlers.resync();
        if (this.subscriberCount === 0) this.scheduleClose();
      })
      .catch((err: unknown) => {
        this.logger.warn({ err }, 'could not LISTEN; subscribers fall back to polling or reading through');
        this.connecting = null;
        void client.end().catch(() => undefined);
        this.scheduleReconnect();
      });
    return this.connecting;
  }

  private async listen(client: Client, channel: string): Promise<void> {
    try {
      await client.query(`LISTEN ${channel}`);
      if (this.client !== client) return;
      this.listening.add(channel);
      for (const handlers of this.channels.get(channel) ?? []) handlers.resync();
    } catch (err) {
      this.logger.warn({ err, channel }, 'LISTEN failed; reconnecting');
      this.drop(client);
      this.scheduleReconnect();
    }
  }

  private drop(client: Client): void {
    if (this.client === client) {
      this.client = null;
      this.listening.clear();
    }
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
      this.listening.clear();
      if (client) void client.end().catch(() => undefined);
    }, this.lingerMs);
    this.closeTimer.unref();
  }

  /** Closes the connection now (process shutdown, tests). */
  async close(): Promise<void> {
    if (this.closeTimer) clearTimeout(this.closeTimer);
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.closeTimer = this.reconnectTimer = null;
    await this.connecting?.catch(() => undefined);
    const client = this.client;
    this.client = null;
    this.listening.clear();
    if (client) await client.end().catch(() => undefined);
  }
}
