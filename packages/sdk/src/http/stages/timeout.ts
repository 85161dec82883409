import { CancelledError, ConnectorError, NetworkError, TimeoutError } from '../../errors.js';
import { excerpt } from '../../excerpt.js';
import type { Redactor } from '../../secrets.js';
import { HeldBack } from '../budget-rules.js';
import { causeCode } from '../error-code.js';
import { NEVER } from '../settings.js';
import type { Send } from './stage.js';

/** What the timeout stage uses: the bound of one exchange, and what sending needs made first. */
export interface TimeoutOptions {
  timeoutMs: number;
  redactor: Redactor;
  /** Makes what sending needs (undici is loaded on first use), so that the timer counts the exchange only. */
  ready(): void;
}

/**
 * One timer bounds the whole exchange, redirects and body included, and the call's own signal
 * (the run's cancel) aborts it; the stages below get a signal that does both. A failure of the
 * transport comes out as a typed error. The timer is a real one, not the transport's clock: it
 * bounds real I/O, which a clock a test moves by hand would cut short while a request is still
 * on the wire.
 */
export function timeout({ timeoutMs, redactor, ready }: TimeoutOptions, next: Send): Send {
  return async (call) => {
    ready();
    const { signal } = call;
    const abort = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      abort.abort();
    }, timeoutMs);
    const cancel = () => abort.abort(signal.reason);
    if (signal !== NEVER) signal.addEventListener('abort', cancel, { once: true });
    try {
      // A copy: the call above keeps the run's signal for its next attempt.
      return await next({ ...call, signal: abort.signal });
    } catch (error) {
      throw transportError(signal, redactor, error, timedOut, call, timeoutMs);
    } finally {
      clearTimeout(timer);
      if (signal !== NEVER) signal.removeEventListener('abort', cancel);
    }
  };
}

/** A failure of the transport itself, told apart from the caller's own abort. */
function transportError(
  signal: AbortSignal,
  redactor: Redactor,
  error: unknown,
  timedOut: boolean,
  { operation, url }: { operation: string; url: URL },
  timeoutMs: number,
): ConnectorError | HeldBack {
  if (signal.aborted) return new CancelledError(`${operation}: cancelled`);
  // Held back by the budget before anything was written: the budget stage sends it again. A
  // typed error of a stage below (the network policy's refusal, a signer's or a token's failure) stays what it is.
  if (error instanceof HeldBack || error instanceof ConnectorError) return error;
  const code = causeCode(error);
  if (timedOut || code?.includes('TIMEOUT')) {
    return new TimeoutError(`${operation}: no complete answer within ${timeoutMs} ms`, { cause: code });
  }
  const host = excerpt(url.host);
  // A name that does not resolve will not resolve on a retry a second later.
  if (code === 'ENOTFOUND')
    return new NetworkError(`${operation}: the host ${host} does not resolve (ENOTFOUND)`, {
      code: 'host_not_found',
      retryable: false,
    });
  const reason = code ?? (error instanceof Error ? error.message : String(error));
  return new NetworkError(`${operation}: the connection to ${host} failed (${excerpt(redactor.redactString(reason))})`);
}
