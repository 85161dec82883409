import { type AuthScheme, type Connector, type Environment, excerpt } from '@plugboard/sdk';
import { isOAuth2Scheme, schemeAtAuthBase } from '@plugboard/sdk/host';
import { UsageError } from './usage.js';

/**
 * `--auth-base-url URL`: a connection's OAuth2 endpoints at a stand-in authorization server
 * (`plugboard mock`'s, at `URL/authorize` and `URL/token`) instead of those the connector
 * declares. `auth login` signs in there and keeps it; `run`, `record`, `options` and `check`
 * take it for a connection no one signed in to (client credentials). Sandbox only, refused
 * before anything is sent.
 */

function sandboxOnly(environment: Environment): void {
  if (environment !== 'sandbox')
    throw new UsageError(
      "--auth-base-url points the connection's OAuth2 endpoints at a stand-in and is for sandbox only: a production connection uses the provider's own endpoints; nothing was sent",
    );
}

/** The scheme with its endpoints at `authBaseUrl`, sandbox only; the scheme as declared without it. */
export function standInScheme<S extends AuthScheme>(
  scheme: S,
  authBaseUrl: string | undefined,
  environment: Environment,
): S {
  if (authBaseUrl === undefined) return scheme;
  sandboxOnly(environment);
  try {
    return schemeAtAuthBase(scheme, authBaseUrl, environment) as S;
  } catch (error) {
    throw new UsageError(
      `--auth-base-url ${excerpt(authBaseUrl)}: ${(error as Error).message.replace(/^connection /, '')}`,
    );
  }
}

/**
 * `--auth-base-url` of a command that runs on a connection, checked against the connector's
 * OAuth2 scheme when it is loaded here; a plugin's connector runs elsewhere, and the SDK checks
 * the URL against its scheme there, before any token request.
 */
export function authBaseUrlOption(
  given: string | undefined,
  environment: Environment,
  connector: Connector | undefined,
): string | undefined {
  if (given === undefined) return undefined;
  sandboxOnly(environment);
  if (!connector) return given;
  const scheme = connector.auth.find(isOAuth2Scheme);
  if (!scheme)
    throw new UsageError(
      `--auth-base-url: ${connector.key} does not use OAuth2, so it has no endpoints to point at a stand-in; its schemes: ${connector.auth.map((one) => one.id).join(', ')}`,
    );
  standInScheme(scheme, given, environment);
  return given;
}

/** The same base URL, however many slashes end it. */
export function sameAuthBase(a: string, b: string): boolean {
  return a.replace(/\/+$/, '') === b.replace(/\/+$/, '');
}
