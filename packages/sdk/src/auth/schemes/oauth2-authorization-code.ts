import type { OAuth2AuthorizationCodeScheme, OAuth2SchemeOptions } from '../../definition/auth.js';
import { authorizationRequest } from '../authorize-url.js';
import type { OAuth2Checked } from './credential-reader.js';
import * as oauth2 from './oauth2.js';
import type { SchemeType } from './scheme-type.js';

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
    ...oauth2.fields(options),
    ...(options.extraAuthorizeParams === undefined
      ? {}
      : { extraAuthorizeParams: Object.freeze({ ...options.extraAuthorizeParams }) }),
    clientAuth: options.clientAuth ?? 'header',
    pkce: options.pkce ?? 'S256',
  };
}

/** OAuth2 authorization code: a person signs in, and the connection holds the token set that came back. */
export const authorizationCode: SchemeType<OAuth2AuthorizationCodeScheme, OAuth2Checked> = {
  type: 'oauth2_authorization_code',
  ...oauth2.credential(false),
  problems(scheme) {
    const problems = oauth2.problems(scheme);
    const authorizeUrl = oauth2.endpointProblem('authorizeUrl', scheme.authorizeUrl);
    if (authorizeUrl) problems.push(authorizeUrl);
    if (scheme.pkce !== 'S256')
      problems.push(
        "PKCE S256 is always used for the authorization code flow; leave pkce out (only 'S256' is accepted)",
      );
    return problems;
  },
  catalogue: (scheme) =>
    oauth2.publication(scheme, {
      authorizeUrl: scheme.authorizeUrl,
      extraAuthorizeParams: scheme.extraAuthorizeParams,
      pkce: scheme.pkce,
    }),
  describe: (published) => oauth2.words('OAuth2 sign-in with PKCE (', published.authorizeUrl, published),
  renewHint: (provider) => `Sign in to ${provider} again to reconnect.`,
  permissionHint: (scheme, provider) => oauth2.scopesHint(scheme, provider, 'sign in again'),
  signIn: authorizationRequest,
};
