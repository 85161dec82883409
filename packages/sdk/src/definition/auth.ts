/**
 * How a connection authenticates: schemes are data on the connector, made by the constructors
 * of auth/schemes/ (one file per type, with all the SDK does for that type). The credential
 * itself never lives in a definition or a connection: the host resolves it from its vault at
 * run time, in the shape its scheme asks for.
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
  clientAuth: 'header' | 'body';
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
   * request as it is about to be sent; returns what to add. Gets no logger: what it returns is redacted everywhere.
   */
  sign(
    request: {
      method: string;
      /** The whole URL, query included. */
      url: string;
      /** Lower-case names. */
      headers: Readonly<Record<string, string>>;
      /** The body as sent, when there is one. */
      body: string | undefined;
    },
    credential: string,
  ): SignedParts | Promise<SignedParts>;
}

/** What both OAuth2 factories take; what is left out takes the default the scheme's field names. */
export interface OAuth2SchemeOptions {
  /** The token endpoint: https, or http on a loopback address only. */
  tokenUrl: string;
  /** The scopes asked for; default none. */
  scopes?: readonly string[];
  /** True when the provider grants nothing without a scope. */
  scopesRequired?: boolean;
  /** How the client proves itself at the token endpoint (`OAuth2SchemeBase.clientAuth`); default `header`. */
  clientAuth?: OAuth2SchemeBase['clientAuth'];
  /** The name a connection picks the scheme by; default the scheme's type. */
  id?: string;
}

/** Either OAuth2 scheme: its credential is a client and a token set, which the token lifecycle renews. */
export type OAuth2Scheme = OAuth2ClientCredentialsScheme | OAuth2AuthorizationCodeScheme;
