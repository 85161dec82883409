import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  basicAuth,
  bearerToken,
  type ConnectionCredential,
  defineAction,
  defineConnector,
  oauth2AuthorizationCode,
  oauth2ClientCredentials,
} from '@plugboard/sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { answer, type FaultServer, startFaultServer } from '../src/faults.js';
import {
  defineScenario,
  errorMappingProblems,
  REPLAY_CREDENTIAL,
  recordScenario,
  replayCredential,
  replayScenario,
} from '../src/index.js';
import { canaryForms } from './support/canary.js';

/**
 * Done-when: a recording takes any credential shape (a key, a Basic pair, an OAuth2 client and
 * token set), every secret part of it stays out of the fixture in every form, and replay and
 * the fault probes run with a placeholder of the shape the fixture's connection's scheme takes,
 * with no token endpoint ever reached.
 */

const Me = z.object({ id: z.string(), seen: z.string() }).meta({ id: 'ShapesMe' });

const shapes = defineConnector({
  key: 'shapes',
  name: 'Shapes',
  version: '1.0.0',
  vendor: null,
  category: 'developer',
  status: 'beta',
  summary: 'One action behind a bearer, a Basic and an OAuth2 scheme.',
  auth: [
    bearerToken(),
    basicAuth({ id: 'basic' }),
    // Never reached: a replay or probe must not refresh.
    oauth2AuthorizationCode({
      id: 'oauth2',
      authorizeUrl: 'https://auth.shapes.example/auth',
      tokenUrl: 'https://auth.shapes.example/token',
      scopes: ['me:read'],
    }),
    oauth2ClientCredentials({ id: 'service', tokenUrl: 'https://auth.shapes.example/token', scopes: ['me:read'] }),
  ],
  actions: [
    defineAction({
      key: 'me.get',
      label: 'Who am I',
      direction: 'source',
      entity: Me,
      input: z.object({}),
      async *read(ctx) {
        yield { records: [await ctx.http.get<z.input<typeof Me>>('/me')] };
      },
    }),
  ],
});

let dir: string;
let provider: FaultServer;
/** The Authorization header the provider accepts, and echoes back in a header and the body, hostile as any. */
let accepted: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'plugboard-shapes-'));
  provider = await startFaultServer((request) =>
    request.headers.authorization === accepted
      ? answer({
          headers: { 'x-echo-authorization': accepted },
          body: { id: 'me_1', seen: request.headers.authorization },
        })
      : answer({ status: 401, body: { message: 'bad credential' } }),
  );
});

afterEach(() => {
  provider.clear();
});

afterAll(async () => {
  await provider.close();
  await rm(dir, { recursive: true, force: true });
});

/** Random per run, with characters that change under URL and form encoding; `name` says which part it is. */
/** `user:password` in base64, as HTTP Basic sends it. */
const basicToken = ({ username, password }: { username: string; password: string }) =>
  Buffer.from(`${username}:${password}`).toString('base64');

const secret = (name: string) => `canary-${randomBytes(12).toString('hex')}+/=-${name}`;

function scenarioFor(name: string, authScheme?: string) {
  return defineScenario({
    name,
    action: 'me.get',
    ...(authScheme ? { connection: { settings: { authScheme } } } : {}),
  });
}

async function recorded(name: string, authScheme: string | undefined, credential: ConnectionCredential) {
  const result = await recordScenario({
    connector: shapes,
    scenario: scenarioFor(name, authScheme),
    fixturesDir: dir,
    baseUrl: `${provider.url}/v1`,
    credential: () => credential,
  });
  expect(provider.count).toBe(1);
  return result;
}

function expectAbsent(text: string, values: readonly string[]) {
  for (const value of values)
    for (const form of canaryForms(value)) expect(text, `the fixture holds ${form}`).not.toContain(form);
}

describe('recording and replaying every credential shape', () => {
  it('keeps a string credential working as before: recorded, redacted, replayed with REPLAY_CREDENTIAL', async () => {
    const key = secret('key');
    accepted = `Bearer ${key}`;
    const result = await recorded('bearer', undefined, key);
    expectAbsent(result.text, [key]);
    expect(replayCredential(shapes, result.fixture.scenario)).toBe(REPLAY_CREDENTIAL);
    expect((await replayScenario({ connector: shapes, scenario: 'bearer', fixturesDir: dir })).records).toHaveLength(1);
  });

  it('records a { key, expiresAt } credential, the key redacted', async () => {
    const key = secret('keyed');
    accepted = `Bearer ${key}`;
    const result = await recorded('keyed', undefined, { key, expiresAt: Date.now() + 3_600_000 });
    expectAbsent(result.text, [key]);
    expect((await replayScenario({ connector: shapes, scenario: 'keyed', fixturesDir: dir })).error).toBeUndefined();
  });

  it('records a Basic credential: the password and the Basic header base64 never reach the fixture', async () => {
    const credential = { username: 'shop-user', password: secret('password') };
    accepted = `Basic ${basicToken(credential)}`;
    const result = await recorded('basic', 'basic', credential);
    expect(result.text).toContain('seen');
    expectAbsent(result.text, [credential.password, basicToken(credential)]);
    expect(replayCredential(shapes, result.fixture.scenario)).toEqual({
      username: 'plugboard-replay',
      password: REPLAY_CREDENTIAL,
    });
    const replayed = await replayScenario({ connector: shapes, scenario: 'basic', fixturesDir: dir });
    expect(replayed.error).toBeUndefined();
    expect(replayed.records).toHaveLength(1);
  });

  it('records an OAuth2 credential: access token, refresh token and client secret never reach the fixture', async () => {
    const credential = {
      clientId: 'shapes-client',
      clientSecret: secret('client-secret'),
      tokens: {
        accessToken: secret('access'),
        refreshToken: secret('refresh'),
        expiresAt: Date.now() + 3_600_000,
        tokenType: 'Bearer',
      },
    };
    accepted = `Bearer ${credential.tokens.accessToken}`;
    const result = await recorded('oauth2', 'oauth2', credential);
    expectAbsent(result.text, [credential.clientSecret, credential.tokens.accessToken, credential.tokens.refreshToken]);
    expect(replayCredential(shapes, result.fixture.scenario)).toEqual({
      clientId: 'plugboard-replay',
      tokens: { accessToken: REPLAY_CREDENTIAL },
    });
    const replayed = await replayScenario({ connector: shapes, scenario: 'oauth2', fixturesDir: dir });
    expect(replayed.error).toBeUndefined();
    expect(replayed.records).toHaveLength(1);
  });

  it('refuses an OAuth2 credential with a part too short to be found (a refresh token) before anything is sent', async () => {
    await expect(
      recordScenario({
        connector: shapes,
        scenario: scenarioFor('too-short', 'oauth2'),
        fixturesDir: dir,
        baseUrl: provider.url,
        credential: { clientId: 'shapes-client', tokens: { accessToken: secret('access'), refreshToken: 'short' } },
      }),
    ).rejects.toThrow(/a secret part of the credential is shorter than 6 characters/);
    expect(provider.count).toBe(0);
  });

  it('refuses an empty credential of any shape before anything is sent', async () => {
    await expect(
      recordScenario({
        connector: shapes,
        scenario: scenarioFor('empty', 'basic'),
        fixturesDir: dir,
        baseUrl: provider.url,
        credential: {} as ConnectionCredential,
      }),
    ).rejects.toThrow(/the credential is empty/);
    expect(provider.count).toBe(0);
  });

  it('replays a recorded 401 of an OAuth2 connection without trying a refresh (the network is closed)', async () => {
    accepted = 'Bearer nothing-matches-this';
    const result = await recordScenario({
      connector: shapes,
      scenario: defineScenario({
        name: 'oauth2-refused',
        action: 'me.get',
        connection: { settings: { authScheme: 'oauth2' } },
        expect: { error: 'credentials_changed' },
      }),
      fixturesDir: dir,
      baseUrl: provider.url,
      credential: { clientId: 'shapes-client', tokens: { accessToken: secret('stale') } },
    });
    expect(result.fixture.calls).toHaveLength(1);
    // An attempt to reach the token endpoint would be an unrecorded request, and throw.
    const replayed = await replayScenario({ connector: shapes, scenario: 'oauth2-refused', fixturesDir: dir });
    expect(replayed.error?.code).toBe('credentials_changed');
  });

  it('runs the fault probes with the placeholder of the scheme: a refused OAuth2 token asks to sign in again', async () => {
    const fault = await startFaultServer(() => answer({ body: {} }));
    try {
      const problems = await errorMappingProblems(shapes, scenarioFor('oauth2', 'oauth2'), { server: fault });
      expect(problems).toEqual([]);
      for (const seen of fault.requests) expect(seen.headers.authorization).toBe(`Bearer ${REPLAY_CREDENTIAL}`);
      const basic = await errorMappingProblems(shapes, scenarioFor('basic', 'basic'), { server: fault });
      expect(basic).toEqual([]);
      expect(fault.requests.at(-1)?.headers.authorization).toBe(
        `Basic ${basicToken({ username: 'plugboard-replay', password: REPLAY_CREDENTIAL })}`,
      );
    } finally {
      await fault.close();
    }
  });

  it('never asks a client credentials grant for a token in a probe: its 401 is not probed, the rest is', async () => {
    const fault = await startFaultServer(() => answer({ body: {} }));
    try {
      expect(replayCredential(shapes, scenarioFor('service', 'service'))).toEqual({
        clientId: 'plugboard-replay',
        tokens: { accessToken: REPLAY_CREDENTIAL },
      });
      const problems = await errorMappingProblems(shapes, scenarioFor('service', 'service'), { server: fault });
      expect(problems).toEqual([]);
      // A 401 would have sent the grant to the scheme's token endpoint, which is not on 127.0.0.1.
      for (const seen of fault.requests) expect(seen.headers.authorization).toBe(`Bearer ${REPLAY_CREDENTIAL}`);
    } finally {
      await fault.close();
    }
  });
});
