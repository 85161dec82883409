import type { ClientRequest, IncomingMessage } from 'node:http';
import type { Dispatcher } from 'undici';
import type { Environment } from '../definition/action.js';
import { HeldBack, type WriteGate } from './budget-rules.js';
import { AnswerHeaders, type HeaderReader } from './headers.js';
import { refusalIn } from './network-policy.js';
import { events } from './events.js';
import { type ClientSettings, NEVER } from './settings.js';
import type { Send } from './stages/stage.js';
import type { TransportParts } from './transport.js';

/** One request as it goes out, for a run in `environment`. */
export interface Outgoing {
  transport: TransportParts;
  environment: Environment;
  target: URL;
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
  signal: AbortSignal;
  /** Asked once the connection is ready, just before the request is written: no, and nothing is sent (`HeldBack`). */
  open?: WriteGate | undefined;
}

/** An answer before its body is read. */
export interface Exchange {
  status: number;
  headers: HeaderReader;
  text(): Promise<string>;
  /** Drops the body unread. */
  discard(): Promise<void>;
}

/**
 * Makes what sending needs (the pool, which loads undici the first time), so that a
 * request's timeout counts the exchange and not the loading of modules.
 */
export function readyToSend(transport: TransportParts, environment: Environment): void {
  if (transport.via === 'undici') transport.agent(environment);
  else if (transport.via === 'fetch') transport.dispatcher(environment);
}

/**
 * The bottom of the pipeline: one exchange the way the transport sends, its whole body read.
 * Every stage above applies whichever way that is.
 */
export function transmit({ transport, environment, connector, action, redactor }: ClientSettings): Send {
  const send: Send = async (call) => {
    const answer = await exchangeOnce({
      transport,
      environment,
      target: call.url,
      method: call.method,
      headers: call.headers,
      body: call.body,
      signal: call.signal,
      open: call.open,
    });
    // A redirect's body says nothing the pipeline reads, and a hostile one may be endless: dropped unread.
    if (answer.status >= 300 && answer.status < 400 && answer.headers.get('location') !== null) {
      await answer.discard();
      return { status: answer.status, headers: answer.headers, text: '' };
    }
    return { status: answer.status, headers: answer.headers, text: await answer.text() };
  };
  const watched: Send = async (call) => {
    const about = {
      connector: connector.key,
      action: action.key,
      operation: call.operation,
      // A redirect may lead anywhere the provider says: its host is quoted redacted.
      origin: redactor.redactString(call.url.origin),
    };
    const started = performance.now();
    events.exchangeStart.publish(about);
    try {
      const answer = await send(call);
      events.exchangeEnd.publish({
        ...about,
        status: answer.status,
        durationMs: Math.round(performance.now() - started),
      });
      return answer;
    } catch (error) {
      const code = error instanceof HeldBack ? 'held_back' : ((error as { code?: unknown }).code ?? 'failed');
      events.exchangeEnd.publish({ ...about, code, durationMs: Math.round(performance.now() - started) });
      throw error;
    }
  };
  return (call) => (events.exchangeStart.hasSubscribers || events.exchangeEnd.hasSubscribers ? watched : send)(call);
}

/** A `HeldBack` however the transport wrapped it (fetch wraps its dispatcher's errors). */
function heldIn(error: unknown): HeldBack | undefined {
  let current: unknown = error;
  for (let depth = 0; current && typeof current === 'object' && depth < 8; depth += 1) {
    if (current instanceof HeldBack) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * One HTTP exchange, no redirect followed, the way the transport sends. A name is checked
 * against the network policy in the lookup of the connection (the network stage checks an
 * address literal before): a refused address is never connected to, and the
 * AddressRefusedError comes out as it is (fetch wraps it), as does a budget's `HeldBack`.
 */
async function exchangeOnce(outgoing: Outgoing): Promise<Exchange> {
  const { transport } = outgoing;
  try {
    switch (transport.via) {
      case 'undici':
        return await overUndici(outgoing);
      case 'fetch':
        return await overFetch(outgoing);
      case 'http':
        return await overNodeHttp(outgoing);
    }
  } catch (error) {
    throw refusalIn(error) ?? heldIn(error) ?? error;
  }
}

/**
 * One exchange handed straight to the pool with a handler of our own: the answer's chunks are
 * collected as they come and decoded once, with no body stream (undici.request's `Readable`
 * and an async iterator over it cost more per request than the pipeline's own stages). The
 * write gate is asked when the request is about to be written (`onRequestStart`).
 */
function overUndici({
  transport,
  environment,
  target,
  method,
  headers,
  body,
  signal,
  open,
}: Outgoing): Promise<Exchange> {
  return new Promise<Exchange>((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    new UndiciExchange(signal, open, resolve, reject).dispatch(transport.agent(environment), {
      origin: target.origin,
      path: `${target.pathname}${target.search}`,
      method: method as Dispatcher.HttpMethod,
      headers,
      body: body ?? null,
    });
  });
}

/** Bytes of a redirect's body read and dropped before its connection is closed instead. */
const DISCARD_LIMIT = 128 * 1024;

/** The handler of one request to the pool: the answer as an `Exchange`, its body gathered until asked for. */
class UndiciExchange implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | undefined;
  private exchange: Exchange | undefined;
  private readonly chunks: Buffer[] = [];
  private discarded = 0;
  private discarding = false;
  private ended = false;
  private failure: unknown;
  private waiting: { resolve: (text: string) => void; reject: (error: unknown) => void } | undefined;
  private readonly onAbort = () => this.fail(this.signal.reason);

  constructor(
    private readonly signal: AbortSignal,
    private readonly open: WriteGate | undefined,
    private readonly resolve: (exchange: Exchange) => void,
    private readonly reject: (error: unknown) => void,
  ) {}

  dispatch(pool: Dispatcher, options: Dispatcher.DispatchOptions): void {
    if (this.signal !== NEVER) this.signal.addEventListener('abort', this.onAbort, { once: true });
    try {
      pool.dispatch(options, this);
    } catch (error) {
      this.fail(error);
    }
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.failure !== undefined) controller.abort(asError(this.failure));
    else if (this.open && !this.open()) this.fail(new HeldBack());
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    status: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    if (status < 200 || this.exchange) return;
    this.exchange = {
      status,
      headers: new AnswerHeaders(headers),
      text: () => this.text(),
      discard: () => {
        this.discarding = true;
        this.chunks.length = 0;
        // Ended early when too long: the connection closes, and the redirect goes on all the same.
        return this.text().then(
          () => undefined,
          () => undefined,
        );
      },
    };
    this.resolve(this.exchange);
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (!this.discarding) this.chunks.push(chunk);
    // A hostile redirect body may be endless: past the limit the connection goes instead.
    else if ((this.discarded += chunk.length) > DISCARD_LIMIT) this.fail(new Error('a redirect body too long to drop'));
  }

  onResponseEnd(): void {
    this.ended = true;
    this.settled();
    this.waiting?.resolve(this.joined());
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.fail(error);
  }

  private joined(): string {
    const { chunks } = this;
    return chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8');
  }

  private text(): Promise<string> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    if (this.ended) return Promise.resolve(this.joined());
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
    });
  }

  /** The request ends with `error`: whoever waits hears it, and the pool stops the request. */
  private fail(error: unknown): void {
    if (this.failure !== undefined || this.ended) return;
    this.failure = error;
    this.settled();
    this.chunks.length = 0;
    this.controller?.abort(asError(error));
    if (this.exchange) this.waiting?.reject(error);
    else this.reject(error);
  }

  private settled(): void {
    if (this.signal !== NEVER) this.signal.removeEventListener('abort', this.onAbort);
  }
}

function asError(reason: unknown): Error {
  return reason instanceof Error ? reason : new Error(String(reason));
}

async function overFetch({
  transport,
  environment,
  target,
  method,
  headers,
  body,
  signal,
  open,
}: Outgoing): Promise<Exchange> {
  // Node's fetch takes an undici dispatcher; the DOM typing does not know it.
  const response = await fetch(target, {
    method,
    headers,
    body,
    redirect: 'manual',
    signal,
    dispatcher: transport.dispatcher(environment, open),
  } as RequestInit);
  return {
    status: response.status,
    headers: response.headers,
    text: () => response.text(),
    discard: async () => void (await response.body?.cancel()),
  };
}

/** Node's own http and https modules and their keep-alive agents: nothing more to load at start. */
async function overNodeHttp({
  transport,
  environment,
  target,
  method,
  headers,
  body,
  signal,
  open,
}: Outgoing): Promise<Exchange> {
  const secure = target.protocol === 'https:';
  // getBuiltinModule, not import(): an ESM namespace of node:http reads every export, and one of them loads Node's fetch.
  const { request } = secure ? process.getBuiltinModule('node:https') : process.getBuiltinModule('node:http');
  // The environment's own agent: its lookup applies the network policy, and its sockets serve no other environment.
  const agent = transport.nodeAgent(environment, secure ? 'https:' : 'http:');
  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    const outgoing = request(
      target,
      {
        method,
        headers: body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        signal,
        agent,
      },
      resolve,
    );
    outgoing.once('error', reject);
    if (open) holdUnlessOpen(outgoing, open);
    outgoing.end(body);
  });
  return {
    status: response.statusCode ?? 0,
    headers: new AnswerHeaders(response.headers),
    text: async () => {
      response.setEncoding('utf8');
      let text = '';
      for await (const chunk of response) text += chunk as string;
      return text;
    },
    discard: async () => {
      response.resume();
    },
  };
}

/**
 * Node's http writes a request once its socket is assigned, and on a new connection only when
 * it has connected: the gate is asked at that moment, before the first byte goes.
 */
function holdUnlessOpen(outgoing: ClientRequest, open: WriteGate): void {
  outgoing.once('socket', (socket) => {
    const ask = () => {
      if (!open()) outgoing.destroy(new HeldBack());
    };
    // Registered before the request's own write on connect, so it runs first.
    if (socket.connecting) socket.once('connect', ask);
    else ask();
  });
}
