import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * Node's request and response to the web ones the SDK's handler takes and gives, at the least cost
 * per request: the body is read once, bounded, and parsed once (the handler takes it parsed, so it
 * neither copies nor reads it again), the web `Request` carries the headers and the signal that
 * fires when the client goes away but no body the handler would not read, and a JSON answer goes
 * out in one write with its length (an SSE stream as it comes).
 */

/** The body as text, or `undefined` when it is over the bound (by its declared length, or once read past it). */
export function readBody(request: IncomingMessage, maxBytes: number): Promise<string | undefined> {
  if (Number(request.headers['content-length']) > maxBytes) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) return void chunks.push(chunk);
      request.off('data', onData);
      resolve(undefined);
    };
    request.on('data', onData);
    request.once('end', () => resolve(size > maxBytes ? undefined : Buffer.concat(chunks, size).toString('utf8')));
    request.once('error', reject);
  });
}

/** The body parsed, or `undefined` when it is no JSON: the handler then reads the text and answers as the protocol says. */
export function parsedJson(text: string): unknown {
  if (text.length === 0) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * The web `Request` of Node's: its method, URL and headers, the body only when the handler must
 * read it; `undefined` when the Host header makes no URL.
 */
export function webRequest(request: IncomingMessage, signal: AbortSignal, body?: string): Request | undefined {
  const headers: Array<[string, string]> = [];
  const raw = request.rawHeaders;
  for (let index = 0; index < raw.length; index += 2) headers.push([raw[index]!, raw[index + 1]!]);
  const method = request.method ?? 'GET';
  const withBody = body !== undefined && body.length > 0 && method !== 'GET' && method !== 'HEAD';
  try {
    return new Request(`http://${request.headers.host ?? 'localhost'}${request.url ?? '/'}`, {
      method,
      headers,
      signal,
      ...(withBody ? { body } : {}),
    });
  } catch {
    return undefined;
  }
}

/**
 * Writes a web Response to Node's response. An SSE stream is written as it comes, until the client
 * goes; any other body is whole already: it goes in one write with its length, not in chunks.
 */
export async function writeResponse(answer: Response, response: ServerResponse): Promise<void> {
  const headers = Object.fromEntries(answer.headers);
  if (!answer.body || !headers['content-type']?.startsWith('text/event-stream')) {
    const body = answer.body ? await answer.text() : '';
    response.writeHead(answer.status, { ...headers, 'content-length': Buffer.byteLength(body) }).end(body);
    return;
  }
  response.writeHead(answer.status, headers);
  const reader = answer.body.getReader();
  const stop = () => void reader.cancel().catch(() => undefined);
  response.once('close', stop);
  try {
    for (let part = await reader.read(); !part.done; part = await reader.read()) response.write(part.value);
  } catch {
    // The stream failed or the client went away: the response ends here.
  } finally {
    response.off('close', stop);
    response.end();
  }
}
