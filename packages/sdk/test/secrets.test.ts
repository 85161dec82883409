import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { checkConnectionSettings } from '../src/connection.js';
import {
  ConnectionConfigError,
  createTransport,
  defineAction,
  defineConnector,
  InvalidInputError,
  type LogEntry,
  readAll,
  writeAction,
} from '../src/index.js';
import { isFormatKey, isSecretKey, Redactor, REDACTED } from '../src/host.js';
import { example } from './support/connector.js';
import { fastRetry, useHarness } from './support/harness.js';
import { json } from './support/server.js';

const h = useHarness();

describe('platform rule 10: no secrets in connection settings', () => {
  it.each([
    [{ password: 'x' }, 'settings.password'],
    [{ apiKey: 'x' }, 'settings.apiKey'],
    [{ api_key: 'x' }, 'settings.api_key'],
    [{ 'API-KEY': 'x' }, 'settings.API-KEY'],
    [{ token: 'x' }, 'settings.token'],
    [{ accessToken: 'x' }, 'settings.accessToken'],
    [{ clientSecret: 'x' }, 'settings.clientSecret'],
    [{ Authorization: 'x' }, 'settings.Authorization'],
    [{ credentials: { user: 'a' } }, 'settings.credentials'],
    [{ region: 'eu', proxy: { auth: { PassWord: 'x' } } }, 'settings.proxy.auth.PassWord'],
    [{ hosts: [{ name: 'a' }, { client_secret: 'x' }] }, 'settings.hosts[1].client_secret'],
    [{ Authorisation: 'x' }, 'settings.Authorisation'],
    [{ pwd: 'x' }, 'settings.pwd'],
    [{ auth: { user: 'a' } }, 'settings.auth'],
    [{ bearer: 'x' }, 'settings.bearer'],
    [{ jwt: 'x' }, 'settings.jwt'],
    [{ creds: 'x' }, 'settings.creds'],
    [{ signingKey: 'x' }, 'settings.signingKey'],
    [{ client_key: 'x' }, 'settings.client_key'],
    [{ sessionId: 'x' }, 'settings.sessionId'],
    [{ passcode: 'x' }, 'settings.passcode'],
    [{ pw: 'x' }, 'settings.pw'],
    [{ db_pw: 'x' }, 'settings.db_pw'],
    [{ otp: 'x' }, 'settings.otp'],
    [{ totp_seed: 'x' }, 'settings.totp_seed'],
    [{ mfa: { totpSeed: 'x' } }, 'settings.mfa.totpSeed'],
    [{ refresh_token: 'x' }, 'settings.refresh_token'],
    [{ 'x-auth-token': 'x' }, 'settings.x-auth-token'],
    [{ tokenValue: 'x' }, 'settings.tokenValue'],
    [{ accesstoken: 'x' }, 'settings.accesstoken'],
    [{ xapikey: 'x' }, 'settings.xapikey'],
    [{ APIKey: 'x' }, 'settings.APIKey'],
    [{ api_key_2: 'x' }, 'settings.api_key_2'],
    [{ private_key_pem: 'x' }, 'settings.private_key_pem'],
    [{ private_key_base64: 'x' }, 'settings.private_key_base64'],
    [{ token_b64: 'x' }, 'settings.token_b64'],
    [{ api_key_base64url: 'x' }, 'settings.api_key_base64url'],
    [{ signingKeyBase32: 'x' }, 'settings.signingKeyBase32'],
    [{ session_cookie: 'x' }, 'settings.session_cookie'],
    [{ db_password: 'x' }, 'settings.db_password'],
    [{ smtpPassword: 'x' }, 'settings.smtpPassword'],
    [{ key: 'x' }, 'settings.key'],
    [{ webhookSigningSecret: 'x' }, 'settings.webhookSigningSecret'],
    // Homoglyphs and compatibility forms: Cyrillic а, Greek Ρ and Α, fullwidth letters, an invisible joiner, an accent.
    [{ 'p\u0430ssword': 'x' }, 'settings.p\u0430ssword'],
    [{ '\u03a1\u0391SSWORD': 'x' }, 'settings.\u03a1\u0391SSWORD'],
    [
      { '\uff50\uff41\uff53\uff53\uff57\uff4f\uff52\uff44': 'x' },
      'settings.\uff50\uff41\uff53\uff53\uff57\uff4f\uff52\uff44',
    ],
    [{ 'to\u200bken': 'x' }, 'settings.to\u200bken'],
    [{ 'pa\u0301ssword': 'x' }, 'settings.pa\u0301ssword'],
    [{ 'api_k\u0435y': 'x' }, 'settings.api_k\u0435y'],
  ])('refuses %j naming %s', (settings, path) => {
    expect(() => checkConnectionSettings(settings)).toThrow(ConnectionConfigError);
    expect(() => checkConnectionSettings(settings)).toThrow(path);
  });

  // Letters of alternating case: read as written they fall into one- and two-letter pieces, so the key is read with case set aside too.
  it.each([
    'pAsSwOrD',
    'PaSsWoRd',
    'ApIkEy',
    'aPiKeY',
    'aCcEsS_tOkEn',
    'cLiEnTsEcReT',
    'x-ApI-kEy',
    'sEsSiOnId',
    'db_PaSsWoRd_2',
    'p\u0430SsWoRd',
  ])('refuses the alternating-case key %s', (key) => {
    expect(isSecretKey(key)).toBe(true);
    expect(() => checkConnectionSettings({ [key]: 'x' })).toThrow(`settings.${key}`);
  });

  it.each(['mAx_ToKeNs', 'cOoKiE_dOmAiN', 'sIgNaTuRe_VeRsIoN', 'tOkEn_UrL', 'pUbLiC_kEy'])(
    'accepts the alternating-case key %s, whose words name no secret',
    (key) => {
      expect(isSecretKey(key)).toBe(false);
    },
  );

  it('accepts ordinary settings, including the auth scheme choice', () => {
    expect(() =>
      checkConnectionSettings({
        region: 'eu',
        authScheme: 'x-api-key',
        author: 'Ada',
        keyboard: 'us',
        folder: { path: 'Clients/Acme' },
      }),
    ).not.toThrow();
  });

  // Words that mention a token, a cookie or a signature without being one.
  it.each([
    'max_tokens',
    'maxTokens',
    'input_tokens',
    'signature_version',
    'signatureMethod',
    'cookie_domain',
    'cookieName',
    'tokenizer_model',
    'token_url',
    'tokenEndpoint',
    'authorization_url',
    'otp_length',
    'public_key',
    'sort_key',
    'idempotencyKey',
    'secretary',
    'base_url',
    'key_base',
    'passage',
    'bypass',
    'oauth',
    'authScheme',
    'keyboard',
    'monkey',
  ])('accepts the key %s', (key) => {
    expect(isSecretKey(key)).toBe(false);
    expect(() => checkConnectionSettings({ [key]: 'x' })).not.toThrow();
  });

  // A key that says only how its value is written names nothing: what it holds is what its parent names.
  it.each([
    ['value', true],
    ['data', true],
    ['rawValue', true],
    ['hex_data', true],
    ['VALUE', true],
    ['base64', true],
    ['value_b64', true],
    ['base64url', true],
    ['database', false],
    ['status', false],
    ['value_type', false],
    ['key', false],
    ['', false],
    ['_', false],
  ])('isFormatKey(%j) is %s', (key, expected) => {
    expect(isFormatKey(key)).toBe(expected);
  });

  it('refuses such settings before any request is sent', async () => {
    const server = await h.start((req, res) => json(res, 200, {}));
    const error = await readAll(
      example,
      'items.get',
      h.options({ input: { id: 'a' }, connection: { baseUrl: server.url, settings: { apiToken: 'leaked' } } }),
    ).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConnectionConfigError);
    expect((error as Error).message).not.toContain('leaked');
    expect(server.requests).toHaveLength(0);
  });

  it('refuses a credential no header can carry (a line break read from a file) before any request, without quoting it', async () => {
    const server = await h.start((req, res) => json(res, 200, { id: 'a', name: 'A', updated_at: 'x' }));
    for (const credential of ['k-123456789\n', 'k-1234\r\nX-Evil: 1', 'k-123456789\u0000']) {
      const error = await readAll(
        example,
        'items.get',
        h.options({ input: { id: 'a' }, connection: { baseUrl: server.url }, credential: () => credential }),
      ).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ConnectionConfigError);
      expect((error as Error).message).toMatch(/a line break or another character an HTTP header cannot carry/);
      expect((error as Error).message).not.toContain('k-1234');
    }
    expect(server.requests).toHaveLength(0);
  });

  it('refuses a header an action builds with a line break in it (from its input, say), naming it, on every transport, without a retry', async () => {
    const server = await h.start((req, res) => json(res, 200, { id: 'a', name: 'A', updated_at: 'x' }));
    const noting = defineConnector({
      ...example,
      key: 'noting',
      actions: [
        defineAction({
          key: 'items.get',
          label: 'Get an item',
          direction: 'source',
          entity: z.object({ id: z.string() }).meta({ id: 'NotedItem' }),
          input: z.object({ note: z.string() }),
          async *read(ctx, input) {
            yield { records: [await ctx.http.get('/items/a', { headers: { 'X-Note': input.note } })] };
          },
        }),
      ],
    });
    for (const via of ['http', 'fetch', 'undici'] as const) {
      const transport = createTransport({ via });
      const error = await readAll(
        noting,
        'items.get',
        h.options({ input: { note: 'one\r\nX-Injected: 1' }, connection: { baseUrl: server.url }, transport }),
      )
        .catch((caught: unknown) => caught)
        .finally(() => transport.close());
      expect(error, via).toBeInstanceOf(InvalidInputError);
      expect((error as Error).message).toContain(
        'headers.X-Note: holds a line break or another character an HTTP header cannot carry',
      );
    }
    expect(server.requests).toHaveLength(0);
  });

  it('sends the credential in the header the connection chose', async () => {
    const server = await h.start((req, res) => json(res, 200, { id: 'a', name: 'A', updated_at: 'x' }));
    const run = (settings?: Record<string, unknown>) =>
      readAll(
        example,
        'items.get',
        h.options({
          input: { id: 'a' },
          connection: { baseUrl: server.url, settings },
          credential: () => 'k-123456789',
        }),
      );
    await run();
    await run({ authScheme: 'X-Api-Key' });
    expect(server.requests[0]!.headers.authorization).toBe('Bearer k-123456789');
    expect(server.requests[1]!.headers['x-api-key']).toBe('k-123456789');
    expect(server.requests[1]!.headers.authorization).toBeUndefined();
    await expect(run({ authScheme: 'basic' })).rejects.toThrow(
      "settings.authScheme: connector 'example' accepts 'bearer' or 'x-api-key', not \"basic\"",
    );
  });
});

describe('a planted canary credential', () => {
  const canary = 'canary-7f3a9c21d4e5b6a70c1d';
  const forms = [canary, Buffer.from(canary).toString('base64').replace(/=+$/, ''), encodeURIComponent(canary)];

  function expectNoCanary(text: string): void {
    for (const form of forms) expect(text).not.toContain(form);
  }

  it('appears in no error, log line or output, even when the provider echoes it', async () => {
    const logs: LogEntry[] = [];
    let calls = 0;
    const server = await h.start((req, res) => {
      calls += 1;
      const echoed = `${req.headers.authorization} / ${Buffer.from(canary).toString('base64')}`;
      if (calls === 1) json(res, 503, { message: `upstream saw ${echoed}` });
      else if (req.path.startsWith('/items')) json(res, 200, { id: 'a', name: `hello ${canary}`, updated_at: echoed });
      else json(res, 401, { error: 'unauthorized', message: `token ${canary} is revoked`, token: canary });
    });
    const { records } = await readAll(
      example,
      'items.get',
      h.options({
        input: { id: 'a' },
        connection: { baseUrl: server.url },
        credential: () => canary,
        retry: fastRetry(2, 10),
        log: (entry) => logs.push(entry),
      }),
    );
    const error = await writeAction(
      example,
      'orders.create',
      h.options({
        input: { customer: { email: 'a@example.com', name: 'A' }, quantity: 1 },
        connection: { baseUrl: server.url },
        credential: () => canary,
        log: (entry) => logs.push(entry),
      }),
    ).catch((caught: unknown) => caught);

    expect(records[0]).toMatchObject({ name: `hello ${REDACTED}` });
    expect((error as Error).message).toBe(`POST /orders: token ${REDACTED} is revoked`);
    expect(logs.some((entry) => entry.message === 'provider call failed; retrying')).toBe(true);
    expectNoCanary(JSON.stringify(records));
    expectNoCanary(JSON.stringify(logs));
    expectNoCanary(`${(error as Error).message} ${(error as Error).stack} ${JSON.stringify(error)}`);
    expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${canary}`);
  });
});

describe('Redactor', () => {
  it("keeps only the latest values added as recent (a signer's signatures), the others for good", () => {
    const recent = new Redactor(['s3cr3t-value-42']);
    const signatures = Array.from({ length: 100 }, (_, index) => `signature-${String(index).padStart(4, '0')}`);
    for (const signature of signatures) recent.addRecent(signature);
    expect(recent.redactString(`${signatures[99]} ${signatures[36]}`)).toBe(`${REDACTED} ${REDACTED}`);
    expect(recent.containsSecret(signatures[35]!)).toBe(false);
    expect(recent.redactString(signatures[0]!)).toBe(signatures[0]);
    expect(recent.redactString('s3cr3t-value-42')).toBe(REDACTED);
    expect(recent.containsSecretIn({ a: [Buffer.from(signatures[99]!).toString('base64')] })).toBe(true);
    expect(new Redactor().containsSecretIn({ a: signatures[0] })).toBe(false);
  });

  // Many secrets (a recording that learned a token from each record) are found through an index of their forms: the same finds.
  const others = Array.from({ length: 99 }, (_, index) => `other-secret-${String(index).padStart(3, '0')}`);
  describe.each([
    ['one secret', new Redactor(['s3cr3t-value-42'])],
    ['a hundred secrets', new Redactor([...others.slice(0, 50), 's3cr3t-value-42', ...others.slice(50)])],
  ])('holding %s', (_, redactor) => {
    it('finds a secret as is, URL-encoded, in base64 and inside Basic auth', () => {
      const basic = Buffer.from('user:s3cr3t-value-42').toString('base64');
      expect(redactor.redactString('a s3cr3t-value-42 b')).toBe(`a ${REDACTED} b`);
      expect(redactor.containsSecret(`Authorization: Basic ${basic}`)).toBe(true);
      expect(redactor.containsSecret(Buffer.from('s3cr3t-value-42').toString('base64url'))).toBe(true);
      expect(redactor.containsSecret('nothing here')).toBe(false);
    });

    it('finds and hides a secret hex-encoded, in lower and upper case', () => {
      const hex = Buffer.from('s3cr3t-value-42').toString('hex');
      for (const form of [hex, hex.toUpperCase()]) {
        expect(redactor.containsSecret(`sig=00${form}ff`)).toBe(true);
        expect(redactor.redactString(`sig=00${form}ff`)).toBe(`sig=00${REDACTED}ff`);
        expect(redactor.containsSecretIn({ a: [{ b: form }] })).toBe(true);
      }
    });

    it('hides the whole base64 run that carries a secret, edges included', () => {
      const basic = Buffer.from('user:s3cr3t-value-42').toString('base64');
      expect(redactor.redactString(`Authorization: Basic ${basic}`)).toBe(`Authorization: Basic ${REDACTED}`);
      expect(redactor.redactString(`a=${Buffer.from('x s3cr3t-value-42 y').toString('base64url')}&b=2`)).toBe(
        `a=${REDACTED}&b=2`,
      );
    });

    it('blanks secret-like keys and keeps the rest', () => {
      expect(redactor.redact({ headers: { 'X-Api-Key': 'k', accept: 'json' }, list: ['s3cr3t-value-42'] })).toEqual({
        headers: { 'X-Api-Key': REDACTED, accept: 'json' },
        list: [REDACTED],
      });
    });
  });

  it('finds each of many secrets, where they overlap too, and text that holds none of them stays as it is', () => {
    const many = new Redactor(others);
    const text = others.map((secret, index) => `${index}:${secret}`).join(' ');
    expect(many.redactString(text)).toBe(others.map((_, index) => `${index}:${REDACTED}`).join(' '));
    expect(many.redactString('other-secret-00other-secret-001')).toBe(`other-secret-00${REDACTED}`);
    expect(many.redactString('other-secret-0011')).toBe(`${REDACTED}1`);
    const encoded = Buffer.from(`user:${others[98]}`).toString('base64');
    expect(many.redactString(`Basic ${encoded}, Basic ${encoded}`)).toBe(`Basic ${REDACTED}, Basic ${REDACTED}`);
    expect(many.containsSecret('other-secret-1000 other-secret-09')).toBe(false);
    expect(many.redactString('other-secret-09 and more text')).toBe('other-secret-09 and more text');
  });
});
