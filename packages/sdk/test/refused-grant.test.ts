import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ManualClock, manualClock } from '../src/clock.js';
import type { ConnectorError, LogEntry, TokenSet, Transport } from '../src/index.js';
import { type CredentialStore, memoryCredentialStore } from '../src/tokens.js';
import { type OAuthRig, startOAuthRig } from './support/oauth.js';
import { callMe, revokedGrant, rigConnector, rigTransport, signedIn } from './support/oauth-connector.js';

/**
 * A refresh token the provider refused (`invalid_grant`, the grant revoked at the real
 * authorization server) is sent once: the refusal is remembered in the process and in the
 * credential store, and every run on the set fails `credentials_expired` without sending
 * anything, until a new set is written to the store.
 */

let clock: ManualClock;
let rig: OAuthRig;
let store: CredentialStore;
const transports: Transport[] = [];
const native = () => ({ clientId: rig.auth.clients.native.clientId });
const digest = (text: string) => createHash('sha256').update(text).digest('hex');

beforeEach(async () => {
  clock = manualClock();
  rig = await startOAuthRig({ clock, accessTokenTtl: 600 });
  store = memoryCredentialStore();
});

afterEach(async () => {
  for (const transport of transports.splice(0)) await transport.close();
  await rig.stop();
});

/** A transport of its own (as another process has) on the test's store. */
function transportOnStore(): Transport {
  const transport = rigTransport(clock, { store });
  transports.push(transport);
  return transport;
}

/** `count` runs at once on `tokens`, each one's failure or 'ok'. */
async function runs(transport: Transport, tokens: TokenSet, count: number): Promise<Array<ConnectorError | 'ok'>> {
  const connector = rigConnector(rig, 'code');
  const one = () =>
    callMe(connector, transport, rig, { ...native(), tokens }).then(
      () => 'ok' as const,
      (error: unknown) => error as ConnectorError,
    );
  return clock.runUntil(Promise.all(Array.from({ length: count }, one)));
}

/** The set of a revoked grant in the store; `expired`: moved past its expiry, so that every run needs a refresh first. */
async function seedRevoked(expired: boolean): Promise<TokenSet> {
  const tokens = await revokedGrant(rig, clock.now());
  if (expired) await clock.advance(601_000);
  expect(await store.compareAndSet('conn-1', undefined, tokens)).toBe(true);
  return tokens;
}

/** Refresh requests the token endpoint received, and calls the API received. */
function sent() {
  return { refreshes: rig.auth.counts.token.refresh_token, api: rig.api.counts.accepted + rig.api.counts.refused };
}

const refused = { code: 'credentials_expired', retryable: false };

describe('a refresh token the provider refused, in one process', () => {
  it('20 runs at once on an expired set: the token endpoint receives it once, every run fails credentials_expired; a later run sends nothing', async () => {
    const tokens = await seedRevoked(true);
    const before = sent();
    const transport = transportOnStore();
    const results = await runs(transport, tokens, 20);
    expect(results).toEqual(Array.from({ length: 20 }, () => expect.objectContaining(refused)));
    expect(sent()).toEqual({ refreshes: before.refreshes + 1, api: before.api });

    const [later] = await runs(transport, tokens, 1);
    expect(sent()).toEqual({ refreshes: before.refreshes + 1, api: before.api });
    expect(later).toMatchObject(refused);
    expect((later as Error).message).toMatch(/refused .*invalid_grant.*nothing was sent/);
  });

  it('20 runs at once, each meeting a 401: the token endpoint receives it once, every run fails credentials_expired; a later run sends nothing', async () => {
    const tokens = await seedRevoked(false);
    const before = sent();
    rig.api.refuse(20);
    const transport = transportOnStore();
    const results = await runs(transport, tokens, 20);
    expect(results).toEqual(Array.from({ length: 20 }, () => expect.objectContaining(refused)));
    expect(sent().refreshes).toBe(before.refreshes + 1);

    const calls = sent();
    expect(await runs(transport, tokens, 1)).toEqual([expect.objectContaining(refused)]);
    expect(sent()).toEqual(calls);
  });
});

describe('a refresh token the provider refused, in the credential store', () => {
  it('is marked by its SHA-256 digest, never copied: another transport on the store (another process) sends nothing', async () => {
    const tokens = await seedRevoked(true);
    const before = sent();
    await runs(transportOnStore(), tokens, 1);
    const stored = await store.read('conn-1');
    expect(stored?.tokens).toEqual({ ...tokens, refreshRefused: digest(tokens.refreshToken!) });
    expect(JSON.stringify(stored).split(tokens.refreshToken!)).toHaveLength(2);

    const results = await runs(transportOnStore(), tokens, 20);
    expect(results).toEqual(Array.from({ length: 20 }, () => expect.objectContaining(refused)));
    expect(sent()).toEqual({ refreshes: before.refreshes + 1, api: before.api });
  });

  it('a store that does not take the mark: this process still sends nothing again, and its log says so', async () => {
    const tokens = await seedRevoked(true);
    const before = sent();
    const failing: CredentialStore = {
      read: (id) => store.read(id),
      compareAndSet: (id, expected, next) =>
        'refreshRefused' in next ? Promise.reject(new Error('store offline')) : store.compareAndSet(id, expected, next),
    };
    const transport = rigTransport(clock, { store: failing });
    transports.push(transport);
    const log: LogEntry[] = [];
    const connector = rigConnector(rig, 'code');
    const failed = callMe(connector, transport, rig, { ...native(), tokens }, log).catch((error: unknown) => error);
    expect(await clock.runUntil(failed)).toMatchObject(refused);
    expect(log).toContainEqual(
      expect.objectContaining({
        level: 'warn',
        message: expect.stringContaining('did not take the mark'),
        error: 'store offline',
      }),
    );
    expect((await store.read('conn-1'))?.tokens).toEqual(tokens);
    expect(await runs(transport, tokens, 3)).toEqual(Array.from({ length: 3 }, () => expect.objectContaining(refused)));
    expect(sent()).toEqual({ refreshes: before.refreshes + 1, api: before.api });
  });

  it('once a new set is written (a sign-in), it is refreshed again, by this process and another', async () => {
    const tokens = await seedRevoked(true);
    const first = transportOnStore();
    const other = transportOnStore();
    await runs(first, tokens, 1);
    await runs(other, tokens, 1);
    const before = sent();

    const signed = await signedIn(rig, clock.now());
    const renewed = { ...signed, expiresAt: clock.now() - 1 };
    expect(await store.compareAndSet('conn-1', await store.read('conn-1'), renewed)).toBe(true);
    expect(await runs(first, tokens, 5)).toEqual(Array.from({ length: 5 }, () => 'ok'));
    expect(await runs(other, tokens, 5)).toEqual(Array.from({ length: 5 }, () => 'ok'));
    expect(sent()).toEqual({ refreshes: before.refreshes + 1, api: before.api + 10 });
    const stored = await store.read('conn-1');
    expect(stored?.tokens.refreshToken).not.toBe(signed.refreshToken);
    expect(stored?.tokens).not.toHaveProperty('refreshRefused');
  });
});
