import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The demo's local task tracker: 12 tasks, cursor pages, one 429 with
 * Retry-After on the second page, and SMS credits that run out (402).
 */

export interface TasksServer {
  url: string;
  token: string;
  close(): Promise<void>;
}

const TOKEN = 'demo-token-not-a-secret';

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': `req_${Math.random().toString(16).slice(2, 10)}`, ...headers });
  res.end(JSON.stringify(body));
}

export async function startTasksServer(): Promise<TasksServer> {
  const tasks = Array.from({ length: 12 }, (_, index) => ({
    id: `t${index + 1}`,
    title: `Task ${index + 1}`,
    done: index % 3 === 0,
    updated_at: new Date(Date.UTC(2026, 10, 1 + index)).toISOString(),
  }));
  let smsCredits = 1;
  let throttledOnce = false;
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.headers.authorization !== `Bearer ${TOKEN}`) return send(res, 401, { error: 'unauthorized', message: 'Invalid token' });
    if (req.method === 'GET' && url.pathname === '/tasks') {
      const offset = Number(url.searchParams.get('cursor') ?? 0);
      if (offset > 0 && !throttledOnce) {
        throttledOnce = true;
        return send(res, 429, { error: 'rate_limit_exceeded', message: 'Too many requests' }, { 'retry-after': '1' });
      }
      const after = url.searchParams.get('updated_after') ?? '';
      const limit = Number(url.searchParams.get('limit') ?? 5);
      const matching = tasks.filter((task) => task.updated_at > after);
      const data = matching.slice(offset, offset + limit);
      const next = offset + limit < matching.length ? String(offset + limit) : undefined;
      return send(res, 200, { data, ...(next ? { next_cursor: next } : {}) });
    }
    if (req.method === 'POST' && url.pathname === '/reminders') {
      if (smsCredits === 0) return send(res, 402, { error: 'payment_required', message: 'Insufficient SMS credits to start the job (1 credits required, 0 available)' });
      smsCredits -= 1;
      return send(res, 201, { reminder_id: 'r1', task_id: 't2', cost: { amount: '0.35', currency: 'USD' } });
    }
    send(res, 404, { error: 'not_found', message: `No route ${req.method} ${url.pathname}` });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    token: TOKEN,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
