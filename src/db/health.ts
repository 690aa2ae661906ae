import { DatabaseUnavailableError } from '../shared/errors.js';
import { isDatabaseUnavailable } from '../shared/failure.js';

/** Whether this process last found the database answering. */
export type DatabaseHealthState = 'healthy' | 'unhealthy';

/** A change of the state, as the log tells it once (the driver's text stays here, never in an answer). */
export interface DatabaseHealthChange {
  state: DatabaseHealthState;
  /** healthy → unhealthy: what the probe or the failing query said (the driver's message). */
  cause?: string;
  /** unhealthy → healthy: how long the database did not answer, and how many requests were shed meanwhile. */
  unavailableMs?: number;
  shed?: number;
}

export interface DatabaseHealthOptions {
  /**
   * Opens a connection outside the pool, asks the store the cheapest question and closes it, within `timeoutMs`;
   * rejects when the store does not answer. Never a statement of a request: the query counters do not see it.
   */
  probe: (timeoutMs: number) => Promise<void>;
  /** Cuts a pooled connection checked out by a request, so a query waiting on a store that no longer answers fails now. */
  abandon: (connection: object) => void;
  /** While unhealthy, how often the probe asks again: recovery is seen within this of the store answering. */
  probeIntervalMs: number;
  /** How long a probe may take before the store counts as not answering. */
  probeTimeoutMs: number;
  /** A connection checked out this long without being released makes the state check the store (a hanging query). */
  stallMs: number;
}

const STATEMENT = /^(select|insert|update|delete|replace|with|set|begin|commit|rollback|savepoint|release)\b/i;

/**
 * What the driver said, for the log: the server's own message with its code when there is one, else the error's
 * message without the statement knex puts before it (the statement may carry a token's hash).
 */
function messageOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const { code, sqlMessage } = error as Error & { code?: unknown; sqlMessage?: unknown };
  if (typeof sqlMessage === 'string') return typeof code === 'string' ? `${code}: ${sqlMessage}` : sqlMessage;
  const separator = error.message.lastIndexOf(' - ');
  return STATEMENT.test(error.message) && separator >= 0 ? error.message.slice(separator + 3) : error.message;
}

/**
 * The process's view of the database (one per pool, this process only: nothing another instance needs). Healthy
 * until a query or a connection fails as "unreachable" (src/shared/failure.ts) or hangs past `stallMs`; then a probe
 * on a connection of its own decides. While the last probe failed, every acquisition of a pooled connection fails at
 * once with DatabaseUnavailableError (503 `temporarily_unavailable`, Retry-After) instead of waiting for the acquire
 * timeout, connections held by requests are cut, and the probe asks again every `probeIntervalMs` until the store
 * answers. Adds no statement to a request: the checks are a connection checkout's bookkeeping and a timer.
 */
export class DatabaseHealth {
  private current: DatabaseHealthState = 'healthy';
  private unhealthySince = 0;
  private lastSuccessAt = 0;
  private shedCount = 0;
  private probing: Promise<void> | null = null;
  private retryTimer: NodeJS.Timeout | undefined;
  private stallTimer: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly held = new Map<object, number>();
  private readonly listeners = new Set<(change: DatabaseHealthChange) => void>();
  /** The acquisitions queued for a connection, each by the way to fail it when the store is found down. */
  private readonly queued = new Set<(error: Error) => void>();

  constructor(private readonly options: DatabaseHealthOptions) {}

  get state(): DatabaseHealthState {
    return this.current;
  }

  /** Called before a pooled connection is handed out: throws DatabaseUnavailableError while the store is known down. */
  admit(): void {
    if (this.current === 'healthy') return;
    this.shedCount += 1;
    throw new DatabaseUnavailableError();
  }

  /**
   * `acquisition` (a pooled connection being waited for), or DatabaseUnavailableError as soon as the state turns
   * unhealthy before it settles: a request queued for a connection stops waiting. Each waiter is forgotten when it
   * settles. (Racing every acquisition against one promise that settles only at an outage left a reaction on that
   * promise per acquisition, and each reaction kept its acquisition's promise alive: the heap grew with every query.)
   */
  whileHealthy<T>(acquisition: Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queued.add(reject);
      acquisition.then(
        (value) => {
          this.queued.delete(reject);
          resolve(value);
        },
        (error: unknown) => {
          this.queued.delete(reject);
          reject(error);
        },
      );
    });
  }

  /** How many acquisitions are waiting for a pooled connection now. */
  get queuedAcquisitions(): number {
    return this.queued.size;
  }

  checkedOut(connection: object): void {
    this.held.set(connection, Date.now());
    this.stallTimer ??= setInterval(() => this.lookForStalls(), Math.max(25, Math.floor(this.options.stallMs / 3))).unref();
  }

  released(connection: object): void {
    this.held.delete(connection);
    if (this.held.size === 0 && this.stallTimer !== undefined) {
      clearInterval(this.stallTimer);
      this.stallTimer = undefined;
    }
  }

  /** A query got its answer: evidence that the store answers, whatever a slow probe says meanwhile. */
  reportSuccess(): void {
    this.lastSuccessAt = Date.now();
  }

  /** A query or an acquisition failed: if the failure says the store is unreachable, the probe decides. */
  reportFailure(error: unknown): void {
    if (error instanceof DatabaseUnavailableError || !isDatabaseUnavailable(error)) return;
    void this.check(messageOf(error));
  }

  /** Calls `listener` on each change of the state; returns the way to stop. */
  onChange(listener: (change: DatabaseHealthChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Probes now (one probe at a time) and settles the state on its outcome. */
  check(suspicion?: string): Promise<void> {
    if (this.stopped) return Promise.resolve();
    const started = Date.now();
    this.probing ??= this.options
      .probe(this.options.probeTimeoutMs)
      .then(
        () => this.becomeHealthy(),
        (error: unknown) => {
          // A query answered while the probe waited: the store answers (slowly, on a loaded machine), it is not down.
          if (this.current === 'healthy' && this.lastSuccessAt >= started) return;
          this.becomeUnhealthy(suspicion ?? messageOf(error), messageOf(error));
        },
      )
      .finally(() => {
        this.probing = null;
      });
    return this.probing;
  }

  /** Stops the timers (the pool is being destroyed). */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    clearInterval(this.stallTimer);
    this.stallTimer = undefined;
  }

  private lookForStalls(): void {
    if (this.current !== 'healthy' || this.probing !== null) return;
    const threshold = Date.now() - this.options.stallMs;
    for (const since of this.held.values()) {
      if (since <= threshold) {
        void this.check();
        return;
      }
    }
  }

  private becomeHealthy(): void {
    if (this.current === 'healthy') return;
    const change: DatabaseHealthChange = { state: 'healthy', unavailableMs: Date.now() - this.unhealthySince, shed: this.shedCount };
    this.current = 'healthy';
    this.shedCount = 0;
    clearTimeout(this.retryTimer);
    this.emit(change);
  }

  private becomeUnhealthy(suspicion: string, probeError: string): void {
    if (this.stopped) return;
    if (this.current === 'healthy') {
      this.current = 'unhealthy';
      this.unhealthySince = Date.now();
      // What requests hold now waits on a store that did not answer the probe: cut it, so they answer 503 now.
      for (const connection of this.held.keys()) this.options.abandon(connection);
      // What requests queue for will not come either: they answer 503 now.
      for (const fail of this.queued) fail(new DatabaseUnavailableError());
      this.queued.clear();
      this.emit({ state: 'unhealthy', cause: suspicion === probeError ? probeError : `${suspicion}; probe: ${probeError}` });
    }
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => void this.check(), this.options.probeIntervalMs).unref();
  }

  private emit(change: DatabaseHealthChange): void {
    for (const listener of this.listeners) listener(change);
  }
}
