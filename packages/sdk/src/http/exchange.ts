import type { IncomingMessage } from 'node:http';
import type { Dispatcher } from 'undici';
import { AnswerHeaders, type HeaderReader } from './headers.js';
import type { Transport } from './transport.js';

/** An answer before its body is read. */
export interface Exchange {
  status: number;
  headers: HeaderReader;
  text(): Promise<string>;
  discard(): Promise<void>;
}

/** One HTTP exchange, no redirect followed, the way the transport sends. */
export function exchangeOnce(transport: Transport, target: URL, method: string, headers: Record<string, string>, body: string | undefined, signal: AbortSignal): Promise<Exchange> {
  switch (transport.via) {
    case 'undici':
      return overUndici(transport, target, method, headers, body, signal);
    case 'fetch':
      return overFetch(transport, target, method, headers, body, signal);
    case 'http':
      return overNodeHttp(target, method, headers, body, signal);
  }
}

async function overUndici(transport: Transport, target: URL, method: string, headers: Record<string, string>, body: string | undefined, signal: AbortSignal): Promise<Exchange> {
  const response = await transport.agent.request({
    origin: target.origin,
    path: `${target.pathname}${target.search}`,
    method: method as Dispatcher.HttpMethod,
    headers,
    body: body ?? null,
    signal,
  });
  return {
    status: response.statusCode,
    headers: new AnswerHeaders(response.headers),
    text: () => response.body.text(),
    discard: async () => void (await response.body.dump()),
  };
}

async function overFetch(transport: Transport, target: URL, method: string, headers: Record<string, string>, body: string | undefined, signal: AbortSignal): Promise<Exchange> {
  // Node's fetch takes an undici dispatcher; the DOM typing does not know it.
  const response = await fetch(target, { method, headers, body, redirect: 'manual', signal, dispatcher: transport.dispatcher } as RequestInit);
  return { status: response.status, headers: response.headers, text: () => response.text(), discard: async () => void (await response.body?.cancel()) };
}

/** Node's own http and https modules and their keep-alive agents: nothing more to load at start. */
async function overNodeHttp(target: URL, method: string, headers: Record<string, string>, body: string | undefined, signal: AbortSignal): Promise<Exchange> {
  // getBuiltinModule, not import(): an ESM namespace of node:http reads every export, and one of them loads Node's fetch.
  const { request } = target.protocol === 'https:' ? process.getBuiltinModule('node:https') : process.getBuiltinModule('node:http');
  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    const outgoing = request(target, { method, headers: body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) }, signal }, resolve);
    outgoing.once('error', reject);
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
