import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

/** `GET /metrics` in Prometheus' text format; anything else is 404. */

export interface MetricsServer {
  /** Where Prometheus scrapes it: `http://HOST:PORT/metrics`. */
  url: string;
  close(): Promise<void>;
}

/** Serves a prom-client registry on `host:port` (0: any free one), as the worker and the trigger receiver do. */
export async function serveMetrics(registry: Registry, port: number, host: string): Promise<MetricsServer> {
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new RangeError(`metricsPort must be a whole number from 0 to 65535, not ${port}`);
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
      res.writeHead(404).end();
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
      () => res.writeHead(500).end(),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shownHost}:${address.port}/metrics`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
