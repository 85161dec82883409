import { type Clock, systemClock, type Timer } from '../clock.js';
import { RateLimitedError } from '../errors.js';
import type { HeaderReader } from './headers.js';
import {
  type Budget,
  type BudgetState,
  DEFAULT_PAUSE_MS,
  HeldBack,
  LEARN_MAX,
  type Lesson,
  learnedWindow,
  lessonOf,
  pauseAfter,
  pausedError,
  roomUpTo,
  type WriteGate,
  windowError,
} from './budget-rules.js';

/**
 * A rate budget kept in this process. A request that may go goes at once,
 * synchronously, with no timer; a FIFO queue forms only when the budget binds
 * (a pause, a probe out, the concurrency limit or the window), and one timer
 * for the whole budget wakes it when a pause ends or a window place frees.
 *
 * The window counts as the provider counts: the provider saw a request at
 * some moment between sending it and its answer, so the request holds its
 * place from the moment it is sent until one full period after its answer
 * arrived. However late a request reaches the provider, no more than `limit`
 * arrive in any period.
 *
 * A 429 (or `X-RateLimit-Remaining: 0`, or a 5xx with `Retry-After`) pauses
 * the budget; when it opens again (and at the start) a single probe goes
 * first, and the others follow only once an answer to a request sent after
 * the pause began came back without a 429: one 429 per pause, not one per
 * waiting request.
 *
 * A budget with no declared rate does not know the provider's window, so it
 * learns it from the provider's refusal (a 429 or the last place, with the time
 * to wait). When the run since the last probe is no longer than the pause asked
 * for, every request it had admitted is still in the provider's window: their
 * count is at most the limit, and the time from the probe to the pause's end is
 * at least the period (the probe's place frees no earlier). The budget then
 * keeps that window as if declared, with the run's answers already in it, which
 * never asks more of the provider than its own window allows; a 429 under a
 * learned window means it was wrong, and the budget forgets it. While it knows
 * no window (from its start until the provider first refuses, and again after
 * it forgot one) an undeclared budget sends one request at a time (or as many as
 * the provider's latest `X-RateLimit-Remaining` leaves room for), so that the
 * provider's refusal meets one request rather than every one in flight: one 429
 * teaches the window, whatever the concurrency. Declaring the budget spares even
 * that one, and lets requests run side by side from the start.
 */

interface Waiter {
  resolve(epoch: Admission): void;
  reject(error: unknown): void;
  signal: AbortSignal;
  maxWaitMs: number;
  onAbort: () => void;
}

/** What a request was let in under: whether it is the probe, the pause count when it went, its place among the requests sent, and how many were in flight beside it. */
interface Admission {
  probe: boolean;
  epoch: number;
  seq: number;
  beside: number;
}

/** Why a request may not go yet, and until when when that is known. */
type Blocked = { until?: number; window?: boolean } | undefined;

export class LocalBudget implements Budget {
  readonly shared = false;
  private readonly maxConcurrent: number;
  /** Requests sent and not answered yet; each holds a window place. */
  private running = 0;
  /** When each answered request leaves the window, oldest first (answers come in time order). */
  private leaves: number[] = [];
  private leavesHead = 0;
  private pausedUntil = 0;
  private confirmed = false;
  private probing = false;
  private pauses = 0;
  /** Requests sent so far. */
  private sent = 0;
  /** An undeclared budget that knows no window may send side by side while `sent` is below this (what the provider said remains, less what may reach it after). */
  private remainingUpTo = 0;
  private readonly declared: boolean;
  /** An undeclared budget's run: when its probe was sent, and when each request the provider admitted since was answered. */
  private runStart = 0;
  private runAnswers: number[] = [];
  private readonly queue: Waiter[] = [];
  private queueHead = 0;
  private timer: Timer | undefined;
  private timerAt = Infinity;

  constructor(
    readonly name: string,
    private limit: number | undefined,
    private periodMs: number | undefined,
    maxConcurrent: number | undefined,
    /** The wall clock, as a provider's is: whole milliseconds since the epoch. */
    private readonly clock: Clock = systemClock,
  ) {
    this.maxConcurrent = maxConcurrent ?? Infinity;
    this.declared = this.windowed();
  }

  async run<T extends { status: number; headers: HeaderReader }>(
    send: (open: WriteGate) => Promise<T>,
    signal: AbortSignal,
    maxWaitMs: number,
  ): Promise<T> {
    signal.throwIfAborted();
    for (;;) {
      const at = this.clock.now();
      const paused = this.pausedUntil - at;
      if (paused > maxWaitMs) throw pausedError(this.name, paused, maxWaitMs, at);
      const admission =
        this.queueHead === this.queue.length && this.blocked(at) === undefined
          ? this.admit()
          : await this.wait(signal, maxWaitMs, at);
      let answer: T;
      try {
        // A request admitted before a pause began must not be written after it: only the probe goes.
        answer = await send(() => admission.probe || admission.epoch === this.pauses);
      } catch (error) {
        // Held back at the moment of writing: it never reached the provider, and waits its turn again.
        if (error instanceof HeldBack) {
          this.release(admission);
          continue;
        }
        this.finish(admission, undefined);
        throw error;
      }
      this.finish(admission, answer);
      return answer;
    }
  }

  async pause(ms: number): Promise<void> {
    this.pauseFor(ms);
    this.drain();
  }

  state(): BudgetState {
    return { pausedUntil: this.pausedUntil, confirmed: this.confirmed, pauses: this.pauses };
  }

  async readState(): Promise<BudgetState> {
    return this.state();
  }

  async stop(): Promise<void> {
    this.clearTimer();
    const stopped = new RateLimitedError(
      `rate budget '${this.name}' was stopped (its transport was closed)`,
      undefined,
    );
    while (this.queueHead < this.queue.length) this.take()!.reject(stopped);
  }

  private windowed(): boolean {
    return this.limit !== undefined && this.periodMs !== undefined;
  }

  /** Why a request may not go now; undefined when it may. */
  private blocked(at: number): Blocked {
    if (at < this.pausedUntil) return { until: this.pausedUntil };
    if (!this.confirmed && this.probing) return {};
    if (this.running >= this.maxConcurrent) return {};
    // No window known: one request at a time, unless the provider said how many places remain.
    if (!this.windowed()) return this.running > 0 && this.sent >= this.remainingUpTo ? {} : undefined;
    const leaves = this.leaves;
    while (this.leavesHead < leaves.length && leaves[this.leavesHead]! <= at) this.leavesHead += 1;
    if (this.leavesHead > 1024 && this.leavesHead * 2 > leaves.length) {
      leaves.splice(0, this.leavesHead);
      this.leavesHead = 0;
    }
    if (this.running + leaves.length - this.leavesHead >= this.limit!) {
      return this.leavesHead < leaves.length ? { until: leaves[this.leavesHead]!, window: true } : { window: true };
    }
    return undefined;
  }

  private admit(): Admission {
    const beside = this.running;
    this.running += 1;
    this.sent += 1;
    const probe = !this.confirmed;
    if (probe) {
      this.probing = true;
      if (!this.declared) {
        this.runStart = this.clock.now();
        this.runAnswers = [];
      }
    }
    return { probe, epoch: this.pauses, seq: this.sent, beside };
  }

  /** A request admitted but never written gives its place back. */
  private release(admission: Admission): void {
    this.running -= 1;
    if (admission.probe) this.probing = false;
    if (this.queueHead < this.queue.length) this.drain();
  }

  private finish(admission: Admission, answer: { status: number; headers: HeaderReader } | undefined): void {
    this.running -= 1;
    const at = this.clock.now();
    // The answer came at most a millisecond after the clock's reading: the place is held to the next one.
    if (this.windowed()) this.leaves.push(at + 1 + this.periodMs!);
    if (admission.probe) this.probing = false;
    // One reading of the clock serves the whole answer: on some hosts each reading is a system call.
    const pause =
      answer === undefined ? undefined : pauseAfter(answer.status, answer.headers, this.fallbackPause(at), at);
    if (answer !== undefined && !this.declared)
      this.learnFrom(admission, lessonOf(answer.status, answer.headers, pause), at, pause);
    if (pause !== undefined) this.pauseFor(pause);
    // An answer to a request sent before the latest pause says nothing about the budget now.
    else if (answer !== undefined && admission.epoch === this.pauses && at >= this.pausedUntil) this.confirmed = true;
    if (this.queueHead < this.queue.length) this.drain();
  }

  /** An undeclared budget counts what the provider admitted, and learns or forgets its window when it refuses. */
  private learnFrom(admission: Admission, lesson: Lesson, at: number, pause: number | undefined): void {
    if (admission.epoch !== this.pauses) return;
    if (this.windowed()) {
      // A 429 under the learned window: it was wrong.
      if (lesson.refused) {
        this.limit = this.periodMs = undefined;
        this.leaves = [];
        this.leavesHead = 0;
      }
      return;
    }
    if (lesson.admitted && this.runAnswers.length < LEARN_MAX) this.runAnswers.push(at);
    if (lesson.remaining !== undefined)
      this.remainingUpTo = Math.max(this.remainingUpTo, roomUpTo(admission.seq, lesson.remaining, admission.beside));
    if (pause === undefined || !lesson.teaches) return;
    const learned = learnedWindow(this.runAnswers.length, this.runStart, at, pause);
    if (!learned) return;
    const periodMs = learned.periodMs;
    this.limit = learned.limit;
    this.periodMs = periodMs;
    this.leaves = this.runAnswers.map((answeredAt) => answeredAt + 1 + periodMs);
    this.leavesHead = 0;
  }

  /** Without `Retry-After`: until the window has room again when one is declared, else a second. */
  private fallbackPause(at: number): number {
    if (!this.windowed()) return DEFAULT_PAUSE_MS;
    const oldest = this.leaves[this.leavesHead];
    return oldest === undefined ? this.periodMs! : Math.max(0, oldest - at);
  }

  private pauseFor(ms: number): void {
    const at = this.clock.now();
    const until = at + ms;
    if (until <= this.pausedUntil) return;
    if (this.pausedUntil <= at) this.pauses += 1;
    this.pausedUntil = until;
    this.confirmed = false;
    this.remainingUpTo = 0;
  }

  private wait(signal: AbortSignal, maxWaitMs: number, at: number): Promise<Admission> {
    // A request behind others waits at least until as many window places free as are taken before it.
    const ahead = this.queue.length - this.queueHead;
    const leavesAt = this.leaves[this.leavesHead + ahead];
    if (
      this.windowed() &&
      leavesAt !== undefined &&
      this.running + this.leaves.length - this.leavesHead >= this.limit!
    ) {
      const wait = Math.max(leavesAt, this.pausedUntil) - at;
      if (wait > maxWaitMs) return Promise.reject(windowError(this.name, this.limit!, this.periodMs!, wait, maxWaitMs));
    }
    return new Promise<Admission>((resolve, reject) => {
      const waiter: Waiter = {
        resolve,
        reject,
        signal,
        maxWaitMs,
        onAbort: () => {
          const index = this.queue.indexOf(waiter, this.queueHead);
          if (index >= 0) this.queue.splice(index, 1);
          reject(signal.reason);
          this.drain();
        },
      };
      signal.addEventListener('abort', waiter.onAbort, { once: true });
      this.queue.push(waiter);
      this.drain();
    });
  }

  private take(): Waiter | undefined {
    if (this.queueHead >= this.queue.length) return undefined;
    const waiter = this.queue[this.queueHead]!;
    this.queueHead += 1;
    if (this.queueHead === this.queue.length) {
      this.queue.length = 0;
      this.queueHead = 0;
    } else if (this.queueHead > 1024 && this.queueHead * 2 > this.queue.length) {
      this.queue.splice(0, this.queueHead);
      this.queueHead = 0;
    }
    waiter.signal.removeEventListener('abort', waiter.onAbort);
    return waiter;
  }

  /** Lets in the waiting requests that may go now, in order; arms the timer for the first that may not. */
  private drain(): void {
    while (this.queueHead < this.queue.length) {
      const at = this.clock.now();
      const blocked = this.blocked(at);
      if (blocked === undefined) {
        this.take()!.resolve(this.admit());
        continue;
      }
      if (blocked.until !== undefined) {
        const head = this.queue[this.queueHead]!;
        const wait = blocked.until - at;
        if (wait > head.maxWaitMs) {
          this.take()!.reject(
            blocked.window
              ? windowError(this.name, this.limit!, this.periodMs!, wait, head.maxWaitMs)
              : pausedError(this.name, wait, head.maxWaitMs, at),
          );
          continue;
        }
        this.arm(blocked.until);
      }
      return;
    }
    this.clearTimer();
  }

  private arm(at: number): void {
    if (this.timer !== undefined && this.timerAt <= at) return;
    this.clearTimer();
    this.timerAt = at;
    this.timer = this.clock.setTimer(
      () => {
        this.timer = undefined;
        this.timerAt = Infinity;
        this.drain();
      },
      Math.max(0, Math.ceil(at - this.clock.now())),
    );
  }

  private clearTimer(): void {
    this.timer?.cancel();
    this.timer = undefined;
    this.timerAt = Infinity;
  }
}
