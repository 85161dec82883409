/**
 * How a connection authenticates. The credential itself never lives in a
 * definition or a connection: the host resolves it from its vault at run time.
 */

export type AuthScheme = { type: 'bearer'; id: 'bearer' } | { type: 'api_key_header'; id: string; header: string };

/** `Authorization: Bearer <credential>`. */
export function bearerToken(): AuthScheme {
  return { type: 'bearer', id: 'bearer' };
}

/** The credential as is, in a named header such as `X-Api-Key`. */
export function apiKeyHeader(header: string): AuthScheme {
  return { type: 'api_key_header', id: header.toLowerCase(), header };
}

/** The header a scheme sends the credential in. */
export function authHeader(scheme: AuthScheme, credential: string): [name: string, value: string] {
  return scheme.type === 'bearer'
    ? ['authorization', `Bearer ${credential}`]
    : [scheme.header.toLowerCase(), credential];
}
