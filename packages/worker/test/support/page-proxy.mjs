// A pass-through HTTP proxy on a free port of 127.0.0.1 in front of a provider, counting its page
// requests (GET .../projects): `listener(n, 'arrived')` when the nth arrives, before it goes on,
// and `listener(n, 'answered')` once its answer was sent. The crash test and the sink bench kill
// a worker at such instants: counted by the provider's side, not timed.
import { createServer, request } from 'node:http';

export async function startPageProxy(target, listener) {
  const upstream = new URL(target);
  let pages = 0;
  const server = createServer((incoming, answer) => {
    answer.on('error', () => {});
    incoming.on('error', () => {});
    const page = incoming.method === 'GET' && new URL(incoming.url, upstream).pathname.endsWith('/projects');
    const count = page ? ++pages : 0;
    if (page) listener(count, 'arrived');
    const options = { host: upstream.hostname, port: upstream.port, method: incoming.method, path: incoming.url };
    const forwarded = request({ ...options, headers: incoming.headers }, (response) => {
      answer.writeHead(response.statusCode ?? 502, response.headers);
      if (page) answer.once('finish', () => listener(count, 'answered'));
      response.pipe(answer);
    });
    forwarded.on('error', () => answer.destroy());
    incoming.pipe(forwarded);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}${upstream.pathname}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
