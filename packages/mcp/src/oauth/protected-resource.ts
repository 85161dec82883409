import type { IncomingMessage, ServerResponse } from 'node:http';
import { type Clock, systemClock } from '@plugboard/sdk/host';
import { createRemoteJWKSet, type JWTVerifyGetKey, jwtVerify } from 'jose';
import type { Authenticate } from '../serve.js';

/**
 * The MCP server as an OAuth 2.1 protected resource, never an authorization server: it
 * publishes its RFC 9728 metadata naming the authorization server, answers a request without a
 * valid token 401 with `WWW-Authenticate` pointing there, and takes only JWT access tokens whose
 * signature (the authorization server's JWKS, found from its metadata), issuer, audience (this
 * server's canonical URL, RFC 8707), expiry and scopes hold. The subject is the caller. A
 * refusal never says which check failed beyond the standard error code, and the token is never
 * logged or quoted.
 */

export interface ProtectedResourceOptions {
  /** This server's MCP endpoint, e.g. `https://mcp.example.com/mcp`: the audience tokens must name. */
  resource: string;
  /** The authorization server's issuer URL. */
  authorizationServer: string;
  /** Scopes every call needs (default none). */
  scopes?: readonly string[];
  /** Seconds of clock skew allowed on `exp` and `nbf` (default 5). */
  leewaySeconds?: number;
  clock?: Clock;
}

export interface ProtectedResource {
  /** Serves the metadata documents; true when it answered. */
  routes(request: IncomingMessage, response: ServerResponse): boolean;
  authenticate: Authenticate;
  /** Where the metadata is, as `WWW-Authenticate` says. */
  metadataUrl: string;
}

const WELL_KNOWN = '/.well-known/oauth-protected-resource';
const MAX_TOKEN_CHARS = 8192;

/** RFC 8707's canonical URI: lower-case scheme and host, no fragment, no trailing slash but for the root. */
export function canonicalResource(resource: string): string {
  const url = new URL(resource);
  url.hash = '';
  const text = url.href;
  return url.pathname !== '/' && text.endsWith('/') ? text.slice(0, -1) : text;
}

/** The JWKS of the authorization server, from its metadata, fetched once and kept (jose refreshes it on an unknown key). */
function keysOf(issuer: string): JWTVerifyGetKey {
  let keys: Promise<JWTVerifyGetKey> | undefined;
  const discover = async () => {
    for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
      const answer = await fetch(new URL(path, issuer));
      if (!answer.ok) continue;
      const { jwks_uri: jwksUri } = (await answer.json()) as { jwks_uri?: string };
      if (typeof jwksUri === 'string') return createRemoteJWKSet(new URL(jwksUri));
    }
    throw new Error(`no JWKS found in the metadata of ${issuer}`);
  };
  return async (header, token) => {
    keys ??= discover().catch((error: unknown) => {
      keys = undefined;
      throw error;
    });
    return (await keys)(header, token);
  };
}

export function protectedResource(options: ProtectedResourceOptions): ProtectedResource {
  const resource = canonicalResource(options.resource);
  const { origin, pathname } = new URL(resource);
  const metadataUrl = `${origin}${WELL_KNOWN}${pathname === '/' ? '' : pathname}`;
  const required = options.scopes ?? [];
  const clock = options.clock ?? systemClock;
  const keys = keysOf(options.authorizationServer);
  const metadata = JSON.stringify({
    resource,
    authorization_servers: [options.authorizationServer],
    bearer_methods_supported: ['header'],
    ...(required.length > 0 ? { scopes_supported: required } : {}),
  });
  const challenge = (error?: string) => ({
    'www-authenticate': `Bearer resource_metadata="${metadataUrl}"${error ? `, error="${error}"` : ''}${required.length > 0 ? `, scope="${required.join(' ')}"` : ''}`,
  });
  return {
    metadataUrl,
    routes(request, response) {
      const path = (request.url ?? '').split('?', 1)[0];
      if (request.method !== 'GET' || (path !== WELL_KNOWN && path !== new URL(metadataUrl).pathname)) return false;
      response.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=3600' }).end(metadata);
      return true;
    },
    async authenticate(request) {
      const header = request.headers.authorization ?? '';
      const match = /^Bearer ([A-Za-z0-9._~+/-]+=*)$/.exec(header);
      if (!match || match[1]!.length > MAX_TOKEN_CHARS)
        return { status: 401, headers: challenge(header ? 'invalid_token' : undefined) };
      let payload: { sub?: unknown; scope?: unknown };
      try {
        ({ payload } = await jwtVerify(match[1]!, keys, {
          issuer: options.authorizationServer,
          audience: resource,
          clockTolerance: options.leewaySeconds ?? 5,
          currentDate: new Date(clock.now()),
          requiredClaims: ['exp', 'sub'],
        }));
      } catch {
        return { status: 401, headers: challenge('invalid_token') };
      }
      const granted = new Set(typeof payload.scope === 'string' ? payload.scope.split(' ') : []);
      if (!required.every((scope) => granted.has(scope)))
        return { status: 403, headers: challenge('insufficient_scope') };
      return { subject: String(payload.sub) };
    },
  };
}
