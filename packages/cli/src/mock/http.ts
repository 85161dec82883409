import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Refusal } from './refusal.js';

/** Reading a request's body, bounded, and writing a JSON answer: the stand-in's API and its authorization server alike. */

const MAX_BODY = 1024 * 1024;

/** The whole body, refused (413) past `max` bytes whatever the client declared. */
export async function readBody(request: IncomingMessage, max = MAX_BODY): Promise<Buffer> {
  if (Number(request.headers['content-length'] ?? 0) > max)
    throw new Refusal(413, 'payload_too_large', `the body is larger than ${max} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > max) throw new Refusal(413, 'payload_too_large', `the body is larger than ${max} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

export function send(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = body === undefined ? '' : JSON.stringify(body);
  response.writeHead(status, {
    ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    'content-length': String(Buffer.byteLength(text)),
    'x-request-id': `req_${randomBytes(8).toString('hex')}`,
    ...headers,
  });
  response.end(text);
}
