import pRetry from 'p-retry';
import { type Clock, sleep } from '../../clock.js';
import {
  type ConnectorError,
  NetworkError,
  ProviderUnavailableError,
  RateLimitedError,
  TimeoutError,
} from '../../errors.js';
import { events } from '../events.js';
import type { RetrySettings } from '../settings.js';
import { EVERY_CALL, type RunScope, scopeOf } from './run-scope.js';
import type { Call, Send, StageAbout } from './stage.js';

/** Failures worth an automatic retry: the same call may well work a moment later. */
const TRANSIENT = [RateLimitedError, ProviderUnavailableError, TimeoutError, NetworkError];

function isTransient(error: unknown): error is ConnectorError {
  return TRANSIENT.some((kind) => error instanceof kind) && (error as ConnectorError).retryable;
}

/**
 * The wait before retry `retry` (1 for the first): exponential backoff with jitter, between
 * `minTimeoutMs * 2^(retry-1)` and twice that, at most `maxTimeoutMs`.
 */
function backoffMs({ minTimeoutMs, maxTimeoutMs }: RetrySettings, retry: number): number {
  return Math.min(maxTimeoutMs, Math.round(minTimeoutMs * 2 ** (retry - 1) * (1 + Math.random())));
}

/** What the retry stage uses: how long the action waits for a `Retry-After`, and the clock backoff is waited on. */
export interface RetryOptions {
  /** The longest `Retry-After` the action accepts: a longer one fails at once. */
  maxWaitMs: number;
  /** The transport's clock: the backoff is waited on it. */
  clock: Clock;
  about: StageAbout;
}

/**
 * Retries a transient failure of the calls the run lets be sent again (`RunScope.retried`: every
 * call of a read or a safe write, or a write carrying the run's idempotency key to a provider
 * that deduplicates on it), with the run's retry settings, waiting on the call's own signal (the
 * run's cancel). A 429 or 503 has already paused the budget for its `Retry-After`, so the next
 * attempt waits there; a `Retry-After` longer than the action accepts fails at once, with the
 * wait in the error.
 *
 * The first attempt goes straight: the retry machinery is set up only after a failure. p-retry
 * then counts the attempts, stops on the run's cancel and rethrows what should not be retried;
 * it waits on real timers only, so it runs with no delay of its own and the backoff is waited
 * on the transport's clock in `onFailedAttempt`, which a test drives by hand.
 */
export function retry(options: RetryOptions, next: Send): Send {
  return async (call) => {
    const scope = scopeOf(call);
    const { retried } = scope;
    if (retried === undefined || (retried !== EVERY_CALL && call.headers[retried] === undefined)) return next(call);
    try {
      return await next(call);
    } catch (error) {
      if (!willRetry(options, error)) throw error;
      await backOff(options, scope, call, error, 1);
    }
    return pRetry(() => next({ ...call }), {
      retries: scope.retry.retries - 1,
      minTimeout: 0,
      signal: call.signal,
      onFailedAttempt: async ({ error, attemptNumber, retriesLeft }) => {
        // Thrown here, the failure ends the call as it is.
        if (!willRetry(options, error)) throw error;
        // p-retry counts from its own first attempt, the second of the call.
        if (retriesLeft > 0) await backOff(options, scope, call, error, attemptNumber + 1);
      },
    });
  };
}

/** A transient failure whose `Retry-After`, if any, the action waits out. */
function willRetry({ maxWaitMs }: RetryOptions, error: unknown): error is ConnectorError {
  return isTransient(error) && ((error as { retryAfterMs?: number }).retryAfterMs ?? 0) <= maxWaitMs;
}

/** Tells of retry `retry` of `call` and waits its backoff. */
function backOff(
  { clock, about }: RetryOptions,
  { retry: settings, log }: RunScope,
  { operation, signal }: Call,
  error: ConnectorError,
  retry: number,
): Promise<void> {
  const delayMs = backoffMs(settings, retry);
  const attempt = retry + 1;
  log.warn('provider call failed; retrying', { operation, attempt, code: error.code, delayMs });
  if (events.retry.hasSubscribers) {
    events.retry.publish({ ...about, operation, attempt, delayMs, code: error.code });
  }
  return sleep(clock, delayMs, signal);
}
