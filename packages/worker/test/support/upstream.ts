import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * HTTP servers on 127.0.0.1 that stand between the workers and the simulator, to control when a
 * provider answers: `pairs` holds each request until a second one is in flight and then forwards
 * both (so two requests in flight at once prove two workers busy at once); `held` forwards them
 * once the test says so; `hanging` never answers.
 */

export interface Upstream {
  url: string;
  /** Requests received. */
  received: number;
  /** Resolves once `count` requests were received. */
  receivedAtLeast(count: number): Promise<void>;
  close(): Promise<void>;
}

type Held = { req: IncomingMessage; body: Buffer; res: ServerResponse };

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function forward(target: string, { req, body, res }: Held): Promise<void> {
  const headers = Object.fromEntries(
    Object.entries(req.headers).filter(
      ([name]) => name !== 'host' && name !== 'content-length' && name !== 'connection',
    ),
  ) as Record<string, string>;
  const answer = await fetch(new URL(req.url!, target), {
    method: req.method!,
    headers,
    ...(body.length > 0 ? { body } : {}),
  });
  res.writeHead(answer.status, Object.fromEntries(answer.headers));
  res.end(Buffer.from(await answer.arrayBuffer()));
}

async function listen(onRequest: (held: Held) => void): Promise<Upstream> {
  const waiters: Array<{ count: number; wake: () => void }> = [];
  const server = createServer(async (req, res) => {
    const body = await readBody(req);
    upstream.received += 1;
    for (const waiter of waiters.filter((w) => upstream.received >= w.count)) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.wake();
    }
    onRequest({ req, body, res });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const upstream: Upstream = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received: 0,
    receivedAtLeast: (count) =>
      upstream.received >= count ? Promise.resolve() : new Promise((wake) => waiters.push({ count, wake })),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return upstream;
}

/** Forwards to `target` two requests at a time: each is held until another is in flight. */
export function pairs(target: string): Promise<Upstream> {
  const held: Held[] = [];
  return listen((request) => {
    held.push(request);
    if (held.length < 2) return;
    for (const pending of held.splice(0)) void forward(target, pending);
  });
}

/** Forwards to `target` the requests received, once `release()` is called (and at once after). */
export async function held(target: string): Promise<Upstream & { release(): void }> {
  const waiting: Held[] = [];
  let open = false;
  const upstream = await listen((request) => {
    if (open) void forward(target, request);
    else waiting.push(request);
  });
  return Object.assign(upstream, {
    release() {
      open = true;
      for (const request of waiting.splice(0)) void forward(target, request);
    },
  });
}

/** Receives requests and never answers them. */
export function hanging(): Promise<Upstream> {
  return listen(() => {});
}
