import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AuthenticationError,
  CredentialsExpiredError,
  type OAuth2Credential,
  ProviderUnavailableError,
  type TokenSet,
  type Transport,
} from '@plugboard/sdk';
import {
  type CredentialStore,
  createExecutor,
  createHostTransport,
  type ManualClock,
  manualClock,
  memoryCredentialStore,
} from '@plugboard/sdk/host';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest';
// The SDK's own test rig: a real authorization server that rotates refresh tokens, and a resource server.
import { type OAuthRig, startOAuthRig } from '../../sdk/test/support/oauth.js';
import { revokedGrant, signedIn } from '../../sdk/test/support/oauth-connector.js';
import { type IsolatedPlugin, PluginKilledError, startPlugin } from '../src/index.js';
import { npmFolder, type PluginFolder } from './support/plugins.js';

/**
 * The token lifecycle of an isolated plugin's OAuth2 connection stays with the host: the plugin's
 * process gets the access token part only and asks the host for the token set; the host refreshes
 * through its own transport and writes the rotated set to its own credential store.
 */

/**
 * A connector on the rig: `me.get` reads the resource server; `wire.heard` reports the names of the
 * credential's parts in every run message its process received (a plugin reading what the host sent it).
 */
function entry(rig: OAuthRig): string {
  return `
import { z } from 'zod';
import { defineAction, defineConnector, oauth2AuthorizationCode } from '@plugboard/sdk';
import { Redactor } from '@plugboard/sdk/host';
let heard = '';
process.stdin.on('data', (chunk) => { heard += chunk.toString('utf8'); });
const Me = z.object({ sub: z.string() }).meta({ id: 'RigMe' });
const Echo = z.object({ token: z.string() }).meta({ id: 'RigEcho' });
const Parts = z.object({ credential: z.array(z.string()), tokens: z.array(z.string()) }).meta({ id: 'RigParts' });
export default defineConnector({
  key: 'rigged', name: 'Rigged', version: '1.0.0', vendor: null, category: 'developer', status: 'beta',
  summary: 'OAuth2 in a plugin.',
  auth: oauth2AuthorizationCode({ tokenUrl: ${JSON.stringify(rig.auth.tokenUrl)}, authorizeUrl: ${JSON.stringify(rig.auth.authorizeUrl)}, scopes: ['items:read'] }),
  actions: [
    defineAction({ key: 'me.get', label: 'Who am I', direction: 'source', entity: Me, input: z.object({}),
      async *read(ctx) { const me = await ctx.http.get('/me'); yield { records: [{ sub: me.sub ?? '' }] }; } }),
    defineAction({ key: 'me.hammer', label: 'Who am I, again and again', direction: 'source', entity: Me, input: z.object({}),
      async *read(ctx) {
        for (let attempt = 0; attempt < 1000; attempt += 1) {
          try { await ctx.http.get('/me'); } catch (error) { if (error.code !== 'credentials_changed') throw error; }
        }
        yield { records: [] };
      } }),
    defineAction({ key: 'me.many', label: 'Who am I, over a long read', direction: 'source', entity: Me, input: z.object({}),
      async *read(ctx) {
        for (let page = 0; page < 80; page += 1) yield { records: [{ sub: (await ctx.http.get('/me')).sub ?? '' }] };
      } }),
    defineAction({ key: 'token.echo', label: 'Echo', direction: 'source', entity: Echo, input: z.object({}),
      async *read(ctx) {
        // A hostile plugin: its own process's redaction turned off, the host's answer quoted.
        Redactor.prototype.containsSecretIn = () => false;
        await ctx.http.get('/me');
        const answers = heard.split('\\n').filter((line) => line.includes('"type":"tokens"')).map((line) => JSON.parse(line));
        yield { records: [{ token: answers.at(-1).tokens.accessToken }] };
      } }),
    defineAction({ key: 'wire.heard', label: 'Heard', direction: 'source', entity: Parts, input: z.object({}),
      async *read() {
        // The host's run message is read by the Plugboard process first: this one's turn comes after.
        await new Promise((resolve) => setImmediate(resolve));
        const runs = heard.split('\\n').filter((line) => line.includes('"type":"run"')).map((line) => JSON.parse(line));
        yield { records: runs.map((run) => ({ credential: Object.keys(run.credential).sort(), tokens: Object.keys(run.credential.tokens ?? {}).sort() })) };
      } }),
  ],
});
`;
}

let rig: OAuthRig;
let folder: PluginFolder;
let clock: ManualClock;
let store: CredentialStore;
const opened: Array<{ close(): Promise<void> }> = [];

beforeAll(async () => {
  clock = manualClock(Date.now());
  rig = await startOAuthRig({ clock, accessTokenTtl: 600 });
  folder = await npmFolder([{ name: 'connector-rigged', entry: entry(rig) }]);
});
afterAll(async () => {
  await folder?.cleanup();
  await rig?.stop();
});
beforeEach(() => {
  store = memoryCredentialStore();
});
afterEach(async () => {
  for (const one of opened.splice(0)) await one.close();
});

/** A new plugin process and a new host transport on the host's store: nothing is shared but the store. */
async function host(credential: () => Promise<OAuth2Credential>, baseUrl = rig.api.url, lockFolder?: string) {
  const plugin: IsolatedPlugin = await startPlugin(
    { dir: join(folder.modules, 'connector-rigged') },
    { allow: ['127.0.0.0/8'] },
  );
  const transport: Transport = createHostTransport({
    clock,
    network: { allow: ['127.0.0.0/8'] },
    credentials: { store, ...(lockFolder ? { lockFolder } : {}) },
  });
  opened.push(plugin, transport);
  const executor = createExecutor({
    plugins: [{ package: plugin.package, runner: plugin.runner }],
    resolveConnection: (id) => ({ id, baseUrl }),
    resolveCredential: credential,
    transport,
    clock,
    retry: { retries: 0 },
  });
  const run = async (action = 'me.get') => {
    const pages: unknown[] = [];
    await executor.execute({
      connectorKey: 'rigged',
      action,
      connectionId: 'conn-1',
      onPage: (page) => void pages.push(page),
    });
    return pages as Array<{ records: unknown[] }>;
  };
  return { plugin, run };
}

/** The host's credential: the client and the set its store holds now, as a host's resolver gives it. */
function fromStore() {
  return async () => ({ clientId: rig.auth.clients.native.clientId, tokens: (await store.read('conn-1'))!.tokens });
}

async function seed(tokens: TokenSet): Promise<TokenSet> {
  expect(await store.compareAndSet('conn-1', undefined, tokens)).toBe(true);
  return tokens;
}

describe('an isolated plugin on an OAuth2 connection', () => {
  test('an expired set: one refresh, written to the host store; a new plugin process then uses it without another', async () => {
    const seeded = await seed({ ...(await signedIn(rig, clock.now())), expiresAt: 0 });
    const refreshes = rig.auth.counts.token.refresh_token;

    const first = await host(fromStore());
    expect((await first.run())[0]!.records).toEqual([{ sub: expect.any(String) }]);
    expect(rig.auth.counts.token.refresh_token).toBe(refreshes + 1);
    const stored = await store.read('conn-1');
    expect(stored?.version).toBe(2);
    expect(stored?.tokens.refreshToken).toBeDefined();
    expect(stored?.tokens.refreshToken).not.toBe(seeded.refreshToken);

    const second = await host(fromStore());
    expect((await second.run())[0]!.records).toEqual([{ sub: expect.any(String) }]);
    expect(rig.auth.counts.token.refresh_token).toBe(refreshes + 1);
    expect(rig.auth.counts.refreshReuse).toBe(0);
  }, 30_000);

  test('two hosts sharing the store and a lock folder, each with its own plugin process: one refresh for both runs', async () => {
    const seeded = await seed({ ...(await signedIn(rig, clock.now())), expiresAt: 0 });
    const refreshes = rig.auth.counts.token.refresh_token;
    const locks = await mkdtemp(join(tmpdir(), 'plugboard-locks-'));
    try {
      const [one, two] = await Promise.all([
        host(fromStore(), rig.api.url, locks),
        host(fromStore(), rig.api.url, locks),
      ]);
      // The loser waits for the lease on the hosts' clock: the test moves it while the runs are under way.
      const pages = await clock.runUntil(Promise.all([one.run(), two.run()]));
      expect(pages.map((page) => page[0]!.records)).toEqual([
        [{ sub: expect.any(String) }],
        [{ sub: expect.any(String) }],
      ]);
      expect(rig.auth.counts.token.refresh_token).toBe(refreshes + 1);
      expect(rig.auth.counts.refreshReuse).toBe(0);
      expect((await store.read('conn-1'))?.tokens.refreshToken).not.toBe(seeded.refreshToken);
    } finally {
      await rm(locks, { recursive: true, force: true });
    }
  }, 30_000);

  test("the plugin's process never receives the refresh token or the client secret", async () => {
    await seed(await signedIn(rig, clock.now()));
    const refreshes = rig.auth.counts.token.refresh_token;
    const { run } = await host(async () => ({ ...(await fromStore()()), clientSecret: 'host-only-client-secret' }));
    const [page] = await run('wire.heard');
    expect(page!.records).toEqual([
      { credential: ['clientId', 'tokens'], tokens: ['accessToken', 'expiresAt', 'tokenType'] },
    ]);
    expect(rig.auth.counts.token.refresh_token).toBe(refreshes);
  }, 30_000);

  test("a set the host's store holds, not the one its resolver gave, is hidden from what the plugin sends back too", async () => {
    const written = await seed(await signedIn(rig, clock.now()));
    const resolved = await signedIn(rig, clock.now());
    const { run } = await host(async () => ({ clientId: rig.auth.clients.native.clientId, tokens: resolved }));
    const pages = await run('token.echo');
    expect(pages).toEqual([{ records: [{ token: expect.any(String) }] }]);
    expect(JSON.stringify(pages)).not.toContain(written.accessToken);
  }, 30_000);

  test('a 401: the host refreshes once into its store, and the request is sent again once', async () => {
    const seeded = await seed(await signedIn(rig, clock.now()));
    const refreshes = rig.auth.counts.token.refresh_token;
    const refused = rig.api.counts.refused;
    const { run } = await host(fromStore());
    rig.api.refuse(1);
    expect((await run())[0]!.records).toEqual([{ sub: expect.any(String) }]);
    expect(rig.api.counts.refused).toBe(refused + 1);
    expect(rig.auth.counts.token.refresh_token).toBe(refreshes + 1);
    const stored = await store.read('conn-1');
    expect(stored?.version).toBe(2);
    expect(stored?.tokens.refreshToken).not.toBe(seeded.refreshToken);
  }, 30_000);

  test('the token endpoint refusing the refresh (invalid_grant): the caller gets credentials_expired, typed', async () => {
    const seeded = await seed({ ...(await signedIn(rig, clock.now())), expiresAt: 0 });
    const { run } = await host(fromStore());
    const fault = rig.auth.fault({ kind: 'invalid_grant' }, { times: 1 });
    const failure = await run().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(CredentialsExpiredError);
    expect((failure as CredentialsExpiredError).code).toBe('credentials_expired');
    expect(fault.served).toBe(1);
    // The same set, marked with its refused refresh token's digest.
    const refreshRefused = createHash('sha256').update(seeded.refreshToken!).digest('hex');
    expect(await store.read('conn-1')).toEqual({ version: 2, tokens: { ...seeded, refreshRefused } });
  }, 30_000);

  test('the token endpoint down: a retryable provider_unavailable, typed; a second 401: credentials_changed', async () => {
    await seed({ ...(await signedIn(rig, clock.now())), expiresAt: 0 });
    const { run } = await host(fromStore());
    const down = rig.auth.fault({ kind: 'status', status: 503 });
    const unavailable = await run().catch((error: unknown) => error);
    down.off();
    expect(unavailable).toBeInstanceOf(ProviderUnavailableError);
    expect((unavailable as ProviderUnavailableError).retryable).toBe(true);
    expect((await store.read('conn-1'))?.version).toBe(1);

    // The endpoint back: the run refreshes, then the provider refuses the new token too.
    rig.api.refuse(2);
    const changed = await run().catch((error: unknown) => error);
    expect(changed).toBeInstanceOf(AuthenticationError);
    expect((changed as AuthenticationError).code).toBe('credentials_changed');
    expect((await store.read('conn-1'))?.version).toBe(3);
  }, 30_000);

  test('a long run that meets a 401 now and then asks for token sets as often as it needs', async () => {
    // Every other request is refused, and each request takes a second of the host's time: 80 refusals over 160 s.
    let seen = 0;
    const flaky = createServer((_req, res) => {
      seen += 1;
      void clock
        .advance(1_000)
        .then(() =>
          seen % 2 === 1
            ? res.writeHead(401).end()
            : res.writeHead(200, { 'content-type': 'application/json' }).end('{"sub":"me"}'),
        );
    });
    await new Promise<void>((resolve) => flaky.listen(0, '127.0.0.1', resolve));
    try {
      await seed(await signedIn(rig, clock.now()));
      const { run } = await host(fromStore(), `http://127.0.0.1:${(flaky.address() as AddressInfo).port}`);
      expect((await run('me.many')).length).toBe(80);
      expect(seen).toBe(160);
    } finally {
      flaky.closeAllConnections();
      await new Promise<void>((resolve) => flaky.close(() => resolve()));
    }
  }, 60_000);

  test('a plugin that asks for more token sets than a run may is killed', async () => {
    // A provider that refuses every token: each 401 would have the host refresh again.
    const refusing = createServer((_req, res) => res.writeHead(401).end());
    await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
    try {
      await seed(await signedIn(rig, clock.now()));
      const refreshes = rig.auth.counts.token.refresh_token;
      const { run } = await host(fromStore(), `http://127.0.0.1:${(refusing.address() as AddressInfo).port}`);
      const failure = await run('me.hammer').catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(PluginKilledError);
      expect((failure as PluginKilledError).reason).toBe('forged');
      expect((failure as PluginKilledError).message).toContain('token sets');
      expect(rig.auth.counts.token.refresh_token - refreshes).toBeLessThan(64);
    } finally {
      refusing.closeAllConnections();
      await new Promise<void>((resolve) => refusing.close(() => resolve()));
    }
  }, 60_000);

  // Last: the revocation shows in the shared rig's count of reused refresh tokens.
  test('a revoked grant: 20 runs at once send its refresh token once and fail credentials_expired; a later run sends nothing; a new set is refreshed again', async () => {
    await seed({ ...(await revokedGrant(rig, clock.now())), expiresAt: 0 });
    const refreshes = rig.auth.counts.token.refresh_token;
    const { run } = await host(fromStore());
    const failures = await Promise.all(Array.from({ length: 20 }, () => run().catch((error: unknown) => error)));
    expect(failures.filter((failure) => failure instanceof CredentialsExpiredError)).toHaveLength(20);
    expect(failures).toEqual(
      Array.from({ length: 20 }, () => expect.objectContaining({ code: 'credentials_expired' })),
    );
    expect(rig.auth.counts.token.refresh_token).toBe(refreshes + 1);
    expect(await run().catch((error: unknown) => error)).toMatchObject({ code: 'credentials_expired' });
    expect(rig.auth.counts.token.refresh_token).toBe(refreshes + 1);

    // As a sign-in writes a new set over the refused one.
    const signed = { ...(await signedIn(rig, clock.now())), expiresAt: 0 };
    expect(await store.compareAndSet('conn-1', await store.read('conn-1'), signed)).toBe(true);
    expect((await run())[0]!.records).toEqual([{ sub: expect.any(String) }]);
    expect(rig.auth.counts.token.refresh_token).toBe(refreshes + 2);
  }, 30_000);
});
