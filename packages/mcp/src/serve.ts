import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type AuthInfo, createMcpHandler, isJsonContentType, isLegacyRequest } from '@modelcontextprotocol/server';
import { serveStdio as serveStdioFactory, StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { parsedJson, readBody, webRequest, writeResponse } from './http-exchange.js';
import { answeredWhole, legacyExchange } from './http-legacy.js';
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

const refuse = (response: ServerResponse, status: number, text: string, headers: Record<string, string> = {}) =>
  void response.writeHead(status, { 'content-type': 'text/plain', ...headers }).end(text);

/**
 * The MCP exchange of one request at `/mcp`, its caller known. The body is read once and parsed
 * once; a single 2025-era message that asks for no progress is answered with one JSON body on a
 * server of its own, anything else by the SDK's handler (a 2026 request, a batch, a call that
 * reports progress over SSE, a body that is no JSON and gets the protocol's error).
 */
function mcpExchange(options: ToolServerOptions, maxBodyBytes: number) {
  const serverOf = (authInfo: AuthInfo | undefined) => mcpServer({ ...options, callerOf: () => subjectOf(authInfo) });
  const handler = createMcpHandler((context) => serverOf(context.authInfo), { maxRequestBodySize: maxBodyBytes });
  const answer = async (web: Request, parsedBody: unknown, authInfo: AuthInfo): Promise<Response> => {
    if (answeredWhole(parsedBody) && (await isLegacyRequest(web, parsedBody)))
      return legacyExchange(serverOf(authInfo), web, parsedBody, authInfo);
    return handler.fetch(web, { authInfo, parsedBody });
  };
  const exchange = async (request: IncomingMessage, response: ServerResponse, subject: string) => {
    const text = await readBody(request, maxBodyBytes).catch(() => null);
    if (text === undefined) return refuse(response, 413, 'request too large', { connection: 'close' });
    // The client going away before the answer is written aborts the call's run.
    const gone = new AbortController();
    response.once('close', () => {
      if (!response.writableFinished) gone.abort();
    });
    const json = text !== null && isJsonContentType(request.headers['content-type'] ?? null);
    const parsedBody = json ? parsedJson(text) : undefined;
    // A body cut short, or a Host no URL can hold.
    const web =
      text === null ? undefined : webRequest(request, gone.signal, parsedBody === undefined ? text : undefined);
    if (!web) return refuse(response, 400, 'bad request', { connection: 'close' });
    const authInfo: AuthInfo = { token: '', clientId: subject, scopes: [], extra: { subject } };
    await writeResponse(await answer(web, parsedBody, authInfo), response);
  };
  return { exchange, close: () => handler.close() };
}

export async function serveHttp(
  options: ToolServerOptions,
  http: HttpOptions = {},
): Promise<{ url: string; close(): Promise<void> }> {
  const loopback = LOOPBACK.has(http.host ?? '127.0.0.1');
  const mcp = mcpExchange(options, http.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES);
  const serve = async (request: IncomingMessage, response: ServerResponse) => {
    if (http.routes && (await http.routes(request, response))) return;
    if (!fromThisHost(request, loopback)) return refuse(response, 403, 'forbidden host');
    if ((request.url ?? '').split('?', 1)[0] !== MCP_PATH) return refuse(response, 404, 'not found');
    const who = http.authenticate ? await http.authenticate(request) : { subject: 'anonymous' };
    if (!('subject' in who)) return void response.writeHead(who.status, who.headers).end(who.body ?? '');
    await mcp.exchange(request, response, who.subject);
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
      await mcp.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
