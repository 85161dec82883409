import type { Clock } from '../clock.js';
import { basicToken, type CheckedCredential } from '../credentials.js';
import type { AuthScheme, CustomScheme } from '../definition/auth.js';
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

export function appliedAuth(
  subject: string,
  scheme: AuthScheme,
  credential: CheckedCredential,
  clock: Clock,
): AppliedAuth {
  if (credential.kind === 'basic')
    return { type: 'header', name: 'authorization', value: `Basic ${basicToken(credential)}` };
  if (credential.kind === 'oauth2') {
    // Known before the run starts: nothing is sent, and the failure is not taken for the network's.
    const { expiresAt } = credential.tokens;
    if (expiresAt !== undefined && expiresAt <= clock.now()) throw tokenExpired(subject);
    // The seam of the token lifecycle: a source that refreshes and writes back goes here.
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
