import { basicToken } from './auth/schemes/basic.js';
import { type CheckedCredential, CredentialReader, isRecord } from './auth/schemes/credential-reader.js';
import { schemeType } from './auth/schemes/index.js';
import type { AuthScheme } from './definition/auth.js';
import type { TokenSet } from './tokens.js';

/**
 * Credentials typed per scheme, as the host's resolver gives them: checked before anything is
 * sent (each scheme type reads its own, auth/schemes/), and every secret part of them handed to
 * the run's redactor. Nothing here ever quotes a credential's value, only the names of its parts.
 */

/** The credential of an OAuth2 scheme: the client, and the token set it holds now. */
export interface OAuth2Credential {
  /** The client the provider registered for the host. */
  clientId: string;
  /** Absent for a public client. */
  clientSecret?: string;
  /** The token set the connection holds now; a run needs one with an access token. */
  tokens?: TokenSet;
}

/**
 * What a host's resolver returns for a connection: for bearer, API key and custom schemes a
 * string, or `{ key, expiresAt }` (a key with its known expiry); `{ username, password }` for
 * basic; `OAuth2Credential` for OAuth2.
 */
export type ConnectionCredential =
  | string
  | {
      /** The key or token itself. */
      key: string;
      /** When it stops working, when the provider said (milliseconds since the epoch). */
      expiresAt?: number;
    }
  | {
      /** The credential of `basicAuth()`: without a colon, which HTTP Basic cannot carry. */
      username: string;
      password: string;
    }
  | OAuth2Credential;

/**
 * The resolver's answer checked against the scheme: `invalid_connection` before any request,
 * naming the missing or wrong part and never its value.
 */
export function checkCredential(connector: string, scheme: AuthScheme, value: unknown): CheckedCredential {
  // A resolver answers the same key run after run: the key the scheme last passed is not read again.
  const last = typeof value === 'string' ? passedKeys.get(scheme) : undefined;
  if (last !== undefined && last.value === value) return last.checked;
  const type = schemeType(scheme);
  const reader = new CredentialReader(connector, scheme.id, type.shape);
  if (value === undefined || value === null || value === '')
    reader.refuse(`is missing: the host's secret resolver returned none (expected ${type.shape})`);
  const checked = type.credential(scheme, value, reader);
  if (typeof value === 'string') passedKeys.set(scheme, { value, checked: Object.freeze(checked) });
  return checked;
}

/** The string credential each scheme last passed, and what checking it gave (frozen: runs share it); weak on the scheme. */
const passedKeys = new WeakMap<AuthScheme, { value: string; checked: CheckedCredential }>();

/**
 * Every secret part of a credential as a resolver gave it (a password and the Basic token made
 * of it, a key, a token, a client secret), for a run's redactor, which also finds their encoded
 * forms. Read by shape, so a host that does not know the scheme (a plugin's runner) can use it.
 */
export function credentialSecrets(credential: ConnectionCredential | undefined): string[] {
  if (typeof credential === 'string') return credential === '' ? [] : [credential];
  if (!isRecord(credential)) return [];
  const parts: string[] = [];
  const add = (part: unknown) => {
    if (typeof part === 'string' && part !== '') parts.push(part);
  };
  const { key, password, username, clientSecret, tokens } = credential as Record<string, unknown>;
  add(key);
  add(password);
  if (typeof username === 'string' && typeof password === 'string') parts.push(basicToken({ username, password }));
  add(clientSecret);
  if (isRecord(tokens)) {
    add(tokens.accessToken);
    add(tokens.refreshToken);
  }
  return parts;
}

/** When the credential stops working, when known (milliseconds since the epoch). */
export function credentialExpiry(credential: CheckedCredential): number | undefined {
  if (credential.kind === 'key') return credential.expiresAt;
  return credential.kind === 'oauth2' ? credential.tokens?.expiresAt : undefined;
}

/** The JSON Schema of what the host supplies for a scheme (the shape, never a value). */
export function credentialSchema(scheme: AuthScheme): Record<string, unknown> {
  return schemeType(scheme).supplies(scheme);
}
