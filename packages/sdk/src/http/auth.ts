import type { Clock } from '../clock.js';
import { ConnectionConfigError } from '../errors.js';
import { basicToken, type CheckedCredential } from '../credentials.js';
import type {
  AuthScheme,
  CustomScheme,
  OAuth2AuthorizationCodeScheme,
  OAuth2ClientCredentialsScheme,
} from '../definition/auth.js';
import { heldTokenSource, type TokenSource, tokenExpired } from '../tokens.js';

/**
 * What the credential stage adds to each hop to the provider's origin, resolved once per run
 * from the connection's scheme and its checked credential: a fixed header or query parameter,
 * a signer called per request, or a token source asked per request.
 */
export type AppliedAuth =
  | { type: 'header'; name: string; value: string }
  | { type: 'query'; name: string; value: string }
  | { type: 'sign'; sign: CustomScheme['sign']; key: string }
  | { type: 'token'; source: TokenSource };

/** The OAuth2 credential as checked. */
export type OAuth2Checked = Extract<CheckedCredential, { kind: 'oauth2' }>;

/** Makes the token source of an OAuth2 connection: the lifecycle that refreshes and writes back. */
export type TokenLifecycle = (
  scheme: OAuth2ClientCredentialsScheme | OAuth2AuthorizationCodeScheme,
  credential: OAuth2Checked,
) => TokenSource;

/**
 * `lifecycle` is the transport's token lifecycle, or the run's own token source, whose lifecycle a
 * host keeps elsewhere (an isolated plugin's host): that one renews what the credential cannot.
 */
export function appliedAuth(
  subject: string,
  scheme: AuthScheme,
  credential: CheckedCredential,
  clock: Clock,
  lifecycle?: TokenLifecycle | TokenSource,
): AppliedAuth {
  if (credential.kind === 'basic')
    return { type: 'header', name: 'authorization', value: `Basic ${basicToken(credential)}` };
  if (credential.kind === 'oauth2') {
    const { expiresAt, refreshToken } = credential.tokens ?? {};
    const oauth2 = scheme.type === 'oauth2_client_credentials' || scheme.type === 'oauth2_authorization_code';
    const supplied = typeof lifecycle === 'object';
    const renewable = supplied || scheme.type === 'oauth2_client_credentials' || refreshToken !== undefined;
    // Known before the run starts: nothing is sent, and the failure is not taken for the network's.
    if (!(lifecycle && renewable) && expiresAt !== undefined && expiresAt <= clock.now()) throw tokenExpired(subject);
    // The token lifecycle refreshes and writes back; without one the token is sent until it expires.
    if (lifecycle && oauth2) return { type: 'token', source: supplied ? lifecycle : lifecycle(scheme, credential) };
    if (!credential.tokens)
      throw new ConnectionConfigError(
        `${subject}: the connection has no token set, and no token lifecycle to get one (a transport of the SDK's own has one); nothing was sent`,
      );
    return { type: 'token', source: heldTokenSource(subject, credential.tokens, clock) };
  }
  const { key } = credential;
  switch (scheme.type) {
    case 'api_key_header':
      return { type: 'header', name: scheme.header.toLowerCase(), value: `${scheme.prefix ?? ''}${key}` };
    case 'api_key_query':
      return { type: 'query', name: scheme.parameter, value: key };
    case 'custom':
      return { type: 'sign', sign: scheme.sign, key };
    default:
      return { type: 'header', name: 'authorization', value: `Bearer ${key}` };
  }
}
