import type { AuthScheme } from './definition/auth.js';
import { ConnectionConfigError } from './errors.js';
import { NOT_IN_HEADER } from './http/headers.js';
import type { TokenSet } from './tokens.js';

/**
 * Credentials typed per scheme, as the host's resolver gives them: checked before anything is
 * sent, and every secret part of them handed to the run's redactor. Nothing here ever quotes a
 * credential's value, only the names of its parts.
 */

/** A key with its known expiry (milliseconds since the epoch); a plain string is a key without one. */
export interface KeyCredential {
  /** The key or token itself. */
  key: string;
  /** When it stops working, when the provider said (milliseconds since the epoch). */
  expiresAt?: number;
}

/** The credential of `basicAuth()`. */
export interface BasicCredential {
  /** Without a colon: HTTP Basic cannot carry one. */
  username: string;
  password: string;
}

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
 * What a host's resolver returns for a connection: a string (or `KeyCredential`) for bearer,
 * API key and custom schemes, `BasicCredential` for basic, `OAuth2Credential` for OAuth2.
 */
export type ConnectionCredential = string | KeyCredential | BasicCredential | OAuth2Credential;

/** A credential checked against its scheme. */
export type CheckedCredential =
  | { kind: 'key'; key: string; expiresAt: number | undefined }
  | { kind: 'basic'; username: string; password: string }
  | { kind: 'oauth2'; clientId: string; clientSecret: string | undefined; tokens: TokenSet | undefined };

const SHAPES: Record<AuthScheme['type'], string> = {
  bearer: 'a string (or { key, expiresAt? })',
  api_key_header: 'a string (or { key, expiresAt? })',
  api_key_query: 'a string (or { key, expiresAt? })',
  custom: 'a string (or { key, expiresAt? })',
  basic: '{ username, password }',
  oauth2_client_credentials: '{ clientId, clientSecret?, tokens?: { accessToken, ... } }',
  oauth2_authorization_code: '{ clientId, clientSecret?, tokens: { accessToken, ... } }',
};

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The resolver's answer checked against the scheme: `invalid_connection` before any request,
 * naming the missing or wrong part and never its value.
 */
export function checkCredential(connector: string, scheme: AuthScheme, value: unknown): CheckedCredential {
  const subject = `connector '${connector}': the credential of auth scheme '${scheme.id}'`;
  const refuse = (problem: string): never => {
    throw new ConnectionConfigError(`${subject} ${problem}; nothing was sent`);
  };
  if (value === undefined || value === null || value === '')
    refuse(`is missing: the host's secret resolver returned none (expected ${SHAPES[scheme.type]})`);
  const text = (part: string, found: unknown, inHeader: boolean, required = true): string | undefined => {
    if (found === undefined && !required) return undefined;
    if (typeof found !== 'string' || found === '')
      return refuse(
        `needs ${part} (a non-empty string)${found === undefined ? '' : `, not ${found === '' ? 'an empty string' : describe(found)}`}`,
      );
    // A credential read from a file often ends in a line break: no header can carry it, and no retry would.
    if (inHeader && NOT_IN_HEADER.test(found))
      refuse(
        `has ${part} holding a line break or another character an HTTP header cannot carry (a trailing newline from a file?)`,
      );
    return found;
  };
  const expiry = (part: string, found: unknown): number | undefined => {
    if (found === undefined) return undefined;
    return typeof found === 'number' && Number.isFinite(found)
      ? found
      : refuse(`has ${part} that is not a time in milliseconds since the epoch`);
  };
  switch (scheme.type) {
    case 'basic': {
      if (!isRecord(value)) return refuse(`must be ${SHAPES.basic}, not ${describe(value)}`);
      const username = text('username', value.username, true)!;
      if (username.includes(':')) refuse('has a username holding a colon, which HTTP Basic cannot carry');
      return { kind: 'basic', username, password: text('password', value.password, true)! };
    }
    case 'oauth2_client_credentials':
    case 'oauth2_authorization_code': {
      if (!isRecord(value)) return refuse(`must be ${SHAPES[scheme.type]}, not ${describe(value)}`);
      const clientId = text('clientId', value.clientId, false)!;
      const clientSecret = text('clientSecret', value.clientSecret, false, false);
      // A client credentials grant gets its first token set itself; a signed-in connection brings its own.
      if (value.tokens === undefined && scheme.type === 'oauth2_client_credentials')
        return { kind: 'oauth2', clientId, clientSecret, tokens: undefined };
      if (!isRecord(value.tokens)) return refuse(`needs tokens (a token set with an accessToken)`);
      const tokens = value.tokens;
      const checked: TokenSet = { accessToken: text('tokens.accessToken', tokens.accessToken, true)! };
      const refreshToken = text('tokens.refreshToken', tokens.refreshToken, false, false);
      if (refreshToken !== undefined) checked.refreshToken = refreshToken;
      const expiresAt = expiry('tokens.expiresAt', tokens.expiresAt);
      if (expiresAt !== undefined) checked.expiresAt = expiresAt;
      const scope = typeof tokens.scope === 'string' ? tokens.scope : undefined;
      if (scope !== undefined) checked.scope = scope;
      const tokenType = text('tokens.tokenType', tokens.tokenType, true, false);
      if (tokenType !== undefined) checked.tokenType = tokenType;
      return { kind: 'oauth2', clientId, clientSecret, tokens: checked };
    }
    default: {
      // The key of a query parameter is URL-encoded; in a header, or given to a signer, it goes as is.
      const inHeader = scheme.type !== 'api_key_query';
      if (typeof value === 'string') return { kind: 'key', key: text('a key', value, inHeader)!, expiresAt: undefined };
      if (!isRecord(value)) return refuse(`must be ${SHAPES[scheme.type]}, not ${describe(value)}`);
      return { kind: 'key', key: text('key', value.key, inHeader)!, expiresAt: expiry('expiresAt', value.expiresAt) };
    }
  }
}

/** `user:password` in base64, as HTTP Basic sends it. */
export function basicToken(credential: { username: string; password: string }): string {
  return Buffer.from(`${credential.username}:${credential.password}`).toString('base64');
}

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

const KEY_SCHEMA = {
  oneOf: [
    { type: 'string', minLength: 1 },
    {
      type: 'object',
      required: ['key'],
      properties: { key: { type: 'string', minLength: 1 }, expiresAt: { type: 'number' } },
      additionalProperties: false,
    },
  ],
};

const OAUTH2_SCHEMA = {
  type: 'object',
  required: ['clientId', 'tokens'],
  properties: {
    clientId: { type: 'string', minLength: 1 },
    clientSecret: { type: 'string', minLength: 1 },
    tokens: {
      type: 'object',
      required: ['accessToken'],
      properties: {
        accessToken: { type: 'string', minLength: 1 },
        refreshToken: { type: 'string', minLength: 1 },
        expiresAt: { type: 'number', description: 'Milliseconds since the epoch.' },
        scope: { type: 'string' },
        tokenType: { type: 'string' },
      },
      additionalProperties: false,
    },
  },
  additionalProperties: false,
};

/** The JSON Schema of what the host supplies for a scheme (the shape, never a value). */
export function credentialSchema(scheme: AuthScheme): Record<string, unknown> {
  switch (scheme.type) {
    case 'basic':
      return {
        type: 'object',
        required: ['username', 'password'],
        properties: { username: { type: 'string', minLength: 1 }, password: { type: 'string', minLength: 1 } },
        additionalProperties: false,
      };
    case 'oauth2_client_credentials':
      // The grant gets its own first token set: the client is all the host must supply.
      return { ...structuredClone(OAUTH2_SCHEMA), required: ['clientId'] };
    case 'oauth2_authorization_code':
      return structuredClone(OAUTH2_SCHEMA);
    default:
      return structuredClone(KEY_SCHEMA);
  }
}
