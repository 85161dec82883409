import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { UsageError } from './usage.js';

/**
 * Where the authorization server sends the browser back after a sign-in (RFC 8252, 7.3): a
 * listener on 127.0.0.1 and a free port, for one redirect. A request to another path, or one
 * without the sign-in's `state`, is answered 404 or 400 and does not end the wait, so a stray
 * request or a forged redirect cannot take the sign-in's place; the first one carrying the
 * state is the redirect, and nothing more is accepted after it.
 */
export interface LoopbackRedirect {
  /** `http://127.0.0.1:<port><path>`, the redirect URI of the authorization request. */
  uri: string;
  /** The whole URL of the redirect that carried `state`; rejects when `signal` aborts or after `waitMs`. */
  received(state: string): Promise<URL>;
  /** Answers the browser's redirect with a short page and stops listening. */
  finish(ok: boolean, message: string): Promise<void>;
}

/** How long a person has to sign in. */
const WAIT_MS = 10 * 60_000;

export async function listenForRedirect(
  path: string,
  signal: AbortSignal,
  waitMs = WAIT_MS,
): Promise<LoopbackRedirect> {
  let expected: string | undefined;
  let arrived: ((url: URL) => void) | undefined;
  let browser: ServerResponse | undefined;
  const server = createServer((req, res) => {
    req.resume();
    const url = new URL(req.url ?? '/', `http://127.0.0.1:${port}`);
    if (browser || req.method !== 'GET' || url.pathname !== path) return page(res, 404, 'Not the sign-in redirect.');
    if (expected === undefined || url.searchParams.get('state') !== expected)
      return page(res, 400, 'This redirect does not carry the state of the sign-in under way; nothing was done.');
    browser = res;
    arrived?.(url);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const port = (server.address() as AddressInfo).port;
  const close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return {
    uri: `http://127.0.0.1:${port}${path}`,
    received(state) {
      expected = state;
      return new Promise<URL>((resolve, reject) => {
        const stop = AbortSignal.any([signal, AbortSignal.timeout(waitMs)]);
        const give = (error: Error) => {
          arrived = undefined;
          void close();
          reject(error);
        };
        if (stop.aborted) return give(new UsageError('the sign-in was cancelled'));
        stop.addEventListener('abort', () =>
          give(
            new UsageError(
              signal.aborted
                ? 'the sign-in was cancelled'
                : `no sign-in came back within ${waitMs / 60_000} minutes; run plugboard auth login again`,
            ),
          ),
        );
        arrived = resolve;
      });
    },
    async finish(ok, message) {
      // The page is written out before the connections are closed.
      if (browser) await new Promise<void>((resolve) => page(browser!, ok ? 200 : 400, message, resolve));
      await close();
    },
  };
}

function page(res: ServerResponse, status: number, message: string, written?: () => void): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
  res.end(`${message}\n`, written);
}
