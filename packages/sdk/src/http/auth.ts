import { schemeType } from '../auth/schemes/index.js';
import type { AppliedAuth, TokenLifecycle } from '../auth/schemes/scheme-type.js';
import type { CheckedCredential } from '../auth/schemes/credential-reader.js';
import type { Clock } from '../clock.js';
import type { AuthScheme } from '../definition/auth.js';
import type { TokenSource } from '../tokens.js';

export type { AppliedAuth } from '../auth/schemes/scheme-type.js';

/**
 * What the credential stage adds to each hop to the provider's origin, resolved once per run
 * by the connection's scheme from its checked credential (the scheme type's `apply`).
 * `lifecycle` is the transport's token lifecycle, or the run's own token source, whose lifecycle
 * a host keeps elsewhere (an isolated plugin's host): that one renews what the credential cannot.
 */
export function appliedAuth(
  subject: string,
  scheme: AuthScheme,
  credential: CheckedCredential,
  clock: Clock,
  lifecycle?: TokenLifecycle | TokenSource,
): AppliedAuth {
  return schemeType(scheme).apply(scheme, credential, { subject, clock, lifecycle });
}

/** True when the scheme signs each request: the run's redactor learns every signature, so it is the run's own. */
export function signsEachRequest(scheme: AuthScheme): boolean {
  return schemeType(scheme).signsEachRequest === true;
}
