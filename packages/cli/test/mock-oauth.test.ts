import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type Connector,
  type ConnectorError,
  defineAction,
  defineConnector,
  oauth2AuthorizationCode,
  type OAuth2AuthorizationCodeScheme,
  readAll,
  type TokenSet,
  type Transport,
} from '@plugboard/sdk';
import {
  authorizationRequest,
  createHostTransport,
  exchangeAuthorizationCode,
  type ManualClock,
  manualClock,
  memoryCredentialStore,
  schemeAtAuthBase,
} from '@plugboard/sdk/host';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type MockServer, startMockServer } from '../src/mock/server.js';
import type { TokenFault } from '../src/mock/oauth-faults.js';
import { loadOpenApiDocument } from '../src/openapi-document.js';

/**
 * `plugboard mock`'s stand-in authorization server, checked as a client meets it: the SDK's own
 * sign-in, token requests and runs against it on 127.0.0.1, its time the test's clock. The
 * connector declares another token URL (a server that counts what reaches it: nothing may).
 */

const DOCUMENT = {
  openapi: '3.0.3',
  info: { title: 'Files', version: '1.0.0' },
  servers: [{ url: 'https://api.files.example/2.0' }],
  security: [{ oauth: [] }],
  components: {
    securitySchemes: {
      oauth: {
        type: 'oauth2',
        flows: {
          authorizationCode: {
            authorizationUrl: 'https://account.files.example/authorize',
            tokenUrl: 'https://api.files.example/oauth2/token',
            scopes: {},
          },
        },
      },
    },
  },
  paths: {
    '/users/me': {
      get: {
        operationId: 'getMe',
        responses: {
          '200': {
            description: 'me',
            content: { 'application/json': { schema: { type: 'object', properties: { id: { type: 'string' } } } } },
          },
        },
      },
    },
  },
};

const CLIENT = 'files-client';
const LIFETIME_S = 600;

let clock: ManualClock;
let mock: MockServer;
let declared: Server;
let declaredHits: number;
let transport: Transport;
let folder: string;
let documentFile: string;

async function start(fault?: TokenFault, clientSecret?: string) {
  mock = await startMockServer(await loadOpenApiDocument(documentFile), {
    clock,
    oauth: {
      clientId: CLIENT,
      lifetimeSeconds: LIFETIME_S,
      ...(fault ? { fault } : {}),
      ...(clientSecret ? { clientSecret } : {}),
    },
  });
}

beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), 'plugboard-mock-oauth-'));
  documentFile = join(folder, 'files.json');
  await writeFile(documentFile, JSON.stringify(DOCUMENT));
  clock = manualClock(Date.parse('2026-11-27T10:00:00Z'));
  declaredHits = 0;
  declared = createServer((_request, response) => {
    declaredHits += 1;
    response.writeHead(500).end();
  });
  await new Promise<void>((resolve) => declared.listen(0, '127.0.0.1', resolve));
  transport = createHostTransport({
    clock,
    network: { allow: ['127.0.0.0/8'] },
    credentials: { store: memoryCredentialStore() },
  });
});

afterEach(async () => {
  await transport.close();
  await mock?.close();
  declared.closeAllConnections();
  await new Promise<void>((resolve) => declared.close(() => resolve()));
  await rm(folder, { recursive: true, force: true });
  expect(declaredHits).toBe(0);
});

function files(): Connector {
  const origin = `http://127.0.0.1:${(declared.address() as AddressInfo).port}`;
  return defineConnector({
    key: 'files',
    name: 'Files',
    version: '1.0.0',
    vendor: null,
    category: 'developer',
    status: 'beta',
    summary: 'Files on a provider that signs in with OAuth2.',
    auth: oauth2AuthorizationCode({ authorizeUrl: `${origin}/authorize`, tokenUrl: `${origin}/oauth2/token` }),
    actions: [
      defineAction({
        key: 'me.get',
        label: 'Me',
        direction: 'source',
        entity: z.object({ id: z.string() }).meta({ id: 'FilesMe' }),
        input: z.object({}),
        async *read(ctx) {
          const me = await ctx.http.get<{ id?: string }>('/users/me');
          yield { records: [{ id: String(me.id ?? '') }] };
        },
      }),
    ],
  });
}

const pointed = (connector: Connector) =>
  schemeAtAuthBase(connector.auth[0]!, mock.oauth!.baseUrl) as OAuth2AuthorizationCodeScheme;

/** The authorization request a sign-in makes, consented at once: the redirect it comes back with. */
async function authorize(connector: Connector, redirectUri = 'http://127.0.0.1:61000/callback') {
  const request = await authorizationRequest(pointed(connector), { clientId: CLIENT, redirectUri });
  const answer = await fetch(request.url, { redirect: 'manual' });
  expect(answer.status).toBe(302);
  return { request, callbackUrl: answer.headers.get('location')!, redirectUri };
}

async function signIn(
  connector: Connector,
  change: { verifier?: string; redirectUri?: string; clientId?: string } = {},
): Promise<TokenSet> {
  const { request, callbackUrl, redirectUri } = await authorize(connector);
  return exchangeAuthorizationCode({
    connector,
    scheme: pointed(connector),
    clientId: change.clientId ?? CLIENT,
    callback: {
      callbackUrl,
      state: request.state,
      verifier: change.verifier ?? request.verifier,
      redirectUri: change.redirectUri ?? redirectUri,
    },
    connectionId: 'c1',
    transport,
    environment: 'sandbox',
  });
}

function run(connector: Connector, tokens: TokenSet, clientId = CLIENT) {
  return readAll(connector, 'me.get', {
    input: {},
    connection: { id: 'c1', baseUrl: mock.url, authBaseUrl: mock.oauth!.baseUrl },
    credential: () => ({ clientId, tokens }),
    transport,
    retry: { retries: 0 },
    log: () => undefined,
  });
}

async function failure(work: Promise<unknown>): Promise<ConnectorError> {
  try {
    await work;
  } catch (error) {
    return error as ConnectorError;
  }
  throw new Error('it did not fail');
}

const grants = () =>
  mock.requests.filter((request) => request.path === '/oauth/token').map((r) => `${r.status} ${r.operationId}`);

describe('the stand-in authorization server', () => {
  it('signs in with PKCE and state, refreshes once an access token expired, rotates and refuses a reused refresh token', async () => {
    await start();
    const connector = files();
    const tokens = await signIn(connector);
    expect(tokens.expiresAt).toBe(clock.now() + LIFETIME_S * 1000);
    expect((await run(connector, tokens)).records).toHaveLength(1);
    await clock.advance((LIFETIME_S + 1) * 1000);
    const api = await fetch(`${mock.url}/users/me`, { headers: { authorization: `Bearer ${tokens.accessToken}` } });
    expect([api.status, api.headers.get('www-authenticate')]).toEqual([401, expect.stringMatching(/invalid_token/)]);
    expect((await run(connector, tokens)).records).toHaveLength(1);
    expect(grants()).toEqual(['200 authorization_code', '200 refresh_token']);
    const reused = await fetch(mock.oauth!.tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: tokens.refreshToken!,
        client_id: CLIENT,
      }),
    });
    expect([reused.status, ((await reused.json()) as { error: string }).error]).toEqual([400, 'invalid_grant']);
    const unknown = await fetch(`${mock.url}/users/me`, { headers: { authorization: 'Bearer made-up' } });
    expect(unknown.status).toBe(401);
  });

  it('refuses a wrong verifier, redirect URI or client as a real server would, and sign-in and run fail typed', async () => {
    await start();
    const connector = files();
    const verifier = await failure(signIn(connector, { verifier: 'x'.repeat(43) }));
    expect([verifier.code, verifier.message]).toEqual(['credentials_expired', expect.stringMatching(/invalid_grant/)]);
    const redirect = await failure(signIn(connector, { redirectUri: 'http://127.0.0.1:61001/callback' }));
    expect(redirect.code).toBe('credentials_expired');
    const client = await failure(signIn(connector, { clientId: 'someone-else' }));
    expect([client.code, client.message]).toEqual(['credentials_changed', expect.stringMatching(/invalid_client/)]);
    const tokens = await signIn(connector);
    await clock.advance((LIFETIME_S + 1) * 1000);
    const run401 = await failure(run(connector, tokens, 'someone-else'));
    expect(run401.code).toBe('credentials_changed');
    expect(grants()).toEqual([
      '400 authorization_code invalid_grant',
      '400 authorization_code invalid_grant',
      '401 authorization_code invalid_client',
      '200 authorization_code',
      '401 refresh_token invalid_client',
    ]);
  });

  it('redirects back with an error without PKCE S256 or state, and shows (never redirects) an unknown client', async () => {
    await start();
    const { request } = await authorize(files());
    const without = (name: string, value?: string) => {
      const url = new URL(request.url);
      if (value === undefined) url.searchParams.delete(name);
      else url.searchParams.set(name, value);
      return fetch(url, { redirect: 'manual' });
    };
    for (const answer of [await without('state'), await without('code_challenge_method', 'plain')]) {
      expect(answer.status).toBe(302);
      expect(new URL(answer.headers.get('location')!).searchParams.get('error')).toBe('invalid_request');
    }
    const stranger = await without('client_id', 'stranger');
    expect([stranger.status, stranger.headers.get('location')]).toEqual([400, null]);
    const away = await without('redirect_uri', 'https://attacker.example/callback');
    expect([away.status, away.headers.get('location')]).toEqual([400, null]);
  });

  it('grants client credentials to a confidential client only, with no refresh token', async () => {
    await start(undefined, 'mock-secret-1');
    const form = (secret?: string) =>
      fetch(mock.oauth!.tokenUrl, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          ...(secret ? { authorization: `Basic ${Buffer.from(`${CLIENT}:${secret}`).toString('base64')}` } : {}),
        },
        body: new URLSearchParams({ grant_type: 'client_credentials', ...(secret ? {} : { client_id: CLIENT }) }),
      });
    const good = await form('mock-secret-1');
    const granted = (await good.json()) as Record<string, unknown>;
    expect([good.status, granted.token_type, granted.expires_in, granted.refresh_token]).toEqual([
      200,
      'Bearer',
      LIFETIME_S,
      undefined,
    ]);
    expect((await form('wrong')).status).toBe(401);
    expect((await form()).status).toBe(401);
  });
});

describe('a hostile token request', () => {
  it('is refused, and its request line quotes no line break or other text the client made up', async () => {
    await start();
    const answer = await fetch(mock.oauth!.tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'x\nGET /v2/users/me 200 getMe', client_id: CLIENT }),
    });
    expect([answer.status, ((await answer.json()) as { error: string }).error]).toEqual([
      400,
      'unsupported_grant_type',
    ]);
    expect(grants()).toEqual(['400 unreadable unsupported_grant_type']);
  });
});

describe('--token-fault', () => {
  it('invalid_grant: the refresh is refused and the run fails credentials_expired', async () => {
    await start();
    const connector = files();
    const tokens = await signIn(connector);
    await mock.close();
    const port = Number(new URL(mock.url).port);
    mock = await startMockServer(await loadOpenApiDocument(documentFile), {
      clock,
      port,
      oauth: { clientId: CLIENT, lifetimeSeconds: LIFETIME_S, fault: 'invalid_grant' },
    });
    expect((await failure(run(connector, { ...tokens, expiresAt: clock.now() - 1 }))).code).toBe('credentials_expired');
  });

  it('5xx: the token request fails retryable, typed; slow: the answer waits on the clock', async () => {
    await start('5xx');
    const code = await failure(signIn(files()));
    expect([code.code, code.retryable]).toEqual(['provider_unavailable', true]);
    await mock.close();
    await start('slow');
    // Nothing moves the clock meanwhile: the one timer more is the held answer's.
    const before = clock.pending;
    const form = fetch(mock.oauth!.tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'rt_unknown', client_id: CLIENT }),
    });
    await expect.poll(() => clock.pending).toBe(before + 1);
    expect(mock.requests.filter((request) => request.path === '/oauth/token')).toEqual([]);
    await clock.advance(15_000);
    expect((await form).status).toBe(400);
  });
});
