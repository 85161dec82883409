import type { OAuth2Scheme, OAuth2SchemeBase, OAuth2SchemeOptions } from '../../definition/auth.js';
import { ConnectionConfigError } from '../../errors.js';
import { heldTokenSource, type TokenSet, tokenExpired } from '../../tokens.js';
import { type CredentialReader, isRecord, type OAuth2Checked } from './credential-reader.js';
import type { AppliedAuth, ApplyRun, PublicAuthentication, SchemePublication, SchemeWords } from './scheme-type.js';

/** What both OAuth2 scheme types share: the client and its token set, the token endpoint, the scopes. */

/**
 * The members both OAuth2 scheme types have alike: what the host supplies and how the token set
 * goes on requests. `grantsItself`: the scheme's grant gets every token set itself, the first
 * one included (client credentials), so the host may supply the client alone.
 */
export function credential(grantsItself: boolean) {
  return {
    oauth2: true,
    shape: `{ clientId, clientSecret?, tokens${grantsItself ? '?' : ''}: { accessToken, ... } }`,
    credential: (_scheme: unknown, value: unknown, reader: CredentialReader) =>
      readOAuth2(value, reader, !grantsItself),
    supplies: () => oauth2Supplies(grantsItself ? ['clientId'] : ['clientId', 'tokens']),
    apply: (scheme: OAuth2Scheme, credential: OAuth2Checked, run: ApplyRun) =>
      appliedTokens(scheme, credential, run, grantsItself),
  };
}

/** The fields both OAuth2 constructors fill alike, with their defaults. */
export function fields(options: OAuth2SchemeOptions) {
  return {
    tokenUrl: options.tokenUrl,
    scopes: Object.freeze([...(options.scopes ?? [])]),
    ...(options.scopesRequired === undefined ? {} : { scopesRequired: options.scopesRequired }),
  };
}

function isLoopback(hostname: string): boolean {
  if (hostname === 'localhost' || hostname === '[::1]') return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

/** https, or http to a loopback address (a local test server): a token never crosses a network in clear. */
export function endpointProblem(field: string, value: unknown): string | undefined {
  if (typeof value !== 'string') return `${field} must be a URL`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `${field} must be an absolute URL`;
  }
  if (url.username || url.password) return `${field} must not carry credentials`;
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && isLoopback(url.hostname)) return undefined;
  return `${field} must be https (http only to 127.0.0.0/8, ::1 or localhost), not ${url.protocol.replace(':', '')}://${url.host}`;
}

/** What is wrong with what both OAuth2 types declare: the token endpoint, the scopes, the client's proof. */
export function problems(scheme: OAuth2SchemeBase): string[] {
  const found: string[] = [];
  const tokenUrl = endpointProblem('tokenUrl', scheme.tokenUrl);
  if (tokenUrl) found.push(tokenUrl);
  if (!Array.isArray(scheme.scopes) || scheme.scopes.some((scope) => typeof scope !== 'string' || !/^\S+$/.test(scope)))
    found.push('scopes must be a list of scope names without spaces');
  else if (scheme.scopesRequired && scheme.scopes.length === 0)
    found.push('the provider grants nothing without a scope (scopesRequired): declare the scopes the actions need');
  if (scheme.clientAuth !== 'header' && scheme.clientAuth !== 'body')
    found.push(`clientAuth must be 'header' or 'body', not ${JSON.stringify(scheme.clientAuth)}`);
  return found;
}

/** The client, and its token set: required, unless the scheme's grant gets the first one itself. */
function readOAuth2(value: unknown, reader: CredentialReader, tokensRequired: boolean): OAuth2Checked {
  const found = reader.record(value);
  const clientId = reader.text('clientId', found.clientId, false);
  const clientSecret = reader.optionalText('clientSecret', found.clientSecret, false);
  if (found.tokens === undefined && !tokensRequired)
    return { kind: 'oauth2', clientId, clientSecret, tokens: undefined };
  if (!isRecord(found.tokens)) return reader.refuse(`needs tokens (a token set with an accessToken)`);
  const tokens = found.tokens;
  const checked: TokenSet = { accessToken: reader.text('tokens.accessToken', tokens.accessToken, true) };
  const refreshToken = reader.optionalText('tokens.refreshToken', tokens.refreshToken, false);
  if (refreshToken !== undefined) checked.refreshToken = refreshToken;
  const expiresAt = reader.expiry('tokens.expiresAt', tokens.expiresAt);
  if (expiresAt !== undefined) checked.expiresAt = expiresAt;
  const scope = typeof tokens.scope === 'string' ? tokens.scope : undefined;
  if (scope !== undefined) checked.scope = scope;
  const tokenType = reader.optionalText('tokens.tokenType', tokens.tokenType, true);
  if (tokenType !== undefined) checked.tokenType = tokenType;
  return { kind: 'oauth2', clientId, clientSecret, tokens: checked };
}

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

/** The JSON Schema of the client and its token set; `required` names what the host must supply. */
function oauth2Supplies(required: readonly string[]): Record<string, unknown> {
  return { ...structuredClone(OAUTH2_SCHEMA), required: [...required] };
}

/**
 * The access token of each attempt, from the token lifecycle when the run has one (it refreshes
 * and writes back), else the token set held as given, sent until it expires. `grantsItself`:
 * the scheme's grant gets a new token set without a refresh token.
 */
function appliedTokens(
  scheme: OAuth2Scheme,
  credential: OAuth2Checked,
  { subject, clock, lifecycle }: ApplyRun,
  grantsItself: boolean,
): AppliedAuth {
  const { expiresAt, refreshToken } = credential.tokens ?? {};
  const supplied = typeof lifecycle === 'object';
  const renewable = supplied || grantsItself || refreshToken !== undefined;
  // Known before the run starts: nothing is sent, and the failure is not taken for the network's.
  if (!(lifecycle && renewable) && expiresAt !== undefined && expiresAt <= clock.now()) throw tokenExpired(subject);
  if (lifecycle) return { type: 'token', source: supplied ? lifecycle : lifecycle(scheme, credential) };
  if (!credential.tokens)
    throw new ConnectionConfigError(
      `${subject}: the connection has no token set, and no token lifecycle to get one (a transport of the SDK's own has one); nothing was sent`,
    );
  return { type: 'token', source: heldTokenSource(subject, credential.tokens, clock) };
}

/**
 * What the catalogue publishes of an OAuth2 scheme, in the order it always has: `own` holds the
 * fields of one type only, each published where it stands in that order.
 */
export function publication(
  scheme: OAuth2SchemeBase,
  own: Pick<SchemePublication, 'authorizeUrl' | 'audience' | 'extraAuthorizeParams' | 'pkce'>,
): SchemePublication {
  return {
    header: 'Authorization',
    ...(own.authorizeUrl === undefined ? {} : { authorizeUrl: own.authorizeUrl }),
    tokenUrl: scheme.tokenUrl,
    scopes: [...scheme.scopes],
    ...(own.audience ? { audience: own.audience } : {}),
    ...(own.extraAuthorizeParams ? { extraAuthorizeParams: { ...own.extraAuthorizeParams } } : {}),
    clientAuthMethod: scheme.clientAuth,
    ...(own.pkce === undefined ? {} : { pkce: own.pkce }),
  };
}

/** An OAuth2 scheme in the catalogue site's words: what it is, its endpoint, its scopes. */
export function words(lead: string, endpoint: string | undefined, published: PublicAuthentication): SchemeWords {
  const scopes = published.scopes?.length ? [', scopes ', { code: published.scopes.join(' ') }] : [];
  return [lead, { code: endpoint ?? '' }, ...scopes, ')'];
}

/** A connection check's fix hint for a missing scope; `then` is how the connection gets the new grant. */
export function scopesHint(scheme: OAuth2SchemeBase, provider: string, then: string): string {
  const scopes = scheme.scopes.length > 0 ? `the scopes ${scheme.scopes.join(' ')}` : 'the scopes the connector needs';
  return `Ask the ${provider} administrator to grant ${scopes}, then ${then}.`;
}
