import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { toWebRequest } from '@modelcontextprotocol/node';
import { type AuthInfo, createMcpHandler } from '@modelcontextprotocol/server';
import { serveStdio as serveStdioFactory, StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { mcpServer, type ServerOptions } from './server.js';

/**
 * The two ways an agent reaches the tools: stdio (one connection, the caller named by the host)
 * and Streamable HTTP, stateless: a fresh server for each request at `/mcp`, so any number of
 * processes can serve behind a balancer. A request body over `maxBodyBytes` is answered 413
 * before anything is parsed. Over HTTP the caller is the subject `authenticate` gives; a host
 * may also serve other routes beside `/mcp` (an approval page, the protected-resource document).
 */

export type ToolServerOptions = Omit<ServerOptions, 'callerOf'>;

export interface StdioOptions {
  /** Who calls over this connection: approvals need a person other than this one. */
  caller: string;
  stdin?: NodeJS.ReadableStream;
  stdout?: NodeJS.WritableStream;
}

/** Serves the tools on stdin and stdout until the client closes its end; gives a way to close first. */
export function serveStdio(options: ToolServerOptions, stdio: StdioOptions): { close(): Promise<void> } {
  const transport = new StdioServerTransport(
    (stdio.stdin ?? process.stdin) as never,
    (stdio.stdout ?? process.stdout) as never,
  );
  return serveStdioFactory(() => mcpServer({ ...options, callerOf: () => stdio.caller }), { transport });
}

/** Who a request comes from, or the answer that refuses it (401 with `WWW-Authenticate`, say). */
export type Authenticate = (
  request: IncomingMessage,
) => Promise<{ subject: string } | { status: number; headers: Record<string, string>; body?: string }>;

export interface HttpOptions {
  port?: number;
  host?: string;
  /** Default 1 MB. */
  maxBodyBytes?: number;
  /** Without it every request is the anonymous caller `anonymous`, which suits a loopback test only. */
  authenticate?: Authenticate;
  /** Other routes: true when it answered the request. */
  routes?: (request: IncomingMessage, response: ServerResponse) => boolean | Promise<boolean>;
}

export const MCP_PATH = '/mcp';
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** The caller a request's server answers: the subject it was authenticated as. */
const subjectOf = (authInfo: AuthInfo | undefined): string => {
  const subject = authInfo?.extra?.subject;
  return typeof subject === 'string' ? subject : 'anonymous';
};

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);
const LOOPBACK_NAME = /^(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/i;

/**
 * DNS rebinding: a server on a loopback address answers only requests that name a loopback host
 * (`Host`), and from a loopback page when a browser says where it comes from (`Origin`).
 */
function fromThisHost(request: IncomingMessage, loopback: boolean): boolean {
  if (!loopback) return true;
  if (!LOOPBACK_NAME.test(request.headers.host ?? '')) return false;
  const origin = request.headers.origin;
  if (origin === undefined) return true;
  try {
    return LOOPBACK_NAME.test(new URL(origin).host);
  } catch {
    return false;
  }
}

/** Writes a web Response to Node's response, streaming its body (an SSE stream included). */
async function writeResponse(answer: Response, response: ServerResponse): Promise<void> {
  response.writeHead(answer.status, Object.fromEntries(answer.headers));
  if (!answer.body) return void response.end();
  const body = Readable.fromWeb(answer.body as never);
  response.once('close', () => body.destroy());
  body.pipe(response);
}

export async function serveHttp(
  options: ToolServerOptions,
  http: HttpOptions = {},
): Promise<{ url: string; close(): Promise<void> }> {
  const maxBodyBytes = http.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const loopback = LOOPBACK.has(http.host ?? '127.0.0.1');
  const handler = createMcpHandler(
    (context) => mcpServer({ ...options, callerOf: () => subjectOf(context.authInfo) }),
    {
      maxRequestBodySize: maxBodyBytes,
    },
  );
  const serve = async (request: IncomingMessage, response: ServerResponse) => {
    if (http.routes && (await http.routes(request, response))) return;
    if (!fromThisHost(request, loopback)) {
      response.writeHead(403, { 'content-type': 'text/plain' }).end('forbidden host');
      return;
    }
    if ((request.url ?? '').split('?', 1)[0] !== MCP_PATH) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    const who = http.authenticate ? await http.authenticate(request) : { subject: 'anonymous' };
    if (!('subject' in who)) {
      response.writeHead(who.status, who.headers).end(who.body ?? '');
      return;
    }
    const cancelled = new AbortController();
    response.once('close', () => cancelled.abort());
    let web: Request;
    try {
      web = await toWebRequest(request as never, undefined, {
        signal: cancelled.signal,
        maxRequestBodySize: maxBodyBytes,
      });
    } catch (error) {
      const status = (error as { status?: number }).status === 413 ? 413 : 400;
      response
        .writeHead(status, { 'content-type': 'text/plain', connection: 'close' })
        .end(status === 413 ? 'request too large' : 'bad request');
      return;
    }
    const authInfo: AuthInfo = { token: '', clientId: who.subject, scopes: [], extra: { subject: who.subject } };
    await writeResponse(await handler.fetch(web, { authInfo }), response);
  };
  const server = createServer((request, response) => {
    serve(request, response).catch(() => {
      if (!response.headersSent) response.writeHead(500, { 'content-type': 'text/plain' }).end('internal error');
      else response.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(http.port ?? 0, http.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}${MCP_PATH}`,
    close: async () => {
      await handler.close?.();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
