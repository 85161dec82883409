import { createHmac, timingSafeEqual } from 'node:crypto';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  apiKeyHeader,
  apiKeyQuery,
  basicAuth,
  bearerToken,
  type ConnectorDefinition,
  type ConnectionCredential,
  customAuth,
  defineAction,
  defineConnector,
  DefinitionError,
  type LogEntry,
  oauth2AuthorizationCode,
  oauth2ClientCredentials,
  readAll,
  writeAction,
} from '../src/index.js';
import { Redactor, REDACTED, type TokenSource, catalogueEntry } from '../src/host.js';
import { credential } from '../src/http/stages/credential.js';
import { tokens as tokenStage } from '../src/http/stages/tokens.js';
import { Item } from './support/connector.js';
import { useHarness } from './support/harness.js';
import { json, type SeenRequest, startServer, type TestServer } from './support/server.js';

const h = useHarness();
let other: TestServer | undefined;
afterEach(async () => {
  await other?.close();
  other = undefined;
});

const item = { id: 'a', name: 'A', updated_at: '2026-11-01T00:00:00Z' };
const Note = z.object({ id: z.string(), text: z.string() }).meta({ id: 'AuthTestNote' });

const KEY = 'key-5b1e9a7c3d2f4e60';
const PASSWORD = 'pass-8c4d2e6f1a3b5c79';
const ACCESS_TOKEN = 'access-3f9e1d7c5b2a4e68';
const REFRESH_TOKEN = 'refresh-6a2c8e4f0b1d3c57';
const CLIENT_SECRET = 'client-secret-9d7b5a3c1e2f4a68';

/** What the HMAC scheme signs: method, path and query, timestamp and body, as the provider recomputes it. */
function signature(secret: string, method: string, pathAndQuery: string, timestamp: string, body: string): string {
  return createHmac('sha256', secret).update(`${method}\n${pathAndQuery}\n${timestamp}\n${body}`).digest('hex');
}

const hmac = customAuth({
  id: 'hmac',
  sign(request, secret) {
    const url = new URL(request.url);
    const timestamp = '1764115200';
    return {
      headers: {
        'x-timestamp': timestamp,
        'x-signature': signature(secret, request.method, `${url.pathname}${url.search}`, timestamp, request.body ?? ''),
      },
    };
  },
});

const definition: ConnectorDefinition = {
  key: 'multi',
  name: 'Multi',
  version: '1.0.0',
  vendor: null,
  category: 'developer',
  status: 'beta',
  summary: 'Every scheme.',
  auth: [
    bearerToken(),
    apiKeyHeader('Authorization', { prefix: 'Token ', id: 'token' }),
    apiKeyQuery('api_key'),
    basicAuth(),
    hmac,
    oauth2ClientCredentials({
      tokenUrl: 'https://auth.example.com/oauth/token',
      scopes: ['items:read'],
      audience: 'https://api.example.com',
      clientAuth: 'body',
    }),
    oauth2AuthorizationCode({
      authorizeUrl: 'https://auth.example.com/oauth/authorize',
      tokenUrl: 'https://auth.example.com/oauth/token',
      scopes: ['items:read', 'offline_access'],
      extraAuthorizeParams: { prompt: 'consent' },
    }),
  ],
  rateLimits: { default: { limit: 1000, per: 'second' } },
  actions: [
    defineAction({
      key: 'items.get',
      label: 'Get an item',
      direction: 'source',
      entity: Item,
      input: z.object({ id: z.string() }),
      async *read(ctx, input) {
        yield { records: [await ctx.http.get('/items/{id}', { params: { id: input.id }, query: { v: 2 } })] };
      },
    }),
    defineAction({
      key: 'notes.create',
      label: 'Create a note',
      direction: 'destination',
      entity: Note,
      input: z.object({ text: z.string() }),
      effect: { writes: true, idempotent: false, destructive: false },
      async write(ctx, input) {
        return ctx.http.post('/notes', input);
      },
    }),
  ],
};
const multi = defineConnector(definition);

const tokens = {
  accessToken: ACCESS_TOKEN,
  refreshToken: REFRESH_TOKEN,
  expiresAt: Date.parse('2999-01-01T00:00:00Z'),
};
const oauth2 = { clientId: 'client-1', clientSecret: CLIENT_SECRET, tokens };

/** Each scheme, the credential a host supplies for it, and how the provider checks what arrived. */
const cases: Array<[scheme: string, credential: ConnectionCredential, arrived: (request: SeenRequest) => boolean]> = [
  ['bearer', KEY, (request) => request.headers.authorization === `Bearer ${KEY}`],
  ['token', KEY, (request) => request.headers.authorization === `Token ${KEY}`],
  [
    'query:api_key',
    KEY,
    (request) => request.query.get('api_key') === KEY && request.headers.authorization === undefined,
  ],
  [
    'basic',
    { username: 'ada', password: PASSWORD },
    (request) => request.headers.authorization === `Basic ${Buffer.from(`ada:${PASSWORD}`).toString('base64')}`,
  ],
  [
    'hmac',
    KEY,
    (request) => {
      const given = Buffer.from(String(request.headers['x-signature']), 'hex');
      const search = request.query.size > 0 ? `?${request.query}` : '';
      const expected = Buffer.from(
        signature(
          KEY,
          request.method,
          `${request.path}${search}`,
          String(request.headers['x-timestamp']),
          request.body,
        ),
        'hex',
      );
      return given.length === expected.length && given.length > 0 && timingSafeEqual(given, expected);
    },
  ],
  ['oauth2_client_credentials', oauth2, (request) => request.headers.authorization === `Bearer ${ACCESS_TOKEN}`],
  ['oauth2_authorization_code', oauth2, (request) => request.headers.authorization === `Bearer ${ACCESS_TOKEN}`],
];

/** Every form a secret of these credentials could leak in. */
const secrets = [
  KEY,
  PASSWORD,
  ACCESS_TOKEN,
  REFRESH_TOKEN,
  CLIENT_SECRET,
  Buffer.from(`ada:${PASSWORD}`).toString('base64'),
];

function connection(baseUrl: string, scheme: string) {
  return { baseUrl, settings: { authScheme: scheme } };
}

/** Run options on this test's server with a connection that picks `scheme`, and the credential the host supplies. */
function on(scheme: string, credential: unknown, input: unknown) {
  return h.options({ input, connection: connection(h.server.url, scheme), credential: () => credential as never });
}

describe('each scheme arrives as the provider expects', () => {
  it.each(cases)('%s', async (scheme, credential, arrived) => {
    const server = await h.start((req, res) =>
      arrived(req) ? json(res, 200, req.method === 'POST' ? { id: 'n1', text: 'hi' } : item) : json(res, 401, {}),
    );
    const { records } = await readAll(multi, 'items.get', on(scheme, credential, { id: 'a' }));
    expect(records).toEqual([item]);
    const note = await writeAction(multi, 'notes.create', {
      ...on(scheme, credential, { text: 'hi' }),
      credential: async () => credential,
    });
    expect(note).toEqual({ id: 'n1', text: 'hi' });
    expect(server.requests.map((request) => request.query.get('v'))).toEqual(['2', null]);
  });

  it.each(cases)(
    '%s: never to another origin after a redirect, and nowhere in what the run shows',
    async (scheme, credential) => {
      other = await startServer((req, res) => json(res, 200, { ...item, name: JSON.stringify(req) }));
      const server = await h.start((req, res) => {
        if (req.path === '/items/a') {
          // The provider keeps the query in the Location, and echoes what it got in a header and the body.
          res.writeHead(302, {
            location: `${other!.url.replace('127.0.0.1', 'localhost')}/elsewhere?${req.query}`,
            'x-request-id': JSON.stringify(req.headers),
          });
          res.end(JSON.stringify(req));
        } else json(res, 400, { message: `bad request ${JSON.stringify(req.headers)} ${req.query}` });
      });
      const events: unknown[] = [];
      const names = [
        'request:start',
        'request:end',
        'exchange:start',
        'exchange:end',
        'retry',
        'refused',
        'redirect',
      ].map((name) => `plugboard:http:${name}`);
      const listen = (message: unknown) => events.push(message);
      for (const name of names) subscribe(name, listen);
      const logs: LogEntry[] = [];
      try {
        const options = {
          connection: connection(server.url, scheme),
          credential: () => credential,
          logLevel: 'debug' as const,
          log: (entry: LogEntry) => void logs.push(entry),
        };
        const { records } = await readAll(multi, 'items.get', h.options({ ...options, input: { id: 'a' } }));
        const error = await writeAction(multi, 'notes.create', h.options({ ...options, input: { text: 'x' } })).then(
          () => new Error('the write went on'),
          (caught: unknown) => caught as Error,
        );
        expect(other.requests).toHaveLength(1);
        const arrivedElsewhere = other.requests[0]!;
        expect(arrivedElsewhere.headers.authorization).toBeUndefined();
        expect(arrivedElsewhere.headers['x-signature']).toBeUndefined();
        expect(arrivedElsewhere.query.get('api_key')).toBeNull();
        const shown = JSON.stringify({ records, error: { message: error.message, stack: error.stack }, events, logs });
        expect(events.length).toBeGreaterThan(0);
        expect(error).toMatchObject({ code: 'provider_rejected' });
        const signatures = server.requests.map((request) => request.headers['x-signature']).filter(Boolean);
        for (const secret of [...secrets, ...(signatures as string[])]) {
          expect(shown).not.toContain(secret);
          expect(JSON.stringify(arrivedElsewhere)).not.toContain(secret);
        }
      } finally {
        for (const name of names) unsubscribe(name, listen);
      }
    },
  );
});

describe('a credential of the wrong shape', () => {
  it.each([
    ['basic', KEY, /needs? .*username|must be \{ username, password \}/],
    ['basic', { username: 'ada' }, /needs password \(a non-empty string\); nothing was sent/],
    ['basic', { username: 'a:b', password: PASSWORD }, /username holding a colon/],
    ['bearer', { username: 'ada', password: PASSWORD }, /needs key/],
    ['bearer', { key: 42 }, /needs key \(a non-empty string\), not a number/],
    ['bearer', `${KEY}\n`, /line break/],
    ['oauth2_authorization_code', { clientId: 'c', clientSecret: CLIENT_SECRET }, /needs tokens/],
    ['oauth2_client_credentials', { clientId: 'c', tokens: { refreshToken: REFRESH_TOKEN } }, /tokens\.accessToken/],
    ['oauth2_client_credentials', KEY, /must be \{ clientId/],
    ['hmac', undefined, /is missing/],
  ])('%s with %j fails before any request, naming the part and no value', async (scheme, credential, message) => {
    const server = await h.start((req, res) => json(res, 200, item));
    const error = await readAll(multi, 'items.get', on(scheme, credential, { id: 'a' })).then(
      () => new Error('the run went on'),
      (caught: unknown) => caught as Error,
    );
    expect(error).toMatchObject({ code: 'invalid_connection' });
    expect(error.message).toMatch(message);
    expect(error.message).toContain(`auth scheme '${scheme}'`);
    for (const secret of secrets) expect(error.message).not.toContain(secret);
    expect(server.requests).toHaveLength(0);
  });

  it('an access token past its expiry is credentials_expired, before any request', async () => {
    const server = await h.start((req, res) => json(res, 200, item));
    const error = await readAll(
      multi,
      'items.get',
      h.options({
        input: { id: 'a' },
        connection: connection(server.url, 'oauth2_authorization_code'),
        credential: () => ({ clientId: 'c', tokens: { accessToken: ACCESS_TOKEN, expiresAt: 1_000 } }),
      }),
    ).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'credentials_expired', retryable: false });
    expect(server.requests).toHaveLength(0);
  });
});

describe('a signer that fails', () => {
  it('is signing_failed, never retried as a network failure, and nothing is sent', async () => {
    let calls = 0;
    const failing = defineConnector({
      ...definition,
      key: 'failing',
      auth: [
        customAuth({
          id: 'hmac',
          sign() {
            calls += 1;
            throw new Error(`no clock to sign with ${KEY}`);
          },
        }),
      ],
    });
    const server = await h.start((req, res) => json(res, 200, item));
    const error = await readAll(
      failing,
      'items.get',
      h.options({ input: { id: 'a' }, connection: { baseUrl: server.url }, credential: () => KEY }),
    ).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'signing_failed', retryable: false });
    expect(String((error as Error).message)).not.toContain(KEY);
    expect(calls).toBe(1);
    expect(server.requests).toHaveLength(0);
  });
});

describe('schemes are checked when the connector is defined', () => {
  function problemsOf(auth: ConnectorDefinition['auth']): string[] {
    try {
      defineConnector({ ...definition, auth });
    } catch (error) {
      expect(error).toBeInstanceOf(DefinitionError);
      return [...(error as DefinitionError).problems];
    }
    throw new Error('the definition was accepted');
  }

  it('refuses a token or authorize URL that is not https outside loopback', () => {
    expect(problemsOf(oauth2ClientCredentials({ tokenUrl: 'http://auth.example.com/token' }))).toEqual([
      "connector 'multi': auth scheme 'oauth2_client_credentials': tokenUrl must be https (http only to 127.0.0.0/8, ::1 or localhost), not http://auth.example.com",
    ]);
    expect(
      problemsOf(
        oauth2AuthorizationCode({ authorizeUrl: 'http://10.0.0.1/authorize', tokenUrl: 'https://auth.example.com/t' }),
      ),
    ).toEqual([
      "connector 'multi': auth scheme 'oauth2_authorization_code': authorizeUrl must be https (http only to 127.0.0.0/8, ::1 or localhost), not http://10.0.0.1",
    ]);
    for (const host of ['127.0.0.1:8080', '127.1.2.3', '[::1]:9000', 'localhost:3000'])
      expect(() =>
        defineConnector({ ...definition, auth: oauth2ClientCredentials({ tokenUrl: `http://${host}/token` }) }),
      ).not.toThrow();
  });

  it('refuses an authorization code scheme without PKCE S256', () => {
    const scheme = oauth2AuthorizationCode({
      authorizeUrl: 'https://auth.example.com/a',
      tokenUrl: 'https://auth.example.com/t',
      pkce: false as never,
    });
    expect(problemsOf(scheme)).toEqual([
      "connector 'multi': auth scheme 'oauth2_authorization_code': PKCE S256 is always used for the authorization code flow; leave pkce out (only 'S256' is accepted)",
    ]);
  });

  it('refuses no scopes where the provider requires them, duplicate ids and bad header or parameter names', () => {
    expect(
      problemsOf([
        oauth2ClientCredentials({ tokenUrl: 'https://auth.example.com/t', scopesRequired: true }),
        apiKeyHeader('X Api Key'),
        apiKeyHeader('X-Key', { prefix: 'Key\n' }),
        apiKeyQuery('api key'),
        bearerToken(),
        bearerToken(),
        customAuth({ id: 'Signed', sign: 'no' as never }),
      ]),
    ).toEqual([
      "connector 'multi': auth scheme 'oauth2_client_credentials': the provider grants nothing without a scope (scopesRequired): declare the scopes the actions need",
      "connector 'multi': auth scheme 'x api key': the id must be lower case letters, digits, _, -, . or :",
      "connector 'multi': auth scheme 'x api key': \"X Api Key\" is not a valid header name",
      "connector 'multi': auth scheme 'x-key': the prefix must be printable ASCII text",
      "connector 'multi': auth scheme 'query:api key': the id must be lower case letters, digits, _, -, . or :",
      "connector 'multi': auth scheme 'query:api key': \"api key\" is not a valid query parameter name",
      "connector 'multi': auth scheme 'bearer': the id is declared twice (give one of them its own id)",
      "connector 'multi': auth scheme 'Signed': the id must be lower case letters, digits, _, -, . or :",
      "connector 'multi': auth scheme 'Signed': sign must be a function",
    ]);
  });
});

describe('the catalogue describes each scheme, never a secret', () => {
  it('publishes how the credential travels and the JSON Schema of what the host supplies', () => {
    const { schemes } = catalogueEntry(multi).authentication!;
    expect(schemes.map(({ supplies: _supplies, ...scheme }) => scheme)).toEqual([
      { id: 'bearer', type: 'bearer', header: 'Authorization', default: true },
      { id: 'token', type: 'api_key_header', header: 'Authorization', prefix: 'Token ', default: false },
      { id: 'query:api_key', type: 'api_key_query', queryParameter: 'api_key', default: false },
      { id: 'basic', type: 'basic', header: 'Authorization', default: false },
      { id: 'hmac', type: 'custom', default: false },
      {
        id: 'oauth2_client_credentials',
        type: 'oauth2_client_credentials',
        header: 'Authorization',
        tokenUrl: 'https://auth.example.com/oauth/token',
        scopes: ['items:read'],
        audience: 'https://api.example.com',
        clientAuthMethod: 'body',
        default: false,
      },
      {
        id: 'oauth2_authorization_code',
        type: 'oauth2_authorization_code',
        header: 'Authorization',
        authorizeUrl: 'https://auth.example.com/oauth/authorize',
        tokenUrl: 'https://auth.example.com/oauth/token',
        scopes: ['items:read', 'offline_access'],
        extraAuthorizeParams: { prompt: 'consent' },
        clientAuthMethod: 'header',
        pkce: 'S256',
        default: false,
      },
    ]);
    expect(schemes[3]!.supplies).toEqual({
      type: 'object',
      required: ['username', 'password'],
      properties: { username: { type: 'string', minLength: 1 }, password: { type: 'string', minLength: 1 } },
      additionalProperties: false,
    });
    expect(schemes[0]!.supplies).toMatchObject({ oneOf: [{ type: 'string' }, { type: 'object', required: ['key'] }] });
    expect(schemes[5]!.supplies).toMatchObject({ type: 'object', required: ['clientId'] });
    expect(schemes[6]!.supplies).toMatchObject({ type: 'object', required: ['clientId', 'tokens'] });
    expect(JSON.stringify(schemes)).not.toMatch(/function|sign\(/);
  });
});

describe('the tokens and credential stages ask the token source for every attempt', () => {
  it('sends the token the source gives now, and hides a renewed one from then on', async () => {
    const given = [ACCESS_TOKEN, 'access-renewed-8d1f3b5a7c9e'];
    const source: TokenSource = {
      current: async () => ({ accessToken: given.shift() ?? 'access-last-2c4e6a8b0d1f' }),
      refreshAfter401: async () => ({ accessToken: 'unused' }),
    };
    const redactor = new Redactor([ACCESS_TOKEN]);
    const sent: string[] = [];
    const auth = { type: 'token', source } as const;
    const baseUrl = 'https://api.example.com/v1';
    // The tokens stage asks the source for each attempt; the credential stage sends it to the provider's origin.
    const send = tokenStage(
      { source, redactor, connector: multi.key },
      credential({ auth, baseUrl, redactor, connector: multi.key }, async (call) => {
        sent.push(call.headers.authorization!);
        return { status: 200, headers: new Headers(), text: '' };
      }),
    );
    const call = {
      method: 'GET',
      url: new URL('https://api.example.com/v1/items'),
      headers: {},
      body: undefined,
      operation: 'GET /v1/items',
      budget: undefined,
      signal: new AbortController().signal,
    };
    await send(call);
    await send(call);
    expect(sent).toEqual([`Bearer ${ACCESS_TOKEN}`, 'Bearer access-renewed-8d1f3b5a7c9e']);
    expect(redactor.redactString('seen access-renewed-8d1f3b5a7c9e')).toBe(`seen ${REDACTED}`);
  });
});
