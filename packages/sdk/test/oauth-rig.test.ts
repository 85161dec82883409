import { spawn } from 'node:child_process';
import { once } from 'node:events';
import * as oauth from 'oauth4webapi';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ManualClock, manualClock } from '../src/clock.js';
import {
  type AuthorizationServer,
  type AuthorizationServerCounts,
  type ConfidentialClient,
  type OAuthRig,
  pkcePair,
  RESOURCE_ITEMS,
  startAuthorizationServer,
  startOAuthRig,
  startResourceServer,
} from './support/oauth.js';

/**
 * The OAuth rig other tests build on: oidc-provider's tokens, checked by a resource server
 * verifying with jose on a clock the test moves, oidc-provider's authorization code flow driven
 * without a browser, rotating refresh tokens, and each token endpoint fault.
 */

let clock: ManualClock;
let rig: OAuthRig;

beforeEach(async () => {
  // Far from the real time: the tokens' times come from this clock too.
  clock = manualClock();
  rig = await startOAuthRig({ clock });
});

afterEach(async () => {
  await rig.stop();
});

/** Counts with everything at zero but `changes`. */
function countsWith(changes: {
  token?: Partial<AuthorizationServerCounts['token']>;
  refreshReuse?: number;
  refused?: number;
  injected?: Partial<AuthorizationServerCounts['injected']>;
}): AuthorizationServerCounts {
  return {
    token: { client_credentials: 0, authorization_code: 0, refresh_token: 0, other: 0, ...changes.token },
    refreshReuse: changes.refreshReuse ?? 0,
    refused: changes.refused ?? 0,
    injected: {
      status: 0,
      reset: 0,
      hold: 0,
      invalid_grant: 0,
      no_token_type: 0,
      expires_in_string: 0,
      ...changes.injected,
    },
  };
}

/** A token request as a plain client sends it, authenticated as `client` says. */
function tokenRequest(
  auth: AuthorizationServer,
  params: Record<string, string>,
  client: ConfidentialClient = auth.clients.basic,
  signal?: AbortSignal,
): Promise<Response> {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  const body = new URLSearchParams(params);
  if (client.authMethod === 'client_secret_basic') {
    const pair = `${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.clientSecret)}`;
    headers.authorization = `Basic ${Buffer.from(pair).toString('base64')}`;
  } else {
    body.set('client_id', client.clientId);
    body.set('client_secret', client.clientSecret);
  }
  return fetch(auth.tokenUrl, { method: 'POST', headers, body, signal });
}

async function clientCredentials(auth: AuthorizationServer, client?: ConfidentialClient) {
  const answer = await tokenRequest(auth, { grant_type: 'client_credentials', scope: 'items:read' }, client);
  expect(answer.status).toBe(200);
  return (await answer.json()) as { access_token: string; token_type: string; expires_in: number; scope: string };
}

function callApi(path: string, token?: string): Promise<Response> {
  return fetch(`${rig.api.url}${path}`, token ? { headers: { authorization: `Bearer ${token}` } } : {});
}

/** The claims of a JWT, read without verifying (the resource server verifies). */
function claims(token: string): { iat: number; exp: number; aud: string; iss: string; sub: string } {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8'));
}

/** A native-client login with PKCE, then the code exchanged: a refresh token and an access token. */
async function codeLogin() {
  const { native } = rig.auth.clients;
  const pkce = pkcePair();
  const redirectUri = 'http://127.0.0.1:49152/callback';
  const { code } = await rig.auth.authorizeProgrammatically(native, { codeChallenge: pkce.challenge, redirectUri });
  const answer = await fetch(rig.auth.tokenUrl, {
    method: 'POST',
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      code_verifier: pkce.verifier,
      redirect_uri: redirectUri,
      client_id: native.clientId,
    }),
  });
  expect(answer.status).toBe(200);
  return (await answer.json()) as { access_token: string; refresh_token: string };
}

function refresh(refreshToken: string, signal?: AbortSignal): Promise<Response> {
  const body = new URLSearchParams({
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
    client_id: rig.auth.clients.native.clientId,
  });
  return fetch(rig.auth.tokenUrl, { method: 'POST', body, signal });
}

describe('client credentials', () => {
  it('issues JWT access tokens for the resource server, with client_secret_basic and client_secret_post', async () => {
    const basic = await clientCredentials(rig.auth, rig.auth.clients.basic);
    const post = await clientCredentials(rig.auth, rig.auth.clients.post);
    for (const tokens of [basic, post]) {
      expect(tokens).toMatchObject({ token_type: 'Bearer', expires_in: 2, scope: 'items:read' });
      expect(claims(tokens.access_token)).toMatchObject({ aud: rig.api.url, iss: rig.auth.issuer });
    }
    const me = await callApi('/me', basic.access_token);
    expect(me.status).toBe(200);
    expect(await me.json()).toEqual({ sub: 'service-basic', client_id: 'service-basic', scope: 'items:read' });
    const items = await callApi('/items', post.access_token);
    expect(await items.json()).toEqual({ items: RESOURCE_ITEMS });
    expect(rig.api.counts).toEqual({ accepted: 2, refused: 0 });
    expect(rig.auth.counts).toEqual(countsWith({ token: { client_credentials: 2 } }));
  });

  it('refuses a wrong client secret (counted as refused)', async () => {
    const wrong = { ...rig.auth.clients.post, clientSecret: 'not-the-secret' };
    const answer = await tokenRequest(rig.auth, { grant_type: 'client_credentials' }, wrong);
    expect(answer.status).toBe(401);
    expect(await answer.json()).toMatchObject({ error: 'invalid_client' });
    expect(rig.auth.counts).toEqual(countsWith({ token: { client_credentials: 1 }, refused: 1 }));
  });
});

describe('resource server', () => {
  it('accepts a token until its clock reaches exp, then answers 401 invalid_token', async () => {
    const { access_token } = await clientCredentials(rig.auth);
    const { exp } = claims(access_token);
    await clock.advance(exp * 1000 - 1 - clock.now());
    expect((await callApi('/me', access_token)).status).toBe(200);
    await clock.advance(1);
    const expired = await callApi('/me', access_token);
    expect(expired.status).toBe(401);
    expect(expired.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    expect(rig.api.counts).toEqual({ accepted: 1, refused: 1 });
  });

  it('verifying each token once keeps judging its expiry at every call', async () => {
    await rig.stop();
    rig = await startOAuthRig({ clock, verifyOnce: true });
    const { access_token } = await clientCredentials(rig.auth);
    const { exp } = claims(access_token);
    expect((await callApi('/me', access_token)).status).toBe(200);
    await clock.advance(exp * 1000 - 1 - clock.now());
    expect((await callApi('/me', access_token)).status).toBe(200);
    await clock.advance(1);
    expect((await callApi('/me', access_token)).status).toBe(401);
    expect(rig.api.counts).toEqual({ accepted: 2, refused: 1 });
  });

  it('verifying each token once checks its signature once when its calls arrive together', async () => {
    await rig.stop();
    rig = await startOAuthRig({ clock, verifyOnce: true });
    const { access_token } = await clientCredentials(rig.auth);
    const answers = await Promise.all(Array.from({ length: 20 }, () => callApi('/me', access_token)));
    expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(200));
    expect(rig.api.counts).toEqual({ accepted: 20, refused: 0 });
    expect(rig.api.signatureChecks).toBe(1);
  });

  it('shares its clock with the authorization server: a token issued after the clock moved is valid for its lifetime', async () => {
    const first = await clientCredentials(rig.auth);
    expect(claims(first.access_token)).toMatchObject({ iat: clock.now() / 1000, exp: clock.now() / 1000 + 2 });
    await clock.advance(3_600_000);
    expect((await callApi('/me', first.access_token)).status).toBe(401);
    const second = await clientCredentials(rig.auth);
    expect(claims(second.access_token).iat).toBe(clock.now() / 1000);
    expect((await callApi('/me', second.access_token)).status).toBe(200);
    await clock.advance(2_000);
    expect((await callApi('/me', second.access_token)).status).toBe(401);
    expect(rig.api.counts).toEqual({ accepted: 1, refused: 2 });
  });

  it('refuses valid tokens the given number of times when told to, as after a revocation', async () => {
    const { access_token } = await clientCredentials(rig.auth);
    rig.api.refuse(2);
    for (const expected of [401, 401, 200]) expect((await callApi('/items', access_token)).status).toBe(expected);
    expect(rig.api.counts).toEqual({ accepted: 1, refused: 2 });
  });

  it('refuses no token, a forged one, and one of another authorization server or for another audience', async () => {
    const other = await startAuthorizationServer({ resource: 'urn:plugboard:other-api' });
    const strict = await startResourceServer({
      issuer: other.issuer,
      jwksUrl: other.jwksUrl,
      audience: 'urn:plugboard:someone-else',
      clock,
    });
    try {
      const missing = await callApi('/me');
      expect(missing.status).toBe(401);
      expect(missing.headers.get('www-authenticate')).toBe('Bearer');
      const { access_token } = await clientCredentials(rig.auth);
      const [header, payload] = access_token.split('.');
      const forged = `${header}.${payload}.${Buffer.from('not a signature').toString('base64url')}`;
      expect((await callApi('/me', forged)).status).toBe(401);
      const foreign = await clientCredentials(other, other.clients.post);
      expect((await callApi('/me', foreign.access_token)).status).toBe(401);
      // Right issuer and keys, wrong audience.
      const strictAnswer = await fetch(`${strict.url}/me`, {
        headers: { authorization: `Bearer ${foreign.access_token}` },
      });
      expect(strictAnswer.status).toBe(401);
      expect(rig.api.counts).toEqual({ accepted: 0, refused: 3 });
      expect(strict.counts).toEqual({ accepted: 0, refused: 1 });
    } finally {
      await Promise.all([other.stop(), strict.stop()]);
    }
  });
});

describe('authorization code with PKCE', () => {
  it('completes for a realistic client (oauth4webapi): discovery, authorization, code exchange, refresh', async () => {
    const { native } = rig.auth.clients;
    const issuer = new URL(rig.auth.issuer);
    const insecure = { [oauth.allowInsecureRequests]: true };
    const as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }),
    );
    expect(as.code_challenge_methods_supported).toEqual(['S256']);
    const client = { client_id: native.clientId };
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const redirectUri = 'http://127.0.0.1:61000/callback';
    const url = new URL(as.authorization_endpoint!);
    url.search = new URLSearchParams({
      client_id: native.clientId,
      response_type: 'code',
      redirect_uri: redirectUri,
      scope: 'items:read',
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    }).toString();

    const redirected = await rig.auth.completeAuthorization(url);
    expect(`${redirected.origin}${redirected.pathname}`).toBe(redirectUri);
    const params = oauth.validateAuthResponse(as, client, redirected, state);
    const exchanged = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, redirectUri, verifier, insecure),
    );
    expect(exchanged).toMatchObject({ token_type: 'bearer', scope: 'items:read' });
    expect(claims(exchanged.access_token)).toMatchObject({ sub: 'user-1', aud: rig.api.url });
    expect((await callApi('/items', exchanged.access_token)).status).toBe(200);

    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, oauth.None(), exchanged.refresh_token!, insecure),
    );
    expect(refreshed.refresh_token).toBeDefined();
    expect(refreshed.refresh_token).not.toBe(exchanged.refresh_token);
    expect((await callApi('/me', refreshed.access_token)).status).toBe(200);
    expect(rig.auth.counts).toEqual(countsWith({ token: { authorization_code: 1, refresh_token: 1 } }));
    expect(rig.api.counts).toEqual({ accepted: 2, refused: 0 });
  });

  it('refuses a code exchanged without the right verifier', async () => {
    const { native } = rig.auth.clients;
    const redirectUri = 'http://127.0.0.1:49153/callback';
    const { code } = await rig.auth.authorizeProgrammatically(native, {
      codeChallenge: pkcePair().challenge,
      redirectUri,
      state: 'state-1',
    });
    const answer = await fetch(rig.auth.tokenUrl, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        code_verifier: pkcePair().verifier,
        redirect_uri: redirectUri,
        client_id: native.clientId,
      }),
    });
    expect(answer.status).toBe(400);
    expect(await answer.json()).toMatchObject({ error: 'invalid_grant' });
    expect(rig.auth.counts).toEqual(countsWith({ token: { authorization_code: 1 }, refused: 1 }));
  });

  it('refuses an authorization request without a code challenge, and redirects a denial with its state', async () => {
    const { native } = rig.auth.clients;
    const redirectUri = 'http://127.0.0.1:49154/callback';
    const url = new URL(rig.auth.authorizeUrl);
    url.search = new URLSearchParams({
      client_id: native.clientId,
      response_type: 'code',
      redirect_uri: redirectUri,
    }).toString();
    const withoutPkce = await rig.auth.completeAuthorization(url);
    expect(withoutPkce.searchParams.get('error')).toBe('invalid_request');

    url.searchParams.set('code_challenge', pkcePair().challenge);
    url.searchParams.set('code_challenge_method', 'S256');
    url.searchParams.set('state', 'state-2');
    const denied = await rig.auth.completeAuthorization(url, 'deny');
    expect(`${denied.origin}${denied.pathname}`).toBe(redirectUri);
    expect(denied.searchParams.get('error')).toBe('access_denied');
    expect(denied.searchParams.get('state')).toBe('state-2');
    expect(denied.searchParams.has('code')).toBe(false);
    const throws = rig.auth.authorizeProgrammatically(native, {
      codeChallenge: pkcePair().challenge,
      redirectUri,
      decision: 'deny',
    });
    await expect(throws).rejects.toThrow(/without a code: access_denied/);
  });

  it('registers the redirect path it is given, on any port of 127.0.0.1', async () => {
    const own = await startAuthorizationServer({ redirectPath: '/oauth/done' });
    try {
      const { native } = own.clients;
      expect(native.redirectUri).toBe('http://127.0.0.1/oauth/done');
      const { challenge } = pkcePair();
      const done = await own.authorizeProgrammatically(native, {
        codeChallenge: challenge,
        redirectUri: 'http://127.0.0.1:40000/oauth/done',
      });
      expect(done.redirectUrl.pathname).toBe('/oauth/done');
      const elsewhere = own.authorizeProgrammatically(native, {
        codeChallenge: challenge,
        redirectUri: 'http://127.0.0.1:40000/callback',
      });
      await expect(elsewhere).rejects.toThrow(/400 \(invalid_redirect_uri\)/);
    } finally {
      await own.stop();
    }
  });
});

describe('refresh token rotation', () => {
  it('answers a new refresh token each time, refuses the old one after, counts the reuse and revokes the grant', async () => {
    const first = await codeLogin();
    const rotated = await refresh(first.refresh_token);
    expect(rotated.status).toBe(200);
    const second = (await rotated.json()) as { refresh_token: string };
    expect(second.refresh_token).not.toBe(first.refresh_token);

    const reused = await refresh(first.refresh_token);
    expect(reused.status).toBe(400);
    expect(await reused.json()).toMatchObject({ error: 'invalid_grant' });
    // Reuse revokes the whole grant (RFC 9700 4.14.2): the newest refresh token is dead too.
    expect((await refresh(second.refresh_token)).status).toBe(400);
    expect(rig.auth.counts).toEqual(
      countsWith({ token: { authorization_code: 1, refresh_token: 3 }, refreshReuse: 1, refused: 2 }),
    );
  });
});

describe('token endpoint faults', () => {
  it('answers 5xx the given number of times, without asking oidc-provider', async () => {
    const fault = rig.auth.fault({ kind: 'status', status: 502 }, { times: 1 });
    const failed = await tokenRequest(rig.auth, { grant_type: 'client_credentials' });
    expect(failed.status).toBe(502);
    expect(await failed.json()).toEqual({ error: 'server_error' });
    await clientCredentials(rig.auth);
    expect(fault.served).toBe(1);
    expect(rig.auth.counts).toEqual(countsWith({ token: { client_credentials: 2 }, injected: { status: 1 } }));
  });

  it('resets the connection until switched off', async () => {
    const fault = rig.auth.fault({ kind: 'reset' });
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const failure = await tokenRequest(rig.auth, { grant_type: 'client_credentials' }).catch((error) => error);
      expect(failure).toBeInstanceOf(TypeError);
    }
    fault.off();
    await clientCredentials(rig.auth);
    expect(rig.auth.counts).toEqual(countsWith({ token: { client_credentials: 3 }, injected: { reset: 2 } }));
  });

  it('holds a request until released, before oidc-provider sees it', async () => {
    const fault = rig.auth.fault({ kind: 'hold' }, { times: 1 });
    let settled = false;
    const held = tokenRequest(rig.auth, { grant_type: 'client_credentials' }).finally(() => (settled = true));
    await fault.reached();
    // Another request goes through meanwhile: the hold applied once.
    await clientCredentials(rig.auth);
    expect(settled).toBe(false);
    fault.release();
    expect((await held).status).toBe(200);
    expect(rig.auth.counts).toEqual(countsWith({ token: { client_credentials: 2 }, injected: { hold: 1 } }));
  });

  it('holds an answer after oidc-provider rotated the refresh token: a client that gave up holds a dead token', async () => {
    const { refresh_token } = await codeLogin();
    const fault = rig.auth.fault({ kind: 'hold', when: 'after' }, { grantType: 'refresh_token' });
    const abort = new AbortController();
    const given = refresh(refresh_token, abort.signal).catch((error) => error);
    await fault.reached();
    abort.abort();
    expect(await given).toHaveProperty('name', 'AbortError');
    fault.release();
    const retried = await refresh(refresh_token);
    expect(retried.status).toBe(400);
    expect(rig.auth.counts).toEqual(
      countsWith({
        token: { authorization_code: 1, refresh_token: 2 },
        refreshReuse: 1,
        refused: 1,
        injected: { hold: 1 },
      }),
    );
  });

  it('answers invalid_grant to refreshes only, leaving the refresh token as it was', async () => {
    const { refresh_token } = await codeLogin();
    rig.auth.fault({ kind: 'invalid_grant' }, { times: 1 });
    await clientCredentials(rig.auth);
    const refused = await refresh(refresh_token);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: 'invalid_grant' });
    expect((await refresh(refresh_token)).status).toBe(200);
    expect(rig.auth.counts).toEqual(
      countsWith({
        token: { authorization_code: 1, client_credentials: 1, refresh_token: 2 },
        injected: { invalid_grant: 1 },
      }),
    );
  });

  it('answers without token_type, and with expires_in as a string', async () => {
    rig.auth.fault({ kind: 'no_token_type' }, { times: 1 });
    rig.auth.fault({ kind: 'expires_in_string' }, { times: 1 });
    const untyped = (await clientCredentials(rig.auth)) as Record<string, unknown>;
    expect(untyped).not.toHaveProperty('token_type');
    expect(untyped).toMatchObject({ expires_in: 2, scope: 'items:read' });
    const stringly = (await clientCredentials(rig.auth)) as Record<string, unknown>;
    expect(stringly).toMatchObject({ token_type: 'Bearer', expires_in: '2' });
    // The tokens themselves are good.
    expect((await callApi('/me', String(untyped.access_token))).status).toBe(200);
    expect(rig.auth.counts).toEqual(
      countsWith({ token: { client_credentials: 2 }, injected: { no_token_type: 1, expires_in_string: 1 } }),
    );
  });

  it('calls back once an answer is written: a process can be killed right after its token came', async () => {
    const { clientId, clientSecret } = rig.auth.clients.post;
    // Asks for a token, then waits forever: only the kill ends it.
    const script = `
      const body = new URLSearchParams({ grant_type: 'client_credentials', client_id: process.env.CLIENT_ID, client_secret: process.env.CLIENT_SECRET });
      await fetch(process.env.TOKEN_URL, { method: 'POST', body });
      setInterval(() => {}, 1 << 30);`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      env: { PATH: process.env.PATH, TOKEN_URL: rig.auth.tokenUrl, CLIENT_ID: clientId, CLIENT_SECRET: clientSecret },
      stdio: 'ignore',
    });
    const answers: { grantType: string; status: number }[] = [];
    const remove = rig.auth.onTokenAnswer((answer) => {
      answers.push(answer);
      child.kill('SIGKILL');
    });
    const [code, signal] = await once(child, 'exit');
    remove();
    expect({ code, signal }).toEqual({ code: null, signal: 'SIGKILL' });
    expect(answers).toEqual([{ grantType: 'client_credentials', status: 200 }]);
    await clientCredentials(rig.auth);
    expect(answers).toHaveLength(1);
    expect(rig.auth.counts).toEqual(countsWith({ token: { client_credentials: 2 } }));
  });
});

describe('stop', () => {
  it('closes both servers, held requests included', async () => {
    const listening = () => process.getActiveResourcesInfo().filter((kind) => kind === 'TCPServerWrap').length;
    const before = listening();
    const own = await startOAuthRig();
    // The resource server, the front and oidc-provider behind it.
    expect(listening()).toBe(before + 3);
    const fault = own.auth.fault({ kind: 'hold' });
    const held = tokenRequest(own.auth, { grant_type: 'client_credentials' }).catch((error) => error);
    await fault.reached();
    await own.stop();
    expect(listening()).toBe(before);
    expect(await held).toBeInstanceOf(TypeError);
    await expect(fetch(own.auth.issuer)).rejects.toThrow();
    await expect(fetch(own.api.url)).rejects.toThrow();
  });
});
