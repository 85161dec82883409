import { createServer, type IncomingMessage, request } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A pass-through HTTP proxy on a free port of 127.0.0.1 in front of a provider that counts the
 * requests `counts` accepts and awaits `arrived(n)` as the nth arrives, before it goes on: a test
 * acts at an instant the provider's side counted, and the request waits for it.
 */
export interface GateProxy {
  url: string;
  /** Requests counted so far. */
  readonly counted: number;
  close(): Promise<void>;
}

export async function startGateProxy(
  target: string,
  counts: (incoming: IncomingMessage) => boolean,
  arrived: (count: number) => void | Promise<void>,
): Promise<GateProxy> {
  const upstream = new URL(target);
  let counted = 0;
  const server = createServer(async (incoming, answer) => {
    answer.on('error', () => {});
    incoming.on('error', () => {});
    if (counts(incoming)) await arrived(++counted);
    const options = { host: upstream.hostname, port: upstream.port, method: incoming.method, path: incoming.url };
    const forwarded = request({ ...options, headers: incoming.headers }, (response) => {
      answer.writeHead(response.statusCode ?? 502, response.headers);
      response.pipe(answer);
    });
    forwarded.on('error', () => answer.destroy());
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${upstream.pathname}`,
    get counted() {
      return counted;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
