import type { ClientRequest, IncomingMessage } from 'node:http';
import type { Dispatcher } from 'undici';
import type { Environment } from '../definition/environment.js';
import { HeldBack, type WriteGate } from './budget-rules.js';
import { AnswerHeaders, type HeaderReader } from './headers.js';
import { refusalIn } from './network-policy.js';
import { events } from './events.js';
import type { Redactor } from '../secrets.js';
import { NEVER } from './settings.js';
import type { Answer, Send, StageAbout } from './stages/stage.js';
import type { TransportParts } from './transport.js';

/** One request as it goes out, for a run in `environment`. */
interface Outgoing {
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

/** An answer before its body is read (fetch's and Node's http streams). */
interface Exchange {
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

/** What the bottom of the pipeline uses: the transport, the environment's pool, and the redactor a redirect's origin is quoted through. */
export interface TransmitOptions {
  transport: TransportParts;
  environment: Environment;
  redactor: Redactor;
  about: StageAbout;
}

/**
 * The bottom of the pipeline: one exchange the way the transport sends, its whole body read (a
 * redirect's body, which says nothing the pipeline reads and may be endless, dropped unread).
 * Every stage above applies whichever way that is.
 */
export function transmit({ transport, environment, redactor, about }: TransmitOptions): Send {
  const send: Send = (call) =>
    exchangeOnce({
      transport,
      environment,
      target: call.url,
      method: call.method,
      headers: call.headers,
      body: call.body,
      signal: call.signal,
      open: call.open,
    });
  const watched: Send = async (call) => {
    const exchange = {
      ...about,
      operation: call.operation,
      // A redirect may lead anywhere the provider says: its host is quoted redacted.
      origin: redactor.redactString(call.url.origin),
    };
    const started = performance.now();
    events.exchangeStart.publish(exchange);
    try {
      const answer = await send(call);
      events.exchangeEnd.publish({
        ...exchange,
        status: answer.status,
        durationMs: Math.round(performance.now() - started),
      });
      return answer;
    } catch (error) {
      const code = error instanceof HeldBack ? 'held_back' : ((error as { code?: unknown }).code ?? 'failed');
      events.exchangeEnd.publish({ ...exchange, code, durationMs: Math.round(performance.now() - started) });
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

/** An answer that sends elsewhere: its body is dropped unread. */
function isRedirect(status: number, headers: HeaderReader): boolean {
  return status >= 300 && status < 400 && headers.get('location') !== null;
}

/**
 * One HTTP exchange, no redirect followed, the way the transport sends, its whole answer read. A
 * name is checked against the network policy in the lookup of the connection (the network stage
 * checks an address literal before): a refused address is never connected to, and the
 * AddressRefusedError comes out as it is (fetch wraps it), as does a budget's `HeldBack`.
 */
async function exchangeOnce(outgoing: Outgoing): Promise<Answer> {
  try {
    switch (outgoing.transport.via) {
      case 'undici':
        return await overUndici(outgoing);
      case 'fetch':
        return await whole(await overFetch(outgoing));
      case 'http':
        return await whole(await overNodeHttp(outgoing));
    }
  } catch (error) {
    throw refusalIn(error) ?? heldIn(error) ?? error;
  }
}

/** An answer read whole from a stream of its body: a redirect's dropped unread. */
async function whole(answer: Exchange): Promise<Answer> {
  if (isRedirect(answer.status, answer.headers)) {
    await answer.discard();
    return { status: answer.status, headers: answer.headers, text: '' };
  }
  return { status: answer.status, headers: answer.headers, text: await answer.text() };
}

/**
 * One exchange handed straight to the pool with a handler of our own: the answer's chunks are
 * collected as they come and decoded once, with no body stream (undici.request's `Readable`
 * and an async iterator over it cost more per request than the pipeline's own stages), and the
 * whole answer is given once, at its end. The write gate is asked when the request is about to
 * be written (`onRequestStart`).
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
}: Outgoing): Promise<Answer> {
  return new Promise<Answer>((resolve, reject) => {
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

/** The handler of one request to the pool: its body gathered, the whole answer given at its end. */
class UndiciExchange implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | undefined;
  private status = 0;
  private headers: AnswerHeaders | undefined;
  private readonly chunks: Buffer[] = [];
  /** A redirect: its body is dropped as it comes. */
  private dropping = false;
  private dropped = 0;
  private done = false;
  private failure: unknown;
  private readonly onAbort = () => this.fail(this.signal.reason);

  constructor(
    private readonly signal: AbortSignal,
    private readonly open: WriteGate | undefined,
    private readonly resolve: (answer: Answer) => void,
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
    if (status < 200 || this.headers) return;
    this.status = status;
    this.headers = new AnswerHeaders(headers);
    this.dropping = isRedirect(status, this.headers);
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (!this.dropping) this.chunks.push(chunk);
    // A hostile redirect body may be endless: past the limit the connection goes, and the redirect goes on all the same.
    else if ((this.dropped += chunk.length) > DISCARD_LIMIT) {
      this.finish();
      this.controller?.abort(new Error('a redirect body too long to drop'));
    }
  }

  onResponseEnd(): void {
    this.finish();
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.fail(error);
  }

  /** The whole answer, once: a redirect's without its body. */
  private finish(): void {
    if (this.done) return;
    if (!this.headers) {
      this.fail(new Error('the exchange ended without an answer'));
      return;
    }
    this.done = true;
    this.settled();
    const { chunks } = this;
    const text = this.dropping
      ? ''
      : chunks.length === 1
        ? chunks[0]!.toString('utf8')
        : Buffer.concat(chunks).toString('utf8');
    this.resolve({ status: this.status, headers: this.headers, text });
  }

  /** The request ends with `error`: whoever waits hears it, and the pool stops the request. */
  private fail(error: unknown): void {
    if (this.done) return;
    this.done = true;
    this.failure = error;
    this.settled();
    this.chunks.length = 0;
    this.controller?.abort(asError(error));
    this.reject(error);
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
