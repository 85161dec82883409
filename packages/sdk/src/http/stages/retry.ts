import pRetry from 'p-retry';
import { sleep } from '../../clock.js';
import { retryPolicy } from '../../definition/action.js';
import {
  type ConnectorError,
  NetworkError,
  ProviderUnavailableError,
  RateLimitedError,
  TimeoutError,
} from '../../errors.js';
import { events } from '../events.js';
import { type ClientSettings, maxWaitMsOf, type RetrySettings } from '../settings.js';
import type { Send } from './stage.js';

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

/**
 * Retries a transient failure of a read or a safe write (`retryPolicy(action)`), or of a write
 * that carries the run's idempotency key to a provider that deduplicates on it, never a
 * billable action's. A 429 or 503 has already paused the budget for its `Retry-After`, so the
 * next attempt waits there; a `Retry-After` longer than the action accepts fails at once, with
 * the wait in the error.
 *
 * The first attempt goes straight: the retry machinery is set up only after a failure. p-retry
 * then counts the attempts, stops on the run's cancel and rethrows what should not be retried;
 * it waits on real timers only, so it runs with no delay of its own and the backoff is waited
 * on the transport's clock in `onFailedAttempt`, which a test drives by hand.
 */
export function retry(settings: ClientSettings, next: Send): Send {
  const { action, signal, log, connector, transport, idempotency } = settings;
  const { retries } = settings.retry;
  if (retries < 1 || action.billable) return next;
  const policy = retryPolicy(action);
  // A write the provider deduplicates on the run's key may be sent again with it, whatever the
  // effect; an author's own `retry: 'never'` still holds.
  const keyed = policy === 'never' && action.retry === undefined ? idempotency?.header : undefined;
  if (policy === 'never' && keyed === undefined) return next;
  const maxWaitMs = maxWaitMsOf(action);
  const clock = transport.clock;
  const willRetry = (error: unknown): error is ConnectorError =>
    isTransient(error) && ((error as { retryAfterMs?: number }).retryAfterMs ?? 0) <= maxWaitMs;
  /** Tells of retry `retry` and waits its backoff. */
  const backOff = (error: ConnectorError, operation: string, retry: number): Promise<void> => {
    const delayMs = backoffMs(settings.retry, retry);
    const attempt = retry + 1;
    log.warn('provider call failed; retrying', { operation, attempt, code: error.code, delayMs });
    if (events.retry.hasSubscribers) {
      events.retry.publish({
        connector: connector.key,
        action: action.key,
        operation,
        attempt,
        delayMs,
        code: error.code,
      });
    }
    return sleep(clock, delayMs, signal);
  };
  return async (call) => {
    if (keyed !== undefined && call.headers[keyed] === undefined) return next(call);
    try {
      return await next(call);
    } catch (error) {
      if (!willRetry(error)) throw error;
      await backOff(error, call.operation, 1);
    }
    return pRetry(() => next({ ...call }), {
      retries: retries - 1,
      minTimeout: 0,
      signal,
      onFailedAttempt: async ({ error, attemptNumber, retriesLeft }) => {
        // Thrown here, the failure ends the call as it is.
        if (!willRetry(error)) throw error;
        // p-retry counts from its own first attempt, the second of the call.
        if (retriesLeft > 0) await backOff(error, call.operation, attemptNumber + 1);
      },
    });
  };
}
