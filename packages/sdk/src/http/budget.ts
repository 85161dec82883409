import Bottleneck from 'bottleneck';
import { setTimeout as sleep } from 'node:timers/promises';
import { type RateBudget, PERIOD_MS } from '../definition/connector.js';
import { RateLimitedError } from '../errors.js';
import { abortable, type BudgetState, type BudgetStateStore, MemoryBudgetState, type ProbeClaim } from './budget-state.js';
import { parseRateLimitReset, parseRemaining, parseRetryAfter } from './headers.js';

export { abortable, type BudgetState } from './budget-state.js';

/**
 * A rate budget of one (connector, connection, budget name). Bottleneck queues
 * the budget's requests and enforces its concurrency; the declared rate is kept
 * over a sliding window, as providers count it: no more than `limit` requests
 * in any period of `per` (a refill on a fixed tick would let a burst before and
 * one after the tick land in one provider window). A gate also holds the whole
 * budget when the provider says stop:
 *
 * - a 429 pauses every request of the budget until `Retry-After`, and
 *   `X-RateLimit-Remaining: 0` pauses it before the 429 comes;
 * - after a pause (and at the start) a single probe request goes first, and the
 *   others follow only once it has come back without a 429, so the provider
 *   sees one 429 per pause rather than one per waiting request.
 *
 * The window, the pause, the probe and the confirmation live in a
 * `BudgetStateStore`: this process's memory by default, or Redis with
 * `createTransport({ redis })`, where every process on that Redis shares them
 * and Bottleneck runs clustered on the same Redis, so the concurrency is
 * shared too. This class keeps only the waiting.
 */

/**
 * Makes the Bottleneck limiter of one budget (its queue and concurrency). It
 * may answer with a promise (a clustered limiter connecting to Redis). The
 * window, the pause and the probe are not the limiter's: they are kept by the
 * budget's state store (see `createTransport({ redis })` to share them).
 */
export type LimiterFactory = (id: string, options: Bottleneck.ConstructorOptions) => Bottleneck | Promise<Bottleneck>;

export const localLimiter: LimiterFactory = (id, options) => new Bottleneck({ ...options, id });

/** The parts that name a budget: one per (connector, owner, budget name); the owner is the connection, or `*` for connector-wide budgets. */
export interface BudgetKey {
  /** `plugboard:<connector>:<owner>:<budget>`, the limiter's id. */
  id: string;
  connectorKey: string;
  owner: string;
  name: string;
}

/** Where a registry keeps its budgets when they are shared: the state and a clustered limiter per budget. */
export interface BudgetBackend {
  state(key: BudgetKey): BudgetStateStore;
  limiter(key: BudgetKey, options: Bottleneck.ConstructorOptions): Promise<Bottleneck>;
  close(): Promise<void>;
}

/** When the provider asks for a pause but says not how long. */
const DEFAULT_PAUSE_MS = 1_000;
/** How long a request's send may take when the caller does not say (its timeout covers redirects and the body). */
const DEFAULT_SEND_MS = 60_000;

function limiterOptions(declared: RateBudget | undefined): Bottleneck.ConstructorOptions {
  return { maxConcurrent: declared?.maxConcurrent ?? null };
}

/**
 * Requests are stamped when sent and counted by the provider when they arrive;
 * a small margin keeps a late arrival of an old request inside its own window.
 */
function windowMargin(periodMs: number): number {
  return Math.min(250, Math.ceil(periodMs * 0.02));
}

export class Budget {
  readonly name: string;
  private readonly makeLimiter: () => Bottleneck | Promise<Bottleneck>;
  private limiterPromise: Promise<Bottleneck> | undefined;
  private readonly store: BudgetStateStore;
  private readonly windowMs: number | undefined;
  private readonly limit: number | undefined;

  constructor(
    id: string,
    name: string,
    declared: RateBudget | undefined,
    factory: LimiterFactory = localLimiter,
    store: BudgetStateStore = new MemoryBudgetState(),
  ) {
    this.name = name;
    this.windowMs = declared ? PERIOD_MS[declared.per] : undefined;
    this.limit = declared?.limit;
    this.store = store;
    const options = limiterOptions(declared);
    this.makeLimiter = () => factory(id, options);
    this.keepLimiter(this.makeLimiter());
  }

  /**
   * Keeps the limiter, or the promise of one (a clustered limiter connects to
   * Redis first). One that could not be made fails the requests that needed
   * it, not the process, and the next request tries again.
   */
  private keepLimiter(made: Bottleneck | Promise<Bottleneck>): Promise<Bottleneck> {
    const promise = Promise.resolve(made);
    this.limiterPromise = promise;
    promise.catch(() => {
      if (this.limiterPromise === promise) this.limiterPromise = undefined;
    });
    return promise;
  }

  private limiter(): Promise<Bottleneck> {
    if (this.limiterPromise) return this.limiterPromise;
    try {
      return this.keepLimiter(this.makeLimiter());
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** True when other processes share this budget (through Redis). */
  get shared(): boolean {
    return this.store.shared;
  }

  /** The budget as this process last saw it (exact when the budget is this process's own). */
  state(): BudgetState {
    return this.store.snapshot();
  }

  /** The budget as it is now, read from its store (a Redis round trip when shared). */
  readState(): Promise<BudgetState> {
    return this.store.read();
  }

  /**
   * Runs one request on the budget. `maxWaitMs` is the longest pause the caller
   * accepts: a longer one fails at once with the wait in the error.
   * `sendTimeoutMs` bounds `send`; a shared budget uses it to let the cluster
   * forget a request whose process died while it ran.
   */
  async run<T extends { status: number; headers: Headers }>(
    send: () => Promise<T>,
    signal: AbortSignal,
    maxWaitMs: number,
    sendTimeoutMs: number = DEFAULT_SEND_MS,
  ): Promise<T> {
    await this.failIfPausedBeyond(maxWaitMs);
    const limiter = await abortable(this.limiter(), signal);
    // Bottleneck forgets a clustered job after its expiration, so that the
    // running count of a process that died mid-request is given back. The
    // waits inside the job are bounded so that a live job never reaches it.
    const waitBoundMs = 2 * maxWaitMs + 10_000;
    const jobOptions = this.store.shared ? { expiration: waitBoundMs + sendTimeoutMs + 30_000 } : {};
    const job = limiter.schedule(jobOptions, async () => {
      // A caller that gave up while queued must not spend the provider's quota.
      signal.throwIfAborted();
      const deadline = this.store.shared ? AbortSignal.timeout(waitBoundMs) : undefined;
      const waiting = deadline ? AbortSignal.any([signal, deadline]) : signal;
      const outOfTime = (error: unknown): never => {
        if (deadline?.aborted && !signal.aborted) {
          throw new RateLimitedError(
            `rate budget '${this.name}' gave this request no turn within ${Math.round(waitBoundMs / 1000)} s`,
            maxWaitMs,
          );
        }
        throw error;
      };
      const claim = await this.enter(waiting, maxWaitMs).catch(outOfTime);
      try {
        await this.takeSlot(waiting, maxWaitMs).catch(outOfTime);
        const response = await send();
        await this.observe(response.status, response.headers);
        return response;
      } finally {
        await claim?.release().catch(() => undefined);
      }
    });
    // The job settles later even when the caller stopped waiting for it.
    job.catch(() => undefined);
    return abortable(job, signal);
  }

  /** Holds the whole budget for `ms`, and asks for a probe before it opens again. */
  pause(ms: number): Promise<void> {
    return this.store.pause(ms);
  }

  /** Reads what an answer says about the budget. */
  async observe(status: number, headers: Headers): Promise<void> {
    const retryAfter = parseRetryAfter(headers.get('retry-after'));
    if (status === 429) {
      await this.pause(retryAfter ?? this.windowMs ?? DEFAULT_PAUSE_MS);
      return;
    }
    // A provider that is down and says for how long: nobody on the budget asks before then.
    if (status >= 500 && retryAfter !== undefined) {
      await this.pause(retryAfter);
      return;
    }
    if (parseRemaining(headers) === 0) {
      await this.pause(retryAfter ?? parseRateLimitReset(headers.get('x-ratelimit-reset')) ?? this.windowMs ?? DEFAULT_PAUSE_MS);
      return;
    }
    await this.store.confirm();
  }

  private pausedError(wait: number, maxWaitMs: number): RateLimitedError {
    return new RateLimitedError(
      `rate budget '${this.name}' is paused for ${Math.ceil(wait / 1000)} s, longer than this action waits (${Math.floor(maxWaitMs / 1000)} s); try again after ${new Date(Date.now() + wait).toISOString()}`,
      wait,
    );
  }

  private async failIfPausedBeyond(maxWaitMs: number): Promise<void> {
    const wait = await this.store.pausedFor();
    if (wait > maxWaitMs) throw this.pausedError(wait, maxWaitMs);
  }

  /** Waits until the declared rate allows one more request in the sliding window, then counts it. */
  private async takeSlot(signal: AbortSignal, maxWaitMs: number): Promise<void> {
    if (this.limit === undefined || this.windowMs === undefined) return;
    const period = this.windowMs + windowMargin(this.windowMs);
    for (;;) {
      signal.throwIfAborted();
      const wait = await this.store.takeSlot(this.limit, period);
      if (wait <= 0) return;
      if (wait > maxWaitMs) {
        throw new RateLimitedError(
          `rate budget '${this.name}' allows ${this.limit} requests per ${this.windowMs / 1000} s; the next one may go in ${Math.ceil(wait / 1000)} s, longer than this action waits (${Math.floor(maxWaitMs / 1000)} s)`,
          wait,
        );
      }
      await sleep(wait, undefined, { signal });
    }
  }

  /** Waits out a pause and a probe in flight; returns the probe's claim when this request is the probe. */
  private async enter(signal: AbortSignal, maxWaitMs: number): Promise<ProbeClaim | undefined> {
    for (;;) {
      signal.throwIfAborted();
      const entry = await this.store.enter();
      switch (entry.kind) {
        case 'paused':
          if (entry.waitMs > maxWaitMs) throw this.pausedError(entry.waitMs, maxWaitMs);
          await sleep(entry.waitMs, undefined, { signal });
          break;
        case 'probing':
          await this.store.probeSettled(signal);
          break;
        case 'open':
          return undefined;
        case 'probe':
          if (signal.aborted) {
            await entry.claim.release().catch(() => undefined);
            signal.throwIfAborted();
          }
          return entry.claim;
      }
    }
  }

  /** Stops the limiter's timers; queued requests are dropped. */
  async stop(): Promise<void> {
    const limiter = await this.limiterPromise?.catch(() => undefined);
    this.limiterPromise = undefined;
    await limiter?.stop({ dropWaitingJobs: true }).catch(() => undefined);
  }
}

/**
 * The budgets of one transport, keyed by (connector, connection, budget name).
 * With a backend (Redis) each budget's state and limiter are shared with every
 * other process on that backend; without one they are this process's own.
 */
export class BudgetRegistry {
  private readonly budgets = new Map<string, Budget>();

  constructor(
    private readonly factory?: LimiterFactory,
    private readonly backend?: BudgetBackend,
  ) {}

  get(connectorKey: string, connectionId: string, name: string, declared: RateBudget | undefined): Budget {
    const owner = declared?.scope === 'connector' ? '*' : connectionId;
    const id = `plugboard:${connectorKey}:${owner}:${name}`;
    let budget = this.budgets.get(id);
    if (!budget) {
      const key: BudgetKey = { id, connectorKey, owner, name };
      const backend = this.backend;
      const factory: LimiterFactory = this.factory ?? (backend ? (_id, options) => backend.limiter(key, options) : localLimiter);
      budget = new Budget(id, `${connectorKey}/${name}`, declared, factory, backend?.state(key));
      this.budgets.set(id, budget);
    }
    return budget;
  }

  /** Stops every budget's limiter, then disconnects the backend. */
  async stop(): Promise<void> {
    await Promise.all([...this.budgets.values()].map((budget) => budget.stop()));
    this.budgets.clear();
    await this.backend?.close();
  }
}
