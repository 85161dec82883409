import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearerToken, defineAction, defineConnector } from '@plugboard/sdk';
import { REDACTED } from '@plugboard/sdk/host';
import { z } from 'zod';
import { FIXTURE_FORMAT } from '../src/fixture.js';
import { type Fixture, RecordingError, recordScenario, SecretLeakError } from '../src/index.js';
import { FixtureRedactor } from '../src/redact.js';
import { sample } from './sample/connector.js';
import { startSampleProvider } from './sample/provider.js';
import { account } from './sample/scenarios.js';

const SECRET = 'sk_live_4f9a8b7c6d5e';

function fixtureWith(calls: Fixture['calls'], outcome: Fixture['outcome'] = { pages: 1, records: [] }): Fixture {
  return {
    format: FIXTURE_FORMAT,
    connector: { key: 'x', version: '1.0.0' },
    scenario: { name: 's', action: 'a.b', input: {} },
    basePath: '',
    calls,
    outcome,
  };
}

describe('redaction by name', () => {
  const redactor = new FixtureRedactor({ secrets: [SECRET], redactKeys: ['customer_ref'] });

  it('hides credential headers, keeping the scheme and cookie names readable', () => {
    expect(
      redactor.redactHeaders({
        authorization: 'Bearer abc.def.ghi-123456',
        'proxy-authorization': 'Basic dXNlcjpwYXNzd29yZDEyMw==',
        'x-api-key': 'key-123456789',
        'x-auth-token': 'tok-123456789',
        cookie: 'a=1; sid=abcdef123456',
        'set-cookie': 'sid=abcdef123456; Path=/; HttpOnly',
        'content-type': 'application/json',
      }),
    ).toEqual({
      authorization: `Bearer ${REDACTED}`,
      'proxy-authorization': `Basic ${REDACTED}`,
      'x-api-key': REDACTED,
      'x-auth-token': REDACTED,
      cookie: `a=${REDACTED}; sid=${REDACTED}`,
      'set-cookie': `sid=${REDACTED}; Path=/; HttpOnly`,
      'content-type': 'application/json',
    });
  });

  it('hides secret-like query parameters and leaves the rest byte for byte', () => {
    expect(redactor.redactPath('/v1/items?limit=2&access_token=abc%2Bdef&q=a+b%20c&API-KEY=zzz&customer_ref=c1')).toBe(
      `/v1/items?limit=2&access_token=${REDACTED}&q=a+b%20c&API-KEY=${REDACTED}&customer_ref=${REDACTED}`,
    );
  });

  it('hides JSON fields by name at any depth, only where they hold text', () => {
    expect(
      redactor.redactJson({
        user: 'ada',
        password: 'pw-1',
        nested: { clientSecret: 'cs', list: [{ refresh_token: 'rt' }] },
        credentials: { user: 'u', pass: 'p', retries: 3 },
        max_tokens: 256,
        tokenExpiresSoon: false,
        signature: null,
        customer_ref: 'c1',
      }),
    ).toEqual({
      user: 'ada',
      password: REDACTED,
      nested: { clientSecret: REDACTED, list: [{ refresh_token: REDACTED }] },
      // Each member of an object under a secret-like name is judged by its own name.
      credentials: { user: 'u', pass: REDACTED, retries: 3 },
      max_tokens: 256,
      tokenExpiresSoon: false,
      signature: null,
      customer_ref: REDACTED,
    });
  });

  it('judges a value by its own name, not by a secret-like name above it', () => {
    expect(
      redactor.redactJson({
        security_and_analysis: {
          secret_scanning: { status: 'enabled' },
          secret_scanning_push_protection: { status: 'disabled' },
        },
        credentials: { client_id: 'client-0123456', client_secret: 'cs-0123456', token_expires_at: null },
        auth: { access_token: 'at-0123456', token_type: 'Bearer', expires_in: 3600 },
      }),
    ).toEqual({
      security_and_analysis: {
        secret_scanning: { status: 'enabled' },
        secret_scanning_push_protection: { status: 'disabled' },
      },
      credentials: { client_id: 'client-0123456', client_secret: REDACTED, token_expires_at: null },
      auth: { access_token: REDACTED, token_type: 'Bearer', expires_in: 3600 },
    });
  });

  it('hides what a name that only says how it is written holds, under a secret-like name', () => {
    expect(
      redactor.redactJson({
        api_key: { value: 'ak-0123456', created_at: '2026-01-02' },
        api_keys: ['k1', { data: 'k2-0123456' }],
        token: { raw: { value: 'tok-0123456' } },
        settings: { value: 'plain' },
      }),
    ).toEqual({
      api_key: { value: REDACTED, created_at: '2026-01-02' },
      api_keys: [REDACTED, { data: REDACTED }],
      token: { raw: { value: REDACTED } },
      settings: { value: 'plain' },
    });
  });

  it('hides what a slot of a secret holds: rotated values, and the private members of a JSON Web Key', () => {
    expect(
      redactor.redactJson({
        signing_key: { current: 'sk-cur-0123456', previous: 'sk-prev-0123456', status: 'rotating' },
        private_key: { kty: 'RSA', n: 'public-modulus-0123', e: 'AQAB', d: 'private-exponent-0123', qi: 'crt-0123' },
        jwks: { keys: [{ kty: 'RSA', n: 'public-modulus-0123', e: 'AQAB' }] },
      }),
    ).toEqual({
      signing_key: { current: REDACTED, previous: REDACTED, status: 'rotating' },
      private_key: { kty: 'RSA', n: 'public-modulus-0123', e: 'AQAB', d: REDACTED, qi: REDACTED },
      jwks: { keys: [{ kty: 'RSA', n: 'public-modulus-0123', e: 'AQAB' }] },
    });
  });

  it('keeps, under a secret-like name, text that cannot be a secret: dates, date-times, true and false, an auth scheme', () => {
    const kept = {
      password_changed_at: '2026-11-26T10:39:37Z',
      secret_rotated_on: '2026-11-26',
      secret_refreshed_at: '2026-11-26T10:39:37.123+01:00',
      has_secret: 'false',
      client_secret_set: 'true',
      auth: 'Bearer',
    };
    expect(redactor.redactJson({ ...kept, password: '2026-11-26 is not a date' })).toEqual({
      ...kept,
      password: REDACTED,
    });
  });

  it('leaves names listed in keepKeys alone', () => {
    const keeping = new FixtureRedactor({ keepKeys: ['next_page_token'] });
    expect(keeping.redactJson({ next_page_token: 'p2', token: 't' })).toEqual({
      next_page_token: 'p2',
      token: REDACTED,
    });
  });
});

describe('redaction by value', () => {
  const redactor = new FixtureRedactor({ secrets: [SECRET, 'pass word/+='] });

  it('finds a secret as is, URL-encoded, form-encoded, JSON-escaped, base64 and base64url, inside any text', () => {
    const texts = [
      `key ${SECRET} here`,
      `/cb?x=${encodeURIComponent('pass word/+=')}`,
      `x=${new URLSearchParams({ v: 'pass word/+=' }).toString().slice(2)}`,
      `x=${encodeURIComponent('pass word/+=').toLowerCase()}`,
      Buffer.from(`user:${SECRET}`).toString('base64'),
      Buffer.from(`{"k":"${SECRET}"}`).toString('base64url'),
    ];
    for (const text of texts) {
      expect(redactor.containsSecret(text), text).toBe(true);
      expect(redactor.containsSecret(redactor.redactText(text)), text).toBe(false);
      expect(redactor.redactText(text)).toContain(REDACTED);
    }
  });

  it('hides a secret in object keys, in paths and in text bodies', () => {
    expect(redactor.redactJson({ [SECRET]: { ok: 1 } })).toEqual({ [REDACTED]: { ok: 1 } });
    expect(redactor.redactPath(`/v1/keys/${SECRET}/usage`)).toBe(`/v1/keys/${REDACTED}/usage`);
  });

  it('learns values held under secret-like names and hides them everywhere else', () => {
    const learner = new FixtureRedactor();
    const fixture = fixtureWith([
      {
        request: { method: 'POST', path: '/oauth/token' },
        response: { status: 200, bodyType: 'json', body: { access_token: 'at-0123456789', token_type: 'bearer' } },
      },
      {
        request: { method: 'GET', path: '/me', headers: { 'x-session': 'at-0123456789' } },
        response: { status: 200, bodyType: 'text', body: 'hello at-0123456789' },
      },
    ]);
    const redacted = learner.redactFixture(fixture);
    // `token_type` says what kind of token it is, not the token: it stays readable.
    expect(redacted.calls[0]!.response.body).toEqual({ access_token: REDACTED, token_type: 'bearer' });
    expect(redacted.calls[1]!.request.headers).toEqual({ 'x-session': REDACTED });
    expect(redacted.calls[1]!.response.body).toBe(`hello ${REDACTED}`);
    expect(learner.leaks(redacted)).toEqual([]);
  });

  it('learns only values named as secrets, so enums and dates of a record stay whole everywhere', () => {
    const repository = {
      id: 1296269,
      full_name: 'octocat/hello-world',
      visibility: 'public',
      pushed_at: '2026-11-26T10:39:37Z',
      security_and_analysis: {
        advanced_security: { status: 'enabled' },
        secret_scanning: { status: 'enabled' },
        secret_scanning_push_protection: { status: 'disabled' },
      },
      installation: { token_expires_at: '2026-11-26T10:39:37Z', repository_selection: 'selected' },
      authorization: { scopes: ['public_repo'], token_last_eight: 'abcd1234', app: { name: 'public_repo' } },
    };
    const fixture = fixtureWith(
      [
        {
          request: { method: 'GET', path: '/orgs/octocat/repos?per_page=30&sort=public_repo' },
          response: {
            status: 200,
            headers: { 'x-feature': 'enabled; since 2026-11-26T10:39:37Z' },
            bodyType: 'json',
            body: [repository],
          },
        },
      ],
      { pages: 1, records: [repository] },
    );
    const learner = new FixtureRedactor();
    const redacted = learner.redactFixture(fixture);
    // `token_last_eight` ends in no secret's name: its value is no secret either.
    expect(redacted).toEqual(fixture);
    expect(learner.secrets).toEqual([]);
  });

  it('still learns secrets at any depth, under their own names, and hides them wherever they echo', () => {
    const body = {
      auth: { access_token: 'at-deep-0123456789' },
      credentials: { client_id: 'client-0123456789', client_secret: 'cs-deep-0123456789' },
      api_keys: ['key-one-0123456789', 'key-two-0123456789'],
      api_key: { value: 'ak-value-0123456789' },
      installations: [{ token: { data: 'tok-data-0123456789' } }],
    };
    const echoes = [
      'at-deep-0123456789',
      'cs-deep-0123456789',
      'key-one-0123456789',
      'key-two-0123456789',
      'ak-value-0123456789',
      'tok-data-0123456789',
    ];
    const fixture = fixtureWith(
      [
        {
          request: { method: 'POST', path: '/setup' },
          response: { status: 200, bodyType: 'json', body },
        },
        {
          request: {
            method: 'GET',
            path: `/echo?who=${echoes[1]}`,
            headers: { 'x-echo': echoes[2]! },
          },
          response: {
            status: 200,
            bodyType: 'json',
            body: { seen: echoes.map((echo) => `seen ${echo}`), client: 'client-0123456789' },
          },
        },
        {
          request: { method: 'GET', path: '/text' },
          response: { status: 200, bodyType: 'text', body: `${echoes[0]} ${echoes[3]} ${echoes[4]} ${echoes[5]}` },
        },
      ],
      { pages: 1, records: [{ note: `made with ${echoes[5]}` }] },
    );
    const learner = new FixtureRedactor();
    const redacted = learner.redactFixture(fixture);
    expect(redacted.calls[0]!.response.body).toEqual({
      auth: { access_token: REDACTED },
      credentials: { client_id: 'client-0123456789', client_secret: REDACTED },
      api_keys: [REDACTED, REDACTED],
      api_key: { value: REDACTED },
      installations: [{ token: { data: REDACTED } }],
    });
    expect(redacted.calls[1]!.request.path).toBe(`/echo?who=${REDACTED}`);
    expect(redacted.calls[1]!.request.headers).toEqual({ 'x-echo': REDACTED });
    expect(redacted.calls[1]!.response.body).toEqual({
      seen: echoes.map(() => `seen ${REDACTED}`),
      client: 'client-0123456789',
    });
    expect(redacted.calls[2]!.response.body).toBe(`${REDACTED} ${REDACTED} ${REDACTED} ${REDACTED}`);
    expect(redacted.outcome).toEqual({ pages: 1, records: [{ note: `made with ${REDACTED}` }] });
    expect([...learner.secrets].filter((secret) => echoes.includes(secret)).sort()).toEqual([...echoes].sort());
    expect(learner.leaks(redacted)).toEqual([]);
  });

  it('learns no value that cannot be a secret or is too short to be found again, in any of its forms', () => {
    const fixture = fixtureWith([
      {
        request: { method: 'GET', path: '/a%2Fb%2Fc' },
        response: {
          status: 200,
          bodyType: 'json',
          body: {
            pin: 'a/b/c',
            password_changed_at: '2026-11-26T10:39:37Z',
            has_secret: 'false',
            auth: 'Bearer',
            changed: '2026-11-26T10:39:37Z',
            flags: ['false', 'Bearer', 'a/b/c'],
          },
        },
      },
    ]);
    const learner = new FixtureRedactor();
    const redacted = learner.redactFixture(fixture);
    expect(learner.secrets).toEqual([]);
    expect(redacted.calls[0]!.request.path).toBe('/a%2Fb%2Fc');
    expect(redacted.calls[0]!.response.body).toEqual({
      pin: REDACTED,
      password_changed_at: '2026-11-26T10:39:37Z',
      has_secret: 'false',
      auth: 'Bearer',
      changed: '2026-11-26T10:39:37Z',
      flags: ['false', 'Bearer', 'a/b/c'],
    });
  });

  it('hides form fields in url-encoded request bodies', () => {
    const fixture = fixtureWith([
      {
        request: {
          method: 'POST',
          path: '/login',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          bodyType: 'text',
          body: 'user=ada&password=pw-0123456',
        },
        response: { status: 204 },
      },
    ]);
    const redacted = new FixtureRedactor().redactFixture(fixture);
    expect(redacted.calls[0]!.request.body).toBe(`user=ada&password=${REDACTED}`);
  });

  it('overwrites an ASCII secret inside a binary body', () => {
    const bytes = Buffer.concat([Buffer.from([0xff, 0x00]), Buffer.from(SECRET), Buffer.from([0xfe])]);
    const fixture = fixtureWith([
      {
        request: { method: 'GET', path: '/blob' },
        response: { status: 200, bodyType: 'hex', body: bytes.toString('hex') },
      },
    ]);
    const redacted = redactor.redactFixture(fixture);
    const body = Buffer.from(redacted.calls[0]!.response.body as string, 'hex');
    expect(body.includes(Buffer.from(SECRET))).toBe(false);
    expect(body.includes(Buffer.from(REDACTED))).toBe(true);
  });

  it('reports where a secret is left, without quoting it', () => {
    const fixture = fixtureWith([
      {
        request: { method: 'GET', path: `/x?q=${SECRET}` },
        response: { status: 200, bodyType: 'json', body: { deep: [{ v: SECRET }] } },
      },
    ]);
    expect(redactor.leaks(fixture)).toEqual(['calls[0].request.path', 'calls[0].response.body.deep[0].v']);
    expect(redactor.leaks(redactor.redactFixture(fixture))).toEqual([]);
  });
});

describe('recording fails loudly rather than write a secret', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'plugboard-redact-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  // A latin-1 secret the provider writes back as UTF-8 bytes inside a binary body: byte-level redaction cannot see it.
  const token = 'pässwort-geheim-4242';
  const exporter = defineConnector({
    key: 'exporter',
    name: 'Exporter',
    version: '1.0.0',
    vendor: null,
    category: 'files',
    status: 'alpha',
    summary: 'Downloads an export.',
    auth: bearerToken(),
    actions: [
      defineAction({
        key: 'exports.get',
        label: 'Get the export',
        direction: 'source',
        entity: z.object({ size: z.number() }).meta({ id: 'ExportSize' }),
        input: z.object({}),
        async *read(ctx) {
          const text = await ctx.http.get<string>('/export', { responseType: 'text' });
          yield { records: [{ size: text.length }] };
        },
      }),
    ],
  });

  it('throws SecretLeakError naming where, writes nothing and keeps the fixture that was there', async () => {
    const provider = await startSampleProvider({ token, binaryEcho: true });
    const target = join(dir, 'export.json');
    await writeFile(target, 'the previous fixture\n');
    try {
      const error = await recordScenario({
        connector: exporter,
        scenario: { name: 'export', action: 'exports.get' },
        fixturesDir: dir,
        baseUrl: provider.baseUrl,
        credential: token,
      }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(SecretLeakError);
      expect((error as SecretLeakError).locations).toContain('calls[0].response.body (binary)');
      expect((error as Error).message).not.toContain(token);
      expect(provider.requests).toEqual(['GET /v1/export']);
    } finally {
      await provider.close();
    }
    expect(await readFile(target, 'utf8')).toBe('the previous fixture\n');
  });

  it('a run that fails unexpectedly writes nothing', async () => {
    const provider = await startSampleProvider({ token: 'the-right-token-123' });
    try {
      const error = await recordScenario({
        connector: sample,
        scenario: account,
        fixturesDir: dir,
        baseUrl: provider.baseUrl,
        credential: 'a-wrong-token-456',
      }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(RecordingError);
      expect((error as Error).message).toContain('authentication_failed');
      expect((error as Error).message).not.toContain('a-wrong-token-456');
      expect(existsSync(join(dir, 'account.json'))).toBe(false);
    } finally {
      await provider.close();
    }
  });

  it('refuses, before sending anything, a credential or secret too short to be found by value', async () => {
    const provider = await startSampleProvider({ token: 'tok42' });
    try {
      const short = { name: 'account-short', action: 'account.get', input: {} };
      const error = await recordScenario({
        connector: sample,
        scenario: short,
        fixturesDir: dir,
        baseUrl: provider.baseUrl,
        credential: 'tok42',
      }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(RecordingError);
      const message = (error as Error).message;
      expect(message).toContain("scenario 'account-short': the credential is shorter than 6 characters");
      expect(message).not.toContain('tok42');
      const secrets = ['a-long-enough-secret', 'pw1'];
      const fromSecrets = recordScenario({
        connector: sample,
        scenario: short,
        fixturesDir: dir,
        baseUrl: provider.baseUrl,
        credential: 'a-long-credential',
        secrets,
      });
      await expect(fromSecrets).rejects.toThrow(/: secrets\[1\] is shorter than 6 characters/);
      await expect(fromSecrets).rejects.not.toThrow(/pw1|a-long/);
      expect(provider.requests).toEqual([]);
      expect(existsSync(join(dir, 'account-short.json'))).toBe(false);
    } finally {
      await provider.close();
    }
  });

  it('records with a secret of exactly that length, and keeps it out of the fixture', async () => {
    const provider = await startSampleProvider({ token: 'tok426' });
    try {
      const result = await recordScenario({
        connector: sample,
        scenario: { ...account, name: 'account-six' },
        fixturesDir: dir,
        baseUrl: provider.baseUrl,
        credential: 'tok426',
      });
      expect(result.text).not.toContain('tok426');
      expect(provider.requests).toEqual(['GET /v1/account']);
    } finally {
      await provider.close();
    }
  });

  it("mode 'record' leaves an existing fixture alone and sends nothing", async () => {
    const provider = await startSampleProvider({ token: 'the-right-token-123' });
    try {
      const first = await recordScenario({
        connector: sample,
        scenario: account,
        fixturesDir: dir,
        baseUrl: provider.baseUrl,
        credential: 'the-right-token-123',
      });
      expect(first.written).toBe(true);
      const again = await recordScenario({
        connector: sample,
        scenario: account,
        fixturesDir: dir,
        baseUrl: provider.baseUrl,
        credential: 'the-right-token-123',
        mode: 'record',
      });
      expect(again).toMatchObject({ written: false, fixturePath: first.fixturePath, text: first.text });
      expect(provider.requests).toHaveLength(1);
    } finally {
      await provider.close();
    }
  });
});
