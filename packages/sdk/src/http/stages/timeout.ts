import { CancelledError, ConnectorError, NetworkError, TimeoutError } from '../../errors.js';
import { excerpt } from '../../excerpt.js';
import { HeldBack } from '../budget-rules.js';
import { readyToSend } from '../exchange.js';
import { type ClientSettings, NEVER, timeoutMsOf } from '../settings.js';
import type { Send } from './stage.js';

/**
 * One timer bounds the whole exchange, redirects and body included, and the run's cancel
 * aborts it; a failure of the transport comes out as a typed error. The timer is a real one,
 * not the transport's clock: it bounds real I/O, which a clock a test moves by hand would
 * cut short while a request is still on the wire.
 */
export function timeout(settings: ClientSettings, next: Send): Send {
  const { signal, transport, environment } = settings;
  const timeoutMs = timeoutMsOf(settings.action);
  return async (call) => {
    // What sending needs is made first (undici is loaded on first use): the timer counts the exchange only.
    readyToSend(transport, environment);
    const abort = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      abort.abort();
    }, timeoutMs);
    const cancel = () => abort.abort(signal.reason);
    if (signal !== NEVER) signal.addEventListener('abort', cancel, { once: true });
    try {
      call.signal = abort.signal;
      return await next(call);
    } catch (error) {
      throw transportError(settings, error, timedOut, call.operation, excerpt(call.url.host), timeoutMs);
    } finally {
      clearTimeout(timer);
      if (signal !== NEVER) signal.removeEventListener('abort', cancel);
    }
  };
}

function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  while (current && typeof current === 'object') {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** A failure of the transport itself, told apart from the caller's own abort. */
function transportError(
  { signal, redactor }: ClientSettings,
  error: unknown,
  timedOut: boolean,
  operation: string,
  host: string,
  timeoutMs: number,
): ConnectorError | HeldBack {
  if (signal.aborted) return new CancelledError(`${operation}: cancelled`);
  // Held back by the budget before anything was written: the budget stage sends it again. A
  // typed error of a stage below (the network policy's refusal, a signer's or a token's failure) stays what it is.
  if (error instanceof HeldBack || error instanceof ConnectorError) return error;
  const code = errorCode(error);
  if (timedOut || code?.includes('TIMEOUT')) {
    return new TimeoutError(`${operation}: no complete answer within ${timeoutMs} ms`, { cause: code });
  }
  // A name that does not resolve will not resolve on a retry a second later.
  if (code === 'ENOTFOUND')
    return new NetworkError(`${operation}: the host ${host} does not resolve (ENOTFOUND)`, {
      code: 'host_not_found',
      retryable: false,
    });
  const reason = code ?? (error instanceof Error ? error.message : String(error));
  return new NetworkError(`${operation}: the connection to ${host} failed (${excerpt(redactor.redactString(reason))})`);
}
