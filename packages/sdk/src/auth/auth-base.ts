import type { AuthScheme } from '../definition/auth.js';
import type { Environment } from '../definition/environment.js';
import { ConnectionConfigError } from '../errors.js';
import { excerpt } from '../excerpt.js';
import { isOAuth2Scheme } from './schemes/index.js';
import { endpointProblem } from './schemes/oauth2.js';

/**
 * A connection's `authBaseUrl`: the host points the OAuth2 endpoints of the connection's scheme
 * at a stand-in authorization server (`plugboard mock`), the connector's code unchanged. The
 * sign-in goes to `<authBaseUrl>/authorize`, token requests to `<authBaseUrl>/token`. Sandbox
 * only: a production connection talks to the provider the connector names, never elsewhere.
 */

/** Schemes already pointed, per scheme and base URL: runs of a connection share one scheme object. */
const pointed = new WeakMap<AuthScheme, Map<string, AuthScheme>>();

/** The scheme with its OAuth2 endpoints under `authBaseUrl`; the scheme itself when none is given. */
export function schemeAtAuthBase(
  scheme: AuthScheme,
  authBaseUrl: string | undefined,
  environment: Environment = 'sandbox',
): AuthScheme {
  if (authBaseUrl === undefined) return scheme;
  if (environment !== 'sandbox')
    throw new ConnectionConfigError(
      `connection authBaseUrl points the OAuth2 endpoints at a stand-in and is for sandbox only; a ${excerpt(String(environment))} connection uses the provider's own endpoints; nothing was sent`,
    );
  if (!isOAuth2Scheme(scheme))
    throw new ConnectionConfigError(
      `connection authBaseUrl: auth scheme '${excerpt(String(scheme.id))}' is not an OAuth2 scheme and has no endpoints to point elsewhere; nothing was sent`,
    );
  const problem = endpointProblem('authBaseUrl', authBaseUrl);
  if (problem) throw new ConnectionConfigError(`connection ${problem}; nothing was sent`);
  let byUrl = pointed.get(scheme);
  if (!byUrl) pointed.set(scheme, (byUrl = new Map()));
  let found = byUrl.get(authBaseUrl);
  if (!found) {
    const base = authBaseUrl.replace(/\/+$/, '');
    found = Object.freeze({
      ...scheme,
      tokenUrl: `${base}/token`,
      ...(scheme.type === 'oauth2_authorization_code' ? { authorizeUrl: `${base}/authorize` } : {}),
    });
    // A few base URLs a scheme at most (a host's stand-ins): the map stays small.
    if (byUrl.size >= 16) byUrl.clear();
    byUrl.set(authBaseUrl, found);
  }
  return found;
}
