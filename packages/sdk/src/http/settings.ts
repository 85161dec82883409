// The pipeline's defaults, and the small rules its stages and the client share.

/** How a run retries a read or a safe write: the number of retries and the bounds of the backoff (defaults 4, 300 ms, 15 s). */
export interface RetrySettings {
  /** Retries after the first attempt. */
  retries: number;
  minTimeoutMs: number;
  maxTimeoutMs: number;
}

export const DEFAULT_RETRY: RetrySettings = { retries: 4, minTimeoutMs: 300, maxTimeoutMs: 15_000 };
export const DEFAULT_TIMEOUT_MS = 30_000;
// Long enough to wait out a per-minute window, short enough not to hold a worker.
export const DEFAULT_MAX_RETRY_AFTER_SECONDS = 90;

/** The longest wait (a pause, a window, a Retry-After) the action accepts before failing at once. */
export function maxWaitMsOf(action: { maxRetryAfterSeconds?: number }): number {
  return (action.maxRetryAfterSeconds ?? DEFAULT_MAX_RETRY_AFTER_SECONDS) * 1000;
}

export function timeoutMsOf(action: { timeoutMs?: number }): number {
  return action.timeoutMs ?? DEFAULT_TIMEOUT_MS;
}

/** The signal of a run nobody can cancel: nothing listens to it. */
export const NEVER: AbortSignal = new AbortController().signal;

/** Methods that never change anything (RFC 9110): their requests carry no idempotency key. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** True when a request of this method is a write, which carries the run's idempotency key. */
export function isWriteMethod(method: string): boolean {
  return !SAFE_METHODS.has(method.toUpperCase());
}
