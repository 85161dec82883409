import * as oauth from 'oauth4webapi';
import { z } from 'zod';
import type { ManualClock } from '../../src/clock.js';
import {
  type Connector,
  defineAction,
  defineConnector,
  type LogEntry,
  oauth2AuthorizationCode,
  oauth2ClientCredentials,
  readAll,
  type TokenSet,
  type Transport,
} from '../../src/index.js';
import type { CredentialOptions } from '../../src/auth/options.js';
import { createHostTransport } from '../../src/host.js';
import { type OAuthRig, pkcePair } from './oauth.js';

/** A connector on the OAuth rig: `me.get` reads the resource server's `/me` with the connection's access token. */

const Me = z.object({ sub: z.string() }).meta({ id: 'RigMe' });

/** `declared`: the endpoints the connector names, when not the rig's (a connection then points them at the rig). */
export function rigConnector(
  rig: OAuthRig,
  grant: 'code' | 'client',
  declared: { tokenUrl: string; authorizeUrl: string } = rig.auth,
): Connector {
  const common = { tokenUrl: declared.tokenUrl, scopes: ['items:read'] };
  return defineConnector({
    key: 'rigged',
    name: 'Rigged',
    version: '1.0.0',
    vendor: null,
    category: 'developer',
    status: 'beta',
    summary: 'A connector whose API takes OAuth2 access tokens from the test rig.',
    auth:
      grant === 'code'
        ? oauth2AuthorizationCode({ ...common, authorizeUrl: declared.authorizeUrl })
        : oauth2ClientCredentials({ ...common, clientAuth: 'header' }),
    actions: [
      defineAction({
        key: 'me.get',
        label: 'Who am I',
        direction: 'source',
        entity: Me,
        input: z.object({}),
        async *read(ctx) {
          const me = await ctx.http.get<{ sub?: string; client_id?: string }>('/me');
          yield { records: [{ sub: me.sub ?? me.client_id ?? '' }] };
        },
      }),
    ],
  });
}

export function rigTransport(clock: ManualClock, credentials: CredentialOptions, redis?: string): Transport {
  return createHostTransport({
    clock,
    network: { allow: ['127.0.0.0/8'] },
    credentials,
    ...(redis === undefined ? {} : { redis }),
  });
}

/** A token set of the native client, signed in through the rig with PKCE (as a person would, once). */
export async function signedIn(rig: OAuthRig, now: number): Promise<TokenSet> {
  const { native } = rig.auth.clients;
  const pair = pkcePair();
  const redirectUri = 'http://127.0.0.1:61000/callback';
  const { code } = await rig.auth.authorizeProgrammatically(native, { codeChallenge: pair.challenge, redirectUri });
  const as = { issuer: rig.auth.issuer, token_endpoint: rig.auth.tokenUrl };
  const client = { client_id: native.clientId };
  const response = await fetch(rig.auth.tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      code_verifier: pair.verifier,
      client_id: native.clientId,
    }),
  });
  const answer = await oauth.processAuthorizationCodeResponse(as, client, response);
  return {
    accessToken: answer.access_token,
    refreshToken: answer.refresh_token!,
    expiresAt: now + (answer.expires_in ?? 0) * 1000,
    tokenType: 'Bearer',
  };
}

/**
 * A signed-in token set whose grant the authorization server then revoked: its first refresh token
 * was exchanged (for this set) and then presented again, on which oidc-provider revokes the whole
 * grant (RFC 9700 4.14.2). The set's refresh token is refused (`invalid_grant`) from then on.
 */
export async function revokedGrant(rig: OAuthRig, now: number): Promise<TokenSet> {
  const first = await signedIn(rig, now);
  const { clientId } = rig.auth.clients.native;
  const refresh = () =>
    fetch(rig.auth.tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: first.refreshToken!,
        client_id: clientId,
      }),
    });
  const as = { issuer: rig.auth.issuer, token_endpoint: rig.auth.tokenUrl };
  const answer = await oauth.processRefreshTokenResponse(as, { client_id: clientId }, await refresh());
  const reused = await refresh();
  if (reused.status !== 400) throw new Error(`the spent refresh token was answered ${reused.status}, not refused`);
  return {
    accessToken: answer.access_token,
    refreshToken: answer.refresh_token!,
    expiresAt: now + (answer.expires_in ?? 0) * 1000,
    tokenType: 'Bearer',
  };
}

/** One `me.get` run on `connectionId`, its log entries kept in `log`. */
export function callMe(
  connector: Connector,
  transport: Transport,
  rig: OAuthRig,
  credential: { clientId: string; clientSecret?: string; tokens?: TokenSet },
  log: LogEntry[] = [],
  connectionId = 'conn-1',
) {
  return readAll(connector, 'me.get', {
    input: {},
    connection: { id: connectionId, baseUrl: rig.api.url },
    credential: () => credential,
    transport,
    retry: { retries: 0 },
    log: (entry) => void log.push(entry),
    logLevel: 'debug',
  });
}
