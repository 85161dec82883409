import { CancelledError, ConnectorError, NetworkError } from '../../errors.js';
import { excerpt } from '../../excerpt.js';
import type { Redactor } from '../../secrets.js';
import { events } from '../events.js';
import { findRequestId, type HeaderReader } from '../headers.js';
import { scopeOf } from './run-scope.js';
import type { Send, StageAbout } from './stage.js';

/** The provider's request id, redacted (a provider may echo the credential in it) and cut to a short excerpt. */
export function requestIdOf(redactor: Redactor, headers: HeaderReader, body?: unknown): string | undefined {
  const id = findRequestId(headers, body);
  return id === undefined ? undefined : excerpt(redactor.redactString(id));
}

/** What the redaction stage uses: the redactor of the connection's credential. */
export interface RedactionOptions {
  redactor: Redactor;
  about: StageAbout;
}

/**
 * The top of the pipeline: what leaves it is redacted. Every failure is a `ConnectorError` (an
 * unexpected one becomes a `NetworkError` quoting its redacted message; the caller's cancel a
 * `CancelledError`); the start and end of each call are published and, at debug level, logged
 * to the run's log (`RunScope`).
 */
export function redaction({ redactor, about }: RedactionOptions, next: Send): Send {
  const { connector, action } = about;
  return async (call) => {
    const { signal } = call;
    const { log } = scopeOf(call);
    const watched = events.requestStart.hasSubscribers || events.requestEnd.hasSubscribers || log.enabled('debug');
    const started = watched ? performance.now() : 0;
    if (watched && events.requestStart.hasSubscribers)
      events.requestStart.publish({ connector, action, operation: call.operation });
    try {
      const answer = await next(call);
      if (watched) {
        const durationMs = Math.round(performance.now() - started);
        const requestId = requestIdOf(redactor, answer.headers);
        if (events.requestEnd.hasSubscribers) {
          events.requestEnd.publish({
            connector,
            action,
            operation: call.operation,
            status: answer.status,
            durationMs,
            requestId,
          });
        }
        log.debug('provider answered', { operation: call.operation, status: answer.status, ms: durationMs, requestId });
      }
      return answer;
    } catch (error) {
      const typed = typedError(redactor, signal, error, call.operation);
      if (watched && events.requestEnd.hasSubscribers) {
        events.requestEnd.publish({
          connector,
          action,
          operation: call.operation,
          status: typed.status,
          code: typed.code,
          durationMs: Math.round(performance.now() - started),
          requestId: typed.requestId,
        });
      }
      throw typed;
    }
  };
}

function typedError(redactor: Redactor, signal: AbortSignal, error: unknown, operation: string): ConnectorError {
  if (signal.aborted) return new CancelledError(`${operation}: cancelled`);
  if (error instanceof ConnectorError) return error;
  return new NetworkError(
    `${operation}: ${excerpt(redactor.redactString(error instanceof Error ? error.message : String(error)))}`,
    { cause: error },
  );
}
