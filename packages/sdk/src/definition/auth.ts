/**
 * How a connection authenticates. The credential itself never lives in a
 * definition or a connection: the host resolves it from its vault at run time.
 */

export type AuthScheme = BearerScheme | ApiKeyHeaderScheme;

/** `Authorization: Bearer <credential>`; made with `bearerToken()`. */
export interface BearerScheme {
  type: 'bearer';
  /**
   * The name a connection picks the scheme by (`settings.authScheme`).
   * @example id: 'bearer'
   */
  id: 'bearer';
}

/** The credential as is, in a named header; made with `apiKeyHeader(header)`. */
export interface ApiKeyHeaderScheme {
  type: 'api_key_header';
  /**
   * The name a connection picks the scheme by (`settings.authScheme`): the header in lower case.
   * @example id: 'x-api-key'
   */
  id: string;
  /**
   * The header the credential is sent in.
   * @example header: 'X-Api-Key'
   */
  header: string;
}

/**
 * `Authorization: Bearer <credential>`.
 * @example auth: bearerToken()
 */
export function bearerToken(): AuthScheme {
  return { type: 'bearer', id: 'bearer' };
}

/**
 * The credential as is, in a named header such as `X-Api-Key`.
 * @example auth: [bearerToken(), apiKeyHeader('X-Api-Key')]
 */
export function apiKeyHeader(header: string): AuthScheme {
  return { type: 'api_key_header', id: header.toLowerCase(), header };
}

/** The header a scheme sends the credential in. */
export function authHeader(scheme: AuthScheme, credential: string): [name: string, value: string] {
  return scheme.type === 'bearer'
    ? ['authorization', `Bearer ${credential}`]
    : [scheme.header.toLowerCase(), credential];
}
