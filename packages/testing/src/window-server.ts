import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Clock, Timer } from '@plugboard/sdk/host';
import { listenOnLoopback } from './loopback.js';

/**
 * A provider with a strict sliding-window rate limit, on 127.0.0.1 (a free
 * port), for tests and benchmarks of rate budgets. Every GET is counted at its
 * arrival: when `limit` requests were already admitted in the `periodMs` up to
 * and including that instant (arrivals in `(t - periodMs, t]`), it answers 429
 * with `Retry-After` and a JSON error and does not admit it; otherwise 200 with
 * a small JSON record `{id, name, updated_at}`, the id being the path's last
 * segment. Answers may be delayed (`delayFirstMs`, `delayMs`); a delay never
 * moves the arrival time a request is counted at.
 *
 * ```ts
 * const server = await startWindowServer({ limit: 100, periodMs: 1000 });
 * // ... requests to `${server.url}/items/a` ...
 * console.log(server.admitted, server.rejected, server.peakInWindow);
 * await server.close();
 * ```
 */

export interface WindowServerOptions {
  /** Requests admitted in any window of `periodMs`. */
  limit: number;
  /** The window's length in milliseconds. */
  periodMs: number;
  /** `Retry-After` of a 429; default: the time until the window has room, in whole seconds rounded up. */
  retryAfterSeconds?: number;
  /** Delays the answers to the first `limit` requests (the first window's worth) by this many milliseconds. */
  delayFirstMs?: number;
  /** Delay of the answer to the request of this index (0 for the first since start or `reset()`); wins over `delayFirstMs`. */
  delayMs?: (index: number) => number;
  /**
   * Publishes the limit as many providers do: every admitted answer carries
   * `X-RateLimit-Remaining` (the places left in the window at its arrival), and
   * the answer that took the last place also `Retry-After`.
   */
  remainingHeader?: boolean;
  /** The clock arrivals are stamped with, in milliseconds; default `performance.timeOrigin + performance.now()`. */
  now?: () => number;
  /**
   * A clock that stamps arrivals and delays answers instead (wins over `now`): a test passes the
   * manual clock its transport waits on, and no window is waited out in real time.
   */
  clock?: Clock;
}

export interface WindowServer {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** Requests answered 200. */
  readonly admitted: number;
  /** Requests answered 429. */
  readonly rejected: number;
  /** Answers held back for their delay (`delayFirstMs`, `delayMs`) and not yet sent. */
  readonly delayed: number;
  /** Arrival time of every counted request, admitted or not, in order. */
  readonly arrivals: readonly number[];
  /** The largest number of admitted arrivals in any window of `periodMs`; never more than `limit`. */
  readonly peakInWindow: number;
  /** Forgets every arrival and zeroes the counters; the window starts empty. */
  reset(): void;
  close(): Promise<void>;
}

/** Arrival times in order, oldest first: a growable ring so that dropping the oldest is O(1). */
class TimeQueue {
  private items: Float64Array = new Float64Array(64);
  private head = 0;
  size = 0;

  push(value: number): void {
    if (this.size === this.items.length) {
      const grown = new Float64Array(this.items.length * 2);
      for (let index = 0; index < this.size; index += 1)
        grown[index] = this.items[(this.head + index) % this.items.length]!;
      this.items = grown;
      this.head = 0;
    }
    this.items[(this.head + this.size) % this.items.length] = value;
    this.size += 1;
  }

  /** The oldest; only when `size > 0`. */
  first(): number {
    return this.items[this.head]!;
  }

  shift(): void {
    this.head = (this.head + 1) % this.items.length;
    this.size -= 1;
  }

  clear(): void {
    this.head = 0;
    this.size = 0;
  }
}

const UPDATED_AT = '2026-11-01T00:00:00Z';

function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(text)),
    ...headers,
  });
  response.end(text);
}

function lastSegment(request: IncomingMessage): string {
  const path = new URL(request.url ?? '/', 'http://127.0.0.1').pathname;
  const segment = path.split('/').filter(Boolean).pop() ?? 'root';
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

export async function startWindowServer(options: WindowServerOptions): Promise<WindowServer> {
  const { limit, periodMs } = options;
  if (!Number.isInteger(limit) || limit < 1)
    throw new RangeError(`limit must be a whole number of at least 1, not ${limit}`);
  if (!(periodMs > 0)) throw new RangeError(`periodMs must be more than zero, not ${periodMs}`);
  if (options.retryAfterSeconds !== undefined && !(options.retryAfterSeconds >= 0)) {
    throw new RangeError(`retryAfterSeconds must be zero or more, not ${options.retryAfterSeconds}`);
  }
  const clock = options.clock;
  const now = clock ? clock.now : (options.now ?? (() => performance.timeOrigin + performance.now()));
  const delayOf = (index: number): number => {
    if (options.delayMs) return options.delayMs(index);
    return options.delayFirstMs !== undefined && index < limit ? options.delayFirstMs : 0;
  };

  /** Admitted arrivals still inside the window of the latest arrival. */
  const inWindow = new TimeQueue();
  let arrivals: number[] = [];
  let admitted = 0;
  let rejected = 0;
  let peakInWindow = 0;
  const timers = new Set<Timer>();

  /** `Retry-After` at `at` with the window full: until its oldest place frees, unless fixed. */
  function retryAfterAt(at: number): number {
    return options.retryAfterSeconds ?? Math.max(1, Math.ceil((inWindow.first() + periodMs - at) / 1000));
  }

  function answer(response: ServerResponse, ms: number, reply: () => void): void {
    if (!(ms > 0)) {
      reply();
      return;
    }
    const run = () => {
      timers.delete(timer);
      if (!response.destroyed) reply();
    };
    let timer: Timer;
    if (clock) timer = clock.setTimer(run, ms);
    else {
      const handle = setTimeout(run, ms);
      timer = { cancel: () => clearTimeout(handle) };
    }
    timers.add(timer);
  }

  const server = createServer((request, response) => {
    // The body, if any, is not read; a GET has none.
    request.resume();
    if (request.method !== 'GET') {
      sendJson(response, 405, { error: 'method_not_allowed', message: 'only GET is served' }, { allow: 'GET' });
      return;
    }
    const at = now();
    const index = arrivals.length;
    arrivals.push(at);
    // An arrival at `at` counts against the admitted arrivals in (at - periodMs, at].
    while (inWindow.size > 0 && inWindow.first() <= at - periodMs) inWindow.shift();
    const delay = delayOf(index);
    if (inWindow.size >= limit) {
      rejected += 1;
      const retryAfter = retryAfterAt(at);
      answer(response, delay, () =>
        sendJson(
          response,
          429,
          {
            error: 'rate_limited',
            message: `at most ${limit} requests in ${periodMs} ms`,
            retry_after_seconds: retryAfter,
          },
          { 'retry-after': String(retryAfter) },
        ),
      );
      return;
    }
    inWindow.push(at);
    admitted += 1;
    if (inWindow.size > peakInWindow) peakInWindow = inWindow.size;
    const id = lastSegment(request);
    const remaining = limit - inWindow.size;
    const headers: Record<string, string> = {};
    if (options.remainingHeader) {
      headers['x-ratelimit-remaining'] = String(remaining);
      if (remaining === 0) headers['retry-after'] = String(retryAfterAt(at));
    }
    answer(response, delay, () => sendJson(response, 200, { id, name: `Item ${id}`, updated_at: UPDATED_AT }, headers));
  });
  const loopback = await listenOnLoopback(server, () => {
    for (const timer of timers) timer.cancel();
    timers.clear();
  });

  return {
    url: loopback.url,
    get admitted() {
      return admitted;
    },
    get rejected() {
      return rejected;
    },
    get delayed() {
      return timers.size;
    },
    get arrivals() {
      return arrivals;
    },
    get peakInWindow() {
      return peakInWindow;
    },
    reset() {
      inWindow.clear();
      arrivals = [];
      admitted = 0;
      rejected = 0;
      peakInWindow = 0;
    },
    close: loopback.close,
  };
}
