import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A real HTTP server on 127.0.0.1 for the executor's tests; each test scripts its answers. */

export interface SeenRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: string;
}

export type Handler = (request: SeenRequest, response: ServerResponse) => void | Promise<void>;

export interface TestServer {
  url: string;
  requests: SeenRequest[];
  close(): Promise<void>;
}

export async function startServer(handler: Handler): Promise<TestServer> {
  const requests: SeenRequest[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const seen: SeenRequest = { method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
    requests.push(seen);
    try {
      await handler(seen, res);
    } catch (error) {
      if (!res.headersSent) res.statusCode = 500;
      res.end(String(error));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': `req_${Math.random().toString(16).slice(2, 10)}`, ...headers });
  res.end(JSON.stringify(body));
}

/** `count` items with growing `updated_at`, served `limit` at a time after `updated_after`. */
export function items(count: number) {
  return Array.from({ length: count }, (_, index) => ({
    id: `item_${String(index + 1).padStart(3, '0')}`,
    name: `Item ${index + 1}`,
    updated_at: new Date(Date.UTC(2026, 0, 1, 0, 0, index)).toISOString(),
  }));
}

/** Answers `GET /items?limit&cursor&updated_after` from a list: `{data, next}`. */
export function itemsPage(all: ReturnType<typeof items>, query: URLSearchParams) {
  const limit = Number(query.get('limit') ?? 10);
  const after = query.get('updated_after');
  const cursor = query.get('cursor');
  const from = all.filter((item) => after === null || item.updated_at > after);
  const start = cursor ? from.findIndex((item) => item.id === cursor) : 0;
  const data = from.slice(start, start + limit);
  const next = from[start + limit]?.id;
  return next ? { data, next } : { data };
}
