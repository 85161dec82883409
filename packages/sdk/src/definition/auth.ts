/**
 * How a connection authenticates: schemes are data on the connector. The credential itself
 * never lives in a definition or a connection: the host resolves it from its vault at run time,
 * in the shape its scheme asks for (credentials.ts).
 */

export type AuthScheme =
  | BearerScheme
  | ApiKeyHeaderScheme
  | ApiKeyQueryScheme
  | BasicScheme
  | OAuth2ClientCredentialsScheme
  | OAuth2AuthorizationCodeScheme
  | CustomScheme;

/** What every scheme has: the name a connection picks it by. */
export interface AuthSchemeBase {
  /**
   * The name a connection picks the scheme by (`settings.authScheme`), in lower case.
   * @example id: 'bearer'
   */
  id: string;
}

/** `Authorization: Bearer <credential>`; made with `bearerToken()`. */
export interface BearerScheme extends AuthSchemeBase {
  type: 'bearer';
}

/** The credential in a named header, after an optional prefix; made with `apiKeyHeader(header)`. */
export interface ApiKeyHeaderScheme extends AuthSchemeBase {
  type: 'api_key_header';
  /**
   * The header the credential is sent in.
   * @example header: 'X-Api-Key'
   */
  header: string;
  /**
   * Written before the credential in the header.
   * @example prefix: 'Token '
   * @default none
   */
  prefix?: string;
}

/** The credential in a query parameter; made with `apiKeyQuery(parameter)`. */
export interface ApiKeyQueryScheme extends AuthSchemeBase {
  type: 'api_key_query';
  /**
   * The query parameter the credential is sent in.
   * @example parameter: 'api_key'
   */
  parameter: string;
}

/** `Authorization: Basic base64(username:password)`; made with `basicAuth()`. */
export interface BasicScheme extends AuthSchemeBase {
  type: 'basic';
}

/** How an OAuth2 client proves itself at the token endpoint. */
export type ClientAuthMethod = 'header' | 'body';

/** What both OAuth2 schemes have. */
export interface OAuth2SchemeBase extends AuthSchemeBase {
  /**
   * The token endpoint: https, or http on a loopback address only.
   * @example tokenUrl: 'https://auth.example.com/oauth/token'
   */
  tokenUrl: string;
  /**
   * The scopes asked for.
   * @example scopes: ['projects:read']
   * @default []
   */
  scopes: readonly string[];
  /**
   * True when the provider grants nothing without a scope: declaring no scopes is then refused.
   * @default false
   */
  scopesRequired?: boolean;
  /**
   * `header`: client id and secret in HTTP Basic (client_secret_basic); `body`: in the form (client_secret_post).
   * @default 'header'
   */
  clientAuth: ClientAuthMethod;
}

/** OAuth2 client credentials: the connection acts as itself; made with `oauth2ClientCredentials(...)`. */
export interface OAuth2ClientCredentialsScheme extends OAuth2SchemeBase {
  type: 'oauth2_client_credentials';
  /**
   * The API the token is for, when the provider asks for one.
   * @example audience: 'https://api.example.com'
   */
  audience?: string;
}

/** OAuth2 authorization code with PKCE S256: a person signs in; made with `oauth2AuthorizationCode(...)`. */
export interface OAuth2AuthorizationCodeScheme extends OAuth2SchemeBase {
  type: 'oauth2_authorization_code';
  /**
   * Where a person signs in: https, or http on a loopback address only.
   * @example authorizeUrl: 'https://auth.example.com/oauth/authorize'
   */
  authorizeUrl: string;
  /**
   * Further parameters of the authorize request.
   * @example extraAuthorizeParams: { access_type: 'offline', prompt: 'consent' }
   */
  extraAuthorizeParams?: Readonly<Record<string, string>>;
  /** Always `S256`: the authorization code is bound to the client that asked for it. */
  pkce: 'S256';
}

/** A copy of a request about to be sent, as a custom scheme's signer sees it. */
export interface SignableRequest {
  method: string;
  /** The whole URL, query included. */
  url: string;
  /** Lower-case names. */
  headers: Readonly<Record<string, string>>;
  /** The body as sent, when there is one. */
  body: string | undefined;
}

/** What a signer adds to the request: headers, query parameters, or both. */
export interface SignedParts {
  headers?: Record<string, string>;
  query?: Record<string, string>;
}

/** A scheme whose function signs each outgoing request (HMAC-signed APIs); made with `customAuth(...)`. */
export interface CustomScheme extends AuthSchemeBase {
  type: 'custom';
  /**
   * Called for every request to the provider's origin with the credential and a copy of the
   * request; returns what to add. Gets no logger: what it returns is redacted everywhere.
   */
  sign(request: SignableRequest, credential: string): SignedParts | Promise<SignedParts>;
}

/**
 * `Authorization: Bearer <credential>`.
 * @example auth: bearerToken()
 */
export function bearerToken(): BearerScheme {
  return { type: 'bearer', id: 'bearer' };
}

/**
 * The credential in a named header such as `X-Api-Key`, after an optional prefix.
 * @example auth: [bearerToken(), apiKeyHeader('X-Api-Key'), apiKeyHeader('Authorization', { prefix: 'Token ' })]
 */
export function apiKeyHeader(header: string, options: { prefix?: string; id?: string } = {}): ApiKeyHeaderScheme {
  return {
    type: 'api_key_header',
    id: options.id ?? header.toLowerCase(),
    header,
    ...(options.prefix === undefined ? {} : { prefix: options.prefix }),
  };
}

/**
 * The credential in a query parameter of every request to the provider.
 * @example auth: apiKeyQuery('api_key')
 */
export function apiKeyQuery(parameter: string, options: { id?: string } = {}): ApiKeyQueryScheme {
  return { type: 'api_key_query', id: options.id ?? `query:${parameter.toLowerCase()}`, parameter };
}

/**
 * HTTP Basic: the host supplies `{ username, password }`.
 * @example auth: basicAuth()
 */
export function basicAuth(options: { id?: string } = {}): BasicScheme {
  return { type: 'basic', id: options.id ?? 'basic' };
}

/** What both OAuth2 factories take; what is left out takes the default the scheme's field names. */
export interface OAuth2SchemeOptions {
  /** The token endpoint: https, or http on a loopback address only. */
  tokenUrl: string;
  /** The scopes asked for; default none. */
  scopes?: readonly string[];
  /** True when the provider grants nothing without a scope. */
  scopesRequired?: boolean;
  /** How the client proves itself at the token endpoint; default `header`. */
  clientAuth?: ClientAuthMethod;
  /** The name a connection picks the scheme by; default the scheme's type. */
  id?: string;
}

/**
 * OAuth2 client credentials.
 * @example auth: oauth2ClientCredentials({ tokenUrl: 'https://auth.example.com/token', scopes: ['read'] })
 */
export function oauth2ClientCredentials(
  options: OAuth2SchemeOptions & { audience?: string },
): OAuth2ClientCredentialsScheme {
  return {
    type: 'oauth2_client_credentials',
    id: options.id ?? 'oauth2_client_credentials',
    tokenUrl: options.tokenUrl,
    scopes: Object.freeze([...(options.scopes ?? [])]),
    ...(options.scopesRequired === undefined ? {} : { scopesRequired: options.scopesRequired }),
    ...(options.audience === undefined ? {} : { audience: options.audience }),
    clientAuth: options.clientAuth ?? 'header',
  };
}

/**
 * OAuth2 authorization code with PKCE S256, always: `pkce` other than `'S256'` is refused by `defineConnector`.
 * @example auth: oauth2AuthorizationCode({ authorizeUrl: 'https://auth.example.com/authorize', tokenUrl: 'https://auth.example.com/token', scopes: ['read'] })
 */
export function oauth2AuthorizationCode(
  options: OAuth2SchemeOptions & {
    authorizeUrl: string;
    extraAuthorizeParams?: Record<string, string>;
    /** PKCE is always on; any other value is refused when the connector is defined. */
    pkce?: 'S256';
  },
): OAuth2AuthorizationCodeScheme {
  return {
    type: 'oauth2_authorization_code',
    id: options.id ?? 'oauth2_authorization_code',
    authorizeUrl: options.authorizeUrl,
    tokenUrl: options.tokenUrl,
    scopes: Object.freeze([...(options.scopes ?? [])]),
    ...(options.scopesRequired === undefined ? {} : { scopesRequired: options.scopesRequired }),
    ...(options.extraAuthorizeParams === undefined
      ? {}
      : { extraAuthorizeParams: Object.freeze({ ...options.extraAuthorizeParams }) }),
    clientAuth: options.clientAuth ?? 'header',
    pkce: options.pkce ?? 'S256',
  };
}

/**
 * A scheme whose function signs every request to the provider's origin.
 * @example auth: customAuth({ id: 'hmac', sign: (request, secret) => ({ headers: { 'x-signature': hmac(secret, request.body ?? '') } }) })
 */
export function customAuth(options: { id: string; sign: CustomScheme['sign'] }): CustomScheme {
  return { type: 'custom', id: options.id, sign: options.sign };
}

/** An HTTP header name (RFC 9110 token). */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** A query parameter name a scheme may use: printable, nothing a URL gives meaning to. */
const PARAMETER = /^[A-Za-z0-9._~-]+$/;
const SCHEME_ID = /^[a-z0-9][a-z0-9_:.-]*$/;
/** Headers the transport writes itself: a scheme cannot own them. */
const RESERVED_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'content-type']);

export function isHeaderName(name: unknown): name is string {
  return typeof name === 'string' && TOKEN.test(name);
}

function isLoopback(hostname: string): boolean {
  if (hostname === 'localhost' || hostname === '[::1]') return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

/** https, or http to a loopback address (a local test server): a token never crosses a network in clear. */
function endpointProblem(field: string, value: unknown): string | undefined {
  if (typeof value !== 'string') return `${field} must be a URL`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `${field} must be an absolute URL`;
  }
  if (url.username || url.password) return `${field} must not carry credentials`;
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && isLoopback(url.hostname)) return undefined;
  return `${field} must be https (http only to 127.0.0.0/8, ::1 or localhost), not ${url.protocol.replace(':', '')}://${url.host}`;
}

function oauth2Problems(scheme: OAuth2ClientCredentialsScheme | OAuth2AuthorizationCodeScheme): string[] {
  const problems: string[] = [];
  const tokenUrl = endpointProblem('tokenUrl', scheme.tokenUrl);
  if (tokenUrl) problems.push(tokenUrl);
  if (!Array.isArray(scheme.scopes) || scheme.scopes.some((scope) => typeof scope !== 'string' || !/^\S+$/.test(scope)))
    problems.push('scopes must be a list of scope names without spaces');
  else if (scheme.scopesRequired && scheme.scopes.length === 0)
    problems.push('the provider grants nothing without a scope (scopesRequired): declare the scopes the actions need');
  if (scheme.clientAuth !== 'header' && scheme.clientAuth !== 'body')
    problems.push(`clientAuth must be 'header' or 'body', not ${JSON.stringify(scheme.clientAuth)}`);
  if (scheme.type === 'oauth2_authorization_code') {
    const authorizeUrl = endpointProblem('authorizeUrl', scheme.authorizeUrl);
    if (authorizeUrl) problems.push(authorizeUrl);
    if (scheme.pkce !== 'S256')
      problems.push(
        "PKCE S256 is always used for the authorization code flow; leave pkce out (only 'S256' is accepted)",
      );
  }
  return problems;
}

/** What is wrong with one scheme, without the connector's and scheme's names (the caller adds them). */
export function schemeProblems(scheme: AuthScheme): string[] {
  const problems: string[] = [];
  if (typeof scheme.id !== 'string' || !SCHEME_ID.test(scheme.id))
    problems.push('the id must be lower case letters, digits, _, -, . or :');
  switch (scheme.type) {
    case 'bearer':
    case 'basic':
      break;
    case 'api_key_header':
      if (!isHeaderName(scheme.header)) problems.push(`${JSON.stringify(scheme.header)} is not a valid header name`);
      else if (RESERVED_HEADERS.has(scheme.header.toLowerCase()))
        problems.push(`the header ${scheme.header} is written by the transport, not by a scheme`);
      if (scheme.prefix !== undefined && (typeof scheme.prefix !== 'string' || !/^[\x20-\x7e]*$/.test(scheme.prefix)))
        problems.push('the prefix must be printable ASCII text');
      break;
    case 'api_key_query':
      if (typeof scheme.parameter !== 'string' || !PARAMETER.test(scheme.parameter))
        problems.push(`${JSON.stringify(scheme.parameter)} is not a valid query parameter name`);
      break;
    case 'oauth2_client_credentials':
    case 'oauth2_authorization_code':
      problems.push(...oauth2Problems(scheme));
      break;
    case 'custom':
      if (typeof scheme.sign !== 'function') problems.push('sign must be a function');
      break;
    default:
      problems.push(`unknown scheme type ${JSON.stringify((scheme as { type: unknown }).type)}`);
  }
  return problems;
}
