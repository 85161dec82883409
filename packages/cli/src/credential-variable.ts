import { type AuthScheme, type ConnectionCredential, ConnectionConfigError, type Connector } from '@plugboard/sdk';
import { checkCredential } from '@plugboard/sdk/host';
import type { CliIo } from './io.js';

/**
 * `PLUGBOARD_CREDENTIAL`, the credential of a connection no one signed in to, read here only: a
 * plain key or token as it is, or, when it begins with `{`, the JSON of the scheme's credential
 * (`{ key, expiresAt? }`, `{ username, password }`, `{ clientId, clientSecret?, tokens }`).
 * Read and checked against the connection's scheme once, at the first request for it; a refusal
 * names the part that is wrong, never a value.
 */

const VARIABLE = 'PLUGBOARD_CREDENTIAL';

/** PLUGBOARD_CREDENTIAL refused, or missing: `invalid_connection`, with what to set for the connector's scheme. */
export class CredentialVariableError extends ConnectionConfigError {
  /** What the connection's scheme needs, for a person. */
  readonly hint: string;

  constructor(message: string, hint: string) {
    super(message);
    this.hint = hint;
  }
}

/** Whose credential: the connector as loaded here (none for a plugin's, which its own process checks), and the scheme the connection picks. */
export interface CredentialFor {
  connector?: Connector;
  /** The connection's `settings.authScheme`, when it names one. */
  authScheme?: unknown;
}

/** The scheme the connection picks, or the connector's first; none when it names one the connector lacks (the run says so). */
function schemeOf({ connector, authScheme }: CredentialFor): AuthScheme | undefined {
  if (!connector) return undefined;
  if (authScheme === undefined) return connector.auth[0];
  return connector.auth.find((scheme) => scheme.id === String(authScheme).toLowerCase());
}

/** What to set for the scheme, in the CLI's terms, with placeholders only. */
export function credentialHint(scheme: AuthScheme | undefined, connector: string, connectionId: string): string {
  const json = (shape: string) => `export ${VARIABLE}='${shape}'`;
  switch (scheme?.type) {
    case 'bearer':
      return `export ${VARIABLE}=<the token> (or '{"key":"<the token>","expiresAt":<ms>}'), then run again`;
    case 'api_key_header':
    case 'api_key_query':
    case 'custom':
      return `export ${VARIABLE}=<the API key> (or '{"key":"<the API key>","expiresAt":<ms>}'), then run again`;
    case 'basic':
      return `${json('{"username":"<user>","password":"<password>"}')}, then run again`;
    case 'oauth2_authorization_code':
      return `sign in with plugboard auth login ${connector} --connection-id ${connectionId}, or ${json('{"clientId":"<client id>","clientSecret":"<secret, for a confidential client>","tokens":{"accessToken":"<token>","refreshToken":"<token>"}}')}`;
    case 'oauth2_client_credentials':
      return `${json('{"clientId":"<client id>","clientSecret":"<secret>"}')}, then run again`;
    default:
      return `export ${VARIABLE}=<the key or token>, or the JSON of the scheme's credential; an OAuth2 connection signs in with plugboard auth login`;
  }
}

/** The variable's text as a credential: JSON when it begins with `{`, else the key as it is. */
function parsed(text: string, hint: string): ConnectionCredential {
  const trimmed = text.trim();
  if (trimmed.startsWith('['))
    throw new CredentialVariableError(`${VARIABLE} begins with [: a credential is a plain key or a JSON object`, hint);
  if (!trimmed.startsWith('{')) return text;
  try {
    return JSON.parse(trimmed) as ConnectionCredential;
  } catch {
    // JSON.parse's own message quotes the text, which holds a secret.
    throw new CredentialVariableError(`${VARIABLE} begins with { but is not JSON; nothing was sent`, hint);
  }
}

/**
 * The resolver of a connection's credential from `PLUGBOARD_CREDENTIAL`, never from an argument:
 * read and checked once, at the first call; the executor passes the connection's id.
 */
export function environmentCredential(
  io: CliIo,
  whose: CredentialFor = {},
): (connectionId?: string) => ConnectionCredential {
  const text = io.env[VARIABLE];
  const scheme = schemeOf(whose);
  const key = whose.connector?.key ?? 'CONNECTOR';
  let checked: ConnectionCredential | undefined;
  return (connectionId = 'default') => {
    if (checked !== undefined) return checked;
    const hint = credentialHint(scheme, key, connectionId);
    if (!text) throw new CredentialVariableError(`set the credential in the environment variable ${VARIABLE}`, hint);
    const credential = parsed(text, hint);
    if (scheme) {
      try {
        checkCredential(key, scheme, credential);
      } catch (error) {
        if (error instanceof ConnectionConfigError)
          throw new CredentialVariableError(`${VARIABLE}: ${error.message}`, hint);
        throw error;
      }
    }
    checked = credential;
    return credential;
  };
}
