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
