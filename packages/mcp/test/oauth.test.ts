import {
  Client,
  type OAuthClientProvider,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from '@modelcontextprotocol/client';
import { items, startShopProvider } from '@plugboard/example-connector';
import { createTransport, type Transport } from '@plugboard/sdk';
import { manualClock } from '@plugboard/sdk/host';
import type { FaultServer } from '@plugboard/testing';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type AuthorizationServer, startAuthorizationServer } from '../../sdk/test/support/oauth.js';
import { type ProtectedResource, protectedResource, serveHttp } from '../src/index.js';
import { shopTools } from './support.js';

/**
 * The HTTP server as an OAuth 2.1 protected resource in front of a real authorization server
 * (oidc-provider, resource indicators on, JWT access tokens), on a clock the test drives: its
 * RFC 9728 metadata, a 401 pointing there without a valid token, and a call by the token's
 * subject with one. A token for another audience, from another issuer, expired, tampered or
 * without the scope the server needs is refused.
 */

const TOKEN = 'mcp-oauth-provider-token-8e1a';
const START = Date.UTC(2026, 0, 1);
const clock = manualClock(START);

let provider: FaultServer;
let transport: Transport;
let auth: AuthorizationServer;
let other: AuthorizationServer;
let served: { url: string; close(): Promise<void> };
let guard: ProtectedResource;
let guardOf: (
  request: Parameters<ProtectedResource['authenticate']>[0],
) => ReturnType<ProtectedResource['authenticate']>;

/** An access token of the client credentials grant, for the authorization server's resource. */
async function tokenFrom(server: AuthorizationServer, scope = 'mcp'): Promise<string> {
  const { clientId, clientSecret } = server.clients.post;
  const answer = await fetch(server.tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      scope,
      client_id: clientId,
      client_secret: clientSecret,
    }),
  });
  expect(answer.status).toBe(200);
  return ((await answer.json()) as { access_token: string }).access_token;
}

const callWith = (token?: string) =>
  fetch(served.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
  });

beforeAll(async () => {
  provider = await startShopProvider({ items: items(3), token: TOKEN });
  transport = createTransport();
  served = await serveHttp(shopTools(provider, transport, TOKEN), {
    authenticate: (request) => guardOf(request),
    routes: (request, response) => guard.routes(request, response),
  });
  auth = await startAuthorizationServer({ resource: served.url, scopes: ['mcp'], accessTokenTtl: 60, clock });
  other = await startAuthorizationServer({
    resource: 'http://127.0.0.1:9/elsewhere',
    scopes: ['mcp'],
    accessTokenTtl: 60,
    clock,
  });
  guard = protectedResource({ resource: served.url, authorizationServer: auth.issuer, scopes: ['mcp'], clock });
  guardOf = (request) => guard.authenticate(request);
});
afterAll(async () => {
  await served?.close();
  await auth?.stop();
  await other?.stop();
  await transport?.close();
  await provider?.close();
});

describe('an OAuth 2.1 protected resource', () => {
  test('publishes its RFC 9728 metadata naming the authorization server', async () => {
    const origin = new URL(served.url).origin;
    for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
      const answer = await fetch(`${origin}${path}`);
      expect(await answer.json()).toEqual({
        resource: served.url,
        authorization_servers: [auth.issuer],
        bearer_methods_supported: ['header'],
        scopes_supported: ['mcp'],
      });
    }
  });

  test('answers a call without a token 401, pointing at the metadata', async () => {
    const answer = await callWith();
    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${new URL(served.url).origin}/.well-known/oauth-protected-resource/mcp", scope="mcp"`,
    );
  });

  test("the official client calls a tool with the authorization server's token; the caller is its subject", async () => {
    const token = await tokenFrom(auth);
    const client = new Client({ name: 'plugboard-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(served.url), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    const page = await client.callTool({ name: 'shop_items_list', arguments: { limit: 3 } });
    expect((page.structuredContent as { records: unknown[] }).records).toHaveLength(3);
    await client.close();
  });

  test('the official client signs in by itself: discovery from the 401, the authorization code with PKCE, then a tool call', async () => {
    const native = auth.clients.native;
    const kept: { tokens?: unknown; verifier?: string; redirected?: URL } = {};
    const provider: OAuthClientProvider = {
      get redirectUrl() {
        return native.redirectUri;
      },
      get clientMetadata() {
        return {
          redirect_uris: [native.redirectUri],
          token_endpoint_auth_method: 'none',
          grant_types: ['authorization_code'],
          response_types: ['code'],
        };
      },
      clientInformation: () => ({ client_id: native.clientId }),
      tokens: () => kept.tokens as never,
      saveTokens: (tokens) => void (kept.tokens = tokens),
      // The reader's browser: the authorization server signs the person in and consents at once.
      redirectToAuthorization: async (url) => void (kept.redirected = await auth.completeAuthorization(url)),
      saveCodeVerifier: (verifier) => void (kept.verifier = verifier),
      codeVerifier: () => kept.verifier!,
    };
    const transportOf = () => new StreamableHTTPClientTransport(new URL(served.url), { authProvider: provider });
    const first = transportOf();
    await expect(new Client({ name: 'plugboard-test', version: '1.0.0' }).connect(first)).rejects.toThrow(
      UnauthorizedError,
    );
    const redirected = kept.redirected!;
    expect(redirected.searchParams.get('code')).toBeTruthy();
    await first.finishAuth(redirected.searchParams);
    const client = new Client({ name: 'plugboard-test', version: '1.0.0' });
    await client.connect(transportOf());
    const page = await client.callTool({ name: 'shop_items_list', arguments: { limit: 2 } });
    expect((page.structuredContent as { records: unknown[] }).records).toHaveLength(2);
    await client.close();
  });

  test('refuses a token of another issuer, for another audience, tampered, expired or without the scope', async () => {
    const foreign = await tokenFrom(other);
    expect((await callWith(foreign)).status).toBe(401);
    // Trusting the other server, its token still names another audience.
    const trusting = protectedResource({ resource: served.url, authorizationServer: other.issuer, clock });
    guardOf = (request) => trusting.authenticate(request);
    expect((await callWith(foreign)).status).toBe(401);
    guardOf = (request) => guard.authenticate(request);
    const token = await tokenFrom(auth);
    const [head, body, signature] = token.split('.');
    const claims = JSON.parse(Buffer.from(body!, 'base64url').toString()) as Record<string, unknown>;
    const tampered = `${head}.${Buffer.from(JSON.stringify({ ...claims, sub: 'someone-else' })).toString('base64url')}.${signature}`;
    const refused = await callWith(tampered);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect(await refused.text()).not.toContain(token.slice(-20));
    const scoped = protectedResource({
      resource: served.url,
      authorizationServer: auth.issuer,
      scopes: ['admin'],
      clock,
    });
    guardOf = (request) => scoped.authenticate(request);
    const narrow = await callWith(token);
    expect(narrow.status).toBe(403);
    expect(narrow.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
    guardOf = (request) => guard.authenticate(request);
    expect((await callWith(token)).status).toBe(200);
    await clock.advance(61_000 + 5_000);
    expect((await callWith(token)).status).toBe(401);
  });
});
