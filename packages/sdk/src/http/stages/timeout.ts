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
 * One bound for the whole exchange, redirects and body included, and the call's own signal
 * (the run's cancel) aborts it; the stages below get a signal that does both. A failure of the
 * transport comes out as a typed error. The bound is kept on real time, not the transport's
 * clock: it bounds real I/O, which a clock a test moves by hand would cut short while a request
 * is still on the wire.
 */
export function timeout({ timeoutMs, redactor, ready }: TimeoutOptions, next: Send): Send {
  const deadlines = new Deadlines(timeoutMs);
  return async (call) => {
    ready();
    const { signal } = call;
    const abort = new AbortController();
    const deadline = deadlines.start(abort);
    const cancel = () => abort.abort(signal.reason);
    if (signal !== NEVER) signal.addEventListener('abort', cancel, { once: true });
    try {
      // A copy: the call above keeps the run's signal for its next attempt.
      return await next({ ...call, signal: abort.signal });
    } catch (error) {
      throw transportError(signal, redactor, error, deadline.expired, call, timeoutMs);
    } finally {
      deadlines.end(deadline);
      if (signal !== NEVER) signal.removeEventListener('abort', cancel);
    }
  };
}

/** One exchange's bound: when it runs out (on `performance.now()`), and what it aborts. */
interface Deadline {
  readonly at: number;
  readonly abort: AbortController;
  /** The exchange finished before its bound. */
  ended: boolean;
  /** The bound ran out first. */
  expired: boolean;
}

/**
 * The exchanges under way through one timeout stage, oldest first. They share one bound, so
 * they run out in the order they started, and one real timer, set for the oldest, serves them
 * all: an exchange costs no timer of its own. The timer holds the process open only while an
 * exchange is under way.
 */
class Deadlines {
  private readonly pending: Deadline[] = [];
  private head = 0;
  private underWay = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly timeoutMs: number) {}

  start(abort: AbortController): Deadline {
    const deadline: Deadline = { at: performance.now() + this.timeoutMs, abort, ended: false, expired: false };
    this.pending.push(deadline);
    this.underWay += 1;
    if (this.timer === undefined) this.timer = setTimeout(this.expire, this.timeoutMs);
    else if (this.underWay === 1) this.timer.ref();
    return deadline;
  }

  end(deadline: Deadline): void {
    deadline.ended = true;
    this.underWay -= 1;
    const { pending } = this;
    while (this.head < pending.length && pending[this.head]!.ended) this.head += 1;
    if (this.head === pending.length) {
      pending.length = 0;
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > pending.length) {
      pending.splice(0, this.head);
      this.head = 0;
    }
    if (this.underWay === 0) this.timer?.unref();
  }

  /** Aborts every exchange whose bound ran out, and sets the timer for the next one. */
  private readonly expire = (): void => {
    this.timer = undefined;
    const { pending } = this;
    const now = performance.now();
    while (this.head < pending.length) {
      const deadline = pending[this.head]!;
      if (!deadline.ended && deadline.at > now) break;
      this.head += 1;
      if (deadline.ended) continue;
      deadline.expired = true;
      deadline.abort.abort();
    }
    if (this.head < pending.length) {
      this.timer = setTimeout(this.expire, Math.max(1, Math.ceil(pending[this.head]!.at - now)));
      if (this.underWay === 0) this.timer.unref();
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
