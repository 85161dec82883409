import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';

/**
 * The sample provider: node:http on 127.0.0.1, a random port, the API under
 * `/v1`, a bearer token required. It is indiscreet on purpose: it echoes the
 * caller's token in response headers (including a cookie), in the query of its
 * next-page links, in JSON fields by secret-like name, inside ordinary text,
 * in base64 inside a gzip-compressed body, and in a plain-text error body.
 */

export interface SampleTask {
  id: string;
  title: string;
  updated_at: string;
}

export interface SampleProvider {
  url: string;
  /** The API's base URL, `<url>/v1`. */
  baseUrl: string;
  /** Requests seen, as `METHOD /path?query`. */
  requests: string[];
  /** Adds tasks changed after every existing one. */
  addTasks(count: number): SampleTask[];
  close(): Promise<void>;
}

export interface SampleProviderOptions {
  token: string;
  /** A provider bug: `updated_after` includes the record at the checkpoint. */
  inclusiveSince?: boolean;
  /** An answer this test cannot redact: a binary body with the token in it, as UTF-8 among other bytes. */
  binaryEcho?: boolean;
}

function task(index: number): SampleTask {
  return {
    id: `task_${index}`,
    title: `Task ${index}`,
    updated_at: new Date(Date.UTC(2026, 0, index, 9)).toISOString(),
  };
}

export async function startSampleProvider(options: SampleProviderOptions): Promise<SampleProvider> {
  const { token } = options;
  const tasks: SampleTask[] = [1, 2, 3, 4, 5].map(task);
  const requests: string[] = [];
  let origin = '';
  let requestCounter = 0;

  const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };

  async function handle(req: IncomingMessage, res: ServerResponse, body: string): Promise<void> {
    const url = new URL(req.url ?? '/', origin);
    requestCounter += 1;
    res.setHeader('x-request-id', `req_${requestCounter}`);
    if (req.headers.authorization !== `Bearer ${token}`) {
      json(res, 401, { message: 'missing or invalid bearer token' });
      return;
    }
    // The indiscretions every authenticated answer carries.
    res.setHeader('x-echo-authorization', `Bearer ${token}`);
    res.setHeader('set-cookie', `session=${token}; Path=/; HttpOnly`);

    const route = `${req.method} ${url.pathname}`;
    if (route === 'GET /v1/tasks') {
      const limit = Number(url.searchParams.get('limit') ?? '2');
      const since = url.searchParams.get('updated_after');
      const cursor = Number(url.searchParams.get('cursor') ?? '0');
      if (cursor > 0 && url.searchParams.get('access_token') !== token) {
        json(res, 401, { message: 'next-page links carry the token; this one does not' });
        return;
      }
      const matching = tasks.filter(
        (item) => !since || (options.inclusiveSince ? item.updated_at >= since : item.updated_at > since),
      );
      const data = matching.slice(cursor, cursor + limit);
      const more = cursor + limit < matching.length;
      const next = new URLSearchParams({ cursor: String(cursor + limit), limit: String(limit), access_token: token });
      if (since) next.set('updated_after', since);
      json(res, 200, { data, paging: { next: more ? `${origin}/v1/tasks?${next}` : null } });
      return;
    }
    if (route === 'GET /v1/account') {
      const account = {
        id: 'acct_1',
        name: 'Sample Account',
        plan: 'team',
        api_key: token,
        note: `token ${token} was used for this call`,
        session: Buffer.from(`acct_1:${token}`).toString('base64'),
        links: { self: `${origin}/v1/account` },
      };
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(gzipSync(JSON.stringify(account)));
      return;
    }
    if (route === 'POST /v1/invoices') {
      const input = JSON.parse(body || '{}') as { customer?: string; amount_cents?: number };
      if ((input.amount_cents ?? 0) > 100_000) {
        res.writeHead(402, { 'content-type': 'text/plain; charset=utf-8' });
        res.end(
          `Insufficient invoice credits to issue this invoice (5 credits required, 0 available) for token ${token}`,
        );
        return;
      }
      json(res, 201, {
        id: 'inv_1',
        customer: input.customer,
        amount_cents: input.amount_cents,
        status: 'issued',
        received: { authorization: req.headers.authorization },
      });
      return;
    }
    if (route === 'GET /v1/export' && options.binaryEcho) {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.end(Buffer.concat([Buffer.from([0xff, 0xfe, 0x00]), Buffer.from(token, 'utf8'), Buffer.from([0xff])]));
      return;
    }
    json(res, 404, { message: `no route ${route}` });
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push(`${req.method} ${req.url}`);
      handle(req, res, Buffer.concat(chunks).toString('utf8')).catch((error: unknown) =>
        json(res, 500, { message: String(error) }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: origin,
    baseUrl: `${origin}/v1`,
    requests,
    addTasks(count) {
      const added = Array.from({ length: count }, (_, offset) => task(tasks.length + 1 + offset));
      tasks.push(...added);
      return added;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
