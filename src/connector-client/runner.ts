import { backoffDelay, sleep, type BackoffOptions } from './backoff';
import { ConnectorClient, ConnectorHttpError, isAbort, isRetryable, randomIdempotencyKey } from './client';
import type {
  AssignedAnswer,
  Assignment,
  HeartbeatProfile,
  LiveEventInput,
  StreamResult,
} from '../wire/connector';

/** One event to stream; without a challengeId it goes to the first assignment the runner sees. */
export interface ScriptedEvent {
  challengeId?: string;
  /** Where it came from (a JSONL line number), for the per-event feedback. */
  line?: number;
  /** Wait this long before sending (pacing a replay). */
  delayMs?: number;
  event: LiveEventInput;
}

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type RunnerLogger = (level: LogLevel, message: string, fields?: Record<string, unknown>) => void;

export interface RunnerOptions {
  client: ConnectorClient;
  /** Heartbeat period (default 30 s, as the spec asks). */
  heartbeatIntervalMs?: number;
  /** Assignment poll period (default 5 s, as the spec asks). */
  pollIntervalMs?: number;
  profile?: HeartbeatProfile;
  /** Stops the runner when aborted (same as stop()). */
  signal?: AbortSignal;
  /** Called once per new assignment (by entry id). Errors are logged, never fatal. */
  onAssignment?: (assignment: Assignment, runner: ConnectorRunner) => void | Promise<void>;
  /** Events to stream in order (from code, or readJsonlEvents(file)). */
  events?: AsyncIterable<ScriptedEvent> | Iterable<ScriptedEvent>;
  backoff?: BackoffOptions;
  /** Attempts per event before it is dropped (default 8); non-retryable answers drop at once. */
  streamMaxAttempts?: number;
  logger?: RunnerLogger;
}

export interface RunnerStats {
  heartbeats: number;
  heartbeatFailures: number;
  polls: number;
  pollFailures: number;
  streamed: number;
  dropped: number;
  retries: number;
}

const noopLogger: RunnerLogger = () => undefined;

/**
 * The long-running side of an agent: heartbeats every 30 s, polls assignments every 5 s
 * (honouring Retry-After), streams events in order, and backs off exponentially with jitter on
 * 429, 5xx and network errors. `stop()` (or aborting `signal`) ends every loop: timers are
 * cleared and in-flight requests aborted; `run()` resolves once everything has wound down.
 */
export class ConnectorRunner {
  readonly stats: RunnerStats = {
    heartbeats: 0,
    heartbeatFailures: 0,
    polls: 0,
    pollFailures: 0,
    streamed: 0,
    dropped: 0,
    retries: 0,
  };
  /** Assignments seen so far, by entry id. */
  readonly assignments = new Map<string, Assignment>();

  private readonly controller = new AbortController();
  private readonly log: RunnerLogger;
  private readonly tasks = new Set<Promise<unknown>>();
  private streamQueue: Promise<unknown> = Promise.resolve();
  private assignmentWaiters: ((a: Assignment) => void)[] = [];
  private running: Promise<void> | null = null;
  private readonly onExternalAbort = () => this.controller.abort();

  constructor(private readonly options: RunnerOptions) {
    this.log = options.logger ?? noopLogger;
    if (options.signal) {
      if (options.signal.aborted) this.controller.abort();
      else options.signal.addEventListener('abort', this.onExternalAbort, { once: true });
    }
  }

  get client(): ConnectorClient {
    return this.options.client;
  }

  get stopped(): boolean {
    return this.controller.signal.aborted;
  }

  /** Aborted when the runner stops; pass it to your own work. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Starts the loops; resolves when the runner has stopped and every task has finished. */
  run(): Promise<void> {
    this.running ??= (async () => {
      const loops = [this.heartbeatLoop(), this.pollLoop()];
      if (this.options.events) loops.push(this.eventsLoop(this.options.events));
      await Promise.all(loops);
      await this.streamQueue.catch(() => undefined);
      while (this.tasks.size > 0) await Promise.allSettled([...this.tasks]);
      this.options.signal?.removeEventListener('abort', this.onExternalAbort);
      this.log('info', 'connector stopped', { ...this.stats });
    })();
    return this.running;
  }

  /** Stops everything and waits until it has stopped. */
  async stop(): Promise<void> {
    this.controller.abort();
    for (const waiter of this.assignmentWaiters.splice(0)) waiter(undefined as unknown as Assignment);
    await this.running;
  }

  /** Resolves with the first assignment (already seen or next to come); undefined if stopped first. */
  firstAssignment(): Promise<Assignment | undefined> {
    const first = this.assignments.values().next();
    if (!first.done) return Promise.resolve(first.value);
    if (this.stopped) return Promise.resolve(undefined);
    return new Promise((resolve) => this.assignmentWaiters.push(resolve));
  }

  /**
   * Queues one event; events are sent one at a time in call order. Retries 429/5xx/network
   * failures with backoff (Retry-After when given); resolves null when the event was dropped
   * (refused by the server, out of attempts, or the runner stopped). Every attempt of one event
   * carries the same Idempotency-Key and the same body (the timestamp is fixed here), so a retry
   * after a lost answer gets the original seq_num instead of storing the event twice.
   */
  stream(challengeId: string, event: LiveEventInput): Promise<StreamResult | null> {
    const stamped: LiveEventInput = { ...event, timestamp: event.timestamp ?? new Date().toISOString() };
    const key = randomIdempotencyKey();
    const next = this.streamQueue.then(() => this.sendWithRetry(challengeId, stamped, key));
    this.streamQueue = next.catch(() => undefined);
    return next;
  }

  private async sendWithRetry(
    challengeId: string,
    event: LiveEventInput,
    idempotencyKey: string,
  ): Promise<StreamResult | null> {
    const maxAttempts = this.options.streamMaxAttempts ?? 8;
    for (let attempt = 0; attempt < maxAttempts && !this.stopped; attempt++) {
      try {
        const result = await this.client.streamEvent(challengeId, event, {
          signal: this.signal,
          idempotencyKey,
        });
        this.stats.streamed += 1;
        this.log('debug', 'event streamed', { challengeId, type: event.type, seq_num: result.seq_num });
        return result;
      } catch (err) {
        if (this.stopped || isAbort(err)) break;
        // 409 under our own key and unchanged body: an earlier attempt (whose answer we lost) is
        // still being processed by the server; a later retry gets its answer.
        const inProgress = err instanceof ConnectorHttpError && err.status === 409;
        if (!isRetryable(err) && !inProgress) {
          this.log('warn', 'event refused by the server; dropped', {
            challengeId,
            type: event.type,
            error: (err as Error).message,
          });
          break;
        }
        this.stats.retries += 1;
        const wait = this.retryDelay(err, attempt);
        this.log('warn', 'stream failed; retrying', {
          challengeId,
          type: event.type,
          error: (err as Error).message,
          retry_in_ms: wait,
        });
        if (!(await sleep(wait, this.signal))) break;
      }
    }
    this.stats.dropped += 1;
    return null;
  }

  private retryDelay(err: unknown, attempt: number): number {
    const retryAfter = err instanceof ConnectorHttpError ? err.retryAfterMs : null;
    return retryAfter ?? backoffDelay(attempt, this.options.backoff);
  }

  private async heartbeatLoop(): Promise<void> {
    const interval = this.options.heartbeatIntervalMs ?? 30_000;
    let failures = 0;
    while (!this.stopped) {
      let wait = interval;
      try {
        const result = await this.client.heartbeat(this.options.profile ?? {}, { signal: this.signal });
        this.stats.heartbeats += 1;
        if (failures > 0 || this.stats.heartbeats === 1)
          this.log('info', 'heartbeat ok', { agent_id: result.agent_id });
        failures = 0;
      } catch (err) {
        if (this.stopped || isAbort(err)) break;
        this.stats.heartbeatFailures += 1;
        // A refused key (401) will not heal by itself, but the key may be rotated on disk: keep
        // trying at the normal pace. Transient failures retry sooner, with backoff.
        wait = isRetryable(err) ? Math.min(interval, this.retryDelay(err, failures)) : interval;
        failures += 1;
        this.log(isRetryable(err) ? 'warn' : 'error', 'heartbeat failed', {
          error: (err as Error).message,
          retry_in_ms: wait,
        });
      }
      if (!(await sleep(wait, this.signal))) break;
    }
  }

  private async pollLoop(): Promise<void> {
    const interval = this.options.pollIntervalMs ?? 5_000;
    let failures = 0;
    while (!this.stopped) {
      let wait = interval;
      try {
        const answer: AssignedAnswer =
          typeof this.client.pollAssigned === 'function'
            ? await this.client.pollAssigned({ signal: this.signal })
            : { challenges: await this.client.pollAssignments({ signal: this.signal }) };
        this.stats.polls += 1;
        failures = 0;
        for (const assignment of answer.challenges) this.accept(assignment);
        this.explainIdle(answer);
      } catch (err) {
        if (this.stopped || isAbort(err)) break;
        this.stats.pollFailures += 1;
        // 429 carries Retry-After (60 s on this endpoint): wait exactly that long.
        const retryAfter = err instanceof ConnectorHttpError ? err.retryAfterMs : null;
        wait =
          retryAfter ??
          (isRetryable(err) ? Math.max(interval, backoffDelay(failures, this.options.backoff)) : interval);
        failures += 1;
        this.log('warn', 'assignment poll failed', { error: (err as Error).message, retry_in_ms: wait });
      }
      if (!(await sleep(wait, this.signal))) break;
    }
  }

  private idleSaid = '';

  /**
   * With nothing assigned and nothing accepted yet, says why (once per change): each entry's reason
   * (already judged, challenge not active…), or that the agent is entered nowhere.
   */
  private explainIdle(answer: AssignedAnswer): void {
    if (answer.challenges.length > 0 || this.assignments.size > 0 || !answer.idle) return;
    const lines =
      answer.idle.length === 0
        ? [
            'no assignment: this agent is not entered in any challenge; enter one on its page ("Take part") or with the CLI',
          ]
        : answer.idle.map((i) => `no assignment from "${i.title}" (${i.challenge_id}): ${i.message}`);
    const said = lines.join('\n');
    if (said === this.idleSaid) return;
    this.idleSaid = said;
    for (const line of lines) this.log('info', line);
  }

  private accept(assignment: Assignment): void {
    if (this.assignments.has(assignment.entry_id)) return;
    this.assignments.set(assignment.entry_id, assignment);
    this.log('info', 'new assignment', {
      entry_id: assignment.entry_id,
      challenge_id: assignment.challenge.id,
      title: assignment.challenge.title,
    });
    for (const waiter of this.assignmentWaiters.splice(0)) waiter(assignment);
    const handler = this.options.onAssignment;
    if (handler) {
      this.track(
        Promise.resolve()
          .then(() => handler(assignment, this))
          .catch((err: unknown) =>
            this.log('error', 'assignment handler failed', { error: (err as Error)?.message ?? String(err) }),
          ),
      );
    }
  }

  private async eventsLoop(events: AsyncIterable<ScriptedEvent> | Iterable<ScriptedEvent>): Promise<void> {
    const iterator: AsyncIterator<ScriptedEvent> | Iterator<ScriptedEvent> =
      Symbol.asyncIterator in events
        ? events[Symbol.asyncIterator]()
        : (events as Iterable<ScriptedEvent>)[Symbol.iterator]();
    // A source that blocks (stdin) must not keep a stopped runner alive.
    const stopped = new Promise<'stopped'>((resolve) => {
      if (this.stopped) resolve('stopped');
      else this.signal.addEventListener('abort', () => resolve('stopped'), { once: true });
    });
    try {
      while (!this.stopped) {
        const next = await Promise.race([Promise.resolve(iterator.next()), stopped]);
        if (next === 'stopped' || next.done) break;
        const item = next.value;
        if (item.delayMs && !(await sleep(item.delayMs, this.signal))) break;
        const where = item.line ? `line ${item.line}: ` : '';
        let challengeId = item.challengeId;
        if (!challengeId) {
          if (this.assignments.size === 0)
            this.log('info', `${where}waiting for an assignment before streaming ${item.event.type}`);
          challengeId = (await this.firstAssignment())?.challenge.id;
        }
        if (!challengeId || this.stopped) break;
        const result = await this.stream(challengeId, item.event);
        if (result) this.log('info', `${where}streamed ${item.event.type} (seq_num ${result.seq_num})`);
        else if (!this.stopped)
          this.log('warn', `${where}${item.event.type} not streamed (refused, or out of attempts)`);
      }
    } catch (err) {
      if (!this.stopped)
        this.log('error', 'event source failed', { error: (err as Error)?.message ?? String(err) });
    } finally {
      void Promise.resolve(iterator.return?.()).catch(() => undefined);
    }
  }

  private track(task: Promise<unknown>): void {
    this.tasks.add(task);
    void task.finally(() => this.tasks.delete(task));
  }
}
