import { afterAll, describe, expect, it } from 'vitest';
import { checkConnection, type CheckOptions, createExecutor, createHostTransport, manualClock } from '../src/host.js';
import {
  apiKeyHeader,
  bearerToken,
  type ConnectionCredential,
  defineConnector,
  oauth2AuthorizationCode,
} from '../src/index.js';
import { example, itemGet } from './support/connector.js';
import { useHarness } from './support/harness.js';
import { json } from './support/server.js';

const h = useHarness();

const KEY = 'check-key-4e8a2c6b9d1f3a57';
const ACCESS_TOKEN = 'check-access-7c3e9a1b5d2f4e68';
const clock = manualClock(Date.parse('2026-11-26T06:00:00Z'));
const TOKEN_EXPIRY = Date.parse('2026-11-26T07:00:00Z');
// A token's expiry is judged on the transport's clock: the test's, never the day's real time.
const transport = createHostTransport({ clock });
afterAll(() => transport.close());

const checked = defineConnector({
  key: 'checked',
  name: 'Checked',
  version: '1.0.0',
  vendor: null,
  category: 'developer',
  status: 'beta',
  summary: 'A connector with a connection check.',
  auth: [
    apiKeyHeader('X-Api-Key'),
    bearerToken(),
    oauth2AuthorizationCode({
      authorizeUrl: 'https://auth.example.com/authorize',
      tokenUrl: 'https://auth.example.com/token',
      scopes: ['items:read'],
    }),
  ],
  actions: [itemGet],
  async check(ctx) {
    await ctx.http.get('/me');
  },
});

function options(baseUrl: string, scheme: string, credential: ConnectionCredential): CheckOptions {
  return {
    connection: { id: 'conn_1', baseUrl, settings: { authScheme: scheme } },
    credential: () => credential,
    transport,
    clock,
    log: () => undefined,
  };
}

const oauth2 = { clientId: 'client-1', tokens: { accessToken: ACCESS_TOKEN, expiresAt: TOKEN_EXPIRY } };

describe('checkConnection', () => {
  it('passes with one request through the pipeline, and says when the credential expires', async () => {
    const server = await h.start((req, res) =>
      req.headers.authorization === `Bearer ${ACCESS_TOKEN}` ? json(res, 200, { id: 'me' }) : json(res, 401, {}),
    );
    const check = await checkConnection(checked, options(server.url, 'oauth2_authorization_code', oauth2));
    expect(check).toEqual({
      connectionId: 'conn_1',
      state: 'passed',
      current: true,
      checkedAt: '2026-11-26T06:00:00.000Z',
      expiresAt: '2026-11-26T07:00:00.000Z',
      summary: 'Checked accepted the credential',
      fixHint: null,
    });
    expect(server.requests.map((request) => request.path)).toEqual(['/me']);
  });

  it('a 401 is credentials_changed, with what to do for the scheme, and no secret even when echoed', async () => {
    const server = await h.start((req, res) =>
      json(res, 401, { message: `key ${String(req.headers['x-api-key'])} ${req.headers.authorization} is revoked` }),
    );
    const key = await checkConnection(checked, options(server.url, 'x-api-key', KEY));
    expect(key).toMatchObject({
      state: 'credentials_changed',
      current: true,
      expiresAt: null,
      fixHint: 'Replace the API key with a current one from Checked.',
    });
    const oauth = await checkConnection(checked, options(server.url, 'oauth2_authorization_code', oauth2));
    expect(oauth).toMatchObject({ state: 'credentials_changed', fixHint: 'Sign in to Checked again to reconnect.' });
    expect(JSON.stringify([key, oauth])).not.toMatch(new RegExp(`${KEY}|${ACCESS_TOKEN}`));
    expect(key.summary).toContain('is revoked');
  });

  it('a token past its expiry is expired, and nothing is sent', async () => {
    const server = await h.start((req, res) => json(res, 200, {}));
    const check = await checkConnection(
      checked,
      options(server.url, 'oauth2_authorization_code', {
        clientId: 'client-1',
        tokens: { accessToken: ACCESS_TOKEN, expiresAt: Date.parse('2026-11-26T05:59:59Z') },
      }),
    );
    expect(check).toMatchObject({
      state: 'expired',
      expiresAt: '2026-11-26T05:59:59.000Z',
      fixHint: 'Sign in to Checked again to reconnect.',
    });
    expect(server.requests).toHaveLength(0);
  });

  it('a 403 failed, with the scopes to ask the provider for', async () => {
    const server = await h.start((req, res) => json(res, 403, { message: 'insufficient scope' }));
    expect(await checkConnection(checked, options(server.url, 'oauth2_authorization_code', oauth2))).toMatchObject({
      state: 'failed',
      fixHint: 'Ask the Checked administrator to grant the scopes items:read, then sign in again.',
    });
    expect(await checkConnection(checked, options(server.url, 'bearer', KEY))).toMatchObject({
      state: 'failed',
      fixHint:
        'Ask the Checked administrator to give this credential the permissions the connector needs, then check again.',
    });
  });

  it('a 500 failed once, with a hint to try again later', async () => {
    const server = await h.start((req, res) => json(res, 500, { message: 'down' }));
    expect(await checkConnection(checked, options(server.url, 'bearer', KEY))).toMatchObject({
      state: 'failed',
      current: true,
      fixHint: 'Checked could not be reached or failed to answer; check the connection again in a few minutes.',
    });
    expect(server.requests).toHaveLength(1);
  });

  it('a credential of the wrong shape failed before any request, naming the part', async () => {
    const server = await h.start((req, res) => json(res, 200, {}));
    const check = await checkConnection(checked, options(server.url, 'oauth2_authorization_code', KEY));
    expect(check.state).toBe('failed');
    expect(check.summary).toContain("auth scheme 'oauth2_authorization_code'");
    expect(check.summary).not.toContain(KEY);
    expect(server.requests).toHaveLength(0);
  });

  it('a connector without a check is not_checked, and nothing is sent', async () => {
    const server = await h.start((req, res) => json(res, 200, {}));
    expect(
      await checkConnection(example, { ...options(server.url, 'bearer', { key: KEY, expiresAt: TOKEN_EXPIRY }) }),
    ).toEqual({
      connectionId: 'conn_1',
      state: 'not_checked',
      current: false,
      checkedAt: null,
      expiresAt: '2026-11-26T07:00:00.000Z',
      summary: 'Example has no connection check: the credential is tried by the first run',
      fixHint: null,
    });
    expect(server.requests).toHaveLength(0);
  });
});

describe('the executor checks a connection by its id', () => {
  it('resolves the connection and its credential as for a run, and answers the LiveCheck', async () => {
    const server = await h.start((req, res) =>
      req.headers['x-api-key'] === KEY ? json(res, 200, { id: 'me' }) : json(res, 401, {}),
    );
    const credentials: Record<string, string> = { conn_ok: KEY, conn_old: 'old-key-0123456789' };
    const executor = createExecutor({
      connectors: [checked, example],
      resolveConnection: (id) => ({ id, baseUrl: server.url, settings: { authScheme: 'x-api-key' } }),
      resolveCredential: (id) => credentials[id],
      transport: h.transport,
      clock,
      log: () => undefined,
    });
    expect(await executor.checkConnection({ connectorKey: 'checked', connectionId: 'conn_ok' })).toMatchObject({
      connectionId: 'conn_ok',
      state: 'passed',
      checkedAt: '2026-11-26T06:00:00.000Z',
    });
    expect(await executor.checkConnection({ connectorKey: 'checked', connectionId: 'conn_old' })).toMatchObject({
      connectionId: 'conn_old',
      state: 'credentials_changed',
    });
    await expect(executor.checkConnection({ connectorKey: 'nope', connectionId: 'conn_ok' })).rejects.toMatchObject({
      code: 'unknown_connector',
    });
    expect(server.requests.map((request) => request.path)).toEqual(['/me', '/me']);
  });
});
