import type { Clock } from '../clock.js';
import type { OAuth2AuthorizationCodeScheme, OAuth2ClientCredentialsScheme } from '../definition/auth.js';
import { AuthenticationError, ConnectorError, CredentialsExpiredError, ProviderRejectedError } from '../errors.js';
import { excerpt } from '../excerpt.js';
import type { Redactor } from '../secrets.js';
import type { TokenSet } from '../tokens.js';
import type { FetchOptions } from './token-send.js';

/**
 * The token requests of the OAuth2 schemes, made with oauth4webapi (loaded on the first one,
 * so a run without OAuth never loads it), sent by the fetch the caller gives (token-send.ts):
 * client credentials, the authorization code with its PKCE verifier, and refresh. Their
 * failures come out typed: `invalid_grant` is `credentials_expired`, an endpoint that failed
 * or did not answer a retryable error; no message quotes a token, a secret or a code.
 */

type OAuth = typeof import('oauth4webapi');
let loading: Promise<OAuth> | undefined;
const oauth4webapi = (): Promise<OAuth> => (loading ??= import('oauth4webapi'));

/**
 * Starts loading oauth4webapi once a connection uses OAuth2, so that its first refresh does not
 * wait for the import; a failure is left for that refresh to meet.
 */
export function preloadOAuth(): void {
  oauth4webapi().catch(() => {
    loading = undefined;
  });
}

export type OAuth2Scheme = OAuth2ClientCredentialsScheme | OAuth2AuthorizationCodeScheme;

/** The client asking, and how its requests go. */
export interface TokenClient {
  scheme: OAuth2Scheme;
  clientId: string;
  clientSecret: string | undefined;
  fetch: (url: string, options: FetchOptions) => Promise<Response>;
  clock: Clock;
  redactor: Redactor;
  /** Names the connection in errors: `connector 'x' connection 'y'`. */
  subject: string;
}

/** A token set as granted, with the lifetime the provider gave its access token. */
export interface Granted {
  tokens: TokenSet;
  lifetimeMs: number | undefined;
}

/** What the authorization server redirected back with, and what the client kept of its request. */
export interface AuthorizationCallback {
  /** The whole redirect URL, carrying `code` and `state` (or `error`). */
  callbackUrl: string | URL;
  /** The state the request was made with. */
  state: string;
  /** The PKCE code verifier the request's challenge was made from. */
  verifier: string;
  /** The redirect URI the request named, as it named it. */
  redirectUri: string;
}

function server(scheme: OAuth2Scheme) {
  return { issuer: new URL(scheme.tokenUrl).origin, token_endpoint: scheme.tokenUrl };
}

async function prepared(client: TokenClient) {
  const oauth = await oauth4webapi();
  const { scheme, clientSecret } = client;
  const auth =
    clientSecret === undefined
      ? oauth.None()
      : scheme.clientAuth === 'body'
        ? oauth.ClientSecretPost(clientSecret)
        : oauth.ClientSecretBasic(clientSecret);
  // The scheme allows http only to a loopback address (a local test server).
  const options = {
    [oauth.customFetch]: client.fetch,
    [oauth.allowInsecureRequests]: new URL(scheme.tokenUrl).protocol === 'http:',
  };
  return { oauth, as: server(scheme), client: { client_id: client.clientId }, auth, options };
}

/** A token set of the client itself (client credentials grant), with the scheme's scopes and audience. */
export async function clientCredentialsGrant(client: TokenClient): Promise<Granted> {
  return granted(client, 'client credentials grant', undefined, async (p) => {
    const parameters = new URLSearchParams();
    if (client.scheme.scopes.length > 0) parameters.set('scope', client.scheme.scopes.join(' '));
    if (client.scheme.type === 'oauth2_client_credentials' && client.scheme.audience !== undefined)
      parameters.set('audience', client.scheme.audience);
    const answer = await p.oauth.clientCredentialsGrantRequest(p.as, p.client, p.auth, parameters, p.options);
    return p.oauth.processClientCredentialsResponse(p.as, p.client, answer);
  });
}

/** A new token set for a refresh token; the refresh token is kept when the provider sends no new one. */
export async function refreshGrant(client: TokenClient, refreshToken: string): Promise<Granted> {
  return granted(client, 'refresh', refreshToken, async (p) => {
    const answer = await p.oauth.refreshTokenGrantRequest(p.as, p.client, p.auth, refreshToken, p.options);
    return p.oauth.processRefreshTokenResponse(p.as, p.client, answer);
  });
}

/** The token set an authorization code is exchanged for, with the PKCE verifier of its request. */
export async function authorizationCodeGrant(client: TokenClient, callback: AuthorizationCallback): Promise<Granted> {
  return granted(client, 'authorization code exchange', undefined, async (p) => {
    const url = new URL(callback.callbackUrl);
    const code = url.searchParams.get('code');
    if (code) client.redactor.add(code);
    const params = p.oauth.validateAuthResponse(p.as, p.client, url, callback.state);
    const answer = await p.oauth.authorizationCodeGrantRequest(
      p.as,
      p.client,
      p.auth,
      params,
      callback.redirectUri,
      callback.verifier,
      p.options,
    );
    return p.oauth.processAuthorizationCodeResponse(p.as, p.client, answer);
  });
}

type Prepared = Awaited<ReturnType<typeof prepared>>;
type Answered = Awaited<ReturnType<OAuth['processRefreshTokenResponse']>>;

async function granted(
  client: TokenClient,
  grant: string,
  refreshToken: string | undefined,
  request: (p: Prepared) => Promise<Answered>,
): Promise<Granted> {
  const sentAt = client.clock.now();
  let answer: Answered;
  try {
    answer = await request(await prepared(client));
  } catch (error) {
    throw tokenError(client, grant, error);
  }
  const lifetimeMs = typeof answer.expires_in === 'number' ? answer.expires_in * 1000 : undefined;
  const tokens: TokenSet = {
    accessToken: answer.access_token,
    tokenType: answer.token_type === 'bearer' ? 'Bearer' : answer.token_type,
  };
  const rotated = answer.refresh_token ?? refreshToken;
  if (rotated !== undefined) tokens.refreshToken = rotated;
  // Counted from the whole second the request went out: a provider stamps `exp` in whole seconds
  // (often its own clock floored), so a lifetime counted from the instant could end after the
  // token's, and a call sent in between would meet a 401.
  if (lifetimeMs !== undefined) tokens.expiresAt = Math.floor(sentAt / 1000) * 1000 + lifetimeMs;
  if (answer.scope !== undefined) tokens.scope = answer.scope;
  client.redactor.addRecent(tokens.accessToken);
  client.redactor.addRecent(tokens.refreshToken);
  return { tokens, lifetimeMs };
}

/** A failed token request as a typed error, quoting only the provider's error code. */
function tokenError(client: TokenClient, grant: string, error: unknown): ConnectorError {
  if (error instanceof ConnectorError) return error;
  const { subject, redactor } = client;
  const failure = error as { code?: unknown; error?: unknown; status?: unknown; message?: unknown };
  const status = typeof failure.status === 'number' ? failure.status : undefined;
  if (failure.code === 'OAUTH_RESPONSE_BODY_ERROR' && typeof failure.error === 'string') {
    const said = excerpt(redactor.redactString(failure.error));
    if (said === 'invalid_grant')
      return new CredentialsExpiredError(
        `${subject}: the token endpoint refused the ${grant} (invalid_grant): the grant has expired or was revoked; sign in again`,
        { status },
      );
    if (said === 'invalid_client' || said === 'unauthorized_client')
      return new AuthenticationError(`${subject}: the token endpoint refused the client in the ${grant} (${said})`, {
        code: 'credentials_changed',
        status,
      });
    return new ProviderRejectedError(`${subject}: the token endpoint refused the ${grant} (${said})`, {
      code: 'token_request_refused',
      status,
    });
  }
  if (failure.code === 'OAUTH_AUTHORIZATION_RESPONSE_ERROR' && typeof failure.error === 'string')
    return new ProviderRejectedError(
      `${subject}: the authorization server redirected back without a code (${excerpt(redactor.redactString(failure.error))})`,
      { code: 'authorization_refused' },
    );
  if (failure.code === 'OAUTH_WWW_AUTHENTICATE_CHALLENGE')
    return new AuthenticationError(`${subject}: the token endpoint refused the client in the ${grant} (401)`, {
      code: 'credentials_changed',
      status,
    });
  const reason = excerpt(redactor.redactString(String(failure.message ?? error)));
  return new ConnectorError(`${subject}: the ${grant}'s answer is unusable: ${reason}`, {
    code: 'token_answer_invalid',
    retryable: false,
    platformStatus: 502,
    status,
  });
}
