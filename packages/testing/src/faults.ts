import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { listenOnLoopback } from './loopback.js';

/**
 * A real HTTP server on 127.0.0.1 (random port) whose answers a test scripts:
 * a status with headers and body, a delay, a connection reset, or a body cut
 * short. Every request is counted and kept, so a test can assert "exactly one
 * request reached the provider".
 *
 * ```ts
 * const server = await startFaultServer();
 * server.answer({ status: 503, body: { message: 'down' } });      // every request from now on
 * server.next(reset(), delay(50, answer({ status: 200 })));       // the next two, then the default again
 * ```
 */

export interface Answer {
  kind: 'answer';
  status: number;
  headers: Record<string, string>;
  /** A string is sent as is; anything else as JSON. */
  body: unknown;
}

export interface Delay {
  kind: 'delay';
  ms: number;
  then: Fault;
}

export interface Reset {
  kind: 'reset';
}

export interface Truncate {
  kind: 'truncate';
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Bytes of the body sent before the connection closes. */
  sendBytes: number;
}

export type Fault = Answer | Delay | Reset | Truncate;

export interface AnswerOptions {
  status?: number;
  headers?: Record<string, string>;
  body?: unknown;
}

/** Answers with this status, headers and body (JSON unless a string). */
export function answer(options: AnswerOptions = {}): Answer {
  return { kind: 'answer', status: options.status ?? 200, headers: options.headers ?? {}, body: options.body ?? '' };
}

/** Waits `ms` before doing `then` (default: 200 with an empty JSON object). */
export function delay(ms: number, then: Fault = answer({ body: {} })): Delay {
  return { kind: 'delay', ms, then };
}

/** Destroys the connection without answering. */
export function reset(): Reset {
  return { kind: 'reset' };
}

/** Sends the headers with the full body's content-length, then only part of the body, then closes. */
export function truncate(options: AnswerOptions & { sendBytes?: number } = {}): Truncate {
  const body =
    typeof options.body === 'string' ? options.body : JSON.stringify(options.body ?? { data: 'x'.repeat(64) });
  return {
    kind: 'truncate',
    status: options.status ?? 200,
    headers: options.headers ?? {},
    body,
    sendBytes: options.sendBytes ?? Math.floor(Buffer.byteLength(body) / 2),
  };
}

export interface SeenRequest {
  method: string;
  /** Path without the query. */
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: string;
  /** Milliseconds since the epoch. */
  at: number;
}

export type FaultHandler = (request: SeenRequest) => Fault | Promise<Fault>;

export interface FaultServer {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  readonly requests: readonly SeenRequest[];
  /** How many requests arrived. */
  readonly count: number;
  /** Every request from now on (after any queued by `next`) gets this answer. */
  answer(options?: AnswerOptions): FaultServer;
  /** Every request from now on waits `ms`, then gets the current default answer (or `then`). */
  delay(ms: number, then?: Fault): FaultServer;
  /** Every request from now on has its connection destroyed. */
  reset(): FaultServer;
  /** Every request from now on gets a body cut short. */
  truncate(options?: AnswerOptions & { sendBytes?: number }): FaultServer;
  /** Sets the default to a fault, or to a function of the request. */
  otherwise(fault: Fault | FaultHandler): FaultServer;
  /** Faults for the next requests, one each, in order; then the default again. */
  next(...faults: Fault[]): FaultServer;
  /** Forgets the requests seen so far (the faults stay). */
  clear(): FaultServer;
  close(): Promise<void>;
}

function send(response: ServerResponse, fault: Answer): void {
  const isText = typeof fault.body === 'string';
  const body = isText ? (fault.body as string) : JSON.stringify(fault.body);
  const headers: Record<string, string> = { ...fault.headers };
  const has = (name: string) => Object.keys(headers).some((key) => key.toLowerCase() === name);
  if (!has('content-type') && body !== '')
    headers['content-type'] = isText ? 'text/plain; charset=utf-8' : 'application/json';
  if (!has('content-length')) headers['content-length'] = String(Buffer.byteLength(body));
  response.writeHead(fault.status, headers);
  response.end(body);
}

export async function startFaultServer(
  initial: Fault | FaultHandler = answer({ status: 404, body: { message: 'no fault scripted' } }),
): Promise<FaultServer> {
  const requests: SeenRequest[] = [];
  const queue: Fault[] = [];
  let fallback: Fault | FaultHandler = initial;
  const timers = new Set<NodeJS.Timeout>();

  async function perform(fault: Fault, request: IncomingMessage, response: ServerResponse): Promise<void> {
    switch (fault.kind) {
      case 'answer':
        send(response, fault);
        return;
      case 'reset':
        request.socket.destroy();
        return;
      case 'delay': {
        const closed = new Promise<void>((resolve) => response.once('close', resolve));
        const waited = new Promise<void>((resolve) => {
          const timer = setTimeout(() => {
            timers.delete(timer);
            resolve();
          }, fault.ms);
          timers.add(timer);
        });
        await Promise.race([waited, closed]);
        if (!response.destroyed && !response.writableEnded) await perform(fault.then, request, response);
        return;
      }
      case 'truncate': {
        const bytes = Buffer.from(fault.body);
        response.writeHead(fault.status, {
          'content-type': 'application/json',
          ...fault.headers,
          'content-length': String(bytes.length),
        });
        response.write(bytes.subarray(0, fault.sendBytes), () => {
          // Give the partial body a moment on the wire, then drop the connection.
          const timer = setTimeout(() => {
            timers.delete(timer);
            request.socket.destroy();
          }, 10);
          timers.add(timer);
        });
        return;
      }
    }
  }

  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const seen: SeenRequest = {
      method: request.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      headers: request.headers,
      body: Buffer.concat(chunks).toString('utf8'),
      at: Date.now(),
    };
    requests.push(seen);
    try {
      const fault = queue.shift() ?? (typeof fallback === 'function' ? await fallback(seen) : fallback);
      await perform(fault, request, response);
    } catch (error) {
      if (!response.headersSent)
        send(response, answer({ status: 500, body: { message: `fault server: ${String(error)}` } }));
    }
  });
  const loopback = await listenOnLoopback(server, () => {
    for (const timer of timers) clearTimeout(timer);
    timers.clear();
  });

  const faultServer: FaultServer = {
    url: loopback.url,
    requests,
    get count() {
      return requests.length;
    },
    answer(options) {
      fallback = answer(options);
      return faultServer;
    },
    delay(ms, then) {
      const current = fallback;
      fallback = then
        ? delay(ms, then)
        : async (request) => delay(ms, typeof current === 'function' ? await current(request) : current);
      return faultServer;
    },
    reset() {
      fallback = reset();
      return faultServer;
    },
    truncate(options) {
      fallback = truncate(options);
      return faultServer;
    },
    otherwise(fault) {
      fallback = fault;
      return faultServer;
    },
    next(...faults) {
      queue.push(...faults);
      return faultServer;
    },
    clear() {
      requests.length = 0;
      return faultServer;
    },
    close: loopback.close,
  };
  return faultServer;
}
