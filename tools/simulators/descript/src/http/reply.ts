import type { ServerResponse } from 'node:http';

/** What a route answers, before the server adds the common headers. */
export interface Reply {
  status: number;
  /** A JSON body, or raw text when `contentType` is set. */
  body?: unknown;
  contentType?: string;
  headers?: Record<string, string>;
}

export function json(status: number, body: unknown): Reply {
  return { status, body };
}

export function writeReply(res: ServerResponse, reply: Reply, headers: Record<string, string>): void {
  const text = reply.body === undefined ? '' : reply.contentType ? String(reply.body) : JSON.stringify(reply.body);
  const contentType = reply.body === undefined ? undefined : (reply.contentType ?? 'application/json; charset=utf-8');
  res.writeHead(reply.status, {
    ...headers,
    ...reply.headers,
    ...(contentType ? { 'Content-Type': contentType } : {}),
    'Content-Length': String(Buffer.byteLength(text)),
  });
  res.end(text);
}
