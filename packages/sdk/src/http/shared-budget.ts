import type Bottleneck from 'bottleneck';
import { setTimeout as sleep } from 'node:timers/promises';
import { RateLimitedError } from '../errors.js';
import type { HeaderReader } from './headers.js';
import {
  type Budget,
  type BudgetState,
  DEFAULT_PAUSE_MS,
  pauseAfter,
  pausedError,
  windowError,
} from './budget-rules.js';

/**
 * A rate budget shared by every process on one Redis (`createTransport({ redis })`).
 * The window, the pause, the probe and the confirmation live in a
 * `BudgetStateStore` (Redis, `redis-budget-state.ts`) that answers each short
 * question atomically; Bottleneck, clustered on the same Redis, queues the
 * budget's requests and keeps its concurrency across processes. This class
 * keeps only the waiting: abort-aware sleeps and the action's ceiling.
 *
 * The rules are those of the in-process budget (`local-budget.ts`): a request
 * holds its window place from sending until one period after its answer, a
 * 429 pauses the whole budget, and a single probe goes first after a pause.
 */

/** The names of a budget: one per (connector, owner, budget name); the owner is the connection, or `*` for connector-wide budgets. */
export interface BudgetKey {
  /** `plugboard:<connector>:<owner>:<budget>`. */
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

/** The probe this request holds: release it once its answer has been read. */
export interface ProbeClaim {
  release(): Promise<void>;
}

/** Where a request about to go stands. */
export type BudgetEntry =
  /** The budget is paused for `waitMs` more. */
  | { kind: 'paused'; waitMs: number }
  /** Confirmed open: go. */
  | { kind: 'open' }
  /** Not confirmed and no probe out: this request is the probe. */
  | { kind: 'probe'; claim: ProbeClaim }
  /** Another request is the probe: wait for it (`probeSettled`), then ask again. */
  | { kind: 'probing' };

/** A window place: `wait` 0 when taken (call `answered` when the answer came), else how long until one may free. */
export type WindowPlace = { wait: 0; answered(): Promise<void> } | { wait: number };

export interface BudgetStateStore {
  /**
   * Says whether a request may go: paused (and for how long), open, or waiting
   * on a probe; claims the probe when the budget is neither paused nor
   * confirmed and no probe is out.
   */
  enter(): Promise<BudgetEntry>;
  /**
   * Takes a place in the sliding window when fewer than `limit` requests hold
   * one: a place is held from now until `periodMs` after `answered()` is
   * called, or after `holdMs` plus the period when it never is (a process that
   * died mid-request).
   */
  takePlace(limit: number, periodMs: number, holdMs: number): Promise<WindowPlace>;
  /** How long the budget stays paused; 0 when open. */
  pausedFor(): Promise<number>;
  /** Pauses the budget for `ms` (unless it is paused longer already) and asks for a probe again. */
  pause(ms: number): Promise<void>;
  /** A request came back without a 429: the others may follow. */
  confirm(): Promise<void>;
  /** Resolves when a probe held by another request may have come back. */
  probeSettled(signal: AbortSignal): Promise<void>;
  /** The state as this process last saw it, without asking anyone. */
  snapshot(): BudgetState;
  /** The state as it is now (in Redis, a round trip). */
  read(): Promise<BudgetState>;
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

export class SharedBudget implements Budget {
  readonly shared = true;
  private limiterPromise: Promise<Bottleneck> | undefined;

  constructor(
    readonly name: string,
    private readonly limit: number | undefined,
    private readonly periodMs: number | undefined,
    private readonly makeLimiter: () => Promise<Bottleneck>,
    private readonly store: BudgetStateStore,
  ) {}

  /**
   * The clustered limiter, made on first use. One that could not be made fails
   * the requests that needed it, not the process, and the next request tries again.
   */
  private limiter(): Promise<Bottleneck> {
    if (this.limiterPromise) return this.limiterPromise;
    const promise = this.makeLimiter();
    this.limiterPromise = promise;
    promise.catch(() => {
      if (this.limiterPromise === promise) this.limiterPromise = undefined;
    });
    return promise;
  }

  state(): BudgetState {
    return this.store.snapshot();
  }

  readState(): Promise<BudgetState> {
    return this.store.read();
  }

  async run<T extends { status: number; headers: HeaderReader }>(
    send: () => Promise<T>,
    signal: AbortSignal,
    maxWaitMs: number,
    sendTimeoutMs = 60_000,
  ): Promise<T> {
    const paused = await this.store.pausedFor();
    if (paused > maxWaitMs) throw pausedError(this.name, paused, maxWaitMs);
    const limiter = await abortable(this.limiter(), signal);
    // Bottleneck forgets a clustered job after its expiration, so that the
    // running count of a process that died mid-request is given back. The
    // waits inside the job are bounded so that a live job never reaches it.
    const waitBoundMs = 2 * maxWaitMs + 10_000;
    const job = limiter.schedule({ expiration: waitBoundMs + sendTimeoutMs + 30_000 }, async () => {
      // A caller that gave up while queued must not spend the provider's quota.
      signal.throwIfAborted();
      const deadline = AbortSignal.timeout(waitBoundMs);
      const waiting = AbortSignal.any([signal, deadline]);
      const outOfTime = (error: unknown): never => {
        if (deadline.aborted && !signal.aborted) {
          throw new RateLimitedError(
            `rate budget '${this.name}' gave this request no turn within ${Math.round(waitBoundMs / 1000)} s`,
            maxWaitMs,
          );
        }
        throw error;
      };
      const claim = await this.enter(waiting, maxWaitMs).catch(outOfTime);
      try {
        const place = await this.takePlace(waiting, maxWaitMs, sendTimeoutMs).catch(outOfTime);
        let response: T;
        try {
          response = await send();
        } finally {
          await place?.answered();
        }
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

  pause(ms: number): Promise<void> {
    return this.store.pause(ms);
  }

  private async observe(status: number, headers: HeaderReader): Promise<void> {
    const pause = pauseAfter(status, headers, this.periodMs ?? DEFAULT_PAUSE_MS);
    await (pause === undefined ? this.store.confirm() : this.store.pause(pause));
  }

  /** Waits until the window has a place for one more request, and takes it. */
  private async takePlace(
    signal: AbortSignal,
    maxWaitMs: number,
    sendTimeoutMs: number,
  ): Promise<{ answered(): Promise<void> } | undefined> {
    if (this.limit === undefined || this.periodMs === undefined) return undefined;
    for (;;) {
      signal.throwIfAborted();
      const place = await this.store.takePlace(this.limit, this.periodMs, sendTimeoutMs);
      if ('answered' in place) return place;
      if (place.wait > maxWaitMs) throw windowError(this.name, this.limit, this.periodMs, place.wait, maxWaitMs);
      await sleep(place.wait, undefined, { signal });
    }
  }

  /** Waits out a pause and a probe in flight; returns the probe's claim when this request is the probe. */
  private async enter(signal: AbortSignal, maxWaitMs: number): Promise<ProbeClaim | undefined> {
    for (;;) {
      signal.throwIfAborted();
      const entry = await this.store.enter();
      switch (entry.kind) {
        case 'paused':
          if (entry.waitMs > maxWaitMs) throw pausedError(this.name, entry.waitMs, maxWaitMs);
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

  async stop(): Promise<void> {
    const limiter = await this.limiterPromise?.catch(() => undefined);
    this.limiterPromise = undefined;
    await limiter?.stop({ dropWaitingJobs: true }).catch(() => undefined);
  }
}
