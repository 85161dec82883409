import { type AuthInfo, type Server, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';

/**
 * A 2025-era request (`initialize`, then each call on its own) that one JSON body answers: a single
 * message that asks for no progress. It is served as the SDK's stateless fallback serves it, by a
 * server of its own on a transport of its own, but answered with the JSON body rather than an SSE
 * stream of one event, which costs the server and the client less. Anything else (a batch, a call
 * that asks for progress, a body that is no JSON) goes to the SDK's handler as it is.
 */

/** True when the parsed body is one message whose answer is all it gets: no progress is asked for before it. */
export function answeredWhole(parsedBody: unknown): boolean {
  if (typeof parsedBody !== 'object' || parsedBody === null || Array.isArray(parsedBody)) return false;
  const params = (parsedBody as { params?: unknown }).params;
  if (typeof params !== 'object' || params === null) return true;
  const meta = (params as { _meta?: unknown })._meta;
  return typeof meta !== 'object' || meta === null || !('progressToken' in meta);
}

/** Serves the request on `server`; closes it, aborting the call, when the client goes away before the answer. */
export async function legacyExchange(
  server: Server,
  request: Request,
  parsedBody: unknown,
  authInfo: AuthInfo,
): Promise<Response> {
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  // Closing aborts the call's run. Once the call answered, nothing of the exchange is left open
  // (no stream, no timer): the server and its transport are dropped, not closed.
  const close = () => void server.close().catch(() => undefined);
  request.signal.addEventListener('abort', close, { once: true });
  if (request.signal.aborted) close();
  try {
    return await transport.handleRequest(request, { authInfo, parsedBody });
  } finally {
    request.signal.removeEventListener('abort', close);
  }
}
