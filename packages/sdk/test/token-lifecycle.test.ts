import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ManualClock, manualClock } from '../src/clock.js';
import { type ConnectorError, type LogEntry, readAll, type TokenSet, type Transport } from '../src/index.js';
import { type CredentialStore, memoryCredentialStore } from '../src/tokens.js';
import { connectionTokenSource, passGate, Redactor, runPrepared, prepareRun } from '../src/host.js';
import { type OAuthRig, startOAuthRig } from './support/oauth.js';
import { callMe, rigConnector, rigTransport, signedIn } from './support/oauth-connector.js';

/**
 * The OAuth2 token lifecycle in one process, against a real authorization server
 * (oidc-provider, rotating refresh tokens) and a resource server that verifies each access
 * token on the test's clock.
 */

let clock: ManualClock;
let rig: OAuthRig;
let store: CredentialStore;
let transport: Transport;
const native = () => ({ clientId: rig.auth.clients.native.clientId });

beforeEach(async () => {
  clock = manualClock();
  rig = await startOAuthRig({ clock, accessTokenTtl: 600 });
  store = memoryCredentialStore();
  transport = rigTransport(clock, { store });
});

afterEach(async () => {
  await transport.close();
  await rig.stop();
});

/** A signed-in token set, moved past its expiry: every call needs a refresh first. */
async function expiredSet(): Promise<TokenSet> {
  const tokens = await signedIn(rig, clock.now());
  await clock.advance(601_000);
  return tokens;
}

async function outcome(work: Promise<unknown>): Promise<ConnectorError | 'ok'> {
  try {
    await clock.runUntil(work);
    return 'ok';
  } catch (error) {
    return error as ConnectorError;
  }
}

describe('single flight in one process', () => {
  it('200 concurrent calls on an expired token: one refresh, no failed call', async () => {
    // What the resource server had seen when the refreshed set was written: nothing may use it before.
    const seenAtWrite: number[] = [];
    const watched: CredentialStore = {
      read: (id) => store.read(id),
      compareAndSet: (id, expected, next) => {
        if (expected) seenAtWrite.push(rig.api.counts.accepted + rig.api.counts.refused);
        return store.compareAndSet(id, expected, next);
      },
    };
    await transport.close();
    transport = rigTransport(clock, { store: watched });
    const connector = rigConnector(rig, 'code');
    const tokens = await expiredSet();
    const credential = { ...native(), tokens };
    const results = await clock.runUntil(
      Promise.all(Array.from({ length: 200 }, () => outcome(callMe(connector, transport, rig, credential)))),
    );
    expect(results.filter((result) => result !== 'ok')).toEqual([]);
    expect(rig.auth.counts.token.refresh_token).toBe(1);
    expect(rig.auth.counts.refreshReuse).toBe(0);
    expect(rig.api.counts).toEqual({ accepted: 200, refused: 0 });
    // Written back before use: the store holds the rotated refresh token.
    const stored = await store.read('conn-1');
    expect(stored?.tokens.refreshToken).not.toBe(tokens.refreshToken);
    expect(stored?.tokens.expiresAt).toBe(clock.now() + 600_000);
    expect(seenAtWrite).toEqual([0]);
  });

  it('client credentials: 200 concurrent calls with no token yet make one token request', async () => {
    const connector = rigConnector(rig, 'client');
    // The client is all the host supplies: the grant gets the first token set itself.
    const { clientId, clientSecret } = rig.auth.clients.basic;
    const credential = { clientId, clientSecret };
    const results = await clock.runUntil(
      Promise.all(Array.from({ length: 200 }, () => outcome(callMe(connector, transport, rig, credential)))),
    );
    expect(results.filter((result) => result !== 'ok')).toEqual([]);
    expect(rig.auth.counts.token.client_credentials).toBe(1);
  });
});

describe('refresh', () => {
  it('ahead of expiry: within the margin the token is refreshed before the call', async () => {
    const connector = rigConnector(rig, 'code');
    const tokens = await signedIn(rig, clock.now());
    // 600 s tokens: the margin is 60 s; 59 s before expiry the next call refreshes first.
    await clock.advance(541_000);
    expect(await outcome(callMe(connector, transport, rig, { ...native(), tokens }))).toBe('ok');
    expect(rig.auth.counts.token.refresh_token).toBe(1);
    expect(rig.api.counts.refused).toBe(0);
  });

  it('a token outside the margin is sent as it is', async () => {
    const connector = rigConnector(rig, 'code');
    const tokens = await signedIn(rig, clock.now());
    await clock.advance(539_000);
    expect(await outcome(callMe(connector, transport, rig, { ...native(), tokens }))).toBe('ok');
    expect(rig.auth.counts.token.refresh_token).toBe(0);
  });

  it('the host sets the margin', async () => {
    await transport.close();
    transport = rigTransport(clock, { store, refreshMarginMs: 300_000 });
    const tokens = await signedIn(rig, clock.now());
    await clock.advance(301_000);
    expect(await outcome(callMe(rigConnector(rig, 'code'), transport, rig, { ...native(), tokens }))).toBe('ok');
    expect(rig.auth.counts.token.refresh_token).toBe(1);
  });

  it('a 401 refreshes once and sends again; a second 401 is credentials_changed', async () => {
    const connector = rigConnector(rig, 'code');
    const credential = { ...native(), tokens: await signedIn(rig, clock.now()) };
    rig.api.refuse(1);
    expect(await outcome(callMe(connector, transport, rig, credential))).toBe('ok');
    expect(rig.auth.counts.token.refresh_token).toBe(1);
    expect(rig.api.counts).toEqual({ accepted: 1, refused: 1 });

    rig.api.refuse(2);
    const failed = await outcome(callMe(connector, transport, rig, credential));
    expect(failed).toMatchObject({ code: 'credentials_changed', retryable: false, status: 401 });
    expect(rig.auth.counts.token.refresh_token).toBe(2);
    expect(rig.api.counts).toEqual({ accepted: 1, refused: 3 });
    expect(rig.auth.counts.refreshReuse).toBe(0);
  });
});

describe('the credential store', () => {
  it('a read that failed is tried again by the next call', async () => {
    let failures = 1;
    const flaky: CredentialStore = {
      read: (id) => (failures-- > 0 ? Promise.reject(new Error('store offline')) : store.read(id)),
      compareAndSet: (id, expected, next) => store.compareAndSet(id, expected, next),
    };
    await transport.close();
    transport = rigTransport(clock, { store: flaky });
    const credential = { ...native(), tokens: await signedIn(rig, clock.now()) };
    const connector = rigConnector(rig, 'code');
    expect(await outcome(callMe(connector, transport, rig, credential))).not.toBe('ok');
    expect(await outcome(callMe(connector, transport, rig, credential))).toBe('ok');
  });
});

describe('the credential store', () => {
  it('a granted set the store could not take is kept and written first, never asked for again with the spent refresh token', async () => {
    let failures = 1;
    const flaky: CredentialStore = {
      read: (id) => store.read(id),
      compareAndSet: (id, expected, next) =>
        failures-- > 0 ? Promise.reject(new Error('store offline')) : store.compareAndSet(id, expected, next),
    };
    await transport.close();
    transport = rigTransport(clock, { store: flaky });
    const connector = rigConnector(rig, 'code');
    const tokens = await expiredSet();
    await store.compareAndSet('conn-1', undefined, tokens);
    const failed = await outcome(callMe(connector, transport, rig, { ...native(), tokens }));
    expect(failed).toMatchObject({ code: 'credential_store_unavailable', retryable: true });
    expect((await store.read('conn-1'))?.tokens).toEqual(tokens);
    // The provider rotated the refresh token already: the next call writes the set it granted, and sends nothing to it.
    expect(await outcome(callMe(connector, transport, rig, { ...native(), tokens }))).toBe('ok');
    expect(rig.auth.counts.token.refresh_token).toBe(1);
    expect(rig.auth.counts.refreshReuse).toBe(0);
    expect((await store.read('conn-1'))?.tokens.refreshToken).not.toBe(tokens.refreshToken);
  });
});

describe('when the token endpoint fails', () => {
  it.each([
    ['status', { kind: 'status', status: 503 }, 'provider_unavailable'],
    ['reset', { kind: 'reset' }, 'network_error'],
  ] as const)('%s: a typed retryable error, the old set kept', async (_name, fault, code) => {
    const connector = rigConnector(rig, 'code');
    const tokens = await expiredSet();
    await store.compareAndSet('conn-1', undefined, tokens);
    rig.auth.fault(fault, { times: 1 });
    const failed = await outcome(callMe(connector, transport, rig, { ...native(), tokens }));
    expect(failed).toMatchObject({ code, retryable: true });
    expect((await store.read('conn-1'))?.tokens).toEqual(tokens);
    expect(rig.auth.counts.refreshReuse).toBe(0);
  });

  it('a 5xx is asked again on the next call, and then succeeds', async () => {
    const connector = rigConnector(rig, 'code');
    const tokens = await expiredSet();
    rig.auth.fault({ kind: 'status', status: 502 }, { times: 1 });
    expect(await outcome(callMe(connector, transport, rig, { ...native(), tokens }))).toMatchObject({
      retryable: true,
    });
    expect(await outcome(callMe(connector, transport, rig, { ...native(), tokens }))).toBe('ok');
    expect(rig.auth.counts.token.refresh_token).toBe(2);
    expect(rig.auth.counts.refreshReuse).toBe(0);
  });

  it('an answer that never comes: timeout, then no second refresh with the same token', async () => {
    await transport.close();
    transport = rigTransport(clock, { store, tokenTimeoutMs: 300 });
    const connector = rigConnector(rig, 'code');
    const tokens = await expiredSet();
    const held = rig.auth.fault({ kind: 'hold', when: 'after' }, { times: 1 });
    const first = await outcome(callMe(connector, transport, rig, { ...native(), tokens }));
    expect(first).toMatchObject({ code: 'timeout', retryable: true });
    held.release();
    const second = await outcome(callMe(connector, transport, rig, { ...native(), tokens }));
    expect(second).toMatchObject({ code: 'token_refresh_unconfirmed', retryable: true });
    expect(rig.auth.counts.token.refresh_token).toBe(1);
    expect(rig.auth.counts.refreshReuse).toBe(0);
    expect((await store.read('conn-1'))?.tokens).toEqual(tokens);
  });

  it('a run cancelled while it waits for a refresh stops waiting; the refresh goes on for the others', async () => {
    const connector = rigConnector(rig, 'code');
    const tokens = await expiredSet();
    const held = rig.auth.fault({ kind: 'hold' }, { times: 1 });
    const cancel = new AbortController();
    const credential = { ...native(), tokens };
    const cancelled = outcome(
      readAll(connector, 'me.get', {
        input: {},
        connection: { id: 'conn-1', baseUrl: rig.api.url },
        credential: () => credential,
        transport,
        signal: cancel.signal,
      }),
    );
    const waiting = outcome(callMe(connector, transport, rig, credential));
    await held.reached();
    cancel.abort();
    expect(await cancelled).toMatchObject({ code: 'cancelled' });
    held.release();
    expect(await waiting).toBe('ok');
    expect(rig.auth.counts.token.refresh_token).toBe(1);
  });

  it('invalid_grant is credentials_expired, never retried', async () => {
    const connector = rigConnector(rig, 'code');
    const tokens = await expiredSet();
    rig.auth.fault({ kind: 'invalid_grant' });
    const failed = await outcome(
      callMe(connector, transport, rig, { ...native(), tokens }).then(undefined, (error) => {
        throw error;
      }),
    );
    expect(failed).toMatchObject({ code: 'credentials_expired', retryable: false });
    expect(rig.auth.counts.token.refresh_token).toBe(1);
  });
});

describe('provider quirks', () => {
  it.each(['no_token_type', 'expires_in_string'] as const)('%s is read as RFC 6749 means it', async (kind) => {
    const connector = rigConnector(rig, 'code');
    const tokens = await expiredSet();
    rig.auth.fault({ kind }, { times: 1 });
    expect(await outcome(callMe(connector, transport, rig, { ...native(), tokens }))).toBe('ok');
    expect((await store.read('conn-1'))?.tokens).toMatchObject({
      tokenType: 'Bearer',
      expiresAt: clock.now() + 600_000,
    });
  });

  it('client auth in the body', async () => {
    const base = rigConnector(rig, 'client');
    const scheme = base.auth[0]!;
    const connector = { ...base, auth: [{ ...scheme, clientAuth: 'body' as const }] } as typeof base;
    const { clientId, clientSecret } = rig.auth.clients.post;
    const credential = { clientId, clientSecret, tokens: { accessToken: 'none-yet-0000', expiresAt: 0 } };
    expect(await outcome(callMe(connector, transport, rig, credential))).toBe('ok');
    expect(rig.auth.counts.token.client_credentials).toBe(1);
  });
});

describe('secrets', () => {
  it('no token, secret or code in a log line, an error or an event', async () => {
    const seen: unknown[] = [];
    const names = ['request:start', 'request:end', 'exchange:start', 'exchange:end', 'retry', 'refused', 'budget:wait'];
    const listener = (message: unknown) => void seen.push(message);
    for (const name of names) subscribe(`plugboard:http:${name}`, listener);
    const secrets: string[] = [];
    const answers = rig.auth.onTokenAnswer(() => undefined);
    try {
      const log: LogEntry[] = [];
      const connector = rigConnector(rig, 'code');
      const tokens = await expiredSet();
      secrets.push(tokens.accessToken, tokens.refreshToken!);
      const credential = { ...native(), tokens };
      expect(await outcome(callMe(connector, transport, rig, credential, log))).toBe('ok');
      rig.api.refuse(2);
      const changed = await outcome(callMe(connector, transport, rig, credential, log));
      rig.auth.fault({ kind: 'invalid_grant' });
      await clock.advance(601_000);
      const expired = await outcome(callMe(connector, transport, rig, credential, log));
      const stored = await store.read('conn-1');
      secrets.push(stored!.tokens.accessToken, stored!.tokens.refreshToken!);
      const client = rigConnector(rig, 'client');
      const { clientId, clientSecret } = rig.auth.clients.basic;
      secrets.push(clientSecret);
      expect(
        await outcome(
          callMe(
            client,
            transport,
            rig,
            { clientId, clientSecret, tokens: { accessToken: 'none-yet-0000' } },
            log,
            'c2',
          ),
        ),
      ).toBe('ok');
      secrets.push((await store.read('c2'))!.tokens.accessToken);
      const text = JSON.stringify([seen, log, String(changed), String(expired), (changed as Error).message]);
      expect(seen.length).toBeGreaterThan(0);
      for (const secret of secrets) expect(text).not.toContain(secret);
    } finally {
      answers();
      for (const name of names) unsubscribe(`plugboard:http:${name}`, listener);
    }
  });
});

describe('a run elsewhere: the token source the host keeps (connectionTokenSource, RunSettings.tokens)', () => {
  it("a run given the host's source uses it: an expired access part without a refresh token, one refresh shared with the host's own runs", async () => {
    const connector = rigConnector(rig, 'code');
    const tokens = await expiredSet();
    const host = connectionTokenSource({
      connector: connector.key,
      scheme: connector.auth[0]!,
      connectionId: 'conn-1',
      environment: 'sandbox',
      credential: { ...native(), tokens },
      transport,
      redactor: new Redactor(),
    });
    const elsewhere = { ...native(), tokens: { accessToken: tokens.accessToken, expiresAt: tokens.expiresAt } };
    // The run's own transport, whose lifecycle it does not use: as a plugin's process has.
    const own = rigTransport(clock, {});
    // A host's run, as a plugin's process makes it: prepared, through the gate, then run with the host's settings.
    const prepared = prepareRun(connector, 'me.get', { input: {}, connection: { id: 'conn-1', baseUrl: rig.api.url } });
    const run = (async () => {
      const pages = runPrepared(passGate(prepared, undefined, clock.now()), {
        credential: () => elsewhere,
        tokens: host,
        transport: own,
        retry: { retries: 0 },
      });
      for await (const page of pages) expect(page.records).toHaveLength(1);
    })();
    expect(await outcome(run.finally(() => own.close()))).toBe('ok');
    // The host's own run on the connection shares the set the source refreshed into the host's store.
    expect(await outcome(callMe(connector, transport, rig, { ...native(), tokens }))).toBe('ok');
    expect(rig.auth.counts.token.refresh_token).toBe(1);
    expect((await store.read('conn-1'))?.tokens.refreshToken).not.toBe(tokens.refreshToken);
  });

  it('refuses a scheme that is not OAuth2, and a credential without a token set, naming what is wrong', () => {
    const connector = rigConnector(rig, 'code');
    const request = {
      connector: connector.key,
      connectionId: 'conn-1',
      environment: 'sandbox' as const,
      transport,
      redactor: new Redactor(),
    };
    expect(() =>
      connectionTokenSource({ ...request, scheme: { id: 'bearer', type: 'bearer' }, credential: native() }),
    ).toThrow(/auth scheme 'bearer' is not an OAuth2 scheme/);
    expect(() => connectionTokenSource({ ...request, scheme: connector.auth[0]!, credential: native() })).toThrow(
      expect.objectContaining({ code: 'invalid_connection', message: expect.stringContaining('needs tokens') }),
    );
    expect(rig.auth.counts.token.refresh_token).toBe(0);
  });
});
