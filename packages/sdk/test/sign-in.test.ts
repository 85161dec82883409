import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { authorizationRequest } from '../src/auth/authorize-url.js';
import { exchangeAuthorizationCode } from '../src/auth/login.js';
import { type ManualClock, manualClock } from '../src/clock.js';
import type { OAuth2AuthorizationCodeScheme, Transport } from '../src/index.js';
import { type OAuthRig, startOAuthRig } from './support/oauth.js';
import { rigConnector, rigTransport } from './support/oauth-connector.js';

/** Signing in (a CLI's `auth login`): the authorization request with PKCE S256, then the code's exchange. */

let clock: ManualClock;
let rig: OAuthRig;
let transport: Transport;

beforeEach(async () => {
  clock = manualClock();
  rig = await startOAuthRig({ clock });
  transport = rigTransport(clock, {});
});

afterEach(async () => {
  await transport.close();
  await rig.stop();
});

describe('sign-in', () => {
  it('builds the authorization URL and exchanges the code with the PKCE verifier', async () => {
    const connector = rigConnector(rig, 'code');
    const scheme = connector.auth[0] as OAuth2AuthorizationCodeScheme;
    const clientId = rig.auth.clients.native.clientId;
    const redirectUri = 'http://127.0.0.1:61000/callback';
    const request = await authorizationRequest(scheme, { clientId, redirectUri });
    expect(Object.fromEntries(request.url.searchParams)).toMatchObject({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: redirectUri,
      scope: 'items:read',
      state: request.state,
      code_challenge_method: 'S256',
    });
    expect(request.url.search).not.toContain(request.verifier);

    const callbackUrl = await rig.auth.completeAuthorization(request.url);
    const callback = { callbackUrl, state: request.state, verifier: request.verifier, redirectUri };
    const exchange = {
      connector,
      scheme,
      clientId,
      callback,
      connectionId: 'conn-1',
      transport,
      environment: 'sandbox' as const,
    };
    // Part-way through a second: the token's `exp` is stamped in whole seconds.
    await clock.advance(900);
    const tokens = await exchangeAuthorizationCode(exchange);
    expect(tokens).toMatchObject({ tokenType: 'Bearer', scope: 'items:read', expiresAt: clock.now() - 900 + 2000 });
    // Never believed to live past the provider's own `exp`: a call sent in between would meet a 401.
    const { exp } = JSON.parse(Buffer.from(tokens.accessToken.split('.')[1]!, 'base64url').toString()) as {
      exp: number;
    };
    expect(tokens.expiresAt).toBeLessThanOrEqual(exp * 1000);
    expect(tokens.refreshToken).toBeDefined();
    const me = await fetch(`${rig.api.url}/me`, { headers: { authorization: `Bearer ${tokens.accessToken}` } });
    expect(me.status).toBe(200);

    // A code is good once: its second exchange is refused as expired, quoting no code.
    const code = callbackUrl.searchParams.get('code')!;
    const again = await exchangeAuthorizationCode(exchange).catch((error: Error) => error);
    expect(again).toMatchObject({ code: 'credentials_expired', retryable: false });
    expect(String(again)).not.toContain(code);
    expect(rig.auth.counts.token.authorization_code).toBe(2);
  });

  it("refuses a redirect whose state is not the request's, sending nothing", async () => {
    const connector = rigConnector(rig, 'code');
    const scheme = connector.auth[0] as OAuth2AuthorizationCodeScheme;
    const clientId = rig.auth.clients.native.clientId;
    const redirectUri = 'http://127.0.0.1:61000/callback';
    const request = await authorizationRequest(scheme, { clientId, redirectUri });
    const callbackUrl = await rig.auth.completeAuthorization(request.url);
    const failed = await exchangeAuthorizationCode({
      connector,
      scheme,
      clientId,
      callback: { callbackUrl, state: 'another-state', verifier: request.verifier, redirectUri },
      connectionId: 'conn-1',
      transport,
      environment: 'sandbox',
    }).catch((error: Error) => error);
    expect(failed).toMatchObject({ code: 'token_answer_invalid', retryable: false });
    expect(rig.auth.counts.token.authorization_code).toBe(0);
  });
});
