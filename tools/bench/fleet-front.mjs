// The provider's rate limit in tools/bench/fleet.mjs: a pass-through proxy on 127.0.0.1 that
// keeps a strict sliding window counted at each request's arrival: past `n` admitted in
// `periodMs` it answers 429 with `Retry-After` and does not pass the request on. Not a benchmark
// itself.
import { once } from 'node:events';
import { createServer } from 'node:http';
import { forwarder } from './lib.mjs';

export async function startFront(target, { n, periodMs }) {
  const upstream = new URL(target);
  const window = { n, periodMs, arrivals: [], admitted: 0, rejected: 0, first: undefined, last: undefined };
  const forward = forwarder(target);
  /** Whether the window admits a request arriving now; counts it either way. */
  const admits = () => {
    const now = performance.now();
    while (window.arrivals.length > 0 && window.arrivals[0] <= now - window.periodMs) window.arrivals.shift();
    if (window.arrivals.length >= window.n) {
      window.rejected += 1;
      return false;
    }
    window.arrivals.push(now);
    window.first ??= now;
    window.last = now;
    window.admitted += 1;
    return true;
  };
  const server = createServer((incoming, answer) => {
    if (!admits()) {
      const wait = Math.ceil((window.arrivals[0] + window.periodMs - performance.now()) / 1000);
      incoming.resume();
      answer.writeHead(429, { 'content-type': 'application/json', 'retry-after': String(Math.max(1, wait)) });
      answer.end('{"error":"rate_limited"}');
      return;
    }
    forward(incoming, answer);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${server.address().port}${upstream.pathname}`,
    /** What the window counted: admitted, 429s, and the windows of `periodMs` from the first admitted to the last. */
    window() {
      const span = window.last - window.first;
      return { admitted: window.admitted, rejected: window.rejected, windows: Math.floor(span / window.periodMs) + 1 };
    },
    close: () => server.close(),
  };
}
