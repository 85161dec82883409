import { RateLimitedError } from '../errors.js';
import { type HeaderReader, parseRateLimitReset, parseRemaining, parseRetryAfter } from './headers.js';

/**
 * What every budget, in one process or shared through Redis, reads the same
 * way: how long an answer pauses the budget, and the errors a request meets
 * when the wait is longer than its action accepts.
 */

/** When the provider asks for a pause but says not how long. */
export const DEFAULT_PAUSE_MS = 1_000;

/** The state of a budget as seen from this process. */
export interface BudgetState {
  /** When the current pause ends (ms since the epoch); in the past when open. */
  pausedUntil: number;
  /** A request sent since the last pause came back without a 429. */
  confirmed: boolean;
  /** Pauses started so far. */
  pauses: number;
}

/**
 * Asked at the moment a request is about to be written (its connection ready): false when the
 * budget paused since the request was let in, so that it must not reach the provider now.
 */
export type WriteGate = () => boolean;

/** A request its budget held back at the moment of writing: nothing was sent; it waits its turn again. */
export class HeldBack extends Error {
  constructor() {
    super('held back: the rate budget paused before this request was written');
    this.name = 'HeldBack';
  }
}

/** Where a request waits for its turn and how long it may. */
export interface Budget {
  readonly name: string;
  /** True when other processes share this budget (through Redis). */
  readonly shared: boolean;
  /**
   * Runs one request on the budget. `maxWaitMs` is the longest wait the caller
   * accepts: a longer one fails at once with the wait in the error. A budget that
   * can hold back a request already let in passes `send` a gate to ask when the
   * request is written; `send` rejects with `HeldBack` when it says no.
   * `sendTimeoutMs` bounds `send`; a shared budget forgets a request whose
   * process died after that.
   */
  run<T extends { status: number; headers: HeaderReader }>(
    send: (open?: WriteGate) => Promise<T>,
    signal: AbortSignal,
    maxWaitMs: number,
    sendTimeoutMs?: number,
  ): Promise<T>;
  /** Holds the whole budget for `ms`, and asks for a probe before it opens again. */
  pause(ms: number): Promise<void>;
  /** The budget as this process last saw it (exact when the budget is this process's own). */
  state(): BudgetState;
  /** The budget as it is now, read from its store (a Redis round trip when shared). */
  readState(): Promise<BudgetState>;
  /** Drops waiting requests and stops the budget's timers. */
  stop(): Promise<void>;
}

/**
 * How long an answer pauses its budget, or undefined when it confirms the
 * budget open: a 429 until `Retry-After` (else `fallbackMs`), a 5xx that says
 * how long it is down, and `X-RateLimit-Remaining: 0` before a 429 comes.
 */
export function pauseAfter(
  status: number,
  headers: HeaderReader,
  fallbackMs: number,
  now = Date.now(),
): number | undefined {
  if (status < 300) {
    // Most answers say nothing about the budget: read the headers only when they might.
    return parseRemaining(headers) === 0
      ? (parseRetryAfter(headers.get('retry-after'), now) ??
          parseRateLimitReset(headers.get('x-ratelimit-reset'), now) ??
          fallbackMs)
      : undefined;
  }
  const retryAfter = parseRetryAfter(headers.get('retry-after'), now);
  if (status === 429) return retryAfter ?? fallbackMs;
  if (status >= 500 && retryAfter !== undefined) return retryAfter;
  if (parseRemaining(headers) === 0)
    return retryAfter ?? parseRateLimitReset(headers.get('x-ratelimit-reset'), now) ?? fallbackMs;
  return undefined;
}

/** The most admitted requests an undeclared budget counts to learn a window from; a larger window is not learned. */
export const LEARN_MAX = 10_000;

/** What an answer tells a budget with no declared rate about the provider's window. */
export interface Lesson {
  /** The provider admitted the request (2xx). */
  admitted: boolean;
  /** A 429: under a learned window, it was wrong. */
  refused: boolean;
  /** The pause it asks for shows the window: the rate's refusal or its last place, with the time to wait (a 5xx is an outage). */
  teaches: boolean;
  /** The provider's `X-RateLimit-Remaining` on an admitted answer that does not pause. */
  remaining: number | undefined;
}

/** Reads an answer as an undeclared budget learns from it; `pause` is `pauseAfter`'s reading of it. */
export function lessonOf(status: number, headers: HeaderReader, pause: number | undefined): Lesson {
  const admitted = status < 300;
  return {
    admitted,
    refused: status === 429,
    teaches:
      pause !== undefined &&
      status < 500 &&
      (headers.get('retry-after') !== null || headers.get('x-ratelimit-reset') !== null),
    remaining: admitted && pause === undefined ? parseRemaining(headers) : undefined,
  };
}

/**
 * The window a refusal teaches, or undefined: `count` requests admitted since the probe sent
 * at `runStart`, refused at `at` with a pause of `pauseMs`. A run longer than the pause may
 * have outlived the provider's window: what it counted is no limit. Otherwise every request
 * it admitted is still in the provider's window (at most the limit), and the time from the
 * probe to the pause's end is at least the period. (`redis-learn-scripts.ts` keeps this rule in Lua.)
 */
export function learnedWindow(
  count: number,
  runStart: number,
  at: number,
  pauseMs: number,
): { limit: number; periodMs: number } | undefined {
  if (count === 0 || count >= LEARN_MAX || at - runStart > pauseMs) return undefined;
  return { limit: count, periodMs: at + pauseMs - runStart };
}

/**
 * How many requests an undeclared budget that knows no window may have sent, side by side:
 * the provider counted `remaining` more at the arrival of the request sent `seq`-th, and what
 * may reach it later are the `beside` in flight when it went, and every one sent after it.
 */
export function roomUpTo(seq: number, remaining: number, beside: number): number {
  return seq + remaining - beside;
}

/** `now`: the budget's clock, which the error's "try again after" counts from. */
export function pausedError(name: string, waitMs: number, maxWaitMs: number, now = Date.now()): RateLimitedError {
  return new RateLimitedError(
    `rate budget '${name}' is paused for ${Math.ceil(waitMs / 1000)} s, longer than this action waits (${Math.floor(maxWaitMs / 1000)} s); try again after ${new Date(now + waitMs).toISOString()}`,
    waitMs,
  );
}

export function windowError(
  name: string,
  limit: number,
  periodMs: number,
  waitMs: number,
  maxWaitMs: number,
): RateLimitedError {
  return new RateLimitedError(
    `rate budget '${name}' allows ${limit} requests per ${periodMs / 1000} s; the next one may go in ${Math.ceil(waitMs / 1000)} s, longer than this action waits (${Math.floor(maxWaitMs / 1000)} s)`,
    waitMs,
  );
}
