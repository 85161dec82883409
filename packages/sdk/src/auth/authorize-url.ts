import type { OAuth2AuthorizationCodeScheme } from '../definition/auth.js';

/**
 * The authorization request a person opens to sign in (what a CLI's `auth login` prints or
 * opens): PKCE S256 and a random state, both kept by the caller until the redirect comes back
 * and the code is exchanged (`authorizationCodeGrant`).
 */
export interface AuthorizationRequest {
  /** The authorization endpoint with `response_type`, `client_id`, `redirect_uri`, `scope`, `state` and the S256 challenge. */
  url: URL;
  /** Compared with the redirect's `state`. */
  state: string;
  /** The PKCE code verifier; sent with the code, never in the URL. */
  verifier: string;
}

/**
 * The URL a person opens to sign in to an authorization code scheme, with its state and PKCE verifier.
 * The verifier and the state (32 random bytes each) and the S256 challenge are oauth4webapi's, loaded only for a sign-in.
 * @example const { url, state, verifier } = await authorizationRequest(scheme, { clientId, redirectUri: 'http://127.0.0.1:8976/callback' })
 */
export async function authorizationRequest(
  scheme: OAuth2AuthorizationCodeScheme,
  options: { clientId: string; redirectUri: string },
): Promise<AuthorizationRequest> {
  const oauth = await import('oauth4webapi');
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(scheme.authorizeUrl);
  for (const [name, value] of Object.entries(scheme.extraAuthorizeParams ?? {})) url.searchParams.set(name, value);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', options.clientId);
  url.searchParams.set('redirect_uri', options.redirectUri);
  if (scheme.scopes.length > 0) url.searchParams.set('scope', scheme.scopes.join(' '));
  url.searchParams.set('state', state);
  url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier));
  url.searchParams.set('code_challenge_method', 'S256');
  return { url, state, verifier };
}
