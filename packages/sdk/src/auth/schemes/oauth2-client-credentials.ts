import type { OAuth2ClientCredentialsScheme, OAuth2SchemeOptions } from '../../definition/auth.js';
import type { OAuth2Checked } from './credential-reader.js';
import * as oauth2 from './oauth2.js';
import type { SchemeType } from './scheme-type.js';

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
    ...oauth2.fields(options),
    ...(options.audience === undefined ? {} : { audience: options.audience }),
    clientAuth: options.clientAuth ?? 'header',
  };
}

/** OAuth2 client credentials: the connection acts as itself, and its grant gets every token set itself. */
export const clientCredentials: SchemeType<OAuth2ClientCredentialsScheme, OAuth2Checked> = {
  type: 'oauth2_client_credentials',
  ...oauth2.credential(true),
  problems: oauth2.problems,
  catalogue: (scheme) => oauth2.publication(scheme, { audience: scheme.audience }),
  describe: (published) => oauth2.words('OAuth2 client credentials (token URL ', published.tokenUrl, published),
  renewHint: (provider) => `Replace the client id and secret with current ones from ${provider}.`,
  permissionHint: (scheme, provider) => oauth2.scopesHint(scheme, provider, 'check again'),
};
