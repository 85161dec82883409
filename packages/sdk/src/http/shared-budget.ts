import { type Clock, systemClock } from '../clock.js';
import { RateLimitedError } from '../errors.js';
import {
  type Budget,
  type BudgetState,
  DEFAULT_PAUSE_MS,
  HeldBack,
  type Lesson,
  lessonOf,
  pauseAfter,
  pausedError,
  type WriteGate,
  windowError,
} from './budget-rules.js';
import type { HeaderReader } from './headers.js';

/**
 * A rate budget shared by every process on one Redis (`createHostTransport({ redis })`).
 * The window, the concurrency, the pause, the probe and the confirmation live
 * in a `BudgetStateStore` (Redis, `redis-budget-state.ts`) that answers each
 * short question atomically. This class keeps this process's side: a FIFO
 * queue of its requests, whose head alone asks the store, and the waits
 * (read from the transport's clock) between its questions.
 *
 * The rules are those of the in-process budget (`local-budget.ts`): a request
 * holds its window place from sending until one period after its answer, a
 * 429 pauses the whole budget, and a single probe goes first after a pause.
 * A budget with no declared rate learns the provider's window from its first
 * refusal as the in-process one does, once for every process on the store:
 * until then one request at a time goes across all of them (or as many as the
 * provider's `X-RateLimit-Remaining` leaves room for).
 */

/** The names of a budget: one per (connector, owner, budget name); the owner is the connection, or `*` for connector-wide budgets. */
export interface BudgetKey {
  /** `plugboard:<connector>:<owner>:<budget>`. */
  id: string;
  connectorKey: string;
  owner: string;
  name: string;
}

/** Where a registry keeps its budgets when they are shared. */
export interface BudgetBackend {
  state(key: BudgetKey): BudgetStateStore;
  close(): Promise<void>;
}

/** What the requests at the head of a queue ask of the budget: its declared rules, and how long they may run. */
export interface AdmissionRequest {
  /** Requests per period; none: no window. */
  limit: number | undefined;
  periodMs: number | undefined;
  /** Requests running at once across processes; none: no bound. */
  maxConcurrent: number | undefined;
  /** How long the longest of them may run: a process that dies mid-request is forgotten after this. */
  holdMs: number;
}

/** How a request that went ended: confirmed open, pausing the budget, answered with neither (no answer read), or never sent. */
export type RequestEnd = 'confirm' | 'answered' | 'unsent' | { pauseMs: number };

/** What a request that went holds (a window place, a running slot, maybe the probe), given back by `end`. */
export interface Ticket {
  /** This request is the probe: the others wait for its answer. */
  readonly probe: boolean;
  /**
   * Asked at the moment the request is written (the budget's write gate): a running slot's
   * lease starts again from now, so that it lasts the send timeout from the writing, however
   * late that came after the request was let in. False when the lease may have ended already:
   * the request must not be written, and asks for its turn again.
   */
  writing(): boolean;
  /**
   * `answeredAt`: when the answer (or the failure) came, on `performance.now()`'s scale. Its
   * window place is dated back by the time since, a duration, which machines whose clocks
   * disagree still measure alike. `lesson`: what the answer tells a budget with no declared
   * rate about the provider's window (only such a budget reads it).
   */
  end(how: RequestEnd, answeredAt?: number, lesson?: Lesson): Promise<void>;
}

/** The store's answer to a request that asks to go. */
export type Admission =
  /** The first `tickets.length` of the requests asking go (at least one); the others ask again. */
  | { kind: 'go'; tickets: Ticket[] }
  /** The budget is paused for `waitMs` more. */
  | { kind: 'paused'; waitMs: number }
  /** Another request is the probe: ask again once it may have come back. */
  | { kind: 'probing' }
  /** The budget's concurrency is all running: ask again once a request may have ended. */
  | { kind: 'busy' }
  /** Every window place is held: one may free in `waitMs`; the window, declared or learned. */
  | { kind: 'window'; waitMs: number; limit: number; periodMs: number };

export interface BudgetStateStore {
  /** Lets up to `count` requests go, taking all each holds at once, or says why none may yet. */
  acquire(request: AdmissionRequest, count: number): Promise<Admission>;
  /** Pauses the budget for `ms` (unless it is paused longer already) and asks for a probe again. */
  pause(ms: number): Promise<void>;
  /** The state as this process last saw it, without asking anyone. */
  snapshot(): BudgetState;
  /** The state as it is now (in Redis, a round trip). */
  read(): Promise<BudgetState>;
}

/** How many requests at the head of the queue ask to go in one round trip. */
const BATCH = 32;
/** How often the queue's head asks again while another process's request is the probe. */
const PROBE_POLL_MS = 25;
/** How often it asks again while the budget's concurrency is all running (a request of this process ending asks at once). */
const RUNNING_POLL_MS = 10;

/** A request of this process waiting for its turn. */
interface Waiter {
  readonly maxWaitMs: number;
  readonly holdMs: number;
  settled: boolean;
  go(ticket: Ticket): void;
  fail(error: unknown): void;
}

export class SharedBudget implements Budget {
  readonly shared = true;
  /** FIFO; settled waiters are dropped when they reach the head. */
  private readonly queue: Waiter[] = [];
  private pumping = false;
  /** Ends the head's current wait early; `onEnd` when a request of this process ending may let it go. */
  private waiting: { wake(): void; onEnd: boolean } | undefined;
  /** Requests of this process ended so far: one that ended while the store was asked frees a turn the answer did not see. */
  private endings = 0;

  constructor(
    readonly name: string,
    private readonly limit: number | undefined,
    private readonly periodMs: number | undefined,
    private readonly maxConcurrent: number | undefined,
    private readonly store: BudgetStateStore,
    private readonly clock: Clock = systemClock,
  ) {}

  state(): BudgetState {
    return this.store.snapshot();
  }

  readState(): Promise<BudgetState> {
    return this.store.read();
  }

  async run<T extends { status: number; headers: HeaderReader }>(
    send: (open: WriteGate) => Promise<T>,
    signal: AbortSignal,
    maxWaitMs: number,
    sendTimeoutMs = 60_000,
  ): Promise<T> {
    signal.throwIfAborted();
    for (;;) {
      // A pause this process knows of fails at once; one it learns of later fails the queue when the head meets it.
      const paused = this.store.snapshot().pausedUntil - this.clock.now();
      if (paused > maxWaitMs) throw pausedError(this.name, paused, maxWaitMs);
      const ticket = await this.admit(signal, maxWaitMs, sendTimeoutMs);
      let response: T;
      try {
        response = await send(() => ticket.writing());
      } catch (error) {
        // Held back at the moment of writing: nothing reached the provider; it gives its place back and asks again.
        const heldBack = error instanceof HeldBack;
        await ticket.end(heldBack ? 'unsent' : 'answered', performance.now()).catch(() => undefined);
        this.ended();
        if (heldBack) continue;
        throw error;
      }
      return this.answered(ticket, response);
    }
  }

  /** Tells the store how the request that went ended: its answer confirms the budget or pauses it. */
  private async answered<T extends { status: number; headers: HeaderReader }>(ticket: Ticket, response: T): Promise<T> {
    const answeredAt = performance.now();
    const pause = pauseAfter(response.status, response.headers, this.periodMs ?? DEFAULT_PAUSE_MS);
    // Only a budget with no declared rate learns from the answer: a declared one reads no more of it.
    const lesson = this.limit === undefined ? lessonOf(response.status, response.headers, pause) : undefined;
    if (pause === undefined) {
      // Not waited for: the store reads it before this process's next question (one connection,
      // in order), and an answer the provider gave is not lost to the store failing now (a
      // place it cannot give back leaves with its lease).
      ticket.end('confirm', answeredAt, lesson).catch(() => undefined);
      this.ended();
      return response;
    }
    try {
      await ticket.end({ pauseMs: pause }, answeredAt, lesson);
    } finally {
      this.ended();
    }
    return response;
  }

  pause(ms: number): Promise<void> {
    return this.store.pause(ms);
  }

  /** Queues the request and resolves with its ticket once the store lets it go. */
  private admit(signal: AbortSignal, maxWaitMs: number, holdMs: number): Promise<Ticket> {
    return new Promise<Ticket>((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      // A request the budget never lets go (its waits keep starting over) fails rather than waits for ever.
      const boundMs = 2 * maxWaitMs + 10_000;
      const settle = () => {
        waiter.settled = true;
        deadline.cancel();
        signal.removeEventListener('abort', onAbort);
        // The head's wait is for it alone: the next one asks now.
        if (this.queue[0] === waiter) this.waiting?.wake();
      };
      const waiter: Waiter = {
        maxWaitMs,
        holdMs,
        settled: false,
        go: (ticket) => {
          settle();
          resolve(ticket);
        },
        fail: (error) => {
          if (waiter.settled) return;
          settle();
          reject(error);
        },
      };
      const onAbort = () => waiter.fail(signal.reason);
      const deadline = this.clock.setTimer(
        () =>
          waiter.fail(
            new RateLimitedError(
              `rate budget '${this.name}' gave this request no turn within ${Math.round(boundMs / 1000)} s`,
              maxWaitMs,
            ),
          ),
        boundMs,
      );
      signal.addEventListener('abort', onAbort, { once: true });
      this.queue.push(waiter);
      void this.pump();
    });
  }

  /** The head of the queue, once the waiters that gave up are dropped. */
  private head(): Waiter | undefined {
    while (this.queue[0]?.settled) this.queue.shift();
    return this.queue[0];
  }

  /**
   * Asks the store for the turn of the requests at the head of the queue (up
   * to `BATCH` in one round trip) until the queue is empty; one pump per
   * budget and process, so that this process's requests go in their order.
   */
  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (this.head()) {
        const batch = this.queue.filter((waiter) => !waiter.settled).slice(0, BATCH);
        const request = {
          limit: this.limit,
          periodMs: this.periodMs,
          maxConcurrent: this.maxConcurrent,
          holdMs: Math.max(...batch.map((waiter) => waiter.holdMs)),
        };
        let admission: Admission;
        const endings = this.endings;
        try {
          admission = await this.store.acquire(request, batch.length);
        } catch (error) {
          // The store is down for every request queued, not only for these.
          for (const waiter of this.queue) waiter.fail(error);
          continue;
        }
        await this.follow(batch, admission, endings !== this.endings);
      }
    } finally {
      this.pumping = false;
    }
  }

  /** Lets the requests that may go go, fails those whose wait is longer than they accept, and waits before asking again (at once when one of this process's requests ended meanwhile). */
  private async follow(batch: Waiter[], admission: Admission, endedMeanwhile: boolean): Promise<void> {
    switch (admission.kind) {
      case 'go':
        for (const [index, ticket] of admission.tickets.entries()) {
          const waiter = batch[index]!;
          // One that gave up while the store was asked gives its place back.
          if (waiter.settled) await ticket.end('unsent').catch(() => undefined);
          else waiter.go(ticket);
        }
        return;
      case 'paused':
        this.failLonger(admission.waitMs, (maxWaitMs) => pausedError(this.name, admission.waitMs, maxWaitMs));
        if (this.head()) await this.idle(admission.waitMs, false);
        return;
      case 'window': {
        const { limit, periodMs } = admission;
        this.failLonger(admission.waitMs, (maxWaitMs) =>
          windowError(this.name, limit, periodMs, admission.waitMs, maxWaitMs),
        );
        if (this.head()) await this.idle(admission.waitMs, false);
        return;
      }
      case 'probing':
        return endedMeanwhile ? undefined : this.idle(PROBE_POLL_MS, true);
      case 'busy':
        return endedMeanwhile ? undefined : this.idle(RUNNING_POLL_MS, true);
    }
  }

  /** Every request queued waits at least `waitMs`: those that accept less fail now. */
  private failLonger(waitMs: number, error: (maxWaitMs: number) => Error): void {
    for (const waiter of this.queue) if (waitMs > waiter.maxWaitMs) waiter.fail(error(waiter.maxWaitMs));
  }

  /** Waits `ms` on the clock, or less when woken. */
  private idle(ms: number, onEnd: boolean): Promise<void> {
    return new Promise<void>((resolve) => {
      const wake = () => {
        timer.cancel();
        this.waiting = undefined;
        resolve();
      };
      const timer = this.clock.setTimer(wake, ms);
      this.waiting = { wake, onEnd };
    });
  }

  /** A request of this process ended: it may have freed what the head waits for. */
  private ended(): void {
    this.endings += 1;
    if (this.waiting?.onEnd) this.waiting.wake();
  }

  async stop(): Promise<void> {
    const stopped = new RateLimitedError(
      `rate budget '${this.name}' was stopped (its transport was closed)`,
      undefined,
    );
    for (const waiter of this.queue.splice(0)) waiter.fail(stopped);
    this.waiting?.wake();
  }
}
