import Bottleneck from 'bottleneck';
import { setTimeout as sleep } from 'node:timers/promises';
import { type RateBudget, PERIOD_MS } from '../definition/connector.js';
import { RateLimitedError } from '../errors.js';
import { parseRateLimitReset, parseRemaining, parseRetryAfter } from './headers.js';

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
 */

/**
 * Makes the Bottleneck limiter of one budget (its queue and concurrency). The
 * sliding window, the pause and the probe are kept in this process: sharing a
 * budget across processes needs them in a shared store too, not only a
 * clustered limiter.
 */
export type LimiterFactory = (id: string, options: Bottleneck.ConstructorOptions) => Bottleneck;

export const localLimiter: LimiterFactory = (id, options) => new Bottleneck({ ...options, id });

/** When the provider asks for a pause but says not how long. */
const DEFAULT_PAUSE_MS = 1_000;

type Role = 'probe' | 'follower';

export interface BudgetState {
  pausedUntil: number;
  /** A request came back without a 429 since the last pause. */
  confirmed: boolean;
  /** Pauses started so far. */
  pauses: number;
}

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

/** Rejects with the signal's reason as soon as it aborts, whatever the promise does. */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

export class Budget {
  readonly name: string;
  private readonly limiter: Bottleneck;
  private readonly windowMs: number | undefined;
  private readonly limit: number | undefined;
  /** When each of the latest `limit` requests was sent, oldest first. */
  private readonly sent: number[] = [];
  private pausedUntil = 0;
  private confirmed = false;
  private pauses = 0;
  private probe: Promise<void> | undefined;
  private endProbe: (() => void) | undefined;

  constructor(id: string, name: string, declared: RateBudget | undefined, factory: LimiterFactory = localLimiter) {
    this.name = name;
    this.windowMs = declared ? PERIOD_MS[declared.per] : undefined;
    this.limit = declared?.limit;
    this.limiter = factory(id, limiterOptions(declared));
  }

  state(): BudgetState {
    return { pausedUntil: this.pausedUntil, confirmed: this.confirmed, pauses: this.pauses };
  }

  /**
   * Runs one request on the budget. `maxWaitMs` is the longest pause the caller
   * accepts: a longer one fails at once with the wait in the error.
   */
  async run<T extends { status: number; headers: Headers }>(
    send: () => Promise<T>,
    signal: AbortSignal,
    maxWaitMs: number,
  ): Promise<T> {
    this.failIfPausedBeyond(maxWaitMs);
    const job = this.limiter.schedule(async () => {
      // A caller that gave up while queued must not spend the provider's quota.
      signal.throwIfAborted();
      const role = await this.enter(signal, maxWaitMs);
      try {
        await this.takeSlot(signal, maxWaitMs);
        const response = await send();
        this.observe(response.status, response.headers);
        return response;
      } finally {
        if (role === 'probe') this.finishProbe();
      }
    });
    // The job settles later even when the caller stopped waiting for it.
    job.catch(() => undefined);
    return abortable(job, signal);
  }

  /** Holds the whole budget for `ms`, and asks for a probe before it opens again. */
  pause(ms: number): void {
    const until = Date.now() + ms;
    if (until <= this.pausedUntil) return;
    if (this.pausedUntil <= Date.now()) this.pauses += 1;
    this.pausedUntil = until;
    this.confirmed = false;
  }

  /** Reads what an answer says about the budget. */
  observe(status: number, headers: Headers): void {
    const retryAfter = parseRetryAfter(headers.get('retry-after'));
    if (status === 429) {
      this.pause(retryAfter ?? this.windowMs ?? DEFAULT_PAUSE_MS);
      return;
    }
    // A provider that is down and says for how long: nobody on the budget asks before then.
    if (status >= 500 && retryAfter !== undefined) {
      this.pause(retryAfter);
      return;
    }
    if (parseRemaining(headers) === 0) {
      this.pause(retryAfter ?? parseRateLimitReset(headers.get('x-ratelimit-reset')) ?? this.windowMs ?? DEFAULT_PAUSE_MS);
      return;
    }
    this.confirmed = true;
  }

  private failIfPausedBeyond(maxWaitMs: number): void {
    const wait = this.pausedUntil - Date.now();
    if (wait > maxWaitMs) {
      throw new RateLimitedError(
        `rate budget '${this.name}' is paused for ${Math.ceil(wait / 1000)} s, longer than this action waits (${Math.floor(maxWaitMs / 1000)} s); try again after ${new Date(this.pausedUntil).toISOString()}`,
        wait,
      );
    }
  }

  /** Waits until the declared rate allows one more request in the sliding window, then counts it. */
  private async takeSlot(signal: AbortSignal, maxWaitMs: number): Promise<void> {
    if (this.limit === undefined || this.windowMs === undefined) return;
    const period = this.windowMs + windowMargin(this.windowMs);
    for (;;) {
      signal.throwIfAborted();
      const now = Date.now();
      while (this.sent.length > 0 && this.sent[0]! <= now - period) this.sent.shift();
      if (this.sent.length < this.limit) {
        this.sent.push(now);
        return;
      }
      const wait = this.sent[0]! + period - now;
      if (wait > maxWaitMs) {
        throw new RateLimitedError(
          `rate budget '${this.name}' allows ${this.limit} requests per ${this.windowMs / 1000} s; the next one may go in ${Math.ceil(wait / 1000)} s, longer than this action waits (${Math.floor(maxWaitMs / 1000)} s)`,
          wait,
        );
      }
      await sleep(wait, undefined, { signal });
    }
  }

  /** Waits out a pause and a probe in flight; returns whether this request is the probe. */
  private async enter(signal: AbortSignal, maxWaitMs: number): Promise<Role> {
    for (;;) {
      signal.throwIfAborted();
      const wait = this.pausedUntil - Date.now();
      if (wait > 0) {
        this.failIfPausedBeyond(maxWaitMs);
        await sleep(wait, undefined, { signal });
        continue;
      }
      if (this.confirmed) return 'follower';
      if (this.probe) {
        await abortable(this.probe, signal);
        continue;
      }
      this.probe = new Promise<void>((resolve) => {
        this.endProbe = resolve;
      });
      return 'probe';
    }
  }

  private finishProbe(): void {
    const end = this.endProbe;
    this.probe = undefined;
    this.endProbe = undefined;
    end?.();
  }

  /** Stops the limiter's timers; queued requests are dropped. */
  async stop(): Promise<void> {
    await this.limiter.stop({ dropWaitingJobs: true }).catch(() => undefined);
  }
}

/** The budgets of one process, keyed by (connector, connection, budget name). */
export class BudgetRegistry {
  private readonly budgets = new Map<string, Budget>();

  constructor(private readonly factory: LimiterFactory = localLimiter) {}

  get(connectorKey: string, connectionId: string, name: string, declared: RateBudget | undefined): Budget {
    const owner = declared?.scope === 'connector' ? '*' : connectionId;
    const id = `plugboard:${connectorKey}:${owner}:${name}`;
    let budget = this.budgets.get(id);
    if (!budget) {
      budget = new Budget(id, `${connectorKey}/${name}`, declared, this.factory);
      this.budgets.set(id, budget);
    }
    return budget;
  }

  async stop(): Promise<void> {
    await Promise.all([...this.budgets.values()].map((budget) => budget.stop()));
    this.budgets.clear();
  }
}
